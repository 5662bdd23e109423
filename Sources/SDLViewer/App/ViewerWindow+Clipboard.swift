import CSDL2
import Foundation
import RFB

/// The clipboard bridge's window side: on X11 our own selection reader (its thread, its wake-up
/// event, its teardown), and the notice for a text refused for size.
extension ViewerWindow {
    /// Main thread, once the window exists. Elsewhere than X11, or when its display cannot be
    /// reached, the bridge keeps SDL's reading calls.
    func startSelectionReader(_ bridge: ClipboardBridge) {
        guard bridge.direction.sends, String(cString: SDL_GetCurrentVideoDriver()) == "x11" else { return }
        let wake = WakeSignal(eventType: SDL_RegisterEvents(1))
        guard let reader = X11SelectionReader(display: nil, sdlWindow: sdlX11Window(), selections: bridge.selections,
                                              cap: session.settings.clipboardByteLimit, notify: { wake.signal() })
        else {
            log("clipboard: no X connection of our own; reading the local clipboard through SDL")
            return
        }
        log("clipboard: reading local selections on our own X connection (change notification: \(reader.watching ? "XFixes" : "none, on focus only"))")
        readerWake = wake
        bridge.reader = reader
        reader.start()
    }

    /// The SDL window's X id (its connection's windows, the clipboard one too, share its client part).
    func sdlX11Window() -> UInt32? {
        var info = SDL_SysWMinfo()
        info.version = SDL_version(major: UInt8(SDL_MAJOR_VERSION), minor: UInt8(SDL_MINOR_VERSION), patch: UInt8(SDL_PATCHLEVEL))
        guard let window, SDL_GetWindowWMInfo(window, &info) == SDL_TRUE, info.subsystem == SDL_SYSWM_X11 else { return nil }
        return UInt32(truncatingIfNeeded: info.info.x11.window)
    }

    /// The reader's wake-up: what it read goes through the bridge; true when a notice went up.
    func selectionsRead() -> Bool {
        readerWake?.acknowledge()
        guard let clipboard else { return false }
        var shown = false
        for ev in clipboard.takeReads() { clipboardRefused(ev); shown = true }
        return shown
    }

    /// Main thread, in teardown: the reader's thread ends and its connection closes.
    func stopSelectionReader() {
        guard let reader = clipboard?.reader else { return }
        if !reader.stop() { log("clipboard: the selection reader did not end in time") }
        clipboard?.reader = nil
        readerWake = nil
    }

    /// A clipboard text refused for size (by the engine or the reader): logged and shown.
    func clipboardRefused(_ ev: EngineEvent) {
        switch ev {
        case .cutTextSkipped(let n):
            log("clipboard: the server's text of \(n) bytes is over the clipboard limit; not taken")
        case .cutTextNotSent(let n, let limit):
            log("clipboard: local text of \(n) bytes is over the \(limit)-byte limit; not sent")
        default:
            return
        }
        showNotice(ViewerWindow.clipboardNotice(ev))
    }
}
