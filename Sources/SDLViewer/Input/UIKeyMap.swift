import CSDL2
import Interaction

/// SDL scancodes → the keys the viewer's UI knows (`ViewerUI`); by physical key, so the UI's
/// keys are where they are whatever the layout.
extension InputRouter {
    static func uiKey(_ sc: Int32) -> UIKey {
        func s(_ c: SDL_Scancode) -> Int32 { Int32(c.rawValue) }
        switch sc {
        case s(SDL_SCANCODE_ESCAPE): return .escape
        case s(SDL_SCANCODE_RETURN), s(SDL_SCANCODE_KP_ENTER): return .enter
        case s(SDL_SCANCODE_SPACE): return .space
        case s(SDL_SCANCODE_TAB): return .tab
        case s(SDL_SCANCODE_UP): return .up
        case s(SDL_SCANCODE_DOWN): return .down
        case s(SDL_SCANCODE_LEFT): return .left
        case s(SDL_SCANCODE_RIGHT): return .right
        case s(SDL_SCANCODE_HOME): return .home
        case s(SDL_SCANCODE_END): return .end
        case s(SDL_SCANCODE_PAGEUP): return .pageUp
        case s(SDL_SCANCODE_PAGEDOWN): return .pageDown
        case s(SDL_SCANCODE_F8): return .f8
        case s(SDL_SCANCODE_F9): return .f9
        case s(SDL_SCANCODE_F11): return .f11
        case s(SDL_SCANCODE_R): return .r
        case s(SDL_SCANCODE_A): return .a
        case s(SDL_SCANCODE_S): return .s
        case s(SDL_SCANCODE_I): return .i
        case s(SDL_SCANCODE_1)...s(SDL_SCANCODE_9): return .digit(Int(sc - s(SDL_SCANCODE_1)) + 1)
        case s(SDL_SCANCODE_0): return .digit(0)
        case s(SDL_SCANCODE_KP_1)...s(SDL_SCANCODE_KP_9): return .digit(Int(sc - s(SDL_SCANCODE_KP_1)) + 1)
        case s(SDL_SCANCODE_KP_0): return .digit(0)
        case s(SDL_SCANCODE_LCTRL)...s(SDL_SCANCODE_RGUI): return .modifier
        default: return .other
        }
    }

    var ctrlAltHeld: Bool {
        (held.contains(Int32(SDL_SCANCODE_LCTRL.rawValue)) || held.contains(Int32(SDL_SCANCODE_RCTRL.rawValue)))
            && (held.contains(Int32(SDL_SCANCODE_LALT.rawValue)) || held.contains(Int32(SDL_SCANCODE_RALT.rawValue)))
    }

    var shiftHeld: Bool {
        held.contains(Int32(SDL_SCANCODE_LSHIFT.rawValue)) || held.contains(Int32(SDL_SCANCODE_RSHIFT.rawValue))
    }
}
