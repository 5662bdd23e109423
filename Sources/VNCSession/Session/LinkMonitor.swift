/// Measures the link all the time, with time passed in (session thread; tests use a fake
/// clock): round-trip time from fences (or, without them, from 1x1 full requests the server
/// must answer at once), throughput over a sliding window, the link's rate while an update
/// was arriving, updates per second and decode time per update.
public struct LinkMonitor: Sendable {
    /// Sliding window for rates, in buckets of `bucketSeconds`.
    public static let windowSeconds = 1.0
    static let bucketSeconds = 0.1
    /// Round-trip samples kept; the estimate is their median (robust to one stalled answer).
    static let rttSamples = 5

    struct Bucket: Sendable {
        var start: Double
        var bytes = 0, busyBytes = 0, updates = 0
        var busyTime = 0.0, decodeTime = 0.0
    }
    private var buckets: [Bucket] = []
    private var rtts: [Double] = []
    private var probe: (id: UInt32, sentAt: Double)?
    private var nextProbeID: UInt32 = 1

    public init() {}

    // MARK: feeding

    /// `n` bytes arrived at `t`; `busySeconds` is how long the link took to deliver them while
    /// an update was under way (0 when the viewer was merely waiting for the server).
    public mutating func received(_ n: Int, at t: Double, busySeconds: Double) {
        mutate(at: t) { $0.bytes += n; if busySeconds > 0 { $0.busyBytes += n; $0.busyTime += busySeconds } }
    }

    /// An update ended at `t`; `decodeSeconds` were spent decoding since the last one ended.
    public mutating func updateEnded(at t: Double, decodeSeconds: Double) {
        mutate(at: t) { $0.updates += 1; $0.decodeTime += decodeSeconds }
    }

    /// A probe (fence or 1x1 request) goes out at `t`; returns its id (the fence payload).
    /// Nil when one is still out and younger than `timeout` (never two at once).
    public mutating func startProbe(at t: Double, timeout: Double = 5) -> UInt32? {
        if let p = probe, t - p.sentAt < timeout { return nil }
        defer { nextProbeID &+= 1 }
        probe = (nextProbeID, t)
        return nextProbeID
    }

    /// The probe `id` came back at `t` (nil id: the answer to a request probe, matched to the
    /// one out).
    public mutating func probeReturned(_ id: UInt32?, at t: Double) {
        guard let p = probe, id == nil || id == p.id else { return }
        probe = nil
        rtts.append(max(0, t - p.sentAt))
        if rtts.count > LinkMonitor.rttSamples { rtts.removeFirst() }
    }

    public var probeOutstanding: Bool { probe != nil }

    // MARK: reading

    /// Median round-trip time in seconds; nil before the first sample.
    public var roundTrip: Double? {
        guard !rtts.isEmpty else { return nil }
        return rtts.sorted()[rtts.count / 2]
    }

    /// Bytes per second received over the window ending at `t`.
    public func throughput(at t: Double) -> Double {
        Double(live(at: t).reduce(0) { $0 + $1.bytes }) / LinkMonitor.windowSeconds
    }

    /// The link's rate in bytes/s while updates were arriving, over the window ending at `t`;
    /// nil when too little arrived to judge (an idle or nearly idle screen).
    public func capacity(at t: Double) -> Double? {
        let b = live(at: t)
        let bytes = b.reduce(0) { $0 + $1.busyBytes }, time = b.reduce(0.0) { $0 + $1.busyTime }
        guard bytes >= LinkMonitor.minimumCapacityBytes, time > 0.005 else { return nil }
        return Double(bytes) / time
    }
    /// Below this many bytes in the window, small updates say more about latency than rate.
    public static let minimumCapacityBytes = 16 * 1024

    /// Updates per second over the window ending at `t`.
    public func updatesPerSecond(at t: Double) -> Double {
        Double(live(at: t).reduce(0) { $0 + $1.updates }) / LinkMonitor.windowSeconds
    }

    /// Mean decode time per update in the window ending at `t`; nil without updates.
    public func decodePerUpdate(at t: Double) -> Double? {
        let b = live(at: t)
        let n = b.reduce(0) { $0 + $1.updates }
        guard n > 0 else { return nil }
        return b.reduce(0.0) { $0 + $1.decodeTime } / Double(n)
    }

    // MARK: buckets

    private func live(at t: Double) -> ArraySlice<Bucket> {
        let from = t - LinkMonitor.windowSeconds
        guard let i = buckets.firstIndex(where: { $0.start + LinkMonitor.bucketSeconds > from }) else { return [] }
        return buckets[i...]
    }

    private mutating func mutate(at t: Double, _ body: (inout Bucket) -> Void) {
        if buckets.isEmpty || t >= buckets[buckets.count - 1].start + LinkMonitor.bucketSeconds {
            let start = (t / LinkMonitor.bucketSeconds).rounded(.down) * LinkMonitor.bucketSeconds
            buckets.append(Bucket(start: start))
            let keep = Int(LinkMonitor.windowSeconds / LinkMonitor.bucketSeconds) + 2
            if buckets.count > keep { buckets.removeFirst(buckets.count - keep) }
        }
        body(&buckets[buckets.count - 1])
    }
}
