import Foundation
import RFB

/// The viewer's input, decided without a window system (TigerVNC's ShortcutHandler and
/// GestureHandler in one place): plain `InputEvent`s in, RFB input out through an `InputSink`,
/// and `WindowAction`s back for the window to carry out. Owns the viewport, the UI state
/// (`ui`: menu, picker, prompt, countdown, end message, and the facts the menu shows), the
/// pressed-key and button state, the fingers and gestures, and the kiosk's PIN flow, so every
/// shortcut, click and gesture is a unit test over plain values. What keys and clicks do over
/// the UI is decided by `ViewerUI`; this class maps input onto it and carries out its effects.
/// Main thread only.
///
/// - Keys: F11 toggles full screen; F8 opens the menu (F8 inside the menu sends F8); everything
///   else goes through `keyTranslator`. A release sends what the press sent.
/// - Pointer: buttons 1-3 and wheel 4/5 (vertical), 6/7 (horizontal); back/forward as 8/9.
///   Points in the bars send nothing (a release still goes out if the press did).
/// - Scrolling a zoomed view: the wheel with Ctrl+Alt held pans (Shift or the horizontal wheel
///   pans sideways); without them the wheel goes to the server.
/// - Touch: fingers go to the edge-swipe recogniser, then the gesture recogniser (touch or
///   trackpad mode) and the pointer events it makes to the server (the front end drops the
///   mouse events its window system makes from touches, so a tap is one click). Over the menu,
///   the picker, the reconnect countdown or the end message, a finger acts as a left click; on
///   the on-screen keyboard it presses keys.
/// - Several remote screens: F9 or a three-finger swipe up opens the screen picker (arrows,
///   digits, Enter, Esc, a click or a tap choose); Ctrl+Alt+PageDown/PageUp, a swipe in from the
///   right/left edge or a three-finger swipe left/right go to the next/previous screen.
/// - A kiosk's locked menu: F8 or the top-edge swipe opens the PIN pad instead, and while it is
///   up every key, click and touch goes to it (none to the server).
public final class InputController {
    public weak var sink: InputSink?
    public var viewOnly: Bool
    public var keyTranslator: KeyTranslating
    public var viewport: Viewport
    /// The one copy of the UI state; the window reads it to draw and sets the facts it owns
    /// the changes of (full screen, recording, audio, info, power control).
    public var ui = ViewerUI()
    /// The kiosk's PIN pad while it is asked, and the lockout that outlives each pad.
    public var pin = PinGate()

    /// RFB button mask as last sent.
    public private(set) var buttons: UInt16 = 0
    /// What each physical key (HID usage) sent on press.
    var pressed: [Int32: KeyOutput] = [:]
    /// Keys physically down (for the pan modifiers), whatever was sent.
    var held = Set<Int32>()
    /// The window system's keymap the translator has now (nil: the one detected at start).
    var keymapText: String?
    var lastSent: (x: Int, y: Int)?

    /// Output pixels the view scrolls per wheel notch.
    public static let panStep = 64.0
    /// Wheel notches per event sent at most (a flung wheel should not flood the server).
    static let maxNotches = 10
    /// The on-screen keyboard's holder id for the mouse (finger ids are the window system's,
    /// never negative).
    static let mouseKeyID: Int64 = -1

    // touch
    public private(set) var gestures: GestureRecognizer
    public var touchMode: TouchInputMode { gestures.mode }
    /// The on-screen keyboard while shown.
    public private(set) var keyboard: OnScreenKeyboard?
    /// While set (a credential prompt is up), on-screen key events go here, not to the server.
    public var keyboardTarget: ((OnScreenKeyEvent) -> Void)?
    /// The whole window in points (the viewport may be smaller: the keyboard takes the bottom).
    public var windowSize = (w: 0.0, h: 0.0)

    enum UIFinger { case click, keyboard, consumed }
    /// Fingers that landed on UI, and what they do until lifted; never gestures.
    var uiFingers: [Int64: UIFinger] = [:]
    /// Fingers the recogniser is following.
    var gestureFingers = Set<Int64>()
    /// Swipes in from the window's edges (menu, keyboard, next/previous screen).
    var edges = EdgeSwipeRecognizer()
    var cursorPlaced = false

