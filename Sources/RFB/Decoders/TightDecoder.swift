import CTurboJPEG

/// Tight (encoding 7): a compression-control byte (bits 0-3 reset zlib streams 0-3, bits 4-7 the
/// type), then fill (one TPIXEL), JPEG, or basic compression with an optional filter on one of
/// four connection-long zlib streams.
final class TightDecoder: OffloadingDecoder {
    /// Basic data shorter than this is sent as is, without a length (the protocol's constant).
    static let minToCompress = 12
    static let fillType = 0x8, jpegType = 0x9, pngType = 0xA
    static let filterCopy = 0, filterPalette = 1, filterGradient = 2

    /// The connection's four streams (none for a worker's painting decoder).
    let streams: [ZStream]
    private let probe: LibraryProbe?
    let scratch = ScratchBuffer()
    /// 256 entries: an 8-bit index can never leave the table; indices past the palette are checked per rect.
    private let palette: UnsafeMutablePointer<UInt32>
    /// Mono rects: the pixels of each 4-bit group of indices.
    private let spread = IndexSpread()
    /// Gradient filter: the previous row's reconstructed components, 3 per pixel.
    private var gradientRow: UnsafeMutablePointer<Int32>
    private var gradientCapacity: Int
    private var jpeg: tjhandle?
    /// TightPNG: PNG rects are allowed.
    let allowsPNG: Bool
    /// Set by the engine when rects may decode on worker threads.
    var jobs: DecodeManager?
    /// The last rect went to `jobs`: a worker adds its pixels and damage.
    var deferredLastRect = false
    /// A JPEG rect counts as this many times its pixels against the manager's threshold
    /// (TurboJPEG costs about 10 ns a pixel here, painting a palette or tiles 2-3).
    static let jpegWeight = 4
    /// What this connection's jobs borrow on workers: TurboJPEG handles, and painting decoders
    /// (a palette table and gradient row each; no streams).
    private lazy var jpegHandles = ScratchPool<tjhandle>(make: { tjInitDecompress() }, destroy: { tjDestroy($0) })
    private lazy var painters = ScratchPool<TightDecoder>(make: { TightDecoder(streams: []) })

    init(probe: LibraryProbe? = nil, png: Bool = false, streams: [ZStream]? = nil) {
        self.probe = probe
        allowsPNG = png
        self.streams = streams ?? (0..<4).map { _ in ZStream(probe: probe) }
        palette = .allocate(capacity: 256)
        palette.initialize(repeating: 0, count: 256)
        gradientCapacity = 64 * 3
        gradientRow = .allocate(capacity: gradientCapacity)
    }

    deinit {
        palette.deallocate()
        spread.deallocate()
        gradientRow.deallocate()
        if let j = jpeg { tjDestroy(j) }
    }

