import CSDL2
import Foundation
import RFB

/// The clipboard bridge's window side: our own selection reader on X11 and Wayland (its threads,
/// its wake-up event, its teardown), and the notice for a text refused for size.
extension ViewerWindow {
    /// Main thread, once the window exists: the one place that picks who reads (and on Wayland
    /// sets) the local selections, by video driver. X11: our own XCB reader; Wayland: our own data
    /// devices; elsewhere, or when ours cannot start, SDL's calls.
    func startSelectionReader(_ bridge: ClipboardBridge) {
        let driver = String(cString: SDL_GetCurrentVideoDriver())
        switch driver {
        case "x11" where bridge.direction.sends: startX11SelectionReader(bridge)
        case "wayland" where bridge.direction != .off: startWaylandSelections(bridge)
        default: log("clipboard: through SDL's calls (video driver \(driver))")
        }
    }

    private func startX11SelectionReader(_ bridge: ClipboardBridge) {
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

    private func startWaylandSelections(_ bridge: ClipboardBridge) {
        var info = SDL_SysWMinfo()
        info.version = SDL_version(major: UInt8(SDL_MAJOR_VERSION), minor: UInt8(SDL_MINOR_VERSION), patch: UInt8(SDL_PATCHLEVEL))
        guard let window, SDL_GetWindowWMInfo(window, &info) == SDL_TRUE, info.subsystem == SDL_SYSWM_WAYLAND,
              let display = info.info.wl.display
        else {
            log("clipboard: no Wayland display from SDL; through SDL's calls")
            return
        }
        let wake = WakeSignal(eventType: SDL_RegisterEvents(1))
        guard let sel = WaylandSelections(display: display, selections: bridge.selections,
                                          cap: session.settings.clipboardByteLimit, watching: bridge.direction.sends,
                                          notify: { wake.signal() }, log: { [session] in session.log($0) })
        else {
            log("clipboard: the compositor has no seat or data device manager; through SDL's calls")
            return
        }
        log("clipboard: our own Wayland data devices (wl_data_device\(sel.hasPrimary ? ", zwp_primary_selection_v1" : "; no primary selection")), up to \(sel.cap) bytes")
        readerWake = wake
        bridge.reader = sel
        bridge.setText = { [weak sel] in
            guard let sel else { return "the Wayland selection reader is gone" }
            return sel.set($0, $1)
        }
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

    /// Main thread, in teardown: the reader's threads end and its connection (or devices) close.
    func stopSelectionReader() {
        guard let reader = clipboard?.reader else { return }
        if !reader.stop(timeout: 3) { log("clipboard: the selection reader did not end in time") }
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