    public init(sink: InputSink?, viewport: Viewport = Viewport(), viewOnly: Bool = false,
                keyTranslator: KeyTranslating = KeyMapTranslator(), touchMode: TouchInputMode = .touch) {
        self.sink = sink
        self.viewport = viewport
        self.viewOnly = viewOnly
        self.keyTranslator = keyTranslator
        gestures = GestureRecognizer(mode: touchMode)
        // trackpad mode shows its cursor from the start: a finger has to know where it is
        ui.softCursorShown = touchMode == .trackpad
    }

    // MARK: the UI state, as the window and tests see it

    /// A kiosk's menu: open, locked, or behind a PIN (the pad while it is asked). Part of
    /// `ui.lock`, which the shortcuts ask too.
    public var menuLock: MenuLock {
        get { ui.lock.menu }
        set { ui.lock.menu = newValue }
    }
    /// The PIN pad while it is up (the window draws it).
    public var pinPad: PinPad? { pin.pad }
    public var menu: ViewerMenu? { ui.menu }
    public var menuOpen: Bool { ui.menu != nil }
    public var picker: ScreenPicker? { ui.picker }
    public var pickerGeometry: PickerGeometry? {
        get { ui.pickerGeometry }
        set { ui.pickerGeometry = newValue }
    }
    /// The server's screens (the window keeps it current) and the one shown.
    public var screenLayout: ScreenLayout? {
        get { ui.screenLayout }
        set { ui.screenLayout = newValue }
    }
    public var monitorChoice: MonitorChoice {
        get { ui.monitorChoice }
        set { ui.monitorChoice = newValue }
    }
    var severalScreens: Bool { ui.severalScreens }
    var sessionEnded: Bool { ui.ended != nil }

    /// Opens the menu when its lock lets it; with a PIN, the pad comes up instead.
    public func openMenu() { _ = openMenuActions() }

    /// `openMenu`, with what the window has to do about it.
    func openMenuActions() -> [WindowAction] {
        let pin = menuMayOpen()
        if !pin.open { return [.menuChanged, .redraw] + pin.actions }
        showMenu()
        return [.menuChanged, .redraw]
    }

    /// The menu, its lock passed (open, or the PIN typed).
    func showMenu() {
        releaseAll()
        ui.openMenu(ViewerUI.MenuContext(fullscreen: ui.fullscreen, scaling: viewport.mode, viewOnly: viewOnly,
                                         touchMode: touchMode, keyboardShown: keyboard != nil, recording: ui.recording,
                                         power: ui.powerControl, audio: ui.audio, info: ui.info))
    }

    public func closeMenu() { ui.closeMenu() }

    public func openPicker() {
        guard severalScreens else { return }
        releaseAll()
        ui.openPicker()
    }

    public func closePicker() { ui.closePicker() }

    /// Chooses menu entry `index` (as a click on it would).
    public func activate(_ index: Int) -> [WindowAction] { ui.activate(index).flatMap(perform) }

    /// The overlay lays the menu out; the controller keeps the geometry for mouse hits.
    public func setMenuLayout(frame: ViewRect, rows: [ViewRect]) { ui.setMenuLayout(frame: frame, rows: rows) }

    /// Carries out what the UI asked for; the rest goes to the window.
    func perform(_ r: UIResult) -> [WindowAction] {
        guard case .handled(let effects) = r else { return [] }
        return effects.flatMap(perform)
    }

