@_spi(Fuzzing) import RFB

/// One target per decoder, driven through the engine as a server would: input
/// `[flags][fb width u16][fb height u16]` then rects `[body length u16][x y w h, u16 each][body]`,
/// each sent as a one-rect FramebufferUpdate in the target's encoding (consecutive rects share
/// the connection's zlib streams). Flags: bits 0-1 pixel format (32 bpp, RGB565, BGR233, colour
/// map), bit 2 big-endian, bits 3-5 chunk size; fed in pieces the pixels must match the run fed whole.
let decoderTargets: [FuzzTarget] = ([
    ("dec-raw", Encoding.raw, "Raw rects"),
    ("dec-copyrect", Encoding.copyRect, "CopyRect rects (after Raw ones, so there is something to copy)"),
    ("dec-rre", Encoding.rre, "RRE rects: background, subrect count, subrects"),
    ("dec-corre", Encoding.coRRE, "CoRRE rects: 8-bit subrect geometry"),
    ("dec-hextile", Encoding.hextile, "Hextile tiles: background, foreground, subrects, raw tiles"),
    ("dec-zlib", Encoding.zlib, "Zlib rects: one zlib stream for the connection"),
    ("dec-zrle", Encoding.zrle, "ZRLE: zlib stream, 64x64 tiles, palettes, runs"),
    ("dec-tight", Encoding.tight, "Tight: fill, JPEG (TurboJPEG), basic with copy/palette/gradient filters, 4 zlib streams"),
    ("dec-tightpng", Encoding.tightPNG, "TightPNG: Tight with PNG rects (libpng), as QEMU sends it"),
    ("dec-jpeg", Encoding.jpeg, "JPEG (21): one JPEG file per rect, its end found by the marker walk, tables carried over (RealVNC)"),
] as [(String, Int32, String)]).map { name, encoding, summary in
    FuzzTarget(name: name, summary: summary, maxLength: 16384, run: { runDecoder(encoding, $0) },
               seeds: { DecoderSeeds.synthetic(encoding) },
               // TightPNG takes every Tight rect too (QEMU sends fills, JPEG and gradient rects in it)
               corpusSeeds: { DecoderSeeds.fromCorpus(encoding == Encoding.tightPNG ? Encoding.tight : encoding, $0) })
}

func runDecoder(_ encoding: Int32, _ data: UnsafeBufferPointer<UInt8>) {
    var input = FuzzInput(data)
    let flags = input.u8()
    let pf = pixelFormat(flags, bigEndian: flags & 4 != 0)
    let (w, h) = Server.fitted(input.u16(), input.u16())
    var bytes = Server.hello(w: w, h: h)
    bytes.reserveCapacity(bytes.count + data.count * 2 + (pf.trueColour ? 0 : Server.colourMap.count))
    if !pf.trueColour { bytes += Server.colourMap }
    // CopyRect copies what is there: Raw rects first give it pixels (an odd flag bit would do,
    // but then every CopyRect input would split the fuzzer's attention).
    let copy = encoding == Encoding.copyRect
    var i = 0
    while !input.atEnd {
        let n = input.u16()
        let x = input.u16(), y = input.u16(), rw = input.u16(), rh = input.u16()
        let body = input.view(n)
        let enc = copy && i % 2 == 0 ? Encoding.raw : encoding
        Server.appendUpdate(&bytes, x, y, rw, rh, enc, body)
        i += 1
    }
    var s = fuzzSettings(pixelFormat: pf)
    s.encodings = [encoding, Encoding.raw]
    if Encoding.lossyOnly.contains(encoding) { s.jpegQuality = 8 }   // offered, so decoded
    runBothWays(s, bytes, chunk: chunkSize(flags >> 3))
}

/// Decoder inputs from rects: `rects` as (x, y, w, h, body).
func decoderInput(flags: UInt8, fb: (Int, Int), _ rects: [(Int, Int, Int, Int, [UInt8])]) -> [UInt8] {
    cat([flags], be16(fb.0), be16(fb.1), rects.flatMap { r in cat(be16(r.4.count), be16(r.0), be16(r.1), be16(r.2), be16(r.3), r.4) })
}

