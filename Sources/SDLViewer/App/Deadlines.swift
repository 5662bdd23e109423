/// When the window loop must wake without an event: every timer that is running, each with
/// its next deadline (seconds on `ViewerWindow.now()`'s clock). The loop sleeps until the
/// earliest one, or until an event when none runs (an idle viewer uses no CPU). A plain value,
/// no SDL: the loop fills it each turn and asks it how long to wait.
struct Deadlines: Equatable {
    enum Timer: Hashable, CaseIterable {
        /// The next present is due (paced to the display when there is no vsync).
        case present
        /// Momentum or a trackpad click waiting: the gesture clock runs each frame.
        case gestures
        /// A debounced remote resize.
        case remoteResize
        /// The reconnecting countdown is redrawn.
        case countdown
        /// The playback bar's clock and the end of the recording.
        case playback
        /// The connection-info panel's figures.
        case info
        /// A notice goes away.
        case notice
        /// systemd's watchdog is pinged.
        case watchdog
    }

    private var at: [Timer: Double] = [:]

    /// A one-shot deadline, replaced each turn from its owner's state; nil: not running.
    mutating func set(_ t: Timer, _ time: Double?) { at[t] = time }

    /// A repeating timer: while `running`, it keeps a deadline that has not passed yet and
    /// starts one `period` from `now` otherwise; stopped, it has none. Events coming in
    /// between do not push it back.
    mutating func every(_ t: Timer, _ period: Double, running: Bool, now: Double) {
        guard running else { at[t] = nil; return }
        if let d = at[t], d > now { return }
        at[t] = now + period
    }

    /// The earliest deadline and its timer; nil when nothing is timed.
    var earliest: (timer: Timer, at: Double)? {
        at.min { $0.value < $1.value || ($0.value == $1.value && $0.key.order < $1.key.order) }
            .map { ($0.key, $0.value) }
    }

    /// Milliseconds to wait for an event from `now` (rounded up, so the loop wakes at or after
    /// the deadline): 0 when one has passed (poll), nil when nothing is timed (wait for events).
    func waitMilliseconds(now: Double) -> Int32? {
        guard let e = earliest else { return nil }
        let ms = ((e.at - now) * 1000).rounded(.up)
        return ms <= 0 ? 0 : Int32(min(ms, Double(Int32.max)))
    }

    /// The timers whose deadline has come by `now`, taken out (a repeating one starts its
    /// next period when the loop asks for it again).
    mutating func takeDue(now: Double) -> Set<Timer> {
        let due = Set(at.filter { $0.value <= now }.keys)
        for t in due { at[t] = nil }
        return due
    }
}

private extension Deadlines.Timer {
    /// Ties go to the timer listed first.
    var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}
