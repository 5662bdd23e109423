import CSDL2
import Foundation
import Interaction

/// SDL events → the launcher's plain keys and taps.
extension LauncherWindow {
    /// Returns whether something drawn may have changed.
    func handle(_ e: SDL_Event) -> Bool {
        if let w = discoveryWake, e.type == w.eventType { discoveryChanged(); return true }
        switch e.type {
        case SDL_QUIT.rawValue:
            quit = true
        case SDL_WINDOWEVENT.rawValue:
            return true
        case SDL_KEYDOWN.rawValue:
            // --touch-layout keeps the touch layout whatever is used (a touchscreen machine)
            if touchInput && !startInTouchLayout { touchInput = false; keyboardShown = false }
            guard let k = LauncherWindow.key(e.key.keysym) else { return false }
            if k == .text("paste") {
                guard let c = SDL_GetClipboardText() else { return false }
                let s = String(cString: c)
                SDL_free(c)
                perform(state.key(.text(s)))
            } else {
                perform(state.key(k))
            }
        case SDL_TEXTINPUT.rawValue:
            let s = withUnsafeBytes(of: e.text.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !s.isEmpty else { return false }
            perform(state.key(s == " " ? .space : .text(s)))
        case SDL_MOUSEBUTTONDOWN.rawValue:
            // a finger also makes mouse events: those come as finger events below
            guard e.button.which != UInt32(bitPattern: -1), e.button.button == UInt8(SDL_BUTTON_LEFT) else { return false }
            if !startInTouchLayout { touchInput = false }
            tap(ViewPoint(x: Double(e.button.x), y: Double(e.button.y)))
        case SDL_MOUSEWHEEL.rawValue:
            guard e.wheel.which != UInt32(bitPattern: -1) else { return false }
            state.scroll(by: -Double(e.wheel.y) * 48)
        case SDL_FINGERDOWN.rawValue:
            let p = fingerPoint(e.tfinger)
            fingerDown = (e.tfinger.fingerId, p.x, p.y, false)
            return false
        case SDL_FINGERMOTION.rawValue:
            guard var f = fingerDown, f.id == e.tfinger.fingerId else { return false }
            let p = fingerPoint(e.tfinger)
            // a drag scrolls; a finger that moved is not a tap
            if f.moved || abs(p.y - f.y) > 12 {
                state.scroll(by: f.y - p.y)
                f.moved = true; f.x = p.x; f.y = p.y
                fingerDown = f
                return true
            }
            return false
        case SDL_FINGERUP.rawValue:
            guard let f = fingerDown, f.id == e.tfinger.fingerId else { return false }
            fingerDown = nil
            guard !f.moved else { return true }
            touchInput = true
            tap(ViewPoint(x: f.x, y: f.y))
        case SDL_DROPFILE.rawValue:
            guard let file = e.drop.file else { return false }
            let path = String(cString: file)
            SDL_free(file)
            importFile(path)
        default:
            return false
        }
        return true
    }

    func fingerPoint(_ t: SDL_TouchFingerEvent) -> ViewPoint {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        return ViewPoint(x: Double(t.x) * Double(w), y: Double(t.y) * Double(h))
    }

    /// A tap on the on-screen keyboard types; anywhere else goes to the state machine.
    func tap(_ p: ViewPoint) {
        if keyboardShown, keyboard.contains(p) {
            let shifted = keyboard.latched.contains(.shift)
            switch keyboard.press(at: p, id: 0) {
            case .send(let events):
                for ev in events where ev.down {
                    if let k = LauncherKey(keysym: ev.keysym, shifted: shifted) { perform(state.key(k)) }
                }
                _ = keyboard.release(id: 0)
            case .hide: keyboardShown = false
            case .latchChanged, .none: break
            }
            return
        }
        perform(state.tap(at: p))
    }

    /// Keys by keycode (letters as the layout has them), F2 as Ctrl+E; Ctrl+V pastes.
    static func key(_ k: SDL_Keysym) -> LauncherKey? {
        let ctrl = (UInt32(k.mod) & UInt32(KMOD_CTRL.rawValue)) != 0
        let shift = (UInt32(k.mod) & UInt32(KMOD_SHIFT.rawValue)) != 0
        func sc(_ s: SDL_Scancode) -> Bool { k.scancode == s }
        if ctrl {
            switch k.sym {
            case 0x6e: return .newConnection   // n
            case 0x65: return .edit            // e
            case 0x64: return .duplicate       // d
            case 0x76: return .text("paste")   // v
            default: break
            }
        }
        if sc(SDL_SCANCODE_UP) { return .up }
        if sc(SDL_SCANCODE_DOWN) { return .down }
        if sc(SDL_SCANCODE_LEFT) { return .left }
        if sc(SDL_SCANCODE_RIGHT) { return .right }
        if sc(SDL_SCANCODE_PAGEUP) { return .pageUp }
        if sc(SDL_SCANCODE_PAGEDOWN) { return .pageDown }
        if sc(SDL_SCANCODE_HOME) { return .home }
        if sc(SDL_SCANCODE_END) { return .end }
        if sc(SDL_SCANCODE_RETURN) || sc(SDL_SCANCODE_KP_ENTER) { return .enter }
        if sc(SDL_SCANCODE_ESCAPE) { return .escape }
        if sc(SDL_SCANCODE_TAB) { return shift ? .shiftTab : .tab }
        if sc(SDL_SCANCODE_BACKSPACE) { return .backspace }
        if sc(SDL_SCANCODE_DELETE) { return .delete }
        if sc(SDL_SCANCODE_F2) { return .edit }
        return nil
    }
}
