import CSDL2
import Interaction
import RFB
import VNCSession

extension ViewerWindow {
    /// Session events about the server's input side (to the remote-input controller), its
    /// power control and QEMU's sound.
    func remoteInputEvent(_ ev: EngineEvent) {
        switch ev {
        case .lockLights(let l):
            remoteInput.lightsChanged(l, localLocks: localLocks)
        case .pointerMode(let relative):
            if remoteInput.pointerModeChanged(relative: relative) {
                router.ui.audioOffered = true
                // only QEMU takes the audio messages: another server would end the connection
                if audioWanted { session.setAudio(true) }
            }
        case .powerControl(let available):
            router.ui.powerControl = available && !viewOnly
        case .powerControlFailed:
            showNotice("The server could not carry out the power action")
        case .audioData(let samples):
            guard audioWanted else { break }
            audioPlayer.play(samples)
            if let f = audioPlayer.takeFailure() { showNotice("Sound: \(f)") }
        case .audioEnded:
            break
        default: break
        }
    }

    /// The local Caps and Num Lock while the window has the keyboard; nil otherwise.
    var localLocks: (caps: Bool, num: Bool)? {
        guard let window, SDL_GetKeyboardFocus() == window else { return nil }
        let mod = SDL_GetModState().rawValue
        return (mod & KMOD_CAPS.rawValue != 0, mod & KMOD_NUM.rawValue != 0)
    }

    /// The menu's Sound entry (QEMU only).
    func toggleAudio() {
        audioWanted.toggle()
        session.setAudio(audioWanted)
        if !audioWanted { audioPlayer.stop() }
        showNotice(audioWanted ? "Sound on" : "Sound off")
    }
}
