import CZlib

/// A raw deflate stream in zlib.
final class ZlibInflater: RawInflater {
    // Heap-allocated: zlib keeps a back pointer to the z_stream and rejects one that moved.
    private let strm: UnsafeMutablePointer<z_stream>

    init?() {
        strm = .allocate(capacity: 1)
        strm.initialize(to: z_stream())
        // windowBits -15: raw deflate with the full 32 KiB window the zlib header promises at most
        guard inflateInit2_(strm, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            strm.deinitialize(count: 1); strm.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(strm)
        strm.deinitialize(count: 1)
        strm.deallocate()
    }

    func reset() { inflateReset(strm) }

    /// zlib's data_type after an inflate: the bits left over, +64 in the last block, +128 between
    /// blocks, +256 inside a stored block or before a length (zlib.h).
    var atFlushPoint: Bool {
        let t = strm.pointee.data_type
        return t & 128 != 0 && t & 256 == 0 && t & 63 == 0
    }

    func inflate(_ input: UnsafePointer<UInt8>, count: UInt32, into output: UnsafeMutablePointer<UInt8>,
                 capacity: UInt32) -> (consumed: Int, produced: Int, status: RawInflateStatus) {
        strm.pointee.next_in = UnsafeMutablePointer(mutating: input)
        strm.pointee.avail_in = count
        strm.pointee.next_out = output
        strm.pointee.avail_out = capacity
        // Z_SYNC_FLUSH: servers flush each rect, so all its output comes out of its bytes
        let rc = CZlib.inflate(strm, Z_SYNC_FLUSH)
        let consumed = Int(count - strm.pointee.avail_in), produced = Int(capacity - strm.pointee.avail_out)
        strm.pointee.next_in = nil; strm.pointee.next_out = nil
        let status: RawInflateStatus
        switch rc {
        case Z_OK, Z_BUF_ERROR: status = .progress      // Z_BUF_ERROR: no progress possible
        case Z_STREAM_END: status = .end(pastEnd: 0)
        case Z_DATA_ERROR: status = .corrupt(message)
        case Z_MEM_ERROR: status = .failed("zlib ran out of memory")
        default: status = .failed("zlib inflate failed with code \(rc) (\(message))")
        }
        return (consumed, produced, status)
    }

    private var message: String {
        if let m = strm.pointee.msg { return String(cString: m) }
        return "no message"
    }
}
