import RFB

/// The keys the viewer's own UI reacts to; the front end maps its key events onto these.
public enum UIKey: Equatable, Sendable {
    case escape, enter, space, tab
    case up, down, left, right, home, end, pageUp, pageDown
    case f8, f9, f11
    /// `r`: reconnect or retry now.
    case r
    /// `a`: all screens in the picker.
    case a
    /// `s`: Ctrl+Alt+S takes a screenshot.
    case s
    /// `i`: Ctrl+Alt+I shows the connection-info panel.
    case i
    /// 0-9, from the main row or the keypad.
    case digit(Int)
    /// Ctrl, Shift, Alt or the logo key alone (does not dismiss the end message).
    case modifier
    case other
}

/// One key event for the UI.
public struct UIKeyEvent: Equatable, Sendable {
    public var key: UIKey
    public var down: Bool
    public var isRepeat: Bool
    /// Ctrl and Alt are both held (the screen shortcuts are Ctrl+Alt+PageDown/PageUp).
    public var ctrlAlt: Bool
    public init(_ key: UIKey, down: Bool = true, isRepeat: Bool = false, ctrlAlt: Bool = false) {
        self.key = key; self.down = down; self.isRepeat = isRepeat; self.ctrlAlt = ctrlAlt
    }
}

/// What the UI asks of the front end after an input.
public enum UIEffect: Equatable, Sendable {
    /// Something drawn changed: present again.
    case redraw
    /// The menu opened or closed (the local arrow cursor shows over it).
    case menuChanged
    /// The picker opened, closed or moved its highlight.
    case pickerChanged
    case toggleFullscreen
    case setScaling(ScalingMode)
    /// Close the window.
    case quit
    /// While reconnecting: try now instead of at the end of the countdown.
    case retryNow
    /// After the end (offered): connect again.
    case reconnect
    case chooseMonitor(MonitorChoice)
    case cycleMonitor(forward: Bool)
    /// Open the menu or the picker: the front end first releases what the server holds down,
    /// then calls `openMenu` or `openPicker`.
    case openMenu, openPicker
    /// Send F8 to the server (F8 pressed in the open menu, like vncviewer).
    case sendF8
    /// A menu entry the front end carries out (touch mode, keyboard, Ctrl+Alt+Del...).
    case menuItem(MenuAction)
}

/// Whether the UI took an input or the desktop (the server) gets it.
public enum UIResult: Equatable, Sendable {
    case desktop
    case handled([UIEffect])
}

/// The viewer's UI state in plain values, owned in one place: which of the credential prompt,
/// the reconnect countdown, the end message, the menu and the picker is up, and what keys, clicks
/// and taps do over each. The front end draws from it and carries out its effects.
///
/// Input goes to the top layer: prompt (the front end's editor takes it), then the countdown
/// (R retries now, Esc gives up, a click or tap retries), then the end message (R reconnects when
/// offered, any other key closes), then the menu, then the picker, then the desktop.
public struct ViewerUI: Equatable, Sendable {
    /// The connection is over; the message stays up until dismissed.
    public struct Ended: Equatable, Sendable {
        public var message: String
        /// R connects again (`--on-disconnect prompt`).
        public var offerReconnect: Bool
        public init(message: String, offerReconnect: Bool) { self.message = message; self.offerReconnect = offerReconnect }
    }

    public enum Layer: Equatable, Sendable { case prompt, reconnecting, ended, menu, picker, desktop }

