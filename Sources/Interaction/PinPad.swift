/// The PIN keypad that guards a kiosk's menu: digits by touch, mouse or keyboard, checked when
/// OK is pressed; five wrong PINs in a row lock it for a minute. The overlay lays the keys out
/// in window points (`keyFrames`), so hits use the geometry that is drawn.
public struct PinPad: Equatable, Sendable {
    public enum Key: Equatable, Sendable { case digit(Int), delete, ok, cancel }
    public enum Outcome: Equatable, Sendable { case none, accepted, rejected, cancelled }

    /// Keys in layout order: a 3x4 grid (1-9, delete, 0, OK), cancel below.
    public static let keys: [Key] = (1...9).map { .digit($0) } + [.delete, .digit(0), .ok, .cancel]

    let pin: String
    public private(set) var entered = ""
    public private(set) var message: String?
    private var failures = 0
    private var lockedUntil = 0.0
    public var frame = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var keyFrames: [ViewRect] = []

    public static let maxFailures = 5, lockSeconds = 60.0

    public init(pin: String) { self.pin = pin }

    public static func label(_ k: Key) -> String {
        switch k {
        case .digit(let d): return "\(d)"
        case .delete: return "⌫"
        case .ok: return "OK"
        case .cancel: return "Cancel"
        }
    }

    /// A key pressed at time `now` (seconds, any monotonic clock).
    public mutating func press(_ k: Key, now: Double) -> Outcome {
        if k == .cancel { return .cancelled }
        if now < lockedUntil {
            message = "Too many wrong PINs: try again in \(Int((lockedUntil - now).rounded(.up))) s"
            return .none
        }
        switch k {
        case .digit(let d):
            if entered.count < 12 { entered += "\(d)" }
            message = nil
        case .delete:
            if !entered.isEmpty { entered.removeLast() }
        case .ok:
            // compared in full every time: no early exit that could time the digits
            var same = entered.utf8.count == pin.utf8.count
            for (a, b) in zip(entered.utf8, pin.utf8) where a != b { same = false }
            entered = ""
            if same { failures = 0; message = nil; return .accepted }
            failures += 1
            if failures >= PinPad.maxFailures {
                failures = 0
                lockedUntil = now + PinPad.lockSeconds
                message = "Too many wrong PINs: locked for \(Int(PinPad.lockSeconds)) s"
            } else {
                message = "Wrong PIN"
            }
            return .rejected
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
