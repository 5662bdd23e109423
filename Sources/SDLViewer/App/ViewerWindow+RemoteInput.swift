import CSDL2
import Interaction
import RFB
import VNCSession

/// The input controller's RFB input goes straight to the session.
extension Session: InputSink {}

/// What the server told us about its input side: its lock lights, whether its pointer is
/// relative (QEMU with a PS/2 mouse), and whether it can power its machine (xvp).
struct RemoteInputState {
    var lights: LockLights?
    /// A lock key was sent to bring the server in step; the next lights report is awaited.
    var lockSyncPending = false
    var relative = false
    var captured = false
    var buttons: UInt16 = 0
    var relativeNoticeShown = false
    /// The server is QEMU (it sent its pointer mode): audio may be asked of it.
    var isQEMU = false
    var audioFailureShown = false
}

extension ViewerWindow {
    /// Session events about the server's input side.
    func remoteInputEvent(_ ev: EngineEvent) {
        switch ev {
        case .lockLights(let l):
            remoteInput.lights = l
            remoteInput.lockSyncPending = false
            syncLockKeys()
        case .pointerMode(let relative):
            if relative != remoteInput.relative { log("pointer: the remote pointer is \(relative ? "relative (a click captures it)" : "absolute")") }
            remoteInput.relative = relative
            if !remoteInput.isQEMU {
                remoteInput.isQEMU = true
                router?.ui.audio = audioWanted
                // only QEMU takes the audio messages: another server would end the connection
                if audioWanted { session.setAudio(true) }
            }
            if !relative { releasePointer() }
            if relative && !remoteInput.relativeNoticeShown && !viewOnly {
                remoteInput.relativeNoticeShown = true
                showNotice("The remote machine's pointer is relative: click to capture it, Ctrl+Alt+G releases it")
            }
        case .powerControl(let available):
            router?.ui.powerControl = available && !viewOnly
        case .powerControlFailed:
            showNotice("The server could not carry out the power action")
        case .audioData(let samples):
            guard audioWanted else { break }
            audioPlayer.play(samples)
            if let f = audioPlayer.failure, !remoteInput.audioFailureShown {
                remoteInput.audioFailureShown = true
                showNotice("Sound: \(f)")
            }
        case .audioEnded:
            break
        default: break
        }
    }

    /// The server's Caps and Num Lock follow the local keyboard's (so a typed capital is a
    /// capital): a differing one is toggled with its key, once per lights report.
    func syncLockKeys() {
        guard !viewOnly, let l = remoteInput.lights, !remoteInput.lockSyncPending,
              let window, SDL_GetKeyboardFocus() == window else { return }
        let mod = SDL_GetModState().rawValue
        let caps = mod & KMOD_CAPS.rawValue != 0, num = mod & KMOD_NUM.rawValue != 0
        for (local, remote, sym, xt) in [(caps, l.caps, UInt32(0xffe5), UInt32(0x3a)), (num, l.num, UInt32(0xff7f), UInt32(0x45))]
        where local != remote {
            session.sendKey(sym, down: true, xtKeycode: xt)
            session.sendKey(sym, down: false, xtKeycode: xt)
            remoteInput.lockSyncPending = true
        }
    }

    /// The menu's Sound entry (QEMU only).
    func toggleAudio() {
        audioWanted.toggle()
        router?.ui.audio = audioWanted
        session.setAudio(audioWanted)
        if !audioWanted { audioPlayer.stop() }
        showNotice(audioWanted ? "Sound on" : "Sound off")
    }

    func powerAction(_ a: XvpAction) {
        session.sendPowerAction(a)
        let what = a == .shutdown ? "shut down" : a == .reboot ? "reboot" : "reset"
        showNotice("Asked the remote machine to \(what)")
    }

    func releasePointer() {
        guard remoteInput.captured else { return }
        remoteInput.captured = false
        SDL_SetRelativeMouseMode(SDL_FALSE)
        log("pointer: released")
    }

    /// With a relative remote pointer: a click captures the pointer (and is not sent); while
    /// captured, motion goes as deltas, buttons and wheel with them, Ctrl+Alt+G releases.
    /// Returns nil for events it does not take.
    func relativePointerEvent(_ e: SDL_Event) -> Bool? {
        guard remoteInput.relative, !viewOnly, router?.ui.menu == nil, prompt == nil else { return nil }
        switch e.type {
        case SDL_MOUSEBUTTONDOWN.rawValue where e.button.which != SDLInput.touchMouseID && !remoteInput.captured:
            remoteInput.captured = true
            SDL_SetRelativeMouseMode(SDL_TRUE)
            log("pointer: captured (Ctrl+Alt+G releases it)")
            showNotice("Pointer captured — Ctrl+Alt+G releases it")
            return true
        case SDL_MOUSEMOTION.rawValue where remoteInput.captured && e.motion.which != SDLInput.touchMouseID:
            session.sendRelativePointer(dx: Int(e.motion.xrel), dy: Int(e.motion.yrel), buttons: remoteInput.buttons)
            return false
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            guard remoteInput.captured, e.button.which != SDLInput.touchMouseID else { return nil }
            let bit: UInt16 = switch Int32(e.button.button) {
            case SDL_BUTTON_LEFT: 1
            case SDL_BUTTON_MIDDLE: 2
            case SDL_BUTTON_RIGHT: 4
            default: 0
            }
            if e.type == SDL_MOUSEBUTTONDOWN.rawValue { remoteInput.buttons |= bit } else { remoteInput.buttons &= ~bit }
            session.sendRelativePointer(dx: 0, dy: 0, buttons: remoteInput.buttons)
            return false
        case SDL_MOUSEWHEEL.rawValue where remoteInput.captured:
            let bit: UInt16 = e.wheel.y > 0 ? 8 : e.wheel.y < 0 ? 16 : 0
            guard bit != 0 else { return false }
            session.sendRelativePointer(dx: 0, dy: 0, buttons: remoteInput.buttons | bit)
            session.sendRelativePointer(dx: 0, dy: 0, buttons: remoteInput.buttons)
            return false
        case SDL_KEYDOWN.rawValue where remoteInput.captured:
            let mod = UInt32(e.key.keysym.mod)
            guard e.key.keysym.scancode == SDL_SCANCODE_G, mod & UInt32(KMOD_CTRL.rawValue) != 0,
                  mod & UInt32(KMOD_ALT.rawValue) != 0 else { return nil }
            releasePointer()
            showNotice("Pointer released — click to capture it again")
            return true
        default:
            return nil
        }
    }
}
