import CTurboJPEG

/// JPEG (encoding 21, TigerVNC 1.16 and RealVNC): the rect is one JPEG file with no length in
/// front, so its end is found by walking the marker segments to EOI. RealVNC leaves the
/// quantisation and Huffman tables out of later rects: the last ones seen are kept and put
/// back in front of the frame header when a rect comes without.
final class JPEGRectDecoder: RectDecoder {
    private var handle: tjhandle?
    private let probe: LibraryProbe?
    /// The last DQT and DHT segments seen (whole, markers included).
    private var quantTables: [[UInt8]] = []
    private var huffmanTables: [[UInt8]] = []

    init(probe: LibraryProbe? = nil) { self.probe = probe }
    deinit { if let h = handle { tjDestroy(h) } }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        let start = reader.pos
        let limit = Limits.maxCompressedLength(rawSize: rect.area * 4) + 4096
        var dqt: [[UInt8]] = [], dht: [[UInt8]] = []
        var sofAt: Int?
        // SOI
        try reader.require(2)
        guard reader.base[reader.pos] == 0xff, reader.base[reader.pos + 1] == 0xd8 else {
            throw ProtocolError("JPEG rect \(rect): does not start with a JPEG start-of-image marker")
        }
        reader.pos += 2
        segments: while true {
            guard reader.pos - start <= limit else {
                throw ProtocolError("JPEG rect \(rect): over \(limit) bytes without an end-of-image marker")
            }
            try reader.require(2)
            guard reader.base[reader.pos] == 0xff else {
                throw ProtocolError("JPEG rect \(rect): expected a marker at byte \(reader.pos - start)")
            }
            let marker = reader.base[reader.pos + 1]
            switch marker {
            case 0xd9:   // EOI
                reader.pos += 2
                break segments
            case 0xff:   // fill byte before a marker
                reader.pos += 1
            case 0xd0...0xd7, 0x01:   // no length
                reader.pos += 2
            default:
                try reader.require(4)
                let len = Int(reader.base[reader.pos + 2]) << 8 | Int(reader.base[reader.pos + 3])
                guard len >= 2 else { throw ProtocolError("JPEG rect \(rect): marker segment of length \(len)") }
                try reader.require(2 + len)
                let seg = Array(UnsafeBufferPointer(start: reader.base + reader.pos, count: 2 + len))
                if marker == 0xdb { dqt.append(seg) }
                if marker == 0xc4 { dht.append(seg) }
                if (0xc0...0xcf).contains(marker) && marker != 0xc4 && marker != 0xc8 && marker != 0xcc { sofAt = reader.pos - start }
                reader.pos += 2 + len
                if marker == 0xda { try skipEntropyData(&reader, start: start, limit: limit, rect: rect) }
            }
        }
        let data = UnsafeBufferPointer(start: reader.base + start, count: reader.pos - start)
        if !dqt.isEmpty { quantTables = dqt }
        if !dht.isEmpty { huffmanTables = dht }
        if rect.isEmpty { return }
        guard let sof = sofAt else { throw ProtocolError("JPEG rect \(rect): no frame header") }
        if dqt.isEmpty || dht.isEmpty {
            // tables from an earlier rect, in front of the frame header
            let missing = (dqt.isEmpty ? quantTables : []) + (dht.isEmpty ? huffmanTables : [])
            guard !(dqt.isEmpty && quantTables.isEmpty), !(dht.isEmpty && huffmanTables.isEmpty) else {
                throw ProtocolError("JPEG rect \(rect): no quantisation or Huffman tables, in it or before it")
            }
            let whole = Array(data.prefix(sof)) + missing.flatMap { $0 } + Array(data.dropFirst(sof))
            try whole.withUnsafeBufferPointer { try decompress($0, rect: rect, fb: fb) }
        } else {
            try decompress(data, rect: rect, fb: fb)
        }
    }

    /// After SOS: entropy-coded bytes up to the next marker that is not a stuffed 0xFF00 or a restart.
    private func skipEntropyData(_ r: inout ByteReader, start: Int, limit: Int, rect: Rect) throws {
        while true {
            guard r.pos - start <= limit else {
                throw ProtocolError("JPEG rect \(rect): over \(limit) bytes without an end-of-image marker")
            }
            try r.require(2)
            if r.base[r.pos] == 0xff {
                let next = r.base[r.pos + 1]
                if next != 0 && !(0xd0...0xd7).contains(next) { return }
                r.pos += 2
            } else {
                r.pos += 1
            }
        }
    }

    private func decompress(_ data: UnsafeBufferPointer<UInt8>, rect: Rect, fb: Framebuffer) throws {
        if handle == nil { handle = tjInitDecompress() }
        guard let h = handle, let base = data.baseAddress else { throw ProtocolError("JPEG rect \(rect): no JPEG decompressor") }
        let (w, ht): (Int, Int)
        switch JPEGFrameSize.of(base, count: data.count, handle: h) {
        case .success(let s): (w, ht) = s
        case .failure(let e): throw ProtocolError("JPEG rect \(rect): bad JPEG header (\(e.message))")
        }
        guard w == rect.w && ht == rect.h else {
            throw ProtocolError("JPEG rect \(rect): image is \(w)x\(ht), not the rect's \(rect.w)x\(rect.h)")
        }
        let dst = UnsafeMutableRawPointer(fb.row(rect.y) + rect.x).assumingMemoryBound(to: UInt8.self)
        let token = probe?.enter(.turboJPEG)
        let rc = tjDecompress2(h, base, UInt(data.count), dst, Int32(w), Int32(fb.width * 4), Int32(ht), Int32(TJPF_BGRX.rawValue), 0)
        if let token { probe?.leave(.turboJPEG, token) }
        if rc != 0 && tjGetErrorCode(h) != Int32(TJERR_WARNING.rawValue) {
            throw ProtocolError("JPEG rect \(rect): decoding failed (\(String(cString: tjGetErrorStr2(h))))")
        }
        for row in 0..<rect.h {
            let d = fb.row(rect.y + row) + rect.x
            for x in 0..<rect.w { d[x] &= 0x00ff_ffff }
        }
    }

    func reset() { quantTables = []; huffmanTables = [] }
}
