import CAVCodec

/// Open H.264 (encoding 50): u32 length, u32 flags, then `length` bytes of Annex B H.264.
/// Each rect (x, y, w, h) has its own decoder context, as the specification says; flag bit 0
/// resets the rect's context, bit 1 all of them. A rect's data may hold several frames (the
/// last is shown) or none (parameter sets alone); frames larger than the rect are cropped.
final class H264Decoder: RectDecoder {
    static let resetContextFlag: UInt32 = 1
    static let resetAllContextsFlag: UInt32 = 2
    /// As TigerVNC and noVNC: past 64 contexts the least recently used one goes.
    static let maxContexts = 64
    /// Frames may exceed their rect by the padding encoders add: whole macroblocks (16),
    /// 32 or 64 for hardware encoders. libavcodec allocates no larger frame for a context.
    static let framePadding = 64
    /// All contexts' rects together may cover the framebuffer twice (a full-screen context
    /// beside window-sized ones); beyond that the least recently used go, so a server cannot
    /// make us hold 64 full-screen decoders.
    static let contextAreaFactor = 2

    private let probe: LibraryProbe?
    private let tryHardware: Bool
    private var contexts: [H264Context] = []
    private var tick: UInt64 = 0
    private let scratch = ScratchBuffer()
    private var hwDevice: UnsafeMutablePointer<AVBufferRef>?
    private var hwTried = false

    /// `tryHardware`: decode through VA-API when the machine has it (software otherwise).
    init(probe: LibraryProbe? = nil, tryHardware: Bool = true) {
        self.probe = probe
        self.tryHardware = tryHardware
    }

    deinit { av_buffer_unref(&hwDevice) }

    /// Contexts alive now (tests).
    var contextRects: [Rect] { contexts.map(\.rect) }

    static func maxFramePixels(_ r: Rect) -> Int {
        let p = framePadding
        return ((r.w + p - 1) / p * p) * ((r.h + p - 1) / p * p)
    }

    /// Eight bytes per pixel of the padded frame, +64 KiB for parameter sets: H.264's worst
    /// case (PCM macroblocks) is 1.5 bytes per pixel, so several frames fit in one rect.
    static func maxLength(_ r: Rect) -> Int { Limits.maxCompressedLength(rawSize: maxFramePixels(r) * 4) }

    func reset() { contexts.removeAll() }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        // One unit per rect: decoder state cannot be rewound, so every byte is buffered first.
        try reader.require(8)
        let length = Int(try reader.u32())
        let flags = try reader.u32()
        let limit = H264Decoder.maxLength(rect)
        guard length <= limit else {
            throw ProtocolError("H.264 rect \(rect): length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let data = try reader.bytes(length)
        if flags & H264Decoder.resetAllContextsFlag != 0 {
            contexts.removeAll()
        } else if flags & H264Decoder.resetContextFlag != 0 {
            contexts.removeAll { $0.rect == rect }
        }
        if length == 0 || rect.isEmpty { return }
        let units = try AnnexB.accessUnits(data, count: length, rect: rect)
        let ctx = try context(for: rect, fb: fb)
        for u in units {
            try ctx.decode(data + u.range.lowerBound, count: u.range.count, hasSlice: u.hasSlice, probe: probe)
        }
        _ = try ctx.drawLatest(into: fb, scratch: scratch)
    }

    private func context(for rect: Rect, fb: Framebuffer) throws -> H264Context {
        tick &+= 1
        if let c = contexts.first(where: { $0.rect == rect }) {
            c.lastUsed = tick
            return c
        }
        let budget = H264Decoder.contextAreaFactor * max(fb.width * fb.height, rect.area)
        var area = contexts.reduce(rect.area) { $0 + $1.rect.area }
        while !contexts.isEmpty && (contexts.count >= H264Decoder.maxContexts || area > budget) {
            guard let oldest = contexts.indices.min(by: { contexts[$0].lastUsed < contexts[$1].lastUsed }) else { break }
            area -= contexts[oldest].rect.area
            contexts.remove(at: oldest)
        }
        if tryHardware && !hwTried {
            hwTried = true
            hwDevice = makeVAAPIDevice()
        }
        let c = try H264Context(rect: rect, maxFramePixels: H264Decoder.maxFramePixels(rect), hwDevice: hwDevice)
        c.lastUsed = tick
        contexts.append(c)
        return c
    }
}

/// Annex B byte streams: NAL units after 00 00 01 start codes, grouped into access units
/// (one picture each), which is how libavcodec wants its packets.
enum AnnexB {
    struct AccessUnit: Equatable {
        var range: Range<Int>
        /// False for parameter sets or SEI alone, which make no picture.
        var hasSlice: Bool
    }

    /// The access units in `p[0..<n]`. A new one starts at an access unit delimiter, SEI or
    /// parameter set, or at a slice with first_mb_in_slice 0, once the current one has a
    /// slice (H.264 7.4.1.2.3).
    static func accessUnits(_ p: UnsafePointer<UInt8>, count n: Int, rect: Rect) throws -> [AccessUnit] {
        let starts = nalStarts(p, count: n)
        guard let first = starts.first else {
            throw ProtocolError("H.264 rect \(rect): no NAL unit start code in its \(n) bytes of data")
        }
        for i in 0..<(first - 3) where p[i] != 0 {
            throw ProtocolError("H.264 rect \(rect): the data does not begin with a NAL unit start code")
        }
        var units: [AccessUnit] = []
        var unitStart = 0
        var hasSlice = false
        for (k, s) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] - 3 : n
            if s >= end { continue }        // an empty NAL unit: nothing to decode
            let header = p[s]
            if header & 0x80 != 0 {
                throw ProtocolError("H.264 rect \(rect): NAL unit \(k + 1) at byte \(s) has its forbidden_zero_bit set")
            }
            let type = header & 0x1f
            let begins: Bool
            switch type {
            case 1, 2, 5:
                // first_mb_in_slice is ue(v): 0 is a single 1 bit
                begins = hasSlice && s + 1 < end && p[s + 1] & 0x80 != 0
                if begins { units.append(AccessUnit(range: unitStart..<(s - 3), hasSlice: true)); unitStart = s - 3 }
                hasSlice = true
                continue
            case 6, 7, 8, 9, 14, 15, 16, 17, 18:
                begins = hasSlice
            default:
                begins = false
            }
            if begins {
                units.append(AccessUnit(range: unitStart..<(s - 3), hasSlice: true))
                unitStart = s - 3
                hasSlice = false
            }
        }
        units.append(AccessUnit(range: unitStart..<n, hasSlice: hasSlice))
        return units
    }

    /// Offsets just past each 00 00 01.
    static func nalStarts(_ p: UnsafePointer<UInt8>, count n: Int) -> [Int] {
        var out: [Int] = []
        var i = 2
        while i < n {
            let b = p[i]
            // a byte above 1 cannot end a start code here or be one of the zeros of the next two
            if b > 1 { i += 3; continue }
            if b == 1 && p[i - 1] == 0 && p[i - 2] == 0 { out.append(i + 1); i += 3; continue }
            i += 1
        }
        return out
    }
}