    func perform(_ e: UIEffect) -> [WindowAction] {
        switch e {
        case .redraw: return [.redraw]
        case .menuChanged: return [.menuChanged]
        case .pickerChanged: return [.pickerChanged]
        case .toggleFullscreen: return [.toggleFullscreen]
        case .setScaling(let s): return [.setScaling(s)]
        case .quit: return [.quit]
        case .retryNow: return [.retryNow]
        case .reconnect: return [.reconnect]
        case .chooseMonitor(let c): return [.chooseMonitor(c)]
        case .cycleMonitor(let f): return [.cycleMonitor(forward: f)]
        case .openMenu:
            return openMenuActions()
        case .openPicker:
            openPicker()
            return [.pickerChanged, .redraw]
        case .sendF8:
            sendF8()
            return []
        case .menuItem(let a):
            switch a {
            case .sendCtrlAltDel: sendCtrlAltDel(); return []
            case .sendF8: sendF8(); return []
            case .disconnect: return [.disconnect]
            case .screenshot: return [.screenshot]
            case .toggleRecording: return [.toggleRecording]
            case .power(let a): return [.power(a)]
            case .toggleAudio: return [.toggleAudio]
            case .toggleInfo: return [.toggleInfo]
            case .setTouchMode(let m): return setTouchMode(m)
            case .resetZoom: return apply(gestures.resetZoom(&viewport))
            case .toggleKeyboard: return setKeyboard(shown: keyboard == nil)
            case .openPicker:
                openPicker()
                return [.pickerChanged]
            // handled by the UI itself (never an item effect)
            case .toggleFullscreen: return [.toggleFullscreen]
            case .setScaling(let s): return [.setScaling(s)]
            }
        }
    }

    // MARK: events

    /// One input event; returns what the window has to do about it (RFB input has gone to the
    /// sink meanwhile).
    public func handle(_ event: InputEvent) -> [WindowAction] {
        var e = event
        // keys from the window system's own keymap (Wayland): which key the UI and the PIN pad
        // see is the keymap's business (a virtual keyboard's key codes are slots, not positions)
        if case .key(var k) = event, let evdev = k.evdevCode, let t = keyTranslator as? KeymapTaking,
           let ui = t.uiScancode(forEvdev: Int(evdev)) {
            k.scancode = Int32(ui)
            e = .key(k)
        }
        switch e {
        case .focusLost:
            releaseAll(); held.removeAll()
            if let t = keyTranslator as? KeymapTaking { sendKeys(t.releaseSynthesized()) }
            return []
        case .focusGained:
            return []
        case .keymapChanged(let text?):
            return keymapChanged(text)
        case .keyboardModifiers(let m):
            // before the PIN pad: what the keys mean must stay current while it is up
            guard let t = keyTranslator as? KeymapTaking else { return [] }
            sendKeys(t.setModifiers(m))
            return []
        case _ where pin.pad != nil:
            return handlePin(e)
        case .key(let k):
            return key(k)
        case .pointerMotion(let p, _, _):
            return mouseMotion(p)
        case .pointerButton(let b, let down, let p):
            return button(b, down: down, at: p)
        case .wheel(let w):
            return wheel(dx: w.dx, dy: w.dy, at: w.at)
        case .finger(let id, let phase, let x, let y, let time):
            let (w, h) = touchArea
            return touch(TouchEvent(finger: id, phase, x: x * w, y: y * h, time: time))
        case .keymapChanged, .text:
            // without the keymap itself (SDL_KEYMAPCHANGED) the translator keeps the layout
            // detected at start; text is for the prompt, never the server (keys go by keysym)
            return []
        case .keyboardModifiers:
            return []   // taken above
        }
    }

    /// The window system's keymap (a Wayland compositor's, the X server's): the translator takes it, or one is made from it
    /// when the translator cannot (the built-in US fallback). What the server holds is
    /// released first: those keys were looked up in the old keymap. A keymap that does not
    /// compile is refused and the old one kept.
    func keymapChanged(_ text: String) -> [WindowAction] {
        // the same keymap again (XWayland passes one on for each new keyboard, a virtual
        // keyboard's included, often after that keyboard's first key): nothing changes, and
        // keys held stay held
        guard text != keymapText else { return [] }
        for (_, out) in pressed { sink?.sendKey(out.keysym, down: false, xtKeycode: out.xtKeycode) }
        pressed.removeAll()
        // the UI keys of held keys may differ under the new keymap: their releases would not match
        held.removeAll()
        do {
            if let t = keyTranslator as? KeymapTaking {
                sendKeys(try t.setKeymap(text: text))
            } else {
                keyTranslator = XKBKeyTranslator(try KeyboardTranslator(keymapText: text))
            }
            keymapText = text
            let name = (keyTranslator as? XKBKeyTranslator)?.translator.spec.layout ?? "?"
            return [.log("keyboard: the window system's keymap (\(text.utf8.count) bytes, layout \(name)) translates the keys")]
        } catch {
            return [.log("keyboard: a keymap from the compositor was refused, the previous one stays: \(error)")]
        }
    }