    public private(set) var ended: Ended?
    /// The connection dropped and a retry is counting down.
    public var reconnecting = false
    /// What the viewer's own controls may change (a kiosk locks them): the menu's entries and
    /// the shortcuts that stand for them ask it alike; the front end sets it.
    public var lock = ControlLock()
    /// Esc may end the viewer while it reconnects (not in a kiosk); the front end sets it.
    public var canQuit = true
    /// A credential or trust prompt is up (the front end holds its editor).
    public private(set) var promptShown = false
    /// The F8 menu while open; no input reaches the server meanwhile.
    public private(set) var menu: ViewerMenu?
    /// The screen picker while open, and where the front end drew it.
    public private(set) var picker: ScreenPicker?
    public var pickerGeometry: PickerGeometry?
    /// The server's screens and the one shown.
    public var screenLayout: ScreenLayout?
    public var monitorChoice: MonitorChoice = .all
    /// The window fills the screen (the menu shows it checked); the front end sets it when it
    /// changes the window.
    public var fullscreen = false
    /// Whether the session is being recorded, for the menu's check mark; nil: not offered
    /// (playback).
    public var recording: Bool? = false
    /// QEMU's sound is wanted (`--audio`, then the menu's Sound entry).
    public var audioWanted = false
    /// The server takes QEMU's audio messages (it is QEMU): the menu has a Sound entry.
    public var audioOffered = false
    /// The menu's Sound entry: nil when the server has no sound, else whether it is on.
    public var audio: Bool? { audioOffered ? audioWanted : nil }
    /// The connection-info panel shows.
    public var info = false
    /// The server offers xvp power control: the menu has its entries.
    public var powerControl = false
    /// Trackpad mode's soft cursor is the pointer (a finger moved it; a mouse motion hides it
    /// again, the system cursor being where the mouse is). The input controller sets it; the
    /// window draws the sprite and hides the system cursor from it.
    public var softCursorShown = false

    public init() {}

    public var severalScreens: Bool { (screenLayout?.screens.count ?? 0) > 1 }

    /// Who gets input now.
    public var layer: Layer {
        if promptShown { return .prompt }
        if reconnecting { return .reconnecting }
        if ended != nil { return .ended }
        if menu != nil { return .menu }
        if picker != nil { return .picker }
        return .desktop
    }

    /// Something covers the desktop: the local arrow cursor, not the server's.
    public var coversDesktop: Bool { menu != nil || ended != nil || promptShown || picker != nil }
    /// The desktop is darkened (the last frame under the countdown or the end message).
    public var dimsDesktop: Bool { ended != nil || reconnecting }
    /// A finger landing anywhere acts as a left click (menu, picker, countdown, end message).
    public var fingerClicks: Bool { reconnecting || ended != nil || menu != nil || picker != nil }

    // MARK: changes

    /// What the menu shows about the viewer when it opens.
    public struct MenuContext: Equatable, Sendable {
        public var fullscreen: Bool, scaling: ScalingMode, viewOnly: Bool, touchMode: TouchInputMode
        public var keyboardShown: Bool
        /// Whether the session is being recorded; nil where recording is not offered (playback).
        public var recording: Bool?
        /// The server can shut down, reboot and reset its machine (xvp).
        public var power: Bool
        /// QEMU's sound: nil when there is none, else whether it is on.
        public var audio: Bool?
        /// Whether the connection-info panel shows; nil where it is not offered.
        public var info: Bool?
        public init(fullscreen: Bool, scaling: ScalingMode, viewOnly: Bool, touchMode: TouchInputMode, keyboardShown: Bool,
                    recording: Bool? = nil, power: Bool = false, audio: Bool? = nil, info: Bool? = nil) {
            self.audio = audio
            self.info = info
            self.fullscreen = fullscreen; self.scaling = scaling; self.viewOnly = viewOnly
            self.touchMode = touchMode; self.keyboardShown = keyboardShown; self.recording = recording; self.power = power
        }
    }

    /// Opens the menu (its lock was passed: the front end asks it first) with the entries the
    /// lock allows from the menu.
    public mutating func openMenu(_ c: MenuContext) {
        var m = ViewerMenu(fullscreen: c.fullscreen, scaling: c.scaling, viewOnly: c.viewOnly,
                           touchMode: c.touchMode, keyboardShown: c.keyboardShown, zoomed: c.scaling != .fit,
                           screens: severalScreens ? screenLayout.map { ScreenPicker(layout: $0).label(for: monitorChoice) } : nil,
                           recording: c.recording, power: c.power, audio: c.audio, info: c.info)
        let lock = self.lock
        m.keepItems { lock.allows($0, via: .menu) }
        menu = m
    }