    func reset() { for s in streams { s.reset() } }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        // One unit per rect: every byte of the rect is required before a stream is reset or fed,
        // since zlib state cannot be rewound.
        deferredLastRect = false
        let ctl = try reader.u8()
        let resets = ctl & 0x0f
        let type = Int(ctl >> 4)
        switch type {
        case TightDecoder.fillType:
            let p = try reader.bytes(pf.tpixelSize)
            applyResets(resets)
            fb.fill(rect, pf.tpixel(p))
        case TightDecoder.jpegType:
            try decodeJPEG(rect: rect, reader: &reader, fb: fb, resets: resets)
        case TightDecoder.pngType:
            guard allowsPNG else {
                throw ProtocolError("Tight rect \(rect): control byte 0x\(hex(ctl)) asks for PNG, which only TightPNG may send")
            }
            try decodePNG(rect: rect, reader: &reader, fb: fb, resets: resets)
        case 0..<8:
            try decodeBasic(rect: rect, reader: &reader, fb: fb, pf: pf, type: type, resets: resets)
        default:
            throw ProtocolError("Tight rect \(rect): invalid compression control byte 0x\(hex(ctl)) (type 0x\(hex(UInt8(type))))")
        }
    }

    func applyResets(_ bits: UInt8) {
        if bits == 0 { return }
        for i in 0..<4 where bits & (1 << i) != 0 { streams[i].reset() }
    }

    // MARK: basic compression

    private func decodeBasic(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter,
                             type: Int, resets: UInt8) throws {
        let streamId = type & 3
        let filter = type & 4 != 0 ? Int(try reader.u8()) : TightDecoder.filterCopy
        let tpx = pf.tpixelSize
        var paletteSize = 0
        var paletteBytes: UnsafePointer<UInt8>?
        let rowSize: Int
        switch filter {
        case TightDecoder.filterCopy:
            rowSize = rect.w * tpx
        case TightDecoder.filterPalette:
            paletteSize = Int(try reader.u8()) + 1
            paletteBytes = try reader.bytes(paletteSize * tpx)
            // 1 bit per pixel for up to two colours (as TigerVNC and noVNC), else a byte
            rowSize = paletteSize <= 2 ? (rect.w + 7) / 8 : rect.w
        case TightDecoder.filterGradient:
            guard pf.format.trueColour else {
                throw ProtocolError("Tight rect \(rect): gradient filter needs a true-colour pixel format, not \(pf.format)")
            }
            rowSize = rect.w * tpx
        default:
            throw ProtocolError("Tight rect \(rect): unknown filter id \(filter)")
        }
        let dataSize = rowSize * rect.h

        let data: UnsafePointer<UInt8>
        if dataSize < TightDecoder.minToCompress {
            data = try reader.bytes(dataSize)
            applyResets(resets)
        } else {
            let length = try reader.compactLength()
            let limit = Limits.maxCompressedLength(rawSize: dataSize)
            guard length <= limit else {
                throw ProtocolError("Tight rect \(rect): compressed length \(length) exceeds the limit of \(limit) bytes for \(dataSize) bytes of data")
            }
            let compressed = try reader.bytes(length)
            applyResets(resets)
            // its size is known before inflating: a 1-bit palette rect of text paints faster
            // than a hand-over takes, so only rects worth a worker go (as ZRLE's after inflating)
            if let jobs, !rect.isEmpty, jobs.worthHanding(area: rect.area, bytes: dataSize),
               jobs.wants(rect.area, bytes: dataSize) {
                // inflated here, in stream order, into the job's buffer; painted on a worker
                let colours = paletteBytes.map { Array(UnsafeBufferPointer(start: $0, count: paletteSize * tpx)) } ?? []
                let job = jobs.makeJob(rect: rect, fb: fb, work: PaintWork(filter: filter, colours: colours,
                    count: paletteSize, rowSize: rowSize, pf: pf, painters: painters))
                try streams[streamId].inflateExactly(compressed, count: length, into: job.buffer, size: dataSize,
                                                     what: "Tight rect \(rect) zlib stream \(streamId)")
                job.length = dataSize
                jobs.start(job)
                deferredLastRect = true
                return
            }
            try streams[streamId].inflateExactly(compressed, count: length, into: scratch, size: dataSize,
                                                 what: "Tight rect \(rect) zlib stream \(streamId)")
            data = UnsafePointer(scratch.pointer)
        }
        if rect.isEmpty { return }

        if let pb = paletteBytes {
            try drawPalette(rect: rect, fb: fb, pf: pf, colours: pb, count: paletteSize, data: data, rowSize: rowSize)
        } else if filter == TightDecoder.filterGradient {
            drawGradient(rect: rect, fb: fb, pf: pf, data: data)
        } else {
            drawCopy(rect: rect, fb: fb, pf: pf, data: data, rowSize: rowSize)
        }
    }

    /// A row of R,G,B TPIXELs to 0x00RRGGBB (byte by byte, the row cost three loads and a
    /// store per pixel; see `unpack24`).
    static func rgbRow(_ src: UnsafePointer<UInt8>, to dst: UnsafeMutablePointer<UInt32>, count: Int) {
        unpack24(src, to: dst, count: count, RGB24.self)
    }

    func drawCopy(rect: Rect, fb: Framebuffer, pf: PixelConverter, data: UnsafePointer<UInt8>, rowSize: Int) {
        if pf.tightRGB {
            for row in 0..<rect.h {
                TightDecoder.rgbRow(data + row * rowSize, to: fb.row(rect.y + row) + rect.x, count: rect.w)
            }
        } else {
            for row in 0..<rect.h {
                pf.convert(data + row * rowSize, to: fb.row(rect.y + row) + rect.x, count: rect.w)
            }
        }
    }

    func drawPalette(rect: Rect, fb: Framebuffer, pf: PixelConverter, colours: UnsafePointer<UInt8>, count: Int,
                     data: UnsafePointer<UInt8>, rowSize: Int) throws {
        let tpx = pf.tpixelSize
        let pal = palette
        for i in 0..<count { pal[i] = pf.tpixel(colours + i * tpx) }
        for i in count..<256 { pal[i] = 0 }
        let w = rect.w
        if count <= 2 {
            if count == 1 {
                // one colour at 1 bit per pixel: any set bit (ignoring row padding) is index 1
                let tailMask = UInt8(truncatingIfNeeded: 0xff00 >> (w & 7 == 0 ? 8 : w & 7))
                for row in 0..<rect.h {
                    let s = data + row * rowSize
                    var bits: UInt8 = 0
                    for i in 0..<(rowSize - 1) { bits |= s[i] }
                    bits |= s[rowSize - 1] & tailMask
                    if bits != 0 {
                        throw ProtocolError("Tight rect \(rect): palette index 1 past the 1-colour palette")
                    }
                }
            }
            let c0 = pal[0], c1 = pal[1]
            let full = w >> 3
            if full > 0 { spread.setMono(c0, c1) }
            for row in 0..<rect.h {
                let s = data + row * rowSize
                var d = fb.row(rect.y + row) + rect.x
                for i in 0..<full {
                    spread.storeMono(d, Int(s[i]))
                    d += 8
                }
                if w & 7 != 0 {
                    let b = s[full]
                    for k in 0..<(w & 7) { d[k] = (b << UInt8(k)) & 0x80 != 0 ? c1 : c0 }
                }
            }
        } else {
            // the table has 256 entries, so the loop is memory-safe; the largest index is checked after
            var top: UInt8 = 0
            for row in 0..<rect.h {
                let s = data + row * rowSize
                let d = fb.row(rect.y + row) + rect.x
                for x in 0..<w {
                    let i = s[x]
                    top = max(top, i)
                    d[x] = pal[Int(i)]
                }
            }
            if Int(top) >= count {
                throw ProtocolError("Tight rect \(rect): palette index \(top) past the \(count)-colour palette")
            }
        }
    }

    /// Gradient filter: each component is a delta against clamp(left + above - above-left, 0, max).
    func drawGradient(rect: Rect, fb: Framebuffer, pf: PixelConverter, data: UnsafePointer<UInt8>) {
        let w = rect.w
        if gradientCapacity < w * 3 {
            gradientRow.deallocate()
            gradientCapacity = w * 3
            gradientRow = .allocate(capacity: gradientCapacity)
        }
        let prev = gradientRow
        prev.update(repeating: 0, count: w * 3)
        let f = pf.format
        let rgb = pf.tightRGB
        // 8-bit components in R,G,B byte order for 24-bit TPIXELs, else the pixel format's own fields
        let maxR = rgb ? 255 : Int32(f.redMax), maxG = rgb ? 255 : Int32(f.greenMax), maxB = rgb ? 255 : Int32(f.blueMax)
        let shR = UInt32(f.redShift), shG = UInt32(f.greenShift), shB = UInt32(f.blueShift)
        let bpp = pf.tpixelSize
        let bigEndian = f.bigEndian
        @inline(__always) func predict(_ left: Int32, _ up: Int32, _ upLeft: Int32, _ mx: Int32) -> Int32 {
            min(max(left + up - upLeft, 0), mx)
        }
        for row in 0..<rect.h {
            var s = data + row * w * bpp
            let d = fb.row(rect.y + row) + rect.x
            var lr: Int32 = 0, lg: Int32 = 0, lb: Int32 = 0      // left neighbour (this row)
            var ulr: Int32 = 0, ulg: Int32 = 0, ulb: Int32 = 0   // above-left (previous row)
            for x in 0..<w {
                let u = prev + x * 3
                let ur = u[0], ug = u[1], ub = u[2]
                let dr: Int32, dg: Int32, db: Int32
                if rgb {
                    dr = Int32(s[0]); dg = Int32(s[1]); db = Int32(s[2])
                } else {
                    let v: UInt32
                    switch bpp {
                    case 1: v = UInt32(s[0])
                    case 2: v = bigEndian ? UInt32(s[0]) << 8 | UInt32(s[1]) : UInt32(s[0]) | UInt32(s[1]) << 8
                    default: v = pf.load32(s)
                    }
                    dr = Int32(truncatingIfNeeded: v >> shR); dg = Int32(truncatingIfNeeded: v >> shG)
                    db = Int32(truncatingIfNeeded: v >> shB)
                }
                s += bpp
                let r = (dr &+ predict(lr, ur, ulr, maxR)) & maxR
                let g = (dg &+ predict(lg, ug, ulg, maxG)) & maxG
                let b = (db &+ predict(lb, ub, ulb, maxB)) & maxB
                ulr = ur; ulg = ug; ulb = ub
                u[0] = r; u[1] = g; u[2] = b
                lr = r; lg = g; lb = b
                if rgb {
                    d[x] = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                } else {
                    d[x] = pf.mapTrueColour(UInt32(r) << shR | UInt32(g) << shG | UInt32(b) << shB)
                }
            }
        }
    }

    // MARK: JPEG

    private func decodeJPEG(rect: Rect, reader: inout ByteReader, fb: Framebuffer, resets: UInt8) throws {
        let length = try reader.compactLength()
        let limit = Limits.maxCompressedLength(rawSize: rect.area * 4)
        guard length <= limit else {
            throw ProtocolError("Tight rect \(rect): JPEG length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let data = try reader.bytes(length)
        applyResets(resets)
        if rect.isEmpty { return }
        guard length > 0 else { throw ProtocolError("Tight rect \(rect): empty JPEG data") }
        if jpeg == nil { jpeg = tjInitDecompress() }
        guard let handle = jpeg else { throw ProtocolError("Tight rect \(rect): could not start the JPEG decompressor") }
        let (w, h): (Int, Int)
        switch JPEGFrameSize.of(data, count: length, handle: handle) {
        case .success(let s): (w, h) = s
        case .failure(let e): throw ProtocolError("Tight rect \(rect): bad JPEG header (\(e.message))")
        }
        guard w == rect.w && h == rect.h else {
            throw ProtocolError("Tight rect \(rect): JPEG is \(w)x\(h), not the rect's \(rect.w)x\(rect.h)")
        }
        // a JPEG pixel costs several times a painted one: smaller JPEG rects are worth a worker
        if let jobs, jobs.wants(rect.area * TightDecoder.jpegWeight, bytes: length) {
            let job = jobs.makeJob(rect: rect, fb: fb, work: JPEGWork(handles: jpegHandles))
            job.buffer.reserve(length)
            job.buffer.pointer.update(from: data, count: length)
            job.length = length
            jobs.start(job)
            deferredLastRect = true
            return
        }
        // Straight into the framebuffer: BGRX in memory is its XRGB little-endian layout (the X
        // byte 0xff, left so: see Framebuffer).
        let dst = UnsafeMutableRawPointer(fb.row(rect.y) + rect.x).assumingMemoryBound(to: UInt8.self)
        let token = probe?.enter(.turboJPEG)
        let rc = tjDecompress2(handle, data, UInt(length), dst, Int32(w), Int32(fb.width * 4), Int32(h), Int32(TJPF_BGRX.rawValue), 0)
        if let token { probe?.leave(.turboJPEG, token) }
        // Warnings (e.g. a truncated scan) still leave an image, as TigerVNC accepts them.
        if rc != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            throw ProtocolError("Tight rect \(rect): JPEG decoding failed (\(jpegError(handle)))")
        }
    }

    private func jpegError(_ handle: tjhandle) -> String {
        if let m = tjGetErrorStr2(handle) { return String(cString: m) }
        return "unknown error"
    }
}

