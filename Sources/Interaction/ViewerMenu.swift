import RFB

/// What a menu entry does when chosen.
public enum MenuAction: Equatable, Sendable {
    case toggleFullscreen
    case setScaling(ScalingMode)
    case sendCtrlAltDel
    case sendF8
    case disconnect
    case setTouchMode(TouchInputMode)
    case resetZoom
    case toggleKeyboard
    case openPicker
    /// A PNG of what is shown, into the pictures folder.
    case screenshot
    /// Start or stop recording the session (FBS) into the videos folder.
    case toggleRecording
    /// xvp: shut down, reboot or reset the remote machine.
    case power(XvpAction)
    /// QEMU's sound on or off.
    case toggleAudio
    /// The connection-info panel (encoding, quality, round trip, bandwidth) on or off.
    case toggleInfo
}

/// The F8 menu (like vncviewer's): a list of entries, one selected, laid out in window points
/// by the overlay so that mouse hits use the same geometry that is drawn.
public struct ViewerMenu: Equatable, Sendable {
    public struct Item: Equatable, Sendable {
        public var title: String
        public var action: MenuAction
        /// Shown with a check mark (full screen on, the current scaling).
        public var checked: Bool
        /// A thin rule is drawn above this entry.
        public var separatorAbove: Bool
    }

    public private(set) var items: [Item] = []
    public var selected = 0
    /// Window-point geometry of the panel and of each row, set when laid out.
    public var frame = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var rowFrames: [ViewRect] = []

    /// The scalings offered in the menu.
    public static let scalings: [ScalingMode] = [.fit, .zoom(1), .zoom(2)]

    public init(fullscreen: Bool, scaling: ScalingMode, viewOnly: Bool,
                touchMode: TouchInputMode = .touch, keyboardShown: Bool = false, zoomed: Bool = false,
                screens: String? = nil, recording: Bool? = nil, power: Bool = false, audio: Bool? = nil,
                info: Bool? = nil) {
        items.append(Item(title: "Full screen", action: .toggleFullscreen, checked: fullscreen, separatorAbove: false))
        var first = true
        for s in ViewerMenu.scalings {
            let title: String
            switch s {
            case .fit: title = "Scale to fit window"
            case .zoom(let z) where z == 1: title = "Scale 1:1"
            default: title = "Scale \(s)"
            }
            items.append(Item(title: title, action: .setScaling(s), checked: s == scaling, separatorAbove: first))
            first = false
        }
        if case .zoom(let z) = scaling, !ViewerMenu.scalings.contains(scaling) {
            // a --scale N% that is not in the list is shown too, so the check mark has a home
            items.append(Item(title: "Scale \(ScalingMode.zoom(z))", action: .setScaling(scaling), checked: true, separatorAbove: false))
        }
        if let screens {
            // several remote screens: which one is shown, and the picker
            items.append(Item(title: "Screens… (F9) — \(screens)", action: .openPicker, checked: false, separatorAbove: true))
        }
        if zoomed {
            items.append(Item(title: "Reset zoom", action: .resetZoom, checked: false, separatorAbove: false))
        }
        if !viewOnly {
            // touch input: how a finger drives the pointer
            items.append(Item(title: "Touch: pointer under the finger", action: .setTouchMode(.touch),
                              checked: touchMode == .touch, separatorAbove: true))
            items.append(Item(title: "Touch: trackpad with soft cursor", action: .setTouchMode(.trackpad),
                              checked: touchMode == .trackpad, separatorAbove: false))
            items.append(Item(title: "On-screen keyboard", action: .toggleKeyboard, checked: keyboardShown, separatorAbove: false))
            items.append(Item(title: "Send Ctrl+Alt+Del", action: .sendCtrlAltDel, checked: false, separatorAbove: true))
            items.append(Item(title: "Send F8", action: .sendF8, checked: false, separatorAbove: false))
        }
        items.append(Item(title: "Take screenshot (Ctrl+Alt+S)", action: .screenshot, checked: false, separatorAbove: true))
        if let recording {
            items.append(Item(title: "Record session (Ctrl+Alt+R)", action: .toggleRecording, checked: recording, separatorAbove: false))
        }
        if let info {
            items.append(Item(title: "Connection info (Ctrl+Alt+I)", action: .toggleInfo, checked: info, separatorAbove: false))
        }
        if let audio {
            items.append(Item(title: "Sound", action: .toggleAudio, checked: audio, separatorAbove: true))
        }
        if power && !viewOnly {
            items.append(Item(title: "Shut down the remote machine", action: .power(.shutdown), checked: false, separatorAbove: true))
            items.append(Item(title: "Reboot the remote machine", action: .power(.reboot), checked: false, separatorAbove: false))
            items.append(Item(title: "Reset the remote machine", action: .power(.reset), checked: false, separatorAbove: false))
        }
        items.append(Item(title: "Disconnect", action: .disconnect, checked: false, separatorAbove: true))
    }

    /// Drops the entries `keep` refuses (a kiosk's lock); a rule above a dropped entry moves to
    /// the next one kept.
    public mutating func keepItems(_ keep: (MenuAction) -> Bool) {
        var out: [Item] = [], rule = false
        for var it in items {
            guard keep(it.action) else { rule = rule || it.separatorAbove; continue }
            it.separatorAbove = (it.separatorAbove || rule) && !out.isEmpty
            rule = false
            out.append(it)
        }
        items = out
        selected = min(selected, max(0, items.count - 1))
    }

    public mutating func moveSelection(by d: Int) {
        guard !items.isEmpty else { return }
        selected = ((selected + d) % items.count + items.count) % items.count
    }

    /// The row under a window point, if any.
    public func row(at p: ViewPoint) -> Int? {
        rowFrames.firstIndex { $0.contains(p) }
    }
}