    /// Sends key events the translator made (modifiers), unless view-only.
    func sendKeys(_ keys: [KeyOutput]) {
        guard !viewOnly else { return }
        for k in keys { sink?.sendKey(k.keysym, down: k.down, xtKeycode: k.xtKeycode) }
    }

    // MARK: keys

    /// A key event in plain values.
    public func key(_ k: KeyInput) -> [WindowAction] {
        if k.down { held.insert(k.scancode) } else { held.remove(k.scancode) }
        let r = ui.key(UIKeyEvent(HIDUsage.uiKey(k.scancode), down: k.down, isRepeat: k.isRepeat, ctrlAlt: ctrlAltHeld))
        guard r == .desktop else { return perform(r) }
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

    /// Whether the key (HID usage) sent a press that is not yet released (a repeat of it
    /// resends that press).
    public func isPressed(_ scancode: Int32) -> Bool { pressed[scancode] != nil }

    var ctrlAltHeld: Bool {
        (held.contains(HIDUsage.leftControl) || held.contains(HIDUsage.rightControl))
            && (held.contains(HIDUsage.leftAlt) || held.contains(HIDUsage.rightAlt))
    }

    var shiftHeld: Bool { held.contains(HIDUsage.leftShift) || held.contains(HIDUsage.rightShift) }

    /// Releases every key and button the server thinks is down (focus lost, menu opened), and
    /// forgets the gestures under way.
    public func releaseAll() {
        for (_, out) in pressed { sink?.sendKey(out.keysym, down: false, xtKeycode: out.xtKeycode) }
        pressed.removeAll()
        if var k = keyboard { sendKeyboard(k.releaseAll()); keyboard = k }
        let gestureRelease = gestures.reset()
        uiFingers.removeAll(); gestureFingers.removeAll(); edges.reset()
        if buttons != 0, let p = lastSent {
            buttons = 0
            sink?.sendPointer(x: p.x, y: p.y, buttons: 0)
        } else {
            for case .pointer(let x, let y, let b) in gestureRelease { send((x, y), b) }
        }
        buttons = 0
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

    // MARK: the mouse: over the UI, `ViewerUI` decides; over the desktop, RFB pointer events

    /// A real mouse moved: in trackpad mode the soft cursor jumps to it and hides (the system
    /// cursor is there), so a finger carries on from where the mouse left the pointer.
    func mouseMotion(_ p: ViewPoint) -> [WindowAction] {
        var out: [WindowAction] = []
        if ui.softCursorShown { ui.softCursorShown = false; out += [.redraw, .softCursorChanged] }
        if !menuOpen, touchMode == .trackpad, let fp = viewport.framebufferPixel(atWindow: p) {
            gestures.cursor.set(x: Double(fp.x) + 0.5, y: Double(fp.y) + 0.5,
                                framebufferWidth: viewport.framebufferWidth, height: viewport.framebufferHeight)
        }
        return out + motion(p)
    }

    func motion(_ p: ViewPoint) -> [WindowAction] {
        let r = ui.motion(p)
        guard r == .desktop else { return perform(r) }
        guard !sessionEnded, !viewOnly, let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
        send(fp, buttons)
        return []
    }

    func button(_ b: PointerButton, down: Bool, at p: ViewPoint) -> [WindowAction] {
        let r = ui.button(left: b == .left, down: down, at: p)
        guard r == .desktop else { return perform(r) }
        // the mouse on the on-screen keyboard (a kiosk may have both)
        if keyboard != nil, b == .left {
            if down, keyboard?.contains(p) == true { return keyboardPress(p, id: InputController.mouseKeyID) }
            if !down, var k = keyboard, k.isHolding {
                let evs = k.release(id: InputController.mouseKeyID)
                keyboard = k
                if !evs.isEmpty { sendKeyboard(evs); return [.redraw] }
            }
        }
        guard !sessionEnded, !viewOnly else { return [] }
        let bit: UInt16
        switch b {
        case .left: bit = 1
        case .middle: bit = 2
        case .right: bit = 4
        case .back: bit = 1 << 7      // button 8
        case .forward: bit = 1 << 8   // button 9 (reaches servers with ExtendedMouseButtons)
        case .other: return []
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

    func wheel(dx: Int, dy: Int, at p: ViewPoint) -> [WindowAction] {
        let r = ui.wheel(dy: dy)
        guard r == .desktop else { return perform(r) }
        if ctrlAltHeld && viewport.canScroll {
            // wheel up scrolls towards the top, as in any scrolled view
            var sx = Double(dx), sy = Double(-dy)
            if shiftHeld && dx == 0 { sx = sy; sy = 0 }
            return viewport.scroll(dx: sx * InputController.panStep, dy: sy * InputController.panStep) ? [.redraw] : []
        }
        guard !sessionEnded, !viewOnly, let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
        var bits: [(UInt16, Int)] = []
        if dy > 0 { bits.append((8, dy)) } else if dy < 0 { bits.append((16, -dy)) }
        if dx < 0 { bits.append((32, -dx)) } else if dx > 0 { bits.append((64, dx)) }
        for (b, n) in bits {
            for _ in 0..<min(n, InputController.maxNotches) {
                send(fp, buttons | b)
                send(fp, buttons)
            }
        }
        return []
    }

    func send(_ p: (x: Int, y: Int), _ mask: UInt16) {
        lastSent = p
        // a mouse and a finger at once (a kiosk may have both): the server sees both held
        sink?.sendPointer(x: p.x, y: p.y, buttons: mask | gestures.buttons)
    }

    // MARK: fingers: on UI they click or press keys; at an edge they may swipe; otherwise the
    // gesture recogniser turns them into pointer events and view changes

    /// Switches touch mode (menu, or the front end at start). A drag under way is released.
    public func setTouchMode(_ m: TouchInputMode) -> [WindowAction] {
        guard m != touchMode else { return [] }
        var out = apply(gestures.setMode(m))
        gestureFingers.removeAll()
        if m == .trackpad {
            // the soft cursor starts where the pointer last was (or the middle)
            let p = lastSent ?? (viewport.framebufferWidth / 2, viewport.framebufferHeight / 2)
            gestures.cursor.set(x: Double(p.x) + 0.5, y: Double(p.y) + 0.5,
                                framebufferWidth: viewport.framebufferWidth, height: viewport.framebufferHeight)
        }
        if ui.softCursorShown != (m == .trackpad) {
            ui.softCursorShown = m == .trackpad
            out.append(.softCursorChanged)
        }
        out.append(.redraw)
        return out
    }

    /// Shows or hides the on-screen keyboard; hiding releases what it holds.
    public func setKeyboard(shown: Bool) -> [WindowAction] {
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

    /// True while `poll` has work (momentum coasting, a trackpad click waiting for a second tap).
    public var needsPolling: Bool { gestures.needsPolling }

    /// Time-driven gestures; `now` on the finger events' clock (seconds).
    public func poll(now: Double) -> [WindowAction] {
        apply(gestures.poll(now: now, viewport: &viewport))
    }

    /// The window in points, where fingers land (the viewport's when the window did not say).
    public var touchArea: (w: Double, h: Double) {
        windowSize.w > 0 ? windowSize : (Double(viewport.windowWidth), Double(viewport.windowHeight))
    }

    /// One finger event in window points (also the entry point for tests with chosen times).
    public func touch(_ t: TouchEvent) -> [WindowAction] {
        if let f = uiFingers[t.finger] { return uiTouch(t, f) }
        if t.phase == .down {
            if ui.fingerClicks {
                // the first finger clicks, as the mouse would
                uiFingers[t.finger] = .click
                return uiFingers.count == 1 ? button(.left, down: true, at: t.point) : []
            }
            if let k = keyboard, k.contains(t.point) {
                uiFingers[t.finger] = .keyboard
                return keyboardPress(t.point, id: t.finger)
            }
        }
        // the bottom edge shows the keyboard (not while it is up); the sides only matter with
        // several remote screens (swipe to the next one)
        var open: Set<ScreenEdge> = [.top]
        if keyboard == nil { open.insert(.bottom) }
        if severalScreens && ui.lock.allows(.openPicker, via: .shortcut) { open.formUnion([.left, .right]) }
        let canStart = gestureFingers.isEmpty && !gestures.needsPolling
        switch edges.handle(t, area: touchArea, edges: open, canStart: canStart) {
        case .forward(let events):
            return events.flatMap { gestureTouch($0) }
        case .swipe(let s, let finger):
            uiFingers[finger] = .consumed
            switch s {
            case .openMenu:
                return openMenuActions()
            case .showKeyboard: return setKeyboard(shown: true)
            case .nextScreen: return [.cycleMonitor(forward: true)]
            case .previousScreen: return [.cycleMonitor(forward: false)]
            }
        }
    }

    func uiTouch(_ t: TouchEvent, _ f: UIFinger) -> [WindowAction] {
        switch (f, t.phase) {
        case (.click, .move):
            return uiFingers.first?.key == t.finger || uiFingers.count == 1 ? motion(t.point) : []
        case (.click, .up):
            uiFingers[t.finger] = nil
            return uiFingers.isEmpty ? button(.left, down: false, at: t.point) : []
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

    func gestureTouch(_ t: TouchEvent) -> [WindowAction] {
        switch t.phase {
        case .down: gestureFingers.insert(t.finger)
        case .up: gestureFingers.remove(t.finger)
        case .move: guard gestureFingers.contains(t.finger) else { return [] }
        }
        var out: [WindowAction] = []
        if touchMode == .trackpad && !ui.softCursorShown { ui.softCursorShown = true; out += [.redraw, .softCursorChanged] }
        return out + apply(gestures.handle(t, viewport: &viewport))
    }

    /// Sends a recogniser's pointer events (merged with mouse buttons held) and passes on view changes.
    func apply(_ actions: [GestureAction]) -> [WindowAction] {
        var out: [WindowAction] = []
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
                // the screens' shortcut: asks the lock as F9 does
                guard severalScreens, ui.lock.allows(.openPicker, via: .shortcut) else { continue }
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

    func keyboardPress(_ p: ViewPoint, id: Int64) -> [WindowAction] {
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

    // MARK: the kiosk's PIN pad

    /// Whether the menu may open now; with a PIN, the pad comes up first.
    func menuMayOpen() -> (open: Bool, actions: [WindowAction]) {
        switch menuLock {
        case .open: return (true, [])
        case .locked: return (false, [])
        case .pin(let p):
            releaseAll()
            return (false, pin.open(p).map { [.pin($0)] } ?? [])
        }
    }

    func handlePin(_ e: InputEvent) -> [WindowAction] {
        guard let pad = pin.pad else { return [] }
        let key: PinPad.Key?
        switch e {
        case .key(let k) where k.down: key = HIDUsage.pinKey(k.scancode)
        case .pointerButton(_, true, let p): key = pad.key(at: p)
        case .finger(_, .down, let x, let y, _):
            let (w, h) = touchArea
            key = pad.key(at: ViewPoint(x: x * w, y: y * h))
        default: return []
        }
        guard let key else { return [] }
        switch pin.press(key) {
        case .accepted:
            showMenu()
            return [.menuChanged, .redraw, .pin(.accepted)]
        case .cancelled:
            return [.menuChanged, .redraw]
        case .rejected(let lock):
            return [.redraw, .pin(.rejected(failures: pin.lockout.failures, lockSeconds: lock))]
        case .none:
            return [.redraw]
        }
    }

    /// The overlay lays the pad out; hits use the same geometry.
    public func setPinLayout(frame: ViewRect, keys: [ViewRect]) { pin.setLayout(frame: frame, keys: keys) }
}
