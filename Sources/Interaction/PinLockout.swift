/// Wrong PINs in a row, counted across every PIN pad the kiosk shows (each F8 or swipe makes a
/// new one) and, saved by the front end, across restarts: so Cancel, F8 again, or pulling the
/// plug never gives an attacker a fresh count. As phones do, the first few tries are free, then
/// each wrong PIN locks the pad for longer, doubling up to an hour; the right PIN clears it.
///
/// Times are wall-clock seconds (since 1970), as the count outlives the process and boots. A
/// clock set back cannot stretch a lock past what the count allows (`remaining` clamps it).
public struct PinLockout: Equatable, Sendable {
    /// Wrong PINs since the last right one.
    public private(set) var failures: Int
    /// Until when (wall clock) every PIN is refused; 0: never locked.
    public private(set) var lockedUntil: Double

    /// Wrong PINs allowed before the first lock: typos, not guesses.
    public static let freeTries = 4
    /// The first lock (after `freeTries + 1` wrong PINs), doubled for each wrong PIN after it.
    public static let firstLockSeconds = 60.0
    /// The longest lock: 24 guesses a day at most, yet an owner who mistyped waits an hour only.
    public static let longestLockSeconds = 3600.0
    /// The count stops growing here (a count read from a file is clamped to it too).
    public static let maxFailures = 1000

    public init(failures: Int = 0, lockedUntil: Double = 0) {
        self.failures = min(max(0, failures), PinLockout.maxFailures)
        self.lockedUntil = lockedUntil.isFinite ? max(0, lockedUntil) : 0
    }

    /// How long the pad locks after the `n`th wrong PIN in a row.
    public static func lockSeconds(afterFailures n: Int) -> Double {
        guard n > freeTries else { return 0 }
        // 60 s doubling; past 2^6 it is over the hour anyway (and 2^n stays small)
        let doublings = min(n - freeTries - 1, 10)
        return min(firstLockSeconds * Double(1 << doublings), longestLockSeconds)
    }

    /// Seconds the pad stays locked at `now` (0: PINs are checked).
    public func remaining(now: Double) -> Double {
        let left = lockedUntil - now
        guard left > 0 else { return 0 }
        return min(left, PinLockout.lockSeconds(afterFailures: failures))
    }

    /// A wrong PIN at `now`; returns the lock it brings (0: none yet).
    @discardableResult
    public mutating func recordFailure(now: Double) -> Double {
        failures = min(failures + 1, PinLockout.maxFailures)
        let lock = PinLockout.lockSeconds(afterFailures: failures)
        if lock > 0 { lockedUntil = now + lock }
        return lock
    }

    /// The right PIN: the count starts again.
    public mutating func recordSuccess() {
        failures = 0
        lockedUntil = 0
    }
}
