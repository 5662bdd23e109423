/// Bytes received but not yet parsed. Grows only as far as the unit being parsed needs
/// (the engine bounds every unit), compacts instead of growing when it can, and gives the
/// memory of one huge unit back once it is parsed.
final class InputBuffer {
    /// Capacity kept between units: a full-HD frame's compressed bytes in one rect (TigerVNC's
    /// ZRLE or Tight at its largest) fit, so steady streams never reallocate; one larger unit
    /// (up to the 512 MiB a 64-Mpixel rect may take) is given back once parsed.
    static let keptCapacity = 8 << 20
    /// Where a new buffer starts: one socket read.
    static let initialCapacity = 1 << 16

    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var start = 0
    var end = 0

    init(capacity: Int = InputBuffer.initialCapacity) {
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
                move(to: newCap)
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
        // past a huge unit: back to the kept size once what is left fits in half of it (a
        // unit still arriving into a big buffer keeps it)
        if capacity > InputBuffer.keptCapacity && count <= InputBuffer.keptCapacity / 2 {
            let live = count
            move(to: InputBuffer.keptCapacity)
            start = 0; end = live
        }
    }

    /// The unparsed bytes into a new buffer of `newCap` bytes (the caller resets start and end).
    private func move(to newCap: Int) {
        let ns = UnsafeMutablePointer<UInt8>.allocate(capacity: newCap)
        ns.update(from: storage + start, count: count)
        storage.deallocate()
        storage = ns; capacity = newCap
    }
}
