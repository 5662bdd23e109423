/// What the viewer's own controls may change: one check, asked by the menu (which entries it
/// shows) and by every shortcut, key or gesture that stands for an entry, so a kiosk locks them
/// all alike. A desktop viewer has everything open; `farcast kiosk` locks the menu (or puts it
/// behind a PIN) and offers screenshots and recording only when kiosk.conf says so.
public struct ControlLock: Equatable, Sendable {
    /// Whether the menu opens: freely, never, or after the PIN.
    public var menu: MenuLock
    /// Screenshots (the menu's entry, Ctrl+Alt+S).
    public var screenshots: Bool
    /// Recording the session (the menu's entry, Ctrl+Alt+R); never while playing one back.
    public var recording: Bool

    public init(menu: MenuLock = .open, screenshots: Bool = true, recording: Bool = true) {
        self.menu = menu; self.screenshots = screenshots; self.recording = recording
    }

    /// How an action is asked for: from the open menu (so its lock was passed: open, or the
    /// PIN typed), or by a shortcut, key or gesture (which has no PIN to ask).
    public enum Route: Equatable, Sendable { case menu, shortcut }

    public func allows(_ action: MenuAction, via route: Route) -> Bool {
        switch action {
        case .toggleKeyboard, .sendCtrlAltDel, .sendF8, .resetZoom:
            // input for the desktop (and the view a pinch changes): a kiosk gives these to
            // whoever stands at it, as it gives its touch screen
            return true
        case .screenshot where !screenshots, .toggleRecording where !recording:
            return false
        default:
            return route == .menu || menu == .open
        }
    }
}
