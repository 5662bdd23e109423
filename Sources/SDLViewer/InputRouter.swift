import CSDL2
import Interaction

/// What the window has to do after an event (the router itself only talks to the sink).
public enum RouterAction: Equatable, Sendable {
    /// Something drawn changed (menu, pan): present again.
    case redraw
    case toggleFullscreen
    case setScaling(ScalingMode)
    /// The menu opened or closed (the window shows the local arrow cursor over it).
    case menuChanged
    /// Disconnect chosen in the menu.
    case disconnect
    /// Close the window (after a disconnect the user dismissed the message).
    case quit
    /// While waiting to reconnect: try now instead of at the end of the countdown.
    case retryNow
    /// After the connection ended (--on-disconnect prompt): connect again.
    case reconnect
}

/// SDL events → RFB input (through an `InputSink`) and window actions. Owns the viewport, the
/// F8 menu and the pressed-key/button state, so the whole translation is testable with pushed
/// SDL events and a recording sink. Main thread only.
///
/// - Keys: F11 toggles full screen; F8 opens the menu (F8 inside the menu sends F8); everything
///   else goes through `keyTranslator`. A release sends what the press sent.
/// - Pointer: buttons 1-3 and wheel 4/5 (vertical), 6/7 (horizontal). SDL's X1/X2 would be 8/9
///   but need the ExtendedMouseButtons pseudo-encoding, which we do not speak yet: not sent.
///   Points in the bars send nothing (a release still goes out if the press did).
/// - Scrolling a zoomed view: the wheel with Ctrl+Alt held pans (Shift or the horizontal wheel
///   pans sideways); without them the wheel goes to the server.
public final class InputRouter {
    public weak var sink: InputSink?
    public var viewOnly: Bool
    public var keyTranslator: KeyTranslating
    public var viewport: Viewport
    /// Kept current by the window (the menu shows it checked).
    public var fullscreen = false
    /// The connection is over: any key (Esc, Enter, ...) closes the window, nothing is sent.
    public var sessionEnded = false
    /// The connection dropped and a retry is counting down: R or a click retries now, Esc gives up.
    public var reconnecting = false
    /// With sessionEnded: R connects again (--on-disconnect prompt).
    public var offerReconnect = false
    /// The menu while it is open; no input reaches the server meanwhile.
    public private(set) var menu: ViewerMenu?

    /// RFB button mask as last sent.
    public private(set) var buttons: UInt16 = 0
    /// What each physical key (SDL scancode) sent on press.
    private var pressed: [Int32: KeyOutput] = [:]
    /// Keys physically down (for the pan modifiers), whatever was sent.
    private var held = Set<Int32>()
    private var lastSent: (x: Int, y: Int)?

    /// Output pixels the view scrolls per wheel notch.
    static let panStep = 64.0
    /// Wheel notches per event sent at most (a flung wheel should not flood the server).
    static let maxNotches = 10

    public init(sink: InputSink?, viewport: Viewport = Viewport(), viewOnly: Bool = false,
                keyTranslator: KeyTranslating = KeyMapTranslator()) {
        self.sink = sink
        self.viewport = viewport
        self.viewOnly = viewOnly
        self.keyTranslator = keyTranslator
    }

    public var menuOpen: Bool { menu != nil }

    // MARK: events

    /// The X keycode of the X key event SDL is about to turn into a key event (SYSWM comes first).
    private var pendingX: (keycode: Int32, press: Bool)?

    public func handle(_ e: SDL_Event) -> [RouterAction] {
        switch e.type {
        case SDL_SYSWMEVENT.rawValue:
            if let m = e.syswm.msg, m.pointee.subsystem == SDL_SYSWM_X11 {
                let xe = m.pointee.msg.x11.event
                // KeyPress = 2, KeyRelease = 3 (X.h)
                if xe.type == 2 || xe.type == 3 { pendingX = (Int32(xe.xkey.keycode), xe.type == 2) }
            }
            return []
        case SDL_KEYDOWN.rawValue, SDL_KEYUP.rawValue:
            let k = e.key
            let down = e.type == SDL_KEYDOWN.rawValue
            var evdev: Int32? = nil
            if let p = pendingX, p.press == down, p.keycode >= 8 { evdev = p.keycode - 8 }
            pendingX = nil
            return key(KeyInput(scancode: Int32(k.keysym.scancode.rawValue), sym: k.keysym.sym, mod: k.keysym.mod,
                                down: down, isRepeat: k.repeat != 0, evdevCode: evdev))
        case SDL_MOUSEMOTION.rawValue:
            return motion(ViewPoint(x: Double(e.motion.x), y: Double(e.motion.y)))
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            return button(Int32(e.button.button), down: e.type == SDL_MOUSEBUTTONDOWN.rawValue,
                          at: ViewPoint(x: Double(e.button.x), y: Double(e.button.y)))
        case SDL_MOUSEWHEEL.rawValue:
            let flip: Int32 = e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue ? -1 : 1
            return wheel(dx: Int(e.wheel.x * flip), dy: Int(e.wheel.y * flip),
                         at: ViewPoint(x: Double(e.wheel.mouseX), y: Double(e.wheel.mouseY)))
        case SDL_WINDOWEVENT.rawValue:
            if e.window.event == UInt8(SDL_WINDOWEVENT_FOCUS_LOST.rawValue) { releaseAll(); held.removeAll() }
            return []
        default:
            return []
        }
    }