enum DecoderSeeds {
    static func px(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), 0] }

    /// Small hand-made rects per encoding (the corpus has 32 bpp only, and few odd cases).
    static func synthetic(_ encoding: Int32) -> [[UInt8]] {
        let fb = (64, 40)
        var rects: [(Int, Int, Int, Int, [UInt8])] = []
        switch encoding {
        case Encoding.raw:
            rects = [(0, 0, 4, 2, (0..<8).flatMap { px(UInt32($0) * 0x10203) }), (3, 3, 0, 5, [])]
        case Encoding.copyRect:
            rects = [(0, 0, 4, 2, (0..<8).flatMap { px(UInt32($0) * 0x10203) }), (10, 10, 4, 2, be16(0) + be16(0)),
                     (0, 0, 16, 16, []), (1, 1, 16, 16, be16(0) + be16(0))]
        case Encoding.rre:
            rects = [(0, 0, 32, 16, be32(2) + px(0x112233) + px(0xff0000) + be16(1) + be16(1) + be16(4) + be16(4)
                      + px(0x00ff00) + be16(30) + be16(15) + be16(2) + be16(1))]
        case Encoding.coRRE:
            rects = [(0, 0, 32, 16, be32(2) + px(0x112233) + px(0xff0000) + [1, 1, 4, 4] + px(0x00ff00) + [30, 15, 2, 1])]
        case Encoding.hextile:
            // a raw tile, a background + foreground tile with plain subrects, a coloured-subrect tile
            let raw: [UInt8] = [1] + (0..<256).flatMap { px(UInt32($0) * 0x10101) }
            let mono: [UInt8] = [2 | 4 | 8] + px(0x000000) + px(0xffffff) + [2, 0x00, 0x33, 0x71, 0x11]
            let coloured: [UInt8] = [8 | 16, 1] + px(0x123456) + [0x44, 0x22]
            rects = [(0, 0, 48, 16, raw + mono + coloured), (0, 16, 20, 10, [0])]
        case Encoding.zlib:
            let z = Deflater()
            rects = [(0, 0, 4, 4, zlibBody(z, (0..<16).flatMap { px(UInt32($0) * 0x10101) })),
                     (4, 0, 4, 4, zlibBody(z, (0..<16).flatMap { px(UInt32($0) * 0x30201) }))]
        case Encoding.zrle:
            // one 8x4 tile each: raw, solid, 2-colour packed palette, plain RLE, palette RLE
            let cp: (UInt32) -> [UInt8] = { [UInt8($0 & 0xff), UInt8($0 >> 8 & 0xff), UInt8($0 >> 16 & 0xff)] }
            let tiles: [[UInt8]] = [
                [0] + (0..<32).flatMap { cp(UInt32($0) * 0x10101) }, [1] + cp(0x123456),
                [2] + cp(0) + cp(0xffffff) + [0xaa, 0x55, 0xaa, 0x55],
                [128] + cp(0xff0000) + [30] + cp(0x00ff00) + [0], [130] + cp(1) + cp(2) + [0x80, 20, 1, 0x80, 9],
            ]
            let z = Deflater()
            rects = tiles.enumerated().map { i, t in (i * 8, 0, 8, 4, zlibBody(z, t)) }
        case Encoding.tight:
            let cp: [UInt8] = [0x10, 0x20, 0x30]
            rects = [(0, 0, 8, 8, [0x80] + cp),                                              // fill
                     (8, 0, 2, 1, [0x00] + cp + cp),                                         // basic, raw under 12 bytes
                     (0, 8, 8, 2, [0x40, 1, 1] + cp + [0x40, 0x30, 0x20] + [0x55, 0xaa]),   // palette, mono
                     (0, 10, 4, 4, [0x40, 2] + tightZlib(Array(repeating: 7, count: 48))),   // gradient
                     (0, 20, 1, 1, [0x90, 3, 1, 2, 3])]                                      // JPEG (broken)
        case Encoding.tightPNG:
            rects = CodecSeeds.tightPNGRects()
        case Encoding.jpeg:
            rects = CodecSeeds.jpegRects()
        default:
            break
        }
        let whole = decoderInput(flags: 0, fb: fb, rects)
        return [whole, decoderInput(flags: 1 << 3, fb: fb, rects), decoderInput(flags: 3 << 3, fb: fb, rects),
                decoderInput(flags: 5 << 3, fb: fb, rects), decoderInput(flags: 4, fb: fb, rects)]
    }

    /// `data` behind a u32 length, deflated on the connection's stream `z` (Zlib, ZRLE).
    static func zlibBody(_ z: Deflater, _ data: [UInt8]) -> [UInt8] {
        let c = z.compress(data)
        return be32(c.count) + c
    }

    /// Tight's compact length and zlib data on stream 0.
    static func tightZlib(_ data: [UInt8]) -> [UInt8] {
        let c = Deflater().compress(data)
        var len: [UInt8] = [UInt8(c.count & 0x7f)]
        if c.count > 0x7f { len[0] |= 0x80; len.append(UInt8(c.count >> 7 & 0x7f)) }
        if c.count > 0x3fff { len[1] |= 0x80; len.append(UInt8(c.count >> 14)) }
        return len + c
    }
}