extension TightDecoder {
    /// A basic rect's painting on a worker, from its inflated data (the job's buffer), by a
    /// painter of the pool (the palette table and gradient row are per painter).
    struct PaintWork: RectWork {
        let what = "Tight rect"
        let filter: Int
        /// The palette's TPIXELs as sent (empty without the palette filter).
        let colours: [UInt8]
        let count: Int
        let rowSize: Int
        let pf: PixelConverter
        let painters: ScratchPool<TightDecoder>

        func draw(_ r: Rect, into fb: Framebuffer, from buffer: UnsafeMutablePointer<UInt8>, length: Int) throws {
            let data = UnsafePointer(buffer)
            try painters.borrow(unavailable: ProtocolError("Tight rect \(r): no painter")) { painter in
                if filter == TightDecoder.filterPalette {
                    try colours.withUnsafeBufferPointer { c in
                        guard let base = c.baseAddress else { throw ProtocolError("Tight rect \(r): empty palette") }
                        try painter.drawPalette(rect: r, fb: fb, pf: pf, colours: base, count: count, data: data,
                                                rowSize: rowSize)
                    }
                } else if filter == TightDecoder.filterGradient {
                    painter.drawGradient(rect: r, fb: fb, pf: pf, data: data)
                } else {
                    painter.drawCopy(rect: r, fb: fb, pf: pf, data: data, rowSize: rowSize)
                }
            }
        }
    }

