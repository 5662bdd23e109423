import CSDL2
import Interaction

/// Fingers: on UI they click or press keys; at an edge they may swipe (`EdgeSwipeRecognizer`);
/// otherwise the gesture recogniser turns them into pointer events and view changes.
extension InputRouter {
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
        if let f = uiFingers[t.finger] { return uiTouch(t, f) }
        if t.phase == .down {
            if ui.fingerClicks {
                // the first finger clicks, as the mouse would
                uiFingers[t.finger] = .click
                return uiFingers.count == 1 ? button(SDL_BUTTON_LEFT, down: true, at: t.point) : []
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

    func uiTouch(_ t: TouchEvent, _ f: UIFinger) -> [RouterAction] {
        switch (f, t.phase) {
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
