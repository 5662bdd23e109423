import CTurboJPEG

/// JPEG (encoding 21, TigerVNC 1.16 and RealVNC): the rect is one JPEG file with no length in
/// front, so its end is found by walking the marker segments to EOI (JPEGMarkerWalk, resumed as
/// bytes arrive). RealVNC leaves the quantisation and Huffman tables out of later rects: the
/// last ones seen are kept and put back in front of the frame header when a rect comes without.
///
/// The walk and TurboJPEG's decoding of a large rect happen outside the framebuffer lock; the
/// lock is taken only to write pixels (`locksFramebufferItself`).
final class JPEGRectDecoder: RectDecoder {
    /// Rects up to this many pixels are decoded straight into the framebuffer under its lock (at
    /// most about a millisecond: 256x256 took 1.0-1.7 ms here). Larger ones are decoded into a
    /// scratch buffer outside it and copied in: a 1080p rect took 26 ms to decode and 6 ms to
    /// copy, a 4096x2160 one 125-137 ms and 17 ms (libjpeg-turbo 2.1, this machine).
    static let directPixels = 1 << 16
    /// A scratch buffer up to this size (a 1080p rect's 8 MiB, twice) is kept for the next rect;
    /// a larger one is freed after its rect, so one huge rect does not pin its size.
    static let keptScratchBytes = 16 << 20

    private var handle: tjhandle?
    private let probe: LibraryProbe?
    /// The DQT and DHT segments of the last rect that had them, one after another.
    private var quantTables: [UInt8] = []
    private var huffmanTables: [UInt8] = []
    /// The rect being walked (kept across `resume: true` calls).
    private var walk = JPEGMarkerWalk(limit: 0)
    private var scratch: UnsafeMutablePointer<UInt32>?
    private var scratchPixels = 0

    var locksFramebufferItself: Bool { true }

    init(probe: LibraryProbe? = nil) { self.probe = probe }
    deinit {
        if let h = handle { tjDestroy(h) }
        scratch?.deallocate()
    }

