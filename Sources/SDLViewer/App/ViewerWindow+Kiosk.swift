import CSDL2
import Interaction
import VNCSession

/// What a kiosk (`farcast kiosk`) changes in the window: the menu's lock, systemd's watchdog,
/// and the local cursor hidden until a real mouse moves.
public struct KioskOptions {
    public var menuLock: MenuLock = .open
    /// READY=1 once the window is up, WATCHDOG=1 from the event loop.
    public var notifier: SystemdNotifier?
    /// A touch panel has no pointer to show; a mouse plugged in brings it back.
    public var hideCursor = false
    var mouseSeen = false
    public init() {}
}

extension ViewerWindow {
    /// The video driver in use ("x11", "wayland", "kmsdrm", ...).
    static var videoDriver: String { SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "" }

    /// Without a window system the window is the display: it takes the display's own mode
    /// (a windowed request would switch KMSDRM to 1024x768 and letterbox).
    static var ownsDisplay: Bool { videoDriver.lowercased() == "kmsdrm" }  // SDL names it "KMSDRM"

    /// Every event: a real mouse moving shows the cursor again.
    func kioskSaw(_ e: SDL_Event) {
        guard kiosk.hideCursor, !kiosk.mouseSeen, e.type == SDL_MOUSEMOTION.rawValue,
              e.motion.which != InputRouter.touchMouseID else { return }
        kiosk.mouseSeen = true
        applyCursor()
    }

    var kioskHidesCursor: Bool { kiosk.hideCursor && !kiosk.mouseSeen }

    /// The longest the loop may sleep: half the watchdog interval when there is one.
    var longestWaitMs: Int32? {
        kiosk.notifier?.pingInterval.map { Int32(max(100, $0 * 500)) }
    }
}
