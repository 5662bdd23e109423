import CSDL2
import Interaction

/// SDL events → the input controller's plain values (`InputEvent`), nothing more: no decision
/// about what an event does is made here. Keeps the one piece of state SDL needs for it: the X
/// keycode of the raw X key event SDL is about to turn into a key event (SYSWM comes first).
/// Main thread only.
struct SDLInput {
    /// SDL's id for mouse events made from touches: dropped, the finger events carry the touch.
    static let touchMouseID = UInt32(bitPattern: -1)

    var pendingX: (keycode: Int32, press: Bool)?

    /// The plain value for `e`, or nil when it is none of the controller's business (and for
    /// SDL's mouse copies of touches, so that a tap is one click).
    mutating func translate(_ e: SDL_Event) -> InputEvent? {
        switch e.type {
        case SDL_SYSWMEVENT.rawValue:
            if let m = e.syswm.msg, m.pointee.subsystem == SDL_SYSWM_X11 {
                let xe = m.pointee.msg.x11.event
                // KeyPress = 2, KeyRelease = 3 (X.h)
                if xe.type == 2 || xe.type == 3 { pendingX = (Int32(xe.xkey.keycode), xe.type == 2) }
            }
            return nil
        case SDL_KEYDOWN.rawValue, SDL_KEYUP.rawValue:
            let k = e.key
            let down = e.type == SDL_KEYDOWN.rawValue
            var evdev: Int32? = nil
            if let p = pendingX, p.press == down, p.keycode >= 8 { evdev = p.keycode - 8 }
            pendingX = nil
            return .key(KeyInput(scancode: Int32(k.keysym.scancode.rawValue), sym: k.keysym.sym,
                                 modifiers: SDLInput.modifiers(k.keysym.mod), down: down, isRepeat: k.repeat != 0,
                                 evdevCode: evdev))
        case SDL_MOUSEMOTION.rawValue:
            guard e.motion.which != SDLInput.touchMouseID else { return nil }
            return .pointerMotion(at: ViewPoint(x: Double(e.motion.x), y: Double(e.motion.y)),
                                  dx: Double(e.motion.xrel), dy: Double(e.motion.yrel))
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            guard e.button.which != SDLInput.touchMouseID else { return nil }
            return .pointerButton(SDLInput.button(Int32(e.button.button)), down: e.type == SDL_MOUSEBUTTONDOWN.rawValue,
                                  at: ViewPoint(x: Double(e.button.x), y: Double(e.button.y)))
        case SDL_MOUSEWHEEL.rawValue:
            guard e.wheel.which != SDLInput.touchMouseID else { return nil }
            let flip: Int32 = e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED.rawValue ? -1 : 1
            // x and y are whole notches: SDL sums the precise values (smooth X11 wheels, Wayland
            // axis_value120 on a v8 seat) into them, and RFB has only notches
            return .wheel(WheelInput(dx: Int(e.wheel.x * flip), dy: Int(e.wheel.y * flip),
                                     preciseX: Double(e.wheel.preciseX) * Double(flip),
                                     preciseY: Double(e.wheel.preciseY) * Double(flip),
                                     at: ViewPoint(x: Double(e.wheel.mouseX), y: Double(e.wheel.mouseY))))
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            let f = e.tfinger
            let phase: TouchEvent.Phase = e.type == SDL_FINGERDOWN.rawValue ? .down : e.type == SDL_FINGERUP.rawValue ? .up : .move
            // SDL gives 0...1 of the window (X11: XInput2; Wayland: wl_touch over the surface's
            // logical size), of the touch device on KMSDRM (which is the screen); nothing else
            // differs by driver before the gesture code
            return .finger(id: f.fingerId, phase, x: Double(f.x), y: Double(f.y), time: Double(f.timestamp) / 1000)
        case SDL_WINDOWEVENT.rawValue:
            switch UInt32(e.window.event) {
            case SDL_WINDOWEVENT_FOCUS_LOST.rawValue: return .focusLost
            case SDL_WINDOWEVENT_FOCUS_GAINED.rawValue: return .focusGained
            default: return nil
            }
        case SDL_KEYMAPCHANGED.rawValue:
            return .keymapChanged(keymap: nil)
        case SDL_TEXTINPUT.rawValue:
            var t = e.text
            let s = withUnsafeBytes(of: &t.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return s.isEmpty ? nil : .text(s)
        default:
            return nil
        }
    }

    static func button(_ b: Int32) -> PointerButton {
        switch b {
        case SDL_BUTTON_LEFT: return .left
        case SDL_BUTTON_MIDDLE: return .middle
        case SDL_BUTTON_RIGHT: return .right
        case SDL_BUTTON_X1: return .back
        case SDL_BUTTON_X2: return .forward
        default: return .other(Int(b))
        }
    }

    static func modifiers(_ mod: UInt16) -> KeyModifiers {
        let m = UInt32(mod)
        var out: KeyModifiers = []
        if m & KMOD_SHIFT.rawValue != 0 { out.insert(.shift) }
        if m & KMOD_CTRL.rawValue != 0 { out.insert(.control) }
        if m & KMOD_ALT.rawValue != 0 { out.insert(.alt) }
        if m & KMOD_GUI.rawValue != 0 { out.insert(.gui) }
        if m & KMOD_MODE.rawValue != 0 { out.insert(.altGr) }
        if m & KMOD_CAPS.rawValue != 0 { out.insert(.capsLock) }
        if m & KMOD_NUM.rawValue != 0 { out.insert(.numLock) }
        return out
    }
}