    /// Called on the session thread without the framebuffer lock.
    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        if !resume { walk = JPEGMarkerWalk(limit: Limits.maxCompressedLength(rawSize: rect.area * 4) + 4096) }
        let start = reader.pos
        let base = reader.base + start
        let ended: Bool
        do {
            ended = try walk.advance(base, count: reader.remaining)
        } catch {
            throw ProtocolError("JPEG rect \(rect): \(JPEGRectDecoder.describe(error))")
        }
        // nothing is committed before EOI: the rect's first byte stays at the reader's position
        guard ended else { throw NeedMoreData() }
        let length = walk.at
        reader.pos = start + length
        // the tables, copied once the rect is whole
        if !walk.quantTables.isEmpty { quantTables = JPEGRectDecoder.gather(base, walk.quantTables) }
        if !walk.huffmanTables.isEmpty { huffmanTables = JPEGRectDecoder.gather(base, walk.huffmanTables) }
        if rect.isEmpty { return }
        guard let frame = walk.frameAt else { throw ProtocolError("JPEG rect \(rect): no frame header") }
        // the first frame header is the one libjpeg reads (a second is an error there): the
        // image's size from it, checked before TurboJPEG writes anything
        let len = Int(base[frame + 2]) << 8 | Int(base[frame + 3])
        guard len >= 8 else { throw ProtocolError("JPEG rect \(rect): frame header of \(len) bytes") }
        let h = Int(base[frame + 5]) << 8 | Int(base[frame + 6]), w = Int(base[frame + 7]) << 8 | Int(base[frame + 8])
        guard w == rect.w && h == rect.h else {
            throw ProtocolError("JPEG rect \(rect): image is \(w)x\(h), not the rect's \(rect.w)x\(rect.h)")
        }
        if walk.quantTables.isEmpty || walk.huffmanTables.isEmpty {
            guard !quantTables.isEmpty, !huffmanTables.isEmpty else {
                throw ProtocolError("JPEG rect \(rect): no quantisation or Huffman tables, in it or before it")
            }
            // tables from an earlier rect, in front of the frame header: one copy of the rect
            let missing = (walk.quantTables.isEmpty ? quantTables : []) + (walk.huffmanTables.isEmpty ? huffmanTables : [])
            var whole: [UInt8] = []
            whole.reserveCapacity(length + missing.count)
            whole.append(contentsOf: UnsafeBufferPointer(start: base, count: frame))
            whole.append(contentsOf: missing)
            whole.append(contentsOf: UnsafeBufferPointer(start: base + frame, count: length - frame))
            try whole.withUnsafeBufferPointer { try decompress($0, rect: rect, fb: fb) }
        } else {
            try decompress(UnsafeBufferPointer(start: base, count: length), rect: rect, fb: fb)
        }
    }

    static func gather(_ base: UnsafePointer<UInt8>, _ segments: [Range<Int>]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(segments.reduce(0) { $0 + $1.count })
        for s in segments { out.append(contentsOf: UnsafeBufferPointer(start: base + s.lowerBound, count: s.count)) }
        return out
    }

    static func describe(_ e: JPEGMarkerWalk.Failure) -> String {
        switch e {
        case .noStartOfImage: "does not start with a JPEG start-of-image marker"
        case .expectedMarker(let at): "expected a marker at byte \(at)"
        case .badSegmentLength(let len): "marker segment of length \(len)"
        case .tooLong(let limit): "over \(limit) bytes without an end-of-image marker"
        case .tooManySegments: "more than \(JPEGMarkerWalk.maxSegments) marker segments"
        case .tooManyScans: "more than \(JPEGMarkerWalk.maxScans) scans"
        case .tooManyTables: "more than \(JPEGMarkerWalk.maxTableSegments) quantisation and Huffman table segments"
        case .tablesTooLarge: "over \(JPEGMarkerWalk.maxTableBytes) bytes of quantisation and Huffman tables"
        }
    }

    private func decompress(_ data: UnsafeBufferPointer<UInt8>, rect: Rect, fb: Framebuffer) throws {
        if handle == nil { handle = tjInitDecompress() }
        guard let h = handle else { throw ProtocolError("JPEG rect \(rect): no JPEG decompressor") }
        // fb.width and fb.row are safe unlocked: only this thread resizes the framebuffer
        if rect.area <= JPEGRectDecoder.directPixels {
            try fb.lock.withWriterLock {
                try run(h, data, into: UnsafeMutableRawPointer(fb.row(rect.y) + rect.x), pitch: fb.width * 4, rect: rect)
            }
            return
        }
        let px = scratchBuffer(rect.area)
        defer { if scratchPixels * 4 > JPEGRectDecoder.keptScratchBytes { releaseScratch() } }
        try run(h, data, into: UnsafeMutableRawPointer(px), pitch: rect.w * 4, rect: rect)
        fb.lock.withWriterLock {
            // in bands, letting a waiting front end in between: a 64-Mpixel copy is 100 ms and more
            let band = fb.bandRows(rect.w)
            for row in 0..<rect.h {
                if row > 0 && row % band == 0 { fb.lock.yieldToReaders() }
                (fb.row(rect.y + row) + rect.x).update(from: px + row * rect.w, count: rect.w)
            }
        }
    }

    /// TurboJPEG's decode into BGRX rows (the framebuffer's XRGB little-endian layout, X 0xff).
    private func run(_ h: tjhandle, _ data: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutableRawPointer, pitch: Int, rect: Rect) throws {
        let token = probe?.enter(.turboJPEG)
        let rc = tjDecompress2(h, data.baseAddress, UInt(data.count), dst.assumingMemoryBound(to: UInt8.self),
                               Int32(rect.w), Int32(pitch), Int32(rect.h), Int32(TJPF_BGRX.rawValue), 0)
        if let token { probe?.leave(.turboJPEG, token) }
        // warnings (e.g. a truncated scan) still leave an image, as TigerVNC accepts them
        if rc != 0 && tjGetErrorCode(h) != Int32(TJERR_WARNING.rawValue) {
            throw ProtocolError("JPEG rect \(rect): decoding failed (\(tjGetErrorStr2(h).map { String(cString: $0) } ?? "unknown error"))")
        }
    }

    private func scratchBuffer(_ pixels: Int) -> UnsafeMutablePointer<UInt32> {
        if let s = scratch, scratchPixels >= pixels { return s }
        releaseScratch()
        let s = UnsafeMutablePointer<UInt32>.allocate(capacity: pixels)
        scratch = s
        scratchPixels = pixels
        return s
    }

    private func releaseScratch() {
        scratch?.deallocate()
        scratch = nil
        scratchPixels = 0
    }

    func reset() {
        quantTables = []
        huffmanTables = []
        walk = JPEGMarkerWalk(limit: 0)
        releaseScratch()
    }
}
