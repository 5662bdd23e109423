import CSDL2
import Interaction

/// A kiosk's locked menu: F8 or the top-edge swipe opens the PIN pad instead, and while it is
/// up every key, click and touch goes to it (none to the server).
extension InputRouter {
    /// Whether the menu may open now; with a PIN, the pad comes up first (saying at once when
    /// wrong PINs still lock it: the count is the router's, not the pad's, so Cancel and F8
    /// again start no fresh count).
    func menuMayOpen() -> (open: Bool, actions: [RouterAction]) {
        switch menuLock {
        case .open: return (true, [])
        case .locked: return (false, [])
        case .pin(let p):
            releaseAll()
            let now = pinClock()
            pinPad = PinPad(pin: p, lockout: pinLockout, now: now)
            let left = pinLockout.remaining(now: now)
            return (false, left > 0 ? [.pin(.openedLocked(seconds: left, failures: pinLockout.failures))] : [])
        }
    }

    func handlePin(_ e: SDL_Event) -> [RouterAction] {
        guard var pad = pinPad else { return [] }
        let now = pinClock()
        var key: PinPad.Key?
        switch e.type {
        case SDL_KEYDOWN.rawValue:
            let sc = Int32(e.key.keysym.scancode.rawValue)
            func s(_ c: SDL_Scancode) -> Int32 { Int32(c.rawValue) }
            switch sc {
            case s(SDL_SCANCODE_1)...s(SDL_SCANCODE_9): key = .digit(Int(sc - s(SDL_SCANCODE_1)) + 1)
            case s(SDL_SCANCODE_0): key = .digit(0)
            case s(SDL_SCANCODE_KP_1)...s(SDL_SCANCODE_KP_9): key = .digit(Int(sc - s(SDL_SCANCODE_KP_1)) + 1)
            case s(SDL_SCANCODE_KP_0): key = .digit(0)
            case s(SDL_SCANCODE_BACKSPACE): key = .delete
            case s(SDL_SCANCODE_RETURN), s(SDL_SCANCODE_KP_ENTER): key = .ok
            case s(SDL_SCANCODE_ESCAPE): key = .cancel
            default: break
            }
        case SDL_MOUSEBUTTONDOWN.rawValue where e.button.which != InputRouter.touchMouseID:
            key = pad.key(at: ViewPoint(x: Double(e.button.x), y: Double(e.button.y)))
        case SDL_FINGERDOWN.rawValue:
            let (w, h) = touchArea
            key = pad.key(at: ViewPoint(x: Double(e.tfinger.x) * w, y: Double(e.tfinger.y) * h))
        default:
            return []
        }
        guard let key else { return [] }
        let outcome = pad.press(key, now: now, lockout: &pinLockout)
        pinPad = pad
        switch outcome {
        case .accepted:
            pinPad = nil
            showMenu()
            return [.menuChanged, .redraw, .pin(.accepted)]
        case .cancelled:
            pinPad = nil
            return [.menuChanged, .redraw]
        case .rejected(let lock):
            return [.redraw, .pin(.rejected(failures: pinLockout.failures, lockSeconds: lock))]
        case .none:
            return [.redraw]
        }
    }

    /// The overlay lays the pad out; hits use the same geometry.
    public func setPinLayout(frame: ViewRect, keys: [ViewRect]) {
        pinPad?.frame = frame
        pinPad?.keyFrames = keys
    }
}