    public mutating func closeMenu() { menu = nil }

    /// The overlay lays the menu out; the geometry is kept for mouse hits.
    public mutating func setMenuLayout(frame: ViewRect, rows: [ViewRect]) {
        menu?.frame = frame
        menu?.rowFrames = rows
    }

    /// Opens the picker (closing the menu); false with fewer than two screens.
    @discardableResult
    public mutating func openPicker() -> Bool {
        guard let l = screenLayout, severalScreens else { return false }
        menu = nil
        picker = ScreenPicker(layout: l, current: monitorChoice)
        return true
    }

    public mutating func closePicker() { picker = nil; pickerGeometry = nil }

    /// A prompt came up (it closes the menu) or went away.
    public mutating func setPrompt(shown: Bool) {
        promptShown = shown
        if shown { menu = nil }
    }

    /// The connection ended: the message replaces the menu.
    public mutating func end(message: String, offerReconnect: Bool) {
        ended = Ended(message: message, offerReconnect: offerReconnect)
        menu = nil
    }

    /// Connecting again after the end.
    public mutating func clearEnded() { ended = nil }

    // MARK: what is said

    /// The end or countdown headline: the reason as the session gave it, "Connection lost: "
    /// first when the desktop had been up.
    public static func headline(_ why: String, everReady: Bool) -> String {
        everReady ? "Connection lost: \(why)" : why.prefix(1).uppercased() + why.dropFirst()
    }

    /// The hint under the end message.
    public static func endedHint(offerReconnect: Bool) -> String {
        offerReconnect ? "Press R to reconnect, Esc or Enter to close" : "Press Esc or Enter to close"
    }

    /// The hint under the countdown.
    public static func reconnectHint(seconds: Int, attempt: Int, canQuit: Bool = true) -> String {
        "Reconnecting in \(seconds) s (attempt \(attempt)) — press R or tap to retry now" + (canQuit ? ", Esc to give up" : "")
    }

    // MARK: input

    public mutating func key(_ k: UIKeyEvent) -> UIResult {
        if reconnecting {
            guard k.down, !k.isRepeat else { return .handled([]) }
            // a kiosk cannot be quit from its keyboard (systemd would only start it again)
            if k.key == .escape && canQuit { return .handled([.quit]) }
            return .handled(k.key == .r ? [.retryNow] : [])
        }
        if let e = ended {
            if e.offerReconnect && k.down && k.key == .r { return .handled([.reconnect]) }
            // any key press dismisses the message (modifiers alone do not)
            return .handled(k.down && k.key != .modifier ? [.quit] : [])
        }
        if menu != nil { return .handled(menuKey(k)) }
        if picker != nil { return .handled(pickerKey(k)) }
        guard k.down else { return .desktop }
        // A shortcut stands for a menu entry and asks the lock as the menu does; a locked one
        // is no shortcut at all: the key goes to the desktop like any other.
        func shortcut(_ entry: MenuAction, _ effects: [UIEffect]) -> UIResult {
            guard lock.allows(entry, via: .shortcut) else { return .desktop }
            return .handled(k.isRepeat ? [] : effects)
        }
        switch k.key {
        case .f11:
            return shortcut(.toggleFullscreen, [.toggleFullscreen])
        case .f9 where severalScreens:
            return shortcut(.openPicker, [.openPicker])
        case .pageDown where severalScreens && k.ctrlAlt, .pageUp where severalScreens && k.ctrlAlt:
            // the screen shortcut is ours; its release is not sent (only what a press sent is
            // released); repeats step on
            guard lock.allows(.openPicker, via: .shortcut) else { return .desktop }
            return .handled([.cycleMonitor(forward: k.key == .pageDown)])
        case .f8:
            // the menu's own lock (locked, or the PIN pad) is the front end's to apply
            return .handled(k.isRepeat ? [] : [.openMenu])
        case .s where k.ctrlAlt:
            return shortcut(.screenshot, [.menuItem(.screenshot)])
        case .r where k.ctrlAlt:
            return shortcut(.toggleRecording, [.menuItem(.toggleRecording)])
        case .i where k.ctrlAlt:
            return shortcut(.toggleInfo, [.menuItem(.toggleInfo)])
        default:
            return .desktop
        }
    }

