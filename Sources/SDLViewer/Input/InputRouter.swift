import CSDL2
import RFB
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
    /// The on-screen keyboard appeared or went away: the desktop area changes.
    case keyboardChanged
    /// The screen picker opened, closed or changed its highlight.
    case pickerChanged
    /// Show this remote screen (or all of them).
    case chooseMonitor(MonitorChoice)
    /// The next or previous remote screen, without the picker.
    case cycleMonitor(forward: Bool)
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
/// - Touch: SDL finger events go to the gesture recogniser (touch or trackpad mode) and the
///   pointer events it makes to the server; the mouse events SDL synthesises from touches
///   (`which == SDL_TOUCH_MOUSEID`) are dropped, so a tap is one click. Over the menu, the
///   reconnect countdown or the end message, a finger acts as a left click; on the on-screen
///   keyboard it presses keys. A swipe down from the top edge opens the menu, a swipe up from
///   the bottom edge shows the keyboard (a keyboard-less kiosk has no F8).
/// - Several remote screens: F9 or a three-finger swipe up opens the screen picker (arrows,
///   digits, Enter, Esc, a click or a tap choose); Ctrl+Alt+PageDown/PageUp, a swipe in from the
///   right/left edge or a three-finger swipe left/right go to the next/previous screen.
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
    /// The server's screens (the window keeps it current) and the one shown.
    public var screenLayout: ScreenLayout?
    public var monitorChoice: MonitorChoice = .all
    /// The screen picker while it is open (no input reaches the server meanwhile) and where the
    /// window drew it.
    public private(set) var picker: ScreenPicker?
    public var pickerGeometry: PickerGeometry?
    var severalScreens: Bool { (screenLayout?.screens.count ?? 0) > 1 }

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

    // touch
    public private(set) var gestures: GestureRecognizer
    public var touchMode: TouchInputMode { gestures.mode }
    /// Trackpad mode after a finger moved the pointer: the window draws the soft cursor (a
    /// mouse motion hides it again, the system cursor being where the mouse is).
    public private(set) var softCursorVisible = false
    /// The on-screen keyboard while shown.
    public private(set) var keyboard: OnScreenKeyboard?
    /// While set (a credential prompt is up), on-screen key events go here, not to the server.
    public var keyboardTarget: ((OnScreenKeyEvent) -> Void)?
    /// The whole window in points (the viewport may be smaller: the keyboard takes the bottom).
    public var windowSize = (w: 0.0, h: 0.0)

    enum UIFinger { case click, keyboard, consumed }
    /// Fingers that landed on UI, and what they do until lifted; never gestures.
    private var uiFingers: [Int64: UIFinger] = [:]
    /// Fingers the recogniser is following.
    private var gestureFingers = Set<Int64>()
    /// A finger that landed on the top or bottom edge: held back until it is a swipe (menu,
    /// keyboard) or not (then replayed to the recogniser with its own timestamps).
    enum Edge { case top, bottom, left, right }
    private var edgeTouch: (finger: Int64, edge: Edge, events: [TouchEvent])?

    /// Points from the window's top or bottom edge where a swipe starts.
    static let edgeZone = 14.0
    /// How far (points) and how soon (s) a swipe must go inward.
    static let edgeSwipeDistance = 48.0, edgeSwipeTime = 0.6

    public init(sink: InputSink?, viewport: Viewport = Viewport(), viewOnly: Bool = false,
                keyTranslator: KeyTranslating = KeyMapTranslator(), touchMode: TouchInputMode = .touch) {
        self.sink = sink
        self.viewport = viewport
        self.viewOnly = viewOnly
        self.keyTranslator = keyTranslator
        gestures = GestureRecognizer(mode: touchMode)
        // trackpad mode shows its cursor from the start: a finger has to know where it is
        softCursorVisible = touchMode == .trackpad
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
            // SDL's mouse copy of a touch: the finger events carry it
            guard e.motion.which != InputRouter.touchMouseID else { return [] }
            return mouseMotion(ViewPoint(x: Double(e.motion.x), y: Double(e.motion.y)))
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            guard e.button.which != InputRouter.touchMouseID else { return [] }
            return button(Int32(e.button.button), down: e.type == SDL_MOUSEBUTTONDOWN.rawValue,
                          at: ViewPoint(x: Double(e.button.x), y: Double(e.button.y)))
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            let f = e.tfinger
            let phase: TouchEvent.Phase = e.type == SDL_FINGERDOWN.rawValue ? .down : e.type == SDL_FINGERUP.rawValue ? .up : .move
            // SDL gives 0...1 of the window (of the touch device on KMSDRM, which is the screen)
            let (w, h) = touchArea
            return touch(TouchEvent(finger: f.fingerId, phase, x: Double(f.x) * w, y: Double(f.y) * h,
                                    time: Double(f.timestamp) / 1000))
        case SDL_MOUSEWHEEL.rawValue where e.wheel.which != InputRouter.touchMouseID:
            let flip: Int32 = e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue ? -1 : 1
            return wheel(dx: Int(e.wheel.x * flip), dy: Int(e.wheel.y * flip),
                         at: ViewPoint(x: Double(e.wheel.mouseX), y: Double(e.wheel.mouseY)))
        case SDL_WINDOWEVENT.rawValue:
            if e.window.event == UInt8(SDL_WINDOWEVENT_FOCUS_LOST.rawValue) { releaseAll(); held.removeAll() }
            return []
        case SDL_MOUSEWHEEL.rawValue where e.wheel.which == InputRouter.touchMouseID:
            return []
        default:
            return []
        }
    }

    // MARK: keys

    static let scF8 = Int32(SDL_SCANCODE_F8.rawValue), scF11 = Int32(SDL_SCANCODE_F11.rawValue)
    static let scF9 = Int32(SDL_SCANCODE_F9.rawValue)
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
        if picker != nil { return pickerKey(k) }
        if k.down && k.scancode == InputRouter.scF11 { return k.isRepeat ? [] : [.toggleFullscreen] }
        if k.down && k.scancode == InputRouter.scF9 && severalScreens {
            guard !k.isRepeat else { return [] }
            openPicker()
            return [.pickerChanged, .redraw]
        }
        if k.down && severalScreens && ctrlAltHeld
            && (k.scancode == Int32(SDL_SCANCODE_PAGEDOWN.rawValue) || k.scancode == Int32(SDL_SCANCODE_PAGEUP.rawValue)) {
            // the screen shortcut is ours; its release is not sent (only what a press sent is released)
            return [.cycleMonitor(forward: k.scancode == Int32(SDL_SCANCODE_PAGEDOWN.rawValue))]
        }
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

    /// Releases every key and button the server thinks is down (focus lost, menu opened), and
    /// forgets the gestures under way.
    public func releaseAll() {
        for (_, out) in pressed { sink?.sendKey(out.keysym, down: false, xtKeycode: out.xtKeycode) }
        pressed.removeAll()
        if var k = keyboard { sendKeyboard(k.releaseAll()); keyboard = k }
        let gestureRelease = gestures.reset()
        uiFingers.removeAll(); gestureFingers.removeAll(); edgeTouch = nil
        if buttons != 0, let p = lastSent {
            buttons = 0
            sink?.sendPointer(x: p.x, y: p.y, buttons: 0)
        } else {
            for case .pointer(let x, let y, let b) in gestureRelease { send((x, y), b) }
        }
        buttons = 0
    }

    // MARK: menu

    public func openMenu() {
        releaseAll()
        menu = ViewerMenu(fullscreen: fullscreen, scaling: viewport.mode, viewOnly: viewOnly,
                          touchMode: touchMode, keyboardShown: keyboard != nil, zoomed: viewport.mode != .fit,
                          screens: severalScreens ? screenLayout.map { ScreenPicker(layout: $0).label(for: monitorChoice) } : nil)
    }

    public func closeMenu() { menu = nil }

    // MARK: screen picker

    public func openPicker() {
        guard let l = screenLayout, severalScreens else { return }
        releaseAll()
        menu = nil
        picker = ScreenPicker(layout: l, current: monitorChoice)
    }

    public func closePicker() { picker = nil; pickerGeometry = nil }

    /// The picker's outcome as window actions.
    func pickerOutcome(_ o: PickerOutcome) -> [RouterAction] {
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

    func pickerKey(_ k: KeyInput) -> [RouterAction] {
        guard k.down, var p = picker else { return [] }
        let key: PickerKey
        switch k.scancode {
        case Int32(SDL_SCANCODE_LEFT.rawValue): key = .left
        case Int32(SDL_SCANCODE_RIGHT.rawValue): key = .right
        case Int32(SDL_SCANCODE_UP.rawValue): key = .up
        case Int32(SDL_SCANCODE_DOWN.rawValue), Int32(SDL_SCANCODE_TAB.rawValue): key = .down
        case Int32(SDL_SCANCODE_RETURN.rawValue), Int32(SDL_SCANCODE_KP_ENTER.rawValue), Int32(SDL_SCANCODE_SPACE.rawValue): key = .enter
        case Int32(SDL_SCANCODE_ESCAPE.rawValue), InputRouter.scF9: key = .escape
        case Int32(SDL_SCANCODE_A.rawValue): key = .all
        case Int32(SDL_SCANCODE_1.rawValue)...Int32(SDL_SCANCODE_9.rawValue):
            key = .digit(Int(k.scancode - Int32(SDL_SCANCODE_1.rawValue)) + 1)
        case Int32(SDL_SCANCODE_0.rawValue): key = .digit(0)
        case Int32(SDL_SCANCODE_KP_1.rawValue)...Int32(SDL_SCANCODE_KP_9.rawValue):
            key = .digit(Int(k.scancode - Int32(SDL_SCANCODE_KP_1.rawValue)) + 1)
        case Int32(SDL_SCANCODE_KP_0.rawValue): key = .digit(0)
        default: return []
        }
        let o = p.handle(key)
        picker = p
        return pickerOutcome(o)
    }

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
        case .setTouchMode(let m): out += setTouchMode(m)
        case .resetZoom: out += apply(gestures.resetZoom(&viewport))
        case .toggleKeyboard: out += setKeyboard(shown: keyboard == nil)
        case .openPicker:
            openPicker()
            out.append(.pickerChanged)
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

    /// The on-screen keyboard's holder id for the mouse (finger ids are SDL's, not negative).
    static let mouseKeyID: Int64 = -1
    /// SDL's id for mouse events made from touches.
    static let touchMouseID = UInt32(bitPattern: -1)

    /// A real mouse moved: in trackpad mode the soft cursor jumps to it and hides (the system
    /// cursor is there), so a finger carries on from where the mouse left the pointer.
    func mouseMotion(_ p: ViewPoint) -> [RouterAction] {
        var out: [RouterAction] = []
        if softCursorVisible { softCursorVisible = false; out.append(.redraw) }
        if menu == nil, touchMode == .trackpad, let fp = viewport.framebufferPixel(atWindow: p) {
            gestures.cursor.set(x: Double(fp.x) + 0.5, y: Double(fp.y) + 0.5,
                                framebufferWidth: viewport.framebufferWidth, height: viewport.framebufferHeight)
        }
        return out + motion(p)
    }

    func motion(_ p: ViewPoint) -> [RouterAction] {
        if var pk = picker {
            guard let g = pickerGeometry else { return [] }
            let o = pk.hover(at: p, in: g)
            picker = pk
            return pickerOutcome(o)
        }
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
        if var pk = picker {
            guard down, b == SDL_BUTTON_LEFT, let g = pickerGeometry else { return [] }
            let o = pk.click(at: p, in: g)
            picker = pk
            return pickerOutcome(o)
        }
        if let m = menu {
            if !down, let r = m.row(at: p) { return activate(r) }
            // a press outside the (laid out) menu closes it
            if down, m.frame.w > 0, !m.frame.contains(p) { menu = nil; return [.menuChanged, .redraw] }
            return []
        }
        // the mouse on the on-screen keyboard (a kiosk may have both)
        if keyboard != nil, b == SDL_BUTTON_LEFT {
            if down, keyboard?.contains(p) == true { return keyboardPress(p, id: InputRouter.mouseKeyID) }
            if !down, var k = keyboard, k.isHolding {
                let evs = k.release(id: InputRouter.mouseKeyID)
                keyboard = k
                if !evs.isEmpty { sendKeyboard(evs); return [.redraw] }
            }
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
        // a mouse and a finger at once (a kiosk may have both): the server sees both held
        sink?.sendPointer(x: p.x, y: p.y, buttons: mask | gestures.buttons)
    }

    // MARK: touch

    /// Switches touch mode (menu, or the front end at start). A drag under way is released.
    public func setTouchMode(_ m: TouchInputMode) -> [RouterAction] {
        guard m != touchMode else { return [] }
        var out = apply(gestures.setMode(m))
        gestureFingers.removeAll()
        if m == .trackpad {
            // the soft cursor starts where the pointer last was (or the middle)
            let p = lastSent ?? (viewport.framebufferWidth / 2, viewport.framebufferHeight / 2)
            gestures.cursor.set(x: Double(p.x) + 0.5, y: Double(p.y) + 0.5,
                                framebufferWidth: viewport.framebufferWidth, height: viewport.framebufferHeight)
        }
        softCursorVisible = m == .trackpad
        out.append(.redraw)
        return out
    }

    /// Shows or hides the on-screen keyboard; hiding releases what it holds.
    public func setKeyboard(shown: Bool) -> [RouterAction] {
        guard shown != (keyboard != nil) else { return [] }
        if shown {
            keyboard = OnScreenKeyboard()
        } else {
            if var k = keyboard { sendKeyboard(k.releaseAll()) }
            keyboard = nil
            uiFingers = uiFingers.filter { $0.value != .keyboard }
        }
        return [.keyboardChanged, .redraw]
    }

    /// The window lays the keyboard out where it draws it.
    public func setKeyboardLayout(_ frame: ViewRect) { keyboard?.layout(in: frame) }

    /// The soft cursor starts in the middle of the first framebuffer and stays on one that
    /// shrank under it.
    public func clampSoftCursor() {
        let w = viewport.framebufferWidth, h = viewport.framebufferHeight
        guard w > 0, h > 0 else { return }
        if !cursorPlaced {
            cursorPlaced = true
            gestures.cursor.set(x: Double(w) / 2, y: Double(h) / 2, framebufferWidth: w, height: h)
            // the remote pointer goes there too: a server whose pointer is elsewhere than the
            // client's last event draws its cursor into the picture (TigerVNC), a second cursor
            if touchMode == .trackpad && !viewOnly { send(gestures.cursor.pixel, 0) }
        }
        gestures.cursor.clamp(framebufferWidth: w, height: h)
    }
    private var cursorPlaced = false

    /// True while `poll` has work (momentum coasting, a trackpad click waiting for a second tap).
    public var needsPolling: Bool { gestures.needsPolling }

    /// Time-driven gestures; `now` on the finger events' clock (SDL_GetTicks, in seconds).
    public func poll(now: Double) -> [RouterAction] {
        apply(gestures.poll(now: now, viewport: &viewport))
    }

    /// The window in points, where fingers land (the viewport's when the window did not say).
    var touchArea: (w: Double, h: Double) {
        windowSize.w > 0 ? windowSize : (Double(viewport.windowWidth), Double(viewport.windowHeight))
    }

    /// One finger event in window points (also the entry point for tests).
    public func touch(_ t: TouchEvent) -> [RouterAction] {
        if let ui = uiFingers[t.finger] { return uiTouch(t, ui) }
        if t.phase == .down {
            if reconnecting || sessionEnded || menu != nil || picker != nil {
                // the first finger clicks, as the mouse would
                uiFingers[t.finger] = .click
                return uiFingers.count == 1 ? button(SDL_BUTTON_LEFT, down: true, at: t.point) : []
            }
            if let k = keyboard, k.contains(t.point) {
                uiFingers[t.finger] = .keyboard
                return keyboardPress(t.point, id: t.finger)
            }
        }
        if var edge = edgeTouch {
            if t.finger == edge.finger {
                edge.events.append(t)
                edgeTouch = edge
                return edgeProgress(t)
            }
            // another finger: not an edge swipe after all
            var out = flushEdge()
            out += gestureTouch(t)
            return out
        }
        if t.phase == .down && gestureFingers.isEmpty && !gestures.needsPolling {
            let (w, h) = touchArea
            let top = t.y < InputRouter.edgeZone
            let bottom = keyboard == nil && h > 0 && t.y >= h - InputRouter.edgeZone
            // the side edges only matter with several remote screens (swipe to the next one)
            let left = severalScreens && t.x < InputRouter.edgeZone
            let right = severalScreens && w > 0 && t.x >= w - InputRouter.edgeZone
            if top || bottom || left || right {
                edgeTouch = (t.finger, top ? .top : bottom ? .bottom : left ? .left : .right, [t])
                return []
            }
        }
        return gestureTouch(t)
    }

    func uiTouch(_ t: TouchEvent, _ ui: UIFinger) -> [RouterAction] {
        switch (ui, t.phase) {
        case (.click, .move):
            return uiFingers.first?.key == t.finger || uiFingers.count == 1 ? motion(t.point) : []
        case (.click, .up):
            uiFingers[t.finger] = nil
            return uiFingers.isEmpty ? button(SDL_BUTTON_LEFT, down: false, at: t.point) : []
        case (.keyboard, .up):
            uiFingers[t.finger] = nil
            guard var k = keyboard else { return [] }
            sendKeyboard(k.release(id: t.finger))
            keyboard = k
            return [.redraw]
        case (.consumed, .up):
            uiFingers[t.finger] = nil
            return []
        default:
            return []
        }
    }

    func edgeProgress(_ t: TouchEvent) -> [RouterAction] {
        guard let edge = edgeTouch, let first = edge.events.first else { return [] }
        let dy = t.y - first.y, dx = t.x - first.x
        let inward: Double, across: Double
        switch edge.edge {
        case .top: inward = dy; across = dx
        case .bottom: inward = -dy; across = dx
        case .left: inward = dx; across = dy
        case .right: inward = -dx; across = dy
        }
        if t.phase == .move && inward >= InputRouter.edgeSwipeDistance && abs(across) < inward
            && t.time - first.time <= InputRouter.edgeSwipeTime {
            edgeTouch = nil
            uiFingers[t.finger] = .consumed
            switch edge.edge {
            case .top:
                openMenu()
                return [.menuChanged, .redraw]
            case .bottom: return setKeyboard(shown: true)
            // in from the right brings the next screen, as pages turn
            case .right: return [.cycleMonitor(forward: true)]
            case .left: return [.cycleMonitor(forward: false)]
            }
        }
        if t.phase == .up || abs(across) >= InputRouter.edgeSwipeDistance || t.time - first.time > InputRouter.edgeSwipeTime {
            return flushEdge()
        }
        return []
    }

    /// Replays a held-back edge touch to the recogniser.
    func flushEdge() -> [RouterAction] {
        guard let edge = edgeTouch else { return [] }
        edgeTouch = nil
        return edge.events.flatMap { gestureTouch($0) }
    }

    func gestureTouch(_ t: TouchEvent) -> [RouterAction] {
        switch t.phase {
        case .down: gestureFingers.insert(t.finger)
        case .up: gestureFingers.remove(t.finger)
        case .move: guard gestureFingers.contains(t.finger) else { return [] }
        }
        var out: [RouterAction] = []
        if touchMode == .trackpad && !softCursorVisible { softCursorVisible = true; out.append(.redraw) }
        return out + apply(gestures.handle(t, viewport: &viewport))
    }

    /// Sends a recogniser's pointer events (merged with mouse buttons held) and passes on view changes.
    func apply(_ actions: [GestureAction]) -> [RouterAction] {
        var out: [RouterAction] = []
        for a in actions {
            switch a {
            case .pointer(let x, let y, let b):
                if touchMode == .trackpad { out.append(.redraw) }   // the soft cursor moved
                guard !sessionEnded, !viewOnly else { continue }
                lastSent = (x, y)
                sink?.sendPointer(x: x, y: y, buttons: b | buttons)
            case .viewChanged:
                out.append(.redraw)
            case .threeFingerSwipe(let d):
                guard severalScreens else { continue }
                switch d {
                case .up:
                    openPicker()
                    out += [.pickerChanged, .redraw]
                case .left: out.append(.cycleMonitor(forward: true))    // content moves left: the next screen comes in
                case .right: out.append(.cycleMonitor(forward: false))
                case .down: break
                }
            }
        }
        return out
    }

    func keyboardPress(_ p: ViewPoint, id: Int64) -> [RouterAction] {
        guard var k = keyboard else { return [] }
        let r = k.press(at: p, id: id)
        keyboard = k
        switch r {
        case .none: return []
        case .latchChanged: return [.redraw]
        case .hide: return setKeyboard(shown: false)
        case .send(let evs):
            sendKeyboard(evs)
            return [.redraw]
        }
    }

    func sendKeyboard(_ evs: [OnScreenKeyEvent]) {
        for e in evs {
            if let target = keyboardTarget { target(e); continue }
            guard !viewOnly, !sessionEnded else { continue }
            sink?.sendKey(e.keysym, down: e.down, xtKeycode: nil)
        }
    }
}
