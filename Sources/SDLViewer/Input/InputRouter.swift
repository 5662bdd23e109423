import CSDL2
import Foundation
import RFB
import Interaction

/// SDL events → RFB input (through an `InputSink`) and window actions. Owns the viewport, the
/// UI state (`ui`: menu, picker, prompt, countdown, end message) and the pressed-key/button
/// state, so the whole translation is testable with pushed SDL events and a recording sink.
/// What keys and clicks do over the UI is decided by `ViewerUI`; this class maps SDL events onto
/// it and carries out its effects. Main thread only.
///
/// - Keys: F11 toggles full screen; F8 opens the menu (F8 inside the menu sends F8); everything
///   else goes through `keyTranslator`. A release sends what the press sent.
/// - Pointer: buttons 1-3 and wheel 4/5 (vertical), 6/7 (horizontal); back/forward as 8/9.
///   Points in the bars send nothing (a release still goes out if the press did).
/// - Scrolling a zoomed view: the wheel with Ctrl+Alt held pans (Shift or the horizontal wheel
///   pans sideways); without them the wheel goes to the server.
/// - Touch: SDL finger events go to the edge-swipe recogniser, then the gesture recogniser
///   (touch or trackpad mode) and the pointer events it makes to the server; the mouse events
///   SDL synthesises from touches (`which == SDL_TOUCH_MOUSEID`) are dropped, so a tap is one
///   click. Over the menu, the picker, the reconnect countdown or the end message, a finger acts
///   as a left click; on the on-screen keyboard it presses keys.
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
    /// Whether the session is being recorded, for the menu's check mark; nil: not offered.
    public var recording: Bool? = false
    /// A kiosk's menu: open, locked, or behind a PIN (`pinPad` while it is asked). Part of
    /// `ui.lock`, which the shortcuts ask too.
    public var menuLock: MenuLock {
        get { ui.lock.menu }
        set { ui.lock.menu = newValue }
    }
    /// Wrong PINs in a row, across every pad this router shows; the window loads it from the
    /// kiosk's state directory at start and saves it after each `.pin` event.
    public var pinLockout = PinLockout()
    /// The PIN lockout's clock: wall-clock seconds (the count outlives the process).
    public var pinClock: () -> Double = { Date().timeIntervalSince1970 }
    /// The server offers xvp power control: the menu has its entries.
    public var powerControl = false
    /// QEMU's sound: nil when the server has none, else whether it is on.
    public var audio: Bool?
    /// The connection-info panel shows (the window sets it).
    public var info = false
    public internal(set) var pinPad: PinPad?
    /// The one copy of the UI state; the window reads it to draw.
    public var ui = ViewerUI()

    /// RFB button mask as last sent.
    public internal(set) var buttons: UInt16 = 0
    /// What each physical key (SDL scancode) sent on press.
    var pressed: [Int32: KeyOutput] = [:]
    /// Keys physically down (for the pan modifiers), whatever was sent.
    var held = Set<Int32>()
    var lastSent: (x: Int, y: Int)?

    /// Output pixels the view scrolls per wheel notch.
    static let panStep = 64.0
    /// Wheel notches per event sent at most (a flung wheel should not flood the server).
    static let maxNotches = 10

    // touch
    public internal(set) var gestures: GestureRecognizer
    public var touchMode: TouchInputMode { gestures.mode }
    /// Trackpad mode after a finger moved the pointer: the window draws the soft cursor (a
    /// mouse motion hides it again, the system cursor being where the mouse is).
    public internal(set) var softCursorVisible = false
    /// The on-screen keyboard while shown.
    public internal(set) var keyboard: OnScreenKeyboard?
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
        softCursorVisible = touchMode == .trackpad
    }

    // MARK: the UI state, as the window and tests see it

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
    func openMenuActions() -> [RouterAction] {
        let pin = menuMayOpen()
        if !pin.open { return [.menuChanged, .redraw] + pin.actions }
        showMenu()
        return [.menuChanged, .redraw]
    }

    /// The menu, its lock passed (open, or the PIN typed).
    func showMenu() {
        releaseAll()
        ui.openMenu(ViewerUI.MenuContext(fullscreen: fullscreen, scaling: viewport.mode, viewOnly: viewOnly,
                                         touchMode: touchMode, keyboardShown: keyboard != nil, recording: recording,
                                         power: powerControl, audio: audio, info: info))
    }

    public func closeMenu() { ui.closeMenu() }

    public func openPicker() {
        guard severalScreens else { return }
        releaseAll()
        ui.openPicker()
    }

    public func closePicker() { ui.closePicker() }

    /// Chooses menu entry `index` (as a click on it would).
    func activate(_ index: Int) -> [RouterAction] { ui.activate(index).flatMap(perform) }

    /// The overlay lays the menu out; the router keeps the geometry for mouse hits.
    public func setMenuLayout(frame: ViewRect, rows: [ViewRect]) { ui.setMenuLayout(frame: frame, rows: rows) }

    /// Carries out what the UI asked for; the rest goes to the window.
    func perform(_ r: UIResult) -> [RouterAction] {
        guard case .handled(let effects) = r else { return [] }
        return effects.flatMap(perform)
    }

    func perform(_ e: UIEffect) -> [RouterAction] {
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

    /// The X keycode of the X key event SDL is about to turn into a key event (SYSWM comes first).
    var pendingX: (keycode: Int32, press: Bool)?

    public func handle(_ e: SDL_Event) -> [RouterAction] {
        if pinPad != nil, e.type != SDL_WINDOWEVENT.rawValue, e.type != SDL_SYSWMEVENT.rawValue { return handlePin(e) }
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
        default:
            return []
        }
    }

    // MARK: keys

    /// A key event in plain values (also the entry point for tests and other front ends).
    public func key(_ k: KeyInput) -> [RouterAction] {
        if k.down { held.insert(k.scancode) } else { held.remove(k.scancode) }
        let r = ui.key(UIKeyEvent(InputRouter.uiKey(k.scancode), down: k.down, isRepeat: k.isRepeat, ctrlAlt: ctrlAltHeld))
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
}
