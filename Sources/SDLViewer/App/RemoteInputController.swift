import CSDL2
import Interaction
import RFB
import VNCSession

/// What the remote-input controller sends to: the session in the viewer, a recording double in
/// tests. Main thread.
protocol RemoteInputTarget: AnyObject {
    func sendPointer(x: Int, y: Int, buttons: UInt16)
    func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?)
    func sendRelativePointer(dx: Int, dy: Int, buttons: UInt16)
    func sendPowerAction(_ a: XvpAction)
}

extension Session: RemoteInputTarget {}

/// The input controller's output on its way to the server, and what the server told us about
/// its input side: its lock lights (the server's Caps and Num Lock follow the local keyboard's),
/// whether its pointer is relative (QEMU with a PS/2 mouse: a click captures the local pointer,
/// motion goes as deltas, Ctrl+Alt+G releases), and xvp power actions. The input controller's
/// `InputSink`. Main thread only.
final class RemoteInputController: InputSink {
    let target: RemoteInputTarget
    let viewOnly: Bool
    /// A notice for the user (the window shows it) and a log line.
    let notice: (String) -> Void
    let log: (String) -> Void

    private(set) var lights: LockLights?
    /// A lock key was sent to bring the server in step; the next lights report is awaited.
    private(set) var lockSyncPending = false
    private(set) var relative = false
    private(set) var captured = false
    /// Buttons held while captured (relative events carry the mask).
    private(set) var buttons: UInt16 = 0
    private var relativeNoticeShown = false
    /// The server is QEMU (it sent its pointer mode): audio may be asked of it.
    private(set) var isQEMU = false
    /// SDL_SetRelativeMouseMode; a test replaces it (SDL 2.26 falls back to warping on X11 and
    /// Wayland, so its -1, "no relative mode here", comes only from drivers with neither).
    var setRelativeMode: (Bool) -> Int32 = { SDL_SetRelativeMouseMode($0 ? SDL_TRUE : SDL_FALSE) }

    init(target: RemoteInputTarget, viewOnly: Bool, notice: @escaping (String) -> Void = { _ in },
         log: @escaping (String) -> Void = { _ in }) {
        self.target = target
        self.viewOnly = viewOnly
        self.notice = notice
        self.log = log
    }

    // MARK: the input controller's output

    func sendPointer(x: Int, y: Int, buttons: UInt16) { target.sendPointer(x: x, y: y, buttons: buttons) }
    func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?) { target.sendKey(keysym, down: down, xtKeycode: xtKeycode) }

    // MARK: the server's input side

    /// The server's lock lights; the local state is read when the window has the keyboard
    /// (`localLocks` nil otherwise).
    func lightsChanged(_ l: LockLights, localLocks: (caps: Bool, num: Bool)?) {
        lights = l
        lockSyncPending = false
        syncLockKeys(localLocks)
    }

    /// The server's Caps and Num Lock follow the local keyboard's (so a typed capital is a
    /// capital): a differing one is toggled with its key, once per lights report. `local` is nil
    /// while the window does not have the keyboard.
    func syncLockKeys(_ local: (caps: Bool, num: Bool)?) {
        guard !viewOnly, let l = lights, !lockSyncPending, let local else { return }
        for (mine, remote, sym, xt) in [(local.caps, l.caps, UInt32(0xffe5), UInt32(0x3a)), (local.num, l.num, UInt32(0xff7f), UInt32(0x45))]
        where mine != remote {
            target.sendKey(sym, down: true, xtKeycode: xt)
            target.sendKey(sym, down: false, xtKeycode: xt)
            lockSyncPending = true
        }
    }

    /// The server's pointer mode; true the first time (the server is QEMU: audio may be asked).
    func pointerModeChanged(relative r: Bool) -> Bool {
        if r != relative { log("pointer: the remote pointer is \(r ? "relative (a click captures it)" : "absolute")") }
        relative = r
        let first = !isQEMU
        isQEMU = true
        if !r { releasePointer() }
        if r && !relativeNoticeShown && !viewOnly {
            relativeNoticeShown = true
            notice("The remote machine's pointer is relative: click to capture it, Ctrl+Alt+G releases it")
        }
        return first
    }

    func powerAction(_ a: XvpAction) {
        target.sendPowerAction(a)
        let what = a == .shutdown ? "shut down" : a == .reboot ? "reboot" : "reset"
        notice("Asked the remote machine to \(what)")
    }

    func releasePointer() {
        guard captured else { return }
        captured = false
        _ = setRelativeMode(false)
        log("pointer: released")
    }

    /// With a relative remote pointer: a click captures the pointer (and is not sent); while
    /// captured, motion goes as deltas, buttons and wheel with them, Ctrl+Alt+G releases. Not
    /// while something covers the desktop (`overUI`: the menu, the prompt). Returns nil for
    /// events it does not take (they go to the input controller).
    func relativePointerEvent(_ e: InputEvent, overUI: Bool) -> Bool? {
        guard relative, !viewOnly, !overUI else { return nil }
        switch e {
        case .pointerButton(_, true, _) where !captured:
            captured = true
            // Wayland: pointer-constraints + relative-pointer; X11: a grab and warps. When SDL
            // has neither it says so, and the deltas then come from the free pointer's motion.
            guard setRelativeMode(true) == 0 else {
                log("pointer: captured, but SDL has no relative mode here (\(String(cString: SDL_GetError()))): the pointer stays free and may leave the window")
                notice("Pointer captured, but it cannot be locked here: it may leave the window — Ctrl+Alt+G releases it")
                return true
            }
            log("pointer: captured (Ctrl+Alt+G releases it)")
            notice("Pointer captured — Ctrl+Alt+G releases it")
            return true
        case .pointerMotion(_, let dx, let dy) where captured:
            target.sendRelativePointer(dx: Int(dx), dy: Int(dy), buttons: buttons)
            return false
        case .pointerButton(let b, let down, _):
            guard captured else { return nil }
            let bit: UInt16 = switch b {
            case .left: 1
            case .middle: 2
            case .right: 4
            default: 0
            }
            if down { buttons |= bit } else { buttons &= ~bit }
            target.sendRelativePointer(dx: 0, dy: 0, buttons: buttons)
            return false
        case .wheel(let w) where captured:
            let bit: UInt16 = w.dy > 0 ? 8 : w.dy < 0 ? 16 : 0
            guard bit != 0 else { return false }
            target.sendRelativePointer(dx: 0, dy: 0, buttons: buttons | bit)
            target.sendRelativePointer(dx: 0, dy: 0, buttons: buttons)
            return false
        case .key(let k) where captured && k.down:
            guard k.scancode == HIDUsage.g, k.modifiers.contains(.control), k.modifiers.contains(.alt) else { return nil }
            releasePointer()
            notice("Pointer released — click to capture it again")
            return true
        default:
            return nil
        }
    }
}
