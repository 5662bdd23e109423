/// What the H.264 decoder must know of an Annex B byte stream that libavcodec does not tell
/// it: that it is one, which parameter sets a context was sent (libavcodec keeps one of each
/// id, twice: in the decoder and in the parser, and that is memory a server controls) and
/// whether an access unit holds a slice. Splitting into access units is libavcodec's parser's
/// job, not this.
enum AnnexB {
    /// NAL unit types (H.264 table 7-1).
    static let sliceTypes: ClosedRange<UInt8> = 1...5
    static let spsType: UInt8 = 7
    static let ppsType: UInt8 = 8
    /// Ids libavcodec stores (H.264 7.4.2.1.1 and 7.4.2.2: 0-31 and 0-255); it refuses others.
    static let spsIDs = 32
    static let ppsIDs = 256

    /// Calls `body` with the offset of each NAL unit's header byte (just past its 00 00 01)
    /// and where the unit ends (the next start code, or `n`).
    static func forEachNAL(_ p: UnsafePointer<UInt8>, count n: Int, _ body: (Int, Int) throws -> Void) rethrows {
        var start = -1
        var i = 2
        while i < n {
            let b = p[i]
            // a byte above 1 cannot end a start code here, nor be one of the zeros of the next two
            if b > 1 { i += 3; continue }
            if b == 1 && p[i - 1] == 0 && p[i - 2] == 0 {
                if start >= 0 { try body(start, i - 2) }
                start = i + 1
                i += 3
                continue
            }
            i += 1
        }
        if start >= 0 && start < n { try body(start, n) }
    }

    /// True when `p[0..<n]` holds a coded slice: a unit that makes a picture.
    static func hasSlice(_ p: UnsafePointer<UInt8>, count n: Int) -> Bool {
        var found = false
        forEachNAL(p, count: n) { s, e in
            if s < e && sliceTypes.contains(p[s] & 0x1f) { found = true }
        }
        return found
    }

    /// Checks that `p[0..<n]` is an Annex B byte stream (libavcodec would skip what is not,
    /// and show nothing without a word: a server sending length-prefixed units, say), and
    /// adds the sequence and picture parameter-set ids it holds to `sps` and `pps`.
    static func scan(_ p: UnsafePointer<UInt8>, count n: Int, rect: Rect, sps: inout IDSet, pps: inout IDSet) throws {
        var first = -1
        var index = 0
        try forEachNAL(p, count: n) { s, e in
            index += 1
            if first < 0 { first = s }
            guard s < e else { return }     // an empty NAL unit: nothing to decode
            let header = p[s]
            if header & 0x80 != 0 {
                throw ProtocolError("H.264 rect \(rect): NAL unit \(index) at byte \(s) has its forbidden_zero_bit set")
            }
            let type = header & 0x1f
            guard type == spsType || type == ppsType else { return }
            var bits = RBSPBits(p + s + 1, count: e - s - 1)
            // an SPS starts with profile_idc, the constraint flags and level_idc (8 bits each)
            if type == spsType { bits.skip(24) }
            guard let id = bits.ue() else { return }
            if type == spsType { if id < spsIDs { sps.insert(id) } } else if id < ppsIDs { pps.insert(id) }
        }
        guard first >= 0 else {
            throw ProtocolError("H.264 rect \(rect): no NAL unit start code in its \(n) bytes of data")
        }
        for i in 0..<(first - 3) where p[i] != 0 {
            throw ProtocolError("H.264 rect \(rect): the data does not begin with a NAL unit start code")
        }
    }
}

/// A set of small ids (at most 256): which parameter sets a context holds.
struct IDSet: Equatable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    mutating func insert(_ id: Int) {
        let bit = UInt64(1) << UInt64(id & 63)
        switch id >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        case 3: words.3 |= bit
        default: break
        }
    }

    var count: Int { words.0.nonzeroBitCount + words.1.nonzeroBitCount + words.2.nonzeroBitCount + words.3.nonzeroBitCount }

    static func == (a: IDSet, b: IDSet) -> Bool { a.words == b.words }
}

/// The first 64 bits of a NAL unit's payload with its emulation-prevention bytes (00 00 03)
/// taken out: enough for the ids at the start of a parameter set.
struct RBSPBits {
    private var value: UInt64 = 0
    private var available = 0
    private var used = 0

    init(_ p: UnsafePointer<UInt8>, count n: Int) {
        var zeros = 0
        var i = 0
        while i < n && available < 64 {
            let b = p[i]
            i += 1
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            value |= UInt64(b) << UInt64(56 - available)
            available += 8
        }
    }

    mutating func skip(_ n: Int) { used += n }

    /// An unsigned Exp-Golomb number (H.264 9.1), nil when it runs past the bits read.
    mutating func ue() -> Int? {
        guard used < available else { return nil }
        let rest = value << UInt64(used)
        let zeros = rest.leadingZeroBitCount
        // 2 * zeros + 1 bits in all; ids need at most 17
        guard zeros < 32, used + 2 * zeros + 1 <= available else { return nil }
        let field = (rest >> UInt64(63 - 2 * zeros)) & ((UInt64(1) << UInt64(zeros + 1)) - 1)
        used += 2 * zeros + 1
        return Int(field) - 1
    }
}
