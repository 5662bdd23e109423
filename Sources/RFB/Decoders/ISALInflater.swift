import CISAL

/// A raw deflate stream in ISA-L (libisal2, loaded by `InflateEngine`).
final class ISALInflater: RawInflater {
    private let stream: OpaquePointer

    init?() {
        guard let s = cisal_new() else { return nil }
        stream = s
    }

    deinit { cisal_free(stream) }

    func reset() { cisal_reset(stream) }

    var atFlushPoint: Bool { cisal_at_flush_point(stream) != 0 }

    func inflate(_ input: UnsafePointer<UInt8>, count: UInt32, into output: UnsafeMutablePointer<UInt8>,
                 capacity: UInt32) -> (consumed: Int, produced: Int, status: RawInflateStatus) {
        var consumed: UInt32 = 0, produced: UInt32 = 0, pastEnd: UInt32 = 0
        var what: UnsafePointer<CChar>?
        let rc = cisal_inflate(stream, input, count, output, capacity, &consumed, &produced, &pastEnd, &what)
        let status: RawInflateStatus
        switch rc {
        case Int32(CISAL_PROGRESS): status = .progress
        case Int32(CISAL_END): status = .end(pastEnd: Int(pastEnd))
        default: status = .corrupt(what.map { String(cString: $0) } ?? "no message")
        }
        return (Int(consumed), Int(produced), status)
    }
}
