/// Things a decoder's jobs borrow on worker threads, one job at a time each, and give back for
/// the next (a painter's palette and gradient row, a TurboJPEG handle): made as jobs first need
/// them, so a connection holds as many as ran at once. Shared by the decoder that makes the jobs
/// and the jobs themselves; any thread.
final class ScratchPool<T>: @unchecked Sendable {
    private var idle: [T] = []
    private let lock = PthreadMutex()
    private let make: () -> T?
    private let destroy: (T) -> Void

    /// `make` may fail (nil): `borrow` then throws `unavailable`.
    init(make: @escaping () -> T?, destroy: @escaping (T) -> Void = { _ in }) {
        self.make = make
        self.destroy = destroy
    }

    deinit { for t in idle { destroy(t) } }

    /// Lends one to `body`; `unavailable` when none is idle and none can be made.
    func borrow<R>(unavailable: @autoclosure () -> ProtocolError, _ body: (T) throws -> R) throws -> R {
        guard let t = lock.locked({ idle.popLast() }) ?? make() else { throw unavailable() }
        defer { lock.locked { idle.append(t) } }
        return try body(t)
    }
}