    mutating func menuKey(_ k: UIKeyEvent) -> [UIEffect] {
        guard k.down, var m = menu else { return [] }
        switch k.key {
        case .up: m.moveSelection(by: -1)
        case .down, .tab: m.moveSelection(by: 1)
        case .home: m.selected = 0
        case .end: m.selected = max(0, m.items.count - 1)
        case .escape:
            menu = nil
            return [.menuChanged, .redraw]
        case .f8:
            // F8 pressed again: the server gets the F8 (like vncviewer)
            menu = nil
            return (k.isRepeat ? [] : [.sendF8]) + [.menuChanged, .redraw]
        case .enter, .space:
            return activate(m.selected)
        default:
            return []
        }
        menu = m
        return [.redraw]
    }

    mutating func pickerKey(_ k: UIKeyEvent) -> [UIEffect] {
        guard k.down, var p = picker else { return [] }
        let key: PickerKey
        switch k.key {
        case .left: key = .left
        case .right: key = .right
        case .up: key = .up
        case .down, .tab: key = .down
        case .enter, .space: key = .enter
        case .escape, .f9: key = .escape
        case .a: key = .all
        case .digit(let n): key = .digit(n)
        default: return []
        }
        let o = p.handle(key)
        picker = p
        return pickerOutcome(o)
    }

    /// Chooses menu entry `index`: the menu closes, the entry's effect follows.
    public mutating func activate(_ index: Int) -> [UIEffect] {
        guard let m = menu, m.items.indices.contains(index) else { return [] }
        menu = nil
        let out: [UIEffect] = [.menuChanged, .redraw]
        switch m.items[index].action {
        case .toggleFullscreen: return out + [.toggleFullscreen]
        case .setScaling(let s): return out + [.setScaling(s)]
        case let a: return out + [.menuItem(a)]
        }
    }

    mutating func pickerOutcome(_ o: PickerOutcome) -> [UIEffect] {
        switch o {
        case .none: return []
        case .highlightChanged: return [.redraw]
        case .cancelled:
            closePicker()
            return [.pickerChanged, .redraw]
        case .chosen(let c):
            closePicker()
            return [.pickerChanged, .redraw, .chooseMonitor(c)]
        }
    }

    /// The pointer moved (window points).
    public mutating func motion(_ p: ViewPoint) -> UIResult {
        if var pk = picker {
            guard let g = pickerGeometry else { return .handled([]) }
            let o = pk.hover(at: p, in: g)
            picker = pk
            return .handled(pickerOutcome(o))
        }
        if var m = menu {
            if let r = m.row(at: p), r != m.selected { m.selected = r; menu = m; return .handled([.redraw]) }
            return .handled([])
        }
        return .desktop
    }

    /// A mouse button (or a finger acting as the left button) at a window point.
    public mutating func button(left: Bool, down: Bool, at p: ViewPoint) -> UIResult {
        // a tap or click on the countdown retries now (a kiosk has no keyboard)
        if reconnecting { return .handled(down ? [.retryNow] : []) }
        if var pk = picker {
            guard down, left, let g = pickerGeometry else { return .handled([]) }
            let o = pk.click(at: p, in: g)
            picker = pk
            return .handled(pickerOutcome(o))
        }
        if let m = menu {
            if !down, let r = m.row(at: p) { return .handled(activate(r)) }
            // a press outside the (laid out) menu closes it
            if down, m.frame.w > 0, !m.frame.contains(p) { menu = nil; return .handled([.menuChanged, .redraw]) }
            return .handled([])
        }
        return .desktop
    }

    /// The wheel: over the open menu it moves the selection (up goes up).
    public mutating func wheel(dy: Int) -> UIResult {
        guard var m = menu else { return .desktop }
        guard dy != 0 else { return .handled([]) }
        m.moveSelection(by: dy > 0 ? -1 : 1)
        menu = m
        return .handled([.redraw])
    }
}
