import Foundation

/// A kiosk's PIN in front of the menu: the pad while it is asked, and the count of wrong PINs
/// across every pad (Cancel and F8 again start no fresh count). The window loads the lockout
/// from the kiosk's state directory at start and saves it after each `.pin` action.
/// Main thread only.
public struct PinGate {
    /// The pad while it is up.
    public private(set) var pad: PinPad?
    /// Wrong PINs in a row, across pads.
    public var lockout = PinLockout()
    /// The lockout's clock: wall-clock seconds (the count outlives the process).
    public var clock: () -> Double = { Date().timeIntervalSince1970 }

    public init() {}

    /// Brings the pad up for `pin`; says at once when wrong PINs still lock it.
    mutating func open(_ pin: String) -> PinEvent? {
        let now = clock()
        pad = PinPad(pin: pin, lockout: lockout, now: now)
        let left = lockout.remaining(now: now)
        return left > 0 ? .openedLocked(seconds: left, failures: lockout.failures) : nil
    }

    /// A key on the pad; the pad goes away once the PIN was accepted or the pad cancelled.
    mutating func press(_ key: PinPad.Key) -> PinPad.Outcome {
        guard var p = pad else { return .none }
        let outcome = p.press(key, now: clock(), lockout: &lockout)
        switch outcome {
        case .accepted, .cancelled: pad = nil
        case .rejected, .none: pad = p
        }
        return outcome
    }

    /// The overlay lays the pad out; hits use the same geometry.
    mutating func setLayout(frame: ViewRect, keys: [ViewRect]) {
        pad?.frame = frame
        pad?.keyFrames = keys
    }
}
