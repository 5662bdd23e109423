/// The PIN keypad that guards a kiosk's menu: digits by touch, mouse or keyboard, checked when
/// OK is pressed. Wrong tries are counted by a `PinLockout` the caller keeps across pads (and
/// restarts), passed to every press. The overlay lays the keys out in window points
/// (`keyFrames`), so hits use the geometry that is drawn.
public struct PinPad: Equatable, Sendable {
    public enum Key: Equatable, Sendable { case digit(Int), delete, ok, cancel }
    public enum Outcome: Equatable, Sendable {
        case none, accepted, cancelled
        /// A wrong PIN; `lockSeconds` > 0 when it locked the pad.
        case rejected(lockSeconds: Double)
    }

    /// Keys in layout order: a 3x4 grid (1-9, delete, 0, OK), cancel below.
    public static let keys: [Key] = (1...9).map { .digit($0) } + [.delete, .digit(0), .ok, .cancel]
    /// Digits kept at most (the longest PIN kiosk.conf takes).
    public static let maxDigits = 12

    let pin: String
    public private(set) var entered = ""
    public private(set) var message: String?
    public var frame = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var keyFrames: [ViewRect] = []

    /// A pad opened at `now`: when the lockout still holds, it says so at once.
    public init(pin: String, lockout: PinLockout = PinLockout(), now: Double = 0) {
        self.pin = pin
        let left = lockout.remaining(now: now)
        if left > 0 { message = PinPad.lockedMessage(left) }
    }

    static func lockedMessage(_ seconds: Double) -> String {
        "Too many wrong PINs: try again in \(PinPad.duration(seconds))"
    }

    /// "45 s", "3 min", "1 h".
    static func duration(_ s: Double) -> String {
        let n = Int(s.rounded(.up))
        if n < 120 { return "\(n) s" }
        if n < 7200 { return "\((n + 59) / 60) min" }
        return "\((n + 3599) / 3600) h"
    }

    public static func label(_ k: Key) -> String {
        switch k {
        case .digit(let d): return "\(d)"
        case .delete: return "⌫"
        case .ok: return "OK"
        case .cancel: return "Cancel"
        }
    }

    /// A key pressed at `now` (wall-clock seconds, the lockout's clock).
    public mutating func press(_ k: Key, now: Double, lockout: inout PinLockout) -> Outcome {
        if k == .cancel { return .cancelled }
        let left = lockout.remaining(now: now)
        if left > 0 {
            entered = ""
            message = PinPad.lockedMessage(left)
            return .none
        }
        switch k {
        case .digit(let d):
            if entered.count < PinPad.maxDigits { entered += "\(d)" }
            message = nil
        case .delete:
            if !entered.isEmpty { entered.removeLast() }
        case .ok:
            // compared in full every time: no early exit that could time the digits
            var same = entered.utf8.count == pin.utf8.count
            for (a, b) in zip(entered.utf8, pin.utf8) where a != b { same = false }
            entered = ""
            if same { lockout.recordSuccess(); message = nil; return .accepted }
            let lock = lockout.recordFailure(now: now)
            message = lock > 0 ? "Too many wrong PINs: locked for \(PinPad.duration(lock))" : "Wrong PIN"
            return .rejected(lockSeconds: lock)
        case .cancel:
            return .cancelled
        }
        return .none
    }

    /// The key under a window point, if any.
    public func key(at p: ViewPoint) -> Key? {
        for (i, r) in keyFrames.enumerated() where i < PinPad.keys.count {
            if p.x >= r.x && p.x < r.x + r.w && p.y >= r.y && p.y < r.y + r.h { return PinPad.keys[i] }
        }
        return nil
    }
}

/// Whether a kiosk's menu opens: freely, never, or after the PIN.
public enum MenuLock: Equatable, Sendable { case open, locked, pin(String) }
