/// Bytes received but not yet parsed. Grows only as far as the unit being parsed needs
/// (the engine bounds every unit), and compacts instead of growing when it can.
final class InputBuffer {
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var start = 0
    var end = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }
    deinit { storage.deallocate() }

    var count: Int { end - start }

    /// Room for at least `n` more bytes at the tail; returns the tail pointer.
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - end < n {
            let live = count
            if start > 0 && capacity - live >= n {
                // slide the unparsed bytes down instead of growing
                (storage).update(from: storage + start, count: live)
            } else {
                var newCap = capacity * 2
                while newCap - live < n { newCap *= 2 }
                let ns = UnsafeMutablePointer<UInt8>.allocate(capacity: newCap)
                ns.update(from: storage + start, count: live)
                storage.deallocate()
                storage = ns; capacity = newCap
            }
            start = 0; end = live
        }
        return storage + end
    }

    func append(_ p: UnsafeRawPointer, _ n: Int) {
        let tail = reserve(n)
        tail.update(from: p.assumingMemoryBound(to: UInt8.self), count: n)
        end += n
    }

    func consume(_ n: Int) {
        start += n
        if start == end { start = 0; end = 0 }
    }
}