    // MARK: keys

    static let scF8 = Int32(SDL_SCANCODE_F8.rawValue), scF11 = Int32(SDL_SCANCODE_F11.rawValue)
    static let scEscape = Int32(SDL_SCANCODE_ESCAPE.rawValue), scR = Int32(SDL_SCANCODE_R.rawValue)

    /// A key event in plain values (also the entry point for tests and other front ends).
    public func key(_ k: KeyInput) -> [RouterAction] {
        if k.down { held.insert(k.scancode) } else { held.remove(k.scancode) }
        if reconnecting {
            guard k.down, !k.isRepeat else { return [] }
            if k.scancode == InputRouter.scEscape { return [.quit] }
            return k.scancode == InputRouter.scR ? [.retryNow] : []
        }
        if sessionEnded {
            if offerReconnect && k.down && k.scancode == InputRouter.scR { return [.reconnect] }
            // any key press dismisses the message (modifiers alone do not)
            return k.down && !isModifier(k.scancode) ? [.quit] : []
        }
        if menu != nil { return menuKey(k) }
        if k.down && k.scancode == InputRouter.scF11 { return k.isRepeat ? [] : [.toggleFullscreen] }
        if k.down && k.scancode == InputRouter.scF8 {
            guard !k.isRepeat else { return [] }
            openMenu()
            return [.menuChanged, .redraw]
        }
        guard !viewOnly else { return [] }
        if k.down {
            // autorepeat sends the press again, as X servers expect
            guard let out = pressed[k.scancode] ?? keyTranslator.translate(k) else { return [] }
            pressed[k.scancode] = out
            sink?.sendKey(out.keysym, down: true, xtKeycode: out.xtKeycode)
        } else {
            _ = keyTranslator.translate(k)
            if let out = pressed.removeValue(forKey: k.scancode) {
                sink?.sendKey(out.keysym, down: false, xtKeycode: out.xtKeycode)
            }
        }
        return []
    }

    func isModifier(_ sc: Int32) -> Bool {
        (Int32(SDL_SCANCODE_LCTRL.rawValue)...Int32(SDL_SCANCODE_RGUI.rawValue)).contains(sc)
    }

    var ctrlAltHeld: Bool {
        (held.contains(Int32(SDL_SCANCODE_LCTRL.rawValue)) || held.contains(Int32(SDL_SCANCODE_RCTRL.rawValue)))
            && (held.contains(Int32(SDL_SCANCODE_LALT.rawValue)) || held.contains(Int32(SDL_SCANCODE_RALT.rawValue)))
    }
    var shiftHeld: Bool {
        held.contains(Int32(SDL_SCANCODE_LSHIFT.rawValue)) || held.contains(Int32(SDL_SCANCODE_RSHIFT.rawValue))
    }

    /// Releases every key and button the server thinks is down (focus lost, menu opened).
    public func releaseAll() {
        for (_, out) in pressed { sink?.sendKey(out.keysym, down: false, xtKeycode: out.xtKeycode) }
        pressed.removeAll()
        if buttons != 0, let p = lastSent {
            buttons = 0
            sink?.sendPointer(x: p.x, y: p.y, buttons: 0)
        }
        buttons = 0
    }

    // MARK: menu

    public func openMenu() {
        releaseAll()
        menu = ViewerMenu(fullscreen: fullscreen, scaling: viewport.mode, viewOnly: viewOnly)
    }

    public func closeMenu() { menu = nil }

    /// The overlay lays the menu out; the router keeps the geometry for mouse hits.
    public func setMenuLayout(frame: ViewRect, rows: [ViewRect]) {
        menu?.frame = frame
        menu?.rowFrames = rows
    }

    func menuKey(_ k: KeyInput) -> [RouterAction] {
        guard k.down, var m = menu else { return [] }
        switch k.scancode {
        case Int32(SDL_SCANCODE_UP.rawValue): m.moveSelection(by: -1)
        case Int32(SDL_SCANCODE_DOWN.rawValue), Int32(SDL_SCANCODE_TAB.rawValue): m.moveSelection(by: 1)
        case Int32(SDL_SCANCODE_HOME.rawValue): m.selected = 0
        case Int32(SDL_SCANCODE_END.rawValue): m.selected = max(0, m.items.count - 1)
        case Int32(SDL_SCANCODE_ESCAPE.rawValue):
            menu = nil
            return [.menuChanged, .redraw]
        case InputRouter.scF8:
            // F8 pressed again: the server gets the F8 (like vncviewer)
            menu = nil
            if !k.isRepeat { sendF8() }
            return [.menuChanged, .redraw]
        case Int32(SDL_SCANCODE_RETURN.rawValue), Int32(SDL_SCANCODE_KP_ENTER.rawValue), Int32(SDL_SCANCODE_SPACE.rawValue):
            return activate(m.selected)
        default:
            return []
        }
        menu = m
        return [.redraw]
    }

