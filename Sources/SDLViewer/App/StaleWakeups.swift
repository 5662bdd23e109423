import CXCB

/// SDL wakes a waiting main loop by sending a ClientMessage to its window from an X connection
/// of its own. A wake-up pushed from another thread just as the window closes reaches the X
/// server after the window is gone: BadWindow, which Xlib's default handler answers with
/// exit(1) when SDL closes that connection (1 window close in a few hundred under Xvfb, seen
/// by the shutdown test). That error, and only that one, is ignored; every other goes to the
/// handler that was there before (SDL's, or Xlib's).
enum StaleWakeups {
    nonisolated(unsafe) private static var previous: XErrorHandler?
    nonisolated(unsafe) private static var installed = false

    /// Main thread, before SDL_Init: SDL keeps the handler it finds, chains to it, and puts it
    /// back before it closes its X connections (when the stale wake-up's error is read).
    static func ignore() {
        if installed { return }
        installed = true
        previous = XSetErrorHandler { display, error in
            guard let error else { return 0 }
            if error.pointee.error_code == UInt8(BadWindow) && error.pointee.request_code == 25 /* X_SendEvent */ { return 0 }
            return StaleWakeups.previous?(display, error) ?? 0
        }
    }
}
