/// Hextile (encoding 5): the rect in 16x16 tiles, left to right, top to bottom; the last column
/// and row of tiles are narrower/shorter. Each tile is raw pixels or a background plus up to 255
/// subrects; background and foreground carry over from tile to tile within one rect.
///
/// Resumable per tile: a tile is drawn only once all its bytes are buffered (its size is known
/// from its header bytes), then committed; the tile index and carried colours are our state.
final class HextileDecoder: OffloadingDecoder {
    /// Subencoding bits.
    static let raw = 1, backgroundSpecified = 2, foregroundSpecified = 4, anySubrects = 8, subrectsColoured = 16
    /// Bits 5–7 are zlibhex's ZlibRaw/Zlib (encoding 8) and undefined in plain Hextile. TigerVNC and
    /// libvncclient ignore them, noVNC rejects them. We reject them: a tile with those bits carries a
    /// zlib payload we would otherwise misparse as pixels, drawing garbage and losing sync silently.
    static let unknownBits = 0xe0

    private var tileIndex = 0
    /// Carried colours, already converted to framebuffer pixels; 0 at the start of each rect.
    private var bg: UInt32 = 0
    private var fg: UInt32 = 0
    /// Set by the engine when rects may decode on worker threads.
    var jobs: DecodeManager?
    /// The last rect went to `jobs`: a worker adds its pixels and damage.
    var deferredLastRect = false

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        if !resume { tileIndex = 0; bg = 0; fg = 0 }
        deferredLastRect = false
        if rect.isEmpty { return }
        // A rect already buffered whole goes to a worker as a copy of its bytes; one still
        // arriving streams here tile by tile, as without workers.
        if !resume, let jobs, jobs.wants(rect.area, bytes: HextileDecoder.maxBytes(rect, bpp: pf.bytesPerPixel)),
           let size = HextileDecoder.bufferedSize(rect: rect, bytes: reader.current, count: reader.remaining,
                                                  bpp: pf.bytesPerPixel) {
            jobs.startCopy(of: size, from: &reader, rect: rect, fb: fb, work: WholeRectWork(pf: pf) { HextileDecoder() })
            deferredLastRect = true
            return
        }
        // Pick the pixel reader once per rect, so the tile loops below are specialised per wire format
        // (no per-pixel dispatch, no per-pixel array access checks).
        switch pf.mode {
        case .native:
            try decodeTiles(rect: rect, reader: &reader, fb: fb, pf: pf, src: NativePixels())
        case .lut8, .lut16:
            let lut = pf.lut
            try lut.withUnsafeBufferPointer { t in
                // The tables are 256 and 65536 entries long, so any wire byte(s) index inside them.
                if pf.mode == .lut8, let base = t.baseAddress, t.count >= 256 {
                    try decodeTiles(rect: rect, reader: &reader, fb: fb, pf: pf, src: Lut8Pixels(table: base))
                } else if pf.mode == .lut16, let base = t.baseAddress, t.count >= 65536 {
                    try decodeTiles(rect: rect, reader: &reader, fb: fb, pf: pf, src: Lut16Pixels(table: base))
                } else {
                    try decodeTiles(rect: rect, reader: &reader, fb: fb, pf: pf, src: ConverterPixels(pf: pf))
                }
            }
        case .generic32:
            try decodeTiles(rect: rect, reader: &reader, fb: fb, pf: pf, src: ConverterPixels(pf: pf))
        }
    }

    /// The most bytes a rect can take (every tile 255 coloured subrects, or raw): what a
    /// worker's copy of it may hold, known before the rect is measured.
    static func maxBytes(_ rect: Rect, bpp: Int) -> Int {
        let tiles = ((rect.w + 15) >> 4) * ((rect.h + 15) >> 4)
        return tiles * max(1 + 256 * bpp, 3 + 2 * bpp + 255 * (bpp + 2))
    }

    /// The bytes of a whole rect when all are in `bytes` (the size rules of `decodeTiles`),
    /// else nil: not buffered yet, or a tile `decodeTiles` would reject (it then says why).
    static func bufferedSize(rect: Rect, bytes p: UnsafePointer<UInt8>, count avail: Int, bpp: Int) -> Int? {
        let tilesX = (rect.w + 15) >> 4, tilesY = (rect.h + 15) >> 4
        var off = 0
        for ty in 0..<tilesY {
            let th = min(16, rect.h - (ty << 4))
            for tx in 0..<tilesX {
                guard off < avail else { return nil }
                let mask = Int(p[off])
                if mask & unknownBits != 0 { return nil }
                if mask & raw != 0 {
                    off += 1 + min(16, rect.w - (tx << 4)) * th * bpp
                } else {
                    var hdr = 1
                    if mask & backgroundSpecified != 0 { hdr += bpp }
                    if mask & foregroundSpecified != 0 { hdr += bpp }
                    if mask & anySubrects != 0 {
                        guard off + hdr < avail else { return nil }
                        let count = Int(p[off + hdr])
                        hdr += 1 + count * (mask & subrectsColoured != 0 ? bpp + 2 : 2)
                    }
                    off += hdr
                }
            }
        }
        return off <= avail ? off : nil
    }

    private func decodeTiles<S: HextilePixelSource>(rect: Rect, reader: inout ByteReader, fb: Framebuffer,
                                                    pf: PixelConverter, src: S) throws {
        let bpp = src.size
        let tilesX = (rect.w + 15) >> 4, tilesY = (rect.h + 15) >> 4
        let tiles = tilesX * tilesY
        let stride = fb.width
        while tileIndex < tiles {
            let ty = tileIndex / tilesX, tx = tileIndex - ty * tilesX
            let x0 = tx << 4, y0 = ty << 4
            let tw = min(16, rect.w - x0), th = min(16, rect.h - y0)
            let avail = reader.remaining
            if avail < 1 { throw NeedMoreData() }
            let p = reader.current
            let mask = Int(p[0])
            if mask & HextileDecoder.unknownBits != 0 {
                throw ProtocolError("Hextile tile \(tileIndex) of \(rect) has subencoding 0x\(String(mask, radix: 16)) with undefined bits (0xe0 belongs to zlibhex)")
            }
            // The engine checked that `rect` lies inside the framebuffer and the tile lies inside `rect`.
            let dst = fb.row(rect.y + y0) + (rect.x + x0)

            if mask & HextileDecoder.raw != 0 {
                // Raw: the other bits are irrelevant; carried colours stay as they were.
                let rowBytes = tw * bpp
                let size = 1 + rowBytes * th
                if avail < size { throw NeedMoreData() }
                var s = p + 1, d = dst
                for _ in 0..<th { pf.convert(s, to: d, count: tw); s += rowBytes; d += stride }
                reader.pos += size
            } else {
                var hdr = 1
                if mask & HextileDecoder.backgroundSpecified != 0 { hdr += bpp }
                if mask & HextileDecoder.foregroundSpecified != 0 { hdr += bpp }
                let coloured = mask & HextileDecoder.subrectsColoured != 0
                var size = hdr, count = 0
                if mask & HextileDecoder.anySubrects != 0 {
                    if avail <= hdr { throw NeedMoreData() }
                    count = Int(p[hdr])
                    size = hdr + 1 + count * (coloured ? bpp + 2 : 2)
                }
                if avail < size { throw NeedMoreData() }

                // The whole tile is buffered: only now may the carried colours change.
                var q = p + 1
                if mask & HextileDecoder.backgroundSpecified != 0 { bg = src.read(q); q += bpp }
                if mask & HextileDecoder.foregroundSpecified != 0 { fg = src.read(q); q += bpp }
                fillBlock(dst, stride: stride, w: tw, h: th, bg)
                if count > 0 {
                    q += 1
                    var c = fg
                    for _ in 0..<count {
                        if coloured { c = src.read(q); q += bpp }
                        let xy = Int(q[0]), wh = Int(q[1])
                        q += 2
                        let sx = xy >> 4, sy = xy & 15, sw = (wh >> 4) + 1, sh = (wh & 15) + 1
                        // Checked against the real (possibly partial) tile, so writes stay inside the rect.
                        guard sx + sw <= tw, sy + sh <= th else {
                            throw ProtocolError("Hextile subrect \(sw)x\(sh)+\(sx)+\(sy) lies outside its \(tw)x\(th) tile at +\(x0)+\(y0) of \(rect)")
                        }
                        fillBlock(dst + sy * stride + sx, stride: stride, w: sw, h: sh, c)
                    }
                    // As TigerVNC and libvncclient: coloured subrects leave the last colour as the
                    // foreground a later tile inherits (the spec is silent; servers re-send it anyway).
                    if coloured { fg = c }
                }
                reader.pos += size
            }
            reader.commit()
            tileIndex += 1
        }
    }
}

