/// The engine's side of decoding on worker threads (DecodeManager, `decodeThreads` above 1).
extension ClientEngine {
    /// Rects decoded on worker threads so far (`decodeThreads` above 1).
    public var rectsOnWorkers: Int { jobs?.started ?? 0 }
    /// Called on a worker thread when a rect it decoded failed, so that whoever waits on the
    /// network can call `checkWorkers()` now. Set before the first feed.
    public var onWorkerFailure: (@Sendable () -> Void)? {
        get { jobs?.onFailure }
        set { jobs?.onFailure = newValue }
    }

    /// A rect on a worker that failed is reported now, with the message the sequential path
    /// gives (the first failure in stream order), instead of at the next barrier; `wait` also
    /// waits for every rect in flight (the end of a stream).
    public func checkWorkers(wait: Bool = false) throws {
        guard let o = jobs, o.hasPending, wait || o.anyFailed.load(ordering: .acquiring) else { return }
        do { try o.drain() } catch let e as ProtocolError { throw fail(e) }
    }

    /// Fuzzing only: every rect a worker can take goes to one however small, and the jobs in
    /// flight may hold `budgetBytes` (default: the viewer's budget).
    @_spi(Fuzzing) public func offloadEveryRect(budgetBytes: Int? = nil) {
        jobs?.minPixels = 0
        if let budgetBytes { jobs?.budgetBytes = budgetBytes }
    }
}