    /// A JPEG rect's decompression on a worker, straight into the framebuffer.
    struct JPEGWork: RectWork {
        let what = "Tight rect"
        let handles: ScratchPool<tjhandle>

        func draw(_ r: Rect, into fb: Framebuffer, from data: UnsafeMutablePointer<UInt8>, length: Int) throws {
            try handles.borrow(unavailable: ProtocolError("Tight rect \(r): could not start the JPEG decompressor")) { h in
                // BGRX in memory is the framebuffer's XRGB layout (the X byte left 0xff: see Framebuffer)
                let dst = UnsafeMutableRawPointer(fb.row(r.y) + r.x).assumingMemoryBound(to: UInt8.self)
                let rc = tjDecompress2(h, data, UInt(length), dst, Int32(r.w), Int32(fb.width * 4),
                                       Int32(r.h), Int32(TJPF_BGRX.rawValue), 0)
                // warnings (e.g. a truncated scan) still leave an image, as on the sequential path
                if rc != 0 && tjGetErrorCode(h) != Int32(TJERR_WARNING.rawValue) {
                    let why = tjGetErrorStr2(h).map { String(cString: $0) } ?? "unknown error"
                    throw ProtocolError("Tight rect \(r): JPEG decoding failed (\(why))")
                }
            }
        }
    }
}

private func hex(_ b: UInt8) -> String {
    let s = String(b, radix: 16)
    return s.count == 1 ? "0" + s : s
}
