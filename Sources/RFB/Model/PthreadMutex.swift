import Glibc

/// A pthread mutex (ThreadSanitizer sees it; Synchronization's Mutex waits on futexes it does not).
/// The fuzz harness's shared caches use it too.
@_spi(Fuzzing) public final class PthreadMutex: @unchecked Sendable {
    private let m: UnsafeMutablePointer<pthread_mutex_t>
    public init() {
        m = .allocate(capacity: 1)
        m.initialize(to: pthread_mutex_t())
        pthread_mutex_init(m, nil)
    }
    deinit { pthread_mutex_destroy(m); m.deallocate() }
    @inline(__always) public func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(m)
        defer { pthread_mutex_unlock(m) }
        return try body()
    }
}