/// A w×h block (w, h ≥ 1, at most 16 here) of one colour; the caller has validated the block.
@inline(__always)
private func fillBlock(_ d: UnsafeMutablePointer<UInt32>, stride: Int, w: Int, h: Int, _ c: UInt32) {
    var row = d
    for _ in 0..<h {
        var i = 0
        while i < w { row[i] = c; i += 1 }
        row += stride
    }
}

/// One wire pixel to a framebuffer pixel, chosen per pixel format so generic code specialises.
private protocol HextilePixelSource {
    var size: Int { get }
    func read(_ p: UnsafePointer<UInt8>) -> UInt32
}

/// 32 bpp little-endian 0x00RRGGBB: the wire pixel is the framebuffer pixel.
private struct NativePixels: HextilePixelSource {
    var size: Int { 4 }
    @inline(__always) func read(_ p: UnsafePointer<UInt8>) -> UInt32 {
        UnsafeRawPointer(p).loadUnaligned(as: UInt32.self).littleEndian & 0x00ff_ffff
    }
}

private struct Lut8Pixels: HextilePixelSource {
    let table: UnsafePointer<UInt32>   // 256 entries
    var size: Int { 1 }
    @inline(__always) func read(_ p: UnsafePointer<UInt8>) -> UInt32 { table[Int(p[0])] }
}

private struct Lut16Pixels: HextilePixelSource {
    let table: UnsafePointer<UInt32>   // 65536 entries, keyed b0 | b1 << 8 as PixelConverter builds them
    var size: Int { 2 }
    @inline(__always) func read(_ p: UnsafePointer<UInt8>) -> UInt32 { table[Int(p[0]) | Int(p[1]) << 8] }
}

/// Any other format (32 bpp true colour in practice): the converter's own per-pixel mapping.
private struct ConverterPixels: HextilePixelSource {
    let pf: PixelConverter
    var size: Int { pf.bytesPerPixel }
    @inline(__always) func read(_ p: UnsafePointer<UInt8>) -> UInt32 { pf.pixel(p) }
}