    func activate(_ index: Int) -> [RouterAction] {
        guard let m = menu, m.items.indices.contains(index) else { return [] }
        menu = nil
        var out: [RouterAction] = [.menuChanged, .redraw]
        switch m.items[index].action {
        case .toggleFullscreen: out.append(.toggleFullscreen)
        case .setScaling(let s): out.append(.setScaling(s))
        case .sendCtrlAltDel: sendCtrlAltDel()
        case .sendF8: sendF8()
        case .disconnect: out.append(.disconnect)
        }
        return out
    }

    func sendCtrlAltDel() {
        guard !viewOnly, let s = sink else { return }
        // Control_L, Alt_L, Delete with their XT codes (for QEMU), released in reverse order
        let seq: [(UInt32, UInt32)] = [(0xffe3, 0x1d), (0xffe9, 0x38), (0xffff, 0xe053)]
        for (k, xt) in seq { s.sendKey(k, down: true, xtKeycode: xt) }
        for (k, xt) in seq.reversed() { s.sendKey(k, down: false, xtKeycode: xt) }
    }

    func sendF8() {
        guard !viewOnly, let s = sink else { return }
        s.sendKey(0xffc5, down: true, xtKeycode: 0x42)
        s.sendKey(0xffc5, down: false, xtKeycode: 0x42)
    }

    // MARK: pointer

    func motion(_ p: ViewPoint) -> [RouterAction] {
        if var m = menu {
            if let r = m.row(at: p), r != m.selected { m.selected = r; menu = m; return [.redraw] }
            return []
        }
        guard !sessionEnded, !viewOnly, let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
        send(fp, buttons)
        return []
    }

    func button(_ b: Int32, down: Bool, at p: ViewPoint) -> [RouterAction] {
        // a tap or click on the countdown retries now (a kiosk has no keyboard)
        if reconnecting { return down ? [.retryNow] : [] }
        if let m = menu {
            if !down, let r = m.row(at: p) { return activate(r) }
            // a press outside the (laid out) menu closes it
            if down, m.frame.w > 0, !m.frame.contains(p) { menu = nil; return [.menuChanged, .redraw] }
            return []
        }
        guard !sessionEnded, !viewOnly else { return [] }
        let bit: UInt16
        switch b {
        case SDL_BUTTON_LEFT: bit = 1
        case SDL_BUTTON_MIDDLE: bit = 2
        case SDL_BUTTON_RIGHT: bit = 4
        case SDL_BUTTON_X1: bit = 1 << 7   // back: button 8
        case SDL_BUTTON_X2: bit = 1 << 8   // forward: button 9 (reaches servers with ExtendedMouseButtons)
        default: return []
        }
        if down {
            guard let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
            buttons |= bit
            send(fp, buttons)
        } else {
            guard buttons & bit != 0 else { return [] }
            buttons &= ~bit
            // released over a bar: release where the pointer last was on the desktop
            if let fp = viewport.framebufferPixel(atWindow: p) ?? lastSent { send(fp, buttons) }
        }
        return []
    }

    func wheel(dx: Int, dy: Int, at p: ViewPoint) -> [RouterAction] {
        if var m = menu {
            if dy != 0 { m.moveSelection(by: dy > 0 ? -1 : 1); menu = m; return [.redraw] }
            return []
        }
        if ctrlAltHeld && viewport.canScroll {
            // wheel up scrolls towards the top, as in any scrolled view
            var sx = Double(dx), sy = Double(-dy)
            if shiftHeld && dx == 0 { sx = sy; sy = 0 }
            return viewport.scroll(dx: sx * InputRouter.panStep, dy: sy * InputRouter.panStep) ? [.redraw] : []
        }
        guard !sessionEnded, !viewOnly, let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
        var bits: [(UInt16, Int)] = []
        if dy > 0 { bits.append((8, dy)) } else if dy < 0 { bits.append((16, -dy)) }
        if dx < 0 { bits.append((32, -dx)) } else if dx > 0 { bits.append((64, dx)) }
        for (b, n) in bits {
            for _ in 0..<min(n, InputRouter.maxNotches) {
                send(fp, buttons | b)
                send(fp, buttons)
            }
        }
        return []
    }

    private func send(_ p: (x: Int, y: Int), _ mask: UInt16) {
        lastSent = p
        sink?.sendPointer(x: p.x, y: p.y, buttons: mask)
    }
}
