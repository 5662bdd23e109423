import CSDL2

/// SDL key → X keysym for keys whose keysym does not depend on the layout. Layout-dependent
/// symbols come from the keycode's ASCII value here; xkbcommon translation replaces this for
/// full layout support.
enum KeyMap {
    static let special: [Int32: UInt32] = [
        Int32(SDLK_BACKSPACE.rawValue): 0xff08, Int32(SDLK_TAB.rawValue): 0xff09, Int32(SDLK_RETURN.rawValue): 0xff0d,
        Int32(SDLK_ESCAPE.rawValue): 0xff1b, Int32(SDLK_DELETE.rawValue): 0xffff, Int32(SDLK_HOME.rawValue): 0xff50,
        Int32(SDLK_LEFT.rawValue): 0xff51, Int32(SDLK_UP.rawValue): 0xff52, Int32(SDLK_RIGHT.rawValue): 0xff53,
        Int32(SDLK_DOWN.rawValue): 0xff54, Int32(SDLK_PAGEUP.rawValue): 0xff55, Int32(SDLK_PAGEDOWN.rawValue): 0xff56,
        Int32(SDLK_END.rawValue): 0xff57, Int32(SDLK_INSERT.rawValue): 0xff63, Int32(SDLK_KP_ENTER.rawValue): 0xff8d,
        Int32(SDLK_LSHIFT.rawValue): 0xffe1, Int32(SDLK_RSHIFT.rawValue): 0xffe2, Int32(SDLK_LCTRL.rawValue): 0xffe3,
        Int32(SDLK_RCTRL.rawValue): 0xffe4, Int32(SDLK_CAPSLOCK.rawValue): 0xffe5, Int32(SDLK_LALT.rawValue): 0xffe9,
        Int32(SDLK_RALT.rawValue): 0xffea, Int32(SDLK_LGUI.rawValue): 0xffeb, Int32(SDLK_RGUI.rawValue): 0xffec,
        Int32(SDLK_MENU.rawValue): 0xff67, Int32(SDLK_PRINTSCREEN.rawValue): 0xff61, Int32(SDLK_PAUSE.rawValue): 0xff13,
        Int32(SDLK_SCROLLLOCK.rawValue): 0xff14, Int32(SDLK_NUMLOCKCLEAR.rawValue): 0xff7f,
    ]

    static func keysym(for k: SDL_Keysym) -> UInt32? { keysym(sym: k.sym, mod: k.mod) }

    static func keysym(sym: Int32, mod: UInt16) -> UInt32? {
        if let s = special[sym] { return s }
        let f1 = Int32(SDLK_F1.rawValue), f12 = Int32(SDLK_F12.rawValue)
        if sym >= f1 && sym <= f12 { return 0xffbe + UInt32(sym - f1) }
        if sym >= 32 && sym < 127 {
            let shift = (Int32(mod) & Int32(KMOD_SHIFT.rawValue)) != 0
            if shift, let u = shifted[UInt8(sym)] { return UInt32(u) }
            return UInt32(sym)
        }
        return nil
    }

    /// US-layout shifted symbols (a stop-gap until xkbcommon translation).
    static let shifted: [UInt8: UInt8] = {
        var m: [UInt8: UInt8] = [:]
        for c in UInt8(ascii: "a")...UInt8(ascii: "z") { m[c] = c - 32 }
        let pairs = Array("1!2@3#4$5%6^7&8*9(0)-_=+[{]}\\|;:'\",<.>/?`~".utf8)
        for i in stride(from: 0, to: pairs.count, by: 2) { m[pairs[i]] = pairs[i + 1] }
        return m
    }()
}
