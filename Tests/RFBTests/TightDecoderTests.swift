import XCTest
import CTurboJPEG
@testable import RFB

/// Building blocks of Tight vectors, as a server writes them.
enum TightWire {
    static func compact(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        if n < 0x4000 { return [UInt8(n & 0x7f | 0x80), UInt8(n >> 7)] }
        return [UInt8(n & 0x7f | 0x80), UInt8(n >> 7 & 0x7f | 0x80), UInt8(n >> 14)]
    }
    /// Basic-compression data: under 12 bytes as is, else compact length + zlib on the server's stream.
    static func data(_ raw: [UInt8], _ z: Deflater) -> [UInt8] {
        if raw.count < 12 { return raw }
        let c = z.compress(raw)
        return compact(c.count) + c
    }
    /// 24-bit TPIXEL: R, G, B.
    static func rgb(_ v: UInt32) -> [UInt8] { [UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    static func le16(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }

    /// The gradient filter's forward direction on component triples (lossless, so the
    /// prediction uses the picture itself).
    static func gradient(_ img: [UInt32], w: Int, h: Int, shifts: [UInt32], maxes: [UInt32],
                         pack: ([UInt32]) -> [UInt8]) -> [UInt8] {
        func comp(_ x: Int, _ y: Int, _ c: Int) -> Int {
            x < 0 || y < 0 ? 0 : Int(img[y * w + x] >> shifts[c] & maxes[c])
        }
        var out: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                var d: [UInt32] = []
                for c in 0..<3 {
                    let pred = min(max(comp(x - 1, y, c) + comp(x, y - 1, c) - comp(x - 1, y - 1, c), 0), Int(maxes[c]))
                    d.append(UInt32(truncatingIfNeeded: comp(x, y, c) - pred) & maxes[c])
                }
                out += pack(d)
            }
        }
        return out
    }
}

/// A JPEG of `img` (0x00RRGGBB) and what TurboJPEG itself decodes it to (BGRX).
func makeJPEG(_ img: [UInt32], w: Int, h: Int, quality: Int32 = 85, flags: Int32 = 0) -> (jpeg: [UInt8], decoded: [UInt32]) {
    let rgb = img.flatMap(TightWire.rgb)
    let c = tjInitCompress()!
    defer { tjDestroy(c) }
    var buf: UnsafeMutablePointer<UInt8>? = nil
    var size: UInt = 0
    let rc = tjCompress2(c, rgb, Int32(w), 0, Int32(h), Int32(TJPF_RGB.rawValue), &buf, &size,
                         Int32(TJSAMP_420.rawValue), quality, flags)
    precondition(rc == 0 && buf != nil, "tjCompress2 failed")
    let jpeg = Array(UnsafeBufferPointer(start: buf, count: Int(size)))
    tjFree(buf)
    let d = tjInitDecompress()!
    defer { tjDestroy(d) }
    var out = [UInt32](repeating: 0, count: w * h)
    let rc2 = out.withUnsafeMutableBytes { ob in
        tjDecompress2(d, jpeg, UInt(jpeg.count), ob.baseAddress!.assumingMemoryBound(to: UInt8.self),
                      Int32(w), Int32(w * 4), Int32(h), Int32(TJPF_BGRX.rawValue), 0)
    }
    precondition(rc2 == 0, "tjDecompress2 failed")
    return (jpeg, out)
}

final class TightDecoderTests: XCTestCase {
    /// Pixels of `rect` in a framebuffer snapshot of width `fbW`.
    func region(_ out: [UInt32], fbW: Int, _ r: Rect) -> [UInt32] {
        var v: [UInt32] = []
        for y in r.y..<r.maxY { v += out[(y * fbW + r.x)..<(y * fbW + r.maxX)] }
        return v
    }
    func picture(_ w: Int, _ h: Int) -> [UInt32] {
        var img: [UInt32] = []
        for y in 0..<h { for x in 0..<w { img.append(testPattern(x, y)) } }
        return img
    }

    func testFill() throws {
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 1, y: 0, w: 2, h: 2),
                                     bytes: [0x80] + TightWire.rgb(0x123456), fbSize: (4, 2))
        XCTAssertEqual(out, [0, 0x123456, 0x123456, 0, 0, 0x123456, 0x123456, 0])
        // 16 bpp: TPIXEL is the pixel itself
        let out16 = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 1),
                                       bytes: [0x80, 0x00, 0xf8], fbSize: (2, 1), format: .rgb565)
        XCTAssertEqual(out16, [0xff0000, 0xff0000])
    }

    func testCopyUncompressed() throws {
        // 3x1 at 3 bytes a pixel = 9 bytes: below 12, so no length and no zlib
        let img: [UInt32] = [0x010203, 0x040506, 0x070809]
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1),
                                     bytes: [0x00] + img.flatMap(TightWire.rgb), fbSize: (3, 1))
        XCTAssertEqual(out, img)
    }

    func testCopyCompressedOnEachStream() throws {
        let img = picture(8, 4)
        for stream in 0..<4 {
            for explicit in [false, true] {
                let ctl = UInt8(stream << 4) | (explicit ? 0x40 : 0)
                let bytes = [ctl] + (explicit ? [0] : []) + TightWire.data(img.flatMap(TightWire.rgb), Deflater())
                let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 2, y: 1, w: 8, h: 4), bytes: bytes, fbSize: (11, 6))
                XCTAssertEqual(region(out, fbW: 11, Rect(x: 2, y: 1, w: 8, h: 4)), img, "stream \(stream)")
            }
        }
    }

    func testCopyRGB565() throws {
        let wire: [UInt32] = (0..<16).map { UInt32($0 * 0x1234 & 0xffff) }
        let bytes = [0x00] + TightWire.data(wire.flatMap(TightWire.le16), Deflater())
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 4), bytes: bytes, fbSize: (4, 4), format: .rgb565)
        let pf = PixelConverter(format: .rgb565)
        XCTAssertEqual(out, wire.map { pf.mapTrueColour($0) })
    }

    /// Palette rect bytes: 1 bit per pixel rows for two colours (or one), else a byte per pixel.
    func paletteRect(_ idx: [Int], w: Int, h: Int, colours: [UInt32], _ z: Deflater, ctl: UInt8 = 0x40) -> [UInt8] {
        var raw: [UInt8] = []
        if colours.count <= 2 {
            for y in 0..<h {
                var row = [UInt8](repeating: 0, count: (w + 7) / 8)
                for x in 0..<w where idx[y * w + x] != 0 { row[x / 8] |= 0x80 >> UInt8(x % 8) }
                raw += row
            }
        } else {
            raw = idx.map { UInt8($0) }
        }
        return [ctl, 1, UInt8(colours.count - 1)] + colours.flatMap(TightWire.rgb) + TightWire.data(raw, z)
    }

    func testPaletteTwoColours() throws {
        let colours: [UInt32] = [0x0000ff, 0xffff00]
        // 11x3: rows of 2 bytes = 6 bytes, sent uncompressed; 21x10: 30 bytes, compressed;
        // 67x9: hashed indices, so every 4-bit group of the table appears, rows ending mid-byte
        for (w, h) in [(11, 3), (21, 10), (67, 9)] {
            let idx = (0..<(w * h)).map { w == 67 ? Int((UInt32($0) &* 2_654_435_761) >> 19 & 1) : ($0 * 7 / 3) % 2 }
            let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: w, h: h),
                                         bytes: paletteRect(idx, w: w, h: h, colours: colours, Deflater()), fbSize: (w, h))
            XCTAssertEqual(out, idx.map { colours[$0] }, "\(w)x\(h)")
        }
    }

    func testPaletteOneColourAndPaddingBits() throws {
        // one colour still travels at 1 bit per pixel; set padding bits are ignored
        let bytes: [UInt8] = [0x40, 1, 0] + TightWire.rgb(0x445566) + [0b0000_0111, 0b0000_0001]
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 5, h: 2), bytes: bytes, fbSize: (5, 2))
        XCTAssertEqual(out, [UInt32](repeating: 0x445566, count: 10))
    }

    func testPaletteManyColours() throws {
        let colours: [UInt32] = (0..<5).map { UInt32($0) * 0x203040 + 0x010101 }
        let idx = (0..<35).map { ($0 * 3 + $0 / 7) % 5 }
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 1, y: 1, w: 7, h: 5),
                                     bytes: paletteRect(idx, w: 7, h: 5, colours: colours, Deflater()), fbSize: (8, 6))
        XCTAssertEqual(region(out, fbW: 8, Rect(x: 1, y: 1, w: 7, h: 5)), idx.map { colours[$0] })
        // all 256 colours, uncompressed (fewer than 12 bytes of indices)
        let all: [UInt32] = (0..<256).map { UInt32($0) * 0x010101 }
        let idx2 = [255, 0, 128, 7]
        let out2 = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 1),
                                      bytes: paletteRect(idx2, w: 4, h: 1, colours: all, Deflater()), fbSize: (4, 1))
        XCTAssertEqual(out2, idx2.map { all[$0] })
    }

    func testGradient24() throws {
        let img = picture(13, 7)
        let deltas = TightWire.gradient(img, w: 13, h: 7, shifts: [16, 8, 0], maxes: [255, 255, 255]) { $0.map { UInt8($0) } }
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 13, h: 7),
                                     bytes: [0x40, 2] + TightWire.data(deltas, Deflater()), fbSize: (13, 7))
        XCTAssertEqual(out, img)
        // a tiny one goes uncompressed
        let small = TightWire.gradient([0x102030, 0x405060, 0xffffff], w: 3, h: 1, shifts: [16, 8, 0], maxes: [255, 255, 255]) { $0.map { UInt8($0) } }
        let out2 = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1),
                                      bytes: [0x40, 2] + small, fbSize: (3, 1))
        XCTAssertEqual(out2, [0x102030, 0x405060, 0xffffff])
    }

    func testGradientRGB565() throws {
        let wire: [UInt32] = (0..<60).map { (i: Int) -> UInt32 in UInt32((i * 2467 + i * i * 31) & 0xffff) }
        let deltas = TightWire.gradient(wire, w: 10, h: 6, shifts: [11, 5, 0], maxes: [31, 63, 31]) {
            TightWire.le16($0[0] << 11 | $0[1] << 5 | $0[2])
        }
        let out = try decodeBothWays({ TightDecoder() }, rect: Rect(x: 0, y: 0, w: 10, h: 6),
                                     bytes: [0x40, 2] + TightWire.data(deltas, Deflater()), fbSize: (10, 6), format: .rgb565)
        let pf = PixelConverter(format: .rgb565)
        XCTAssertEqual(out, wire.map { pf.mapTrueColour($0) })
    }

    func testJPEGMatchesTurboJPEG() throws {
        let (jpeg, ref) = makeJPEG(picture(16, 8), w: 16, h: 8)
        let rect = Rect(x: 3, y: 2, w: 16, h: 8)
        let out = try decodeBothWays({ TightDecoder() }, rect: rect,
                                     bytes: [0x90] + TightWire.compact(jpeg.count) + jpeg, fbSize: (24, 12))
        // identical to TurboJPEG's own decoding (in the low 24 bits: see Framebuffer)
        XCTAssertEqual(region(out, fbW: 24, rect), ref.map { $0 & 0x00ff_ffff })
        XCTAssertEqual(out.filter { $0 != 0 }.count <= 16 * 8, true, "nothing written outside the rect")
        XCTAssertEqual(out[0], 0); XCTAssertEqual(out[2 * 24 + 2], 0); XCTAssertEqual(out[2 * 24 + 19], 0)
    }

    /// A framebuffer pixel's top byte means nothing (JPEG rects leave TurboJPEG's 0xff there,
    /// rather than make a second pass over the rect): snapshots give 0x00RRGGBB.
    func testSnapshotsGiveTheLowTwentyFourBits() {
        let fb = Framebuffer(width: 2, height: 1)
        fb.pixels[0] = 0xff12_3456
        fb.pixels[1] = 0x0065_4321
        XCTAssertEqual(fb.snapshotPixels(), [0x12_3456, 0x65_4321])
    }

    func testStreamResetBits() throws {
        let img = picture(8, 4), img2 = picture(8, 4).map { $0 ^ 0xffffff }
        let z1 = Deflater()
        let r1 = [0x10] + TightWire.data(img.flatMap(TightWire.rgb), z1)
        // the server starts stream 1 afresh and says so with bit 1
        z1.reset()
        let body2 = TightWire.data(img2.flatMap(TightWire.rgb), z1)
        let rect1 = Rect(x: 0, y: 0, w: 8, h: 4), rect2 = Rect(x: 0, y: 4, w: 8, h: 4)
        let out = try decodeSequenceBothWays({ TightDecoder() }, rects: [(rect1, r1), (rect2, [0x12] + body2)], fbSize: (8, 8))
        XCTAssertEqual(Array(out[0..<32]), img)
        XCTAssertEqual(Array(out[32..<64]), img2)
        // without the reset bit the new zlib header lands mid-stream
        let d = TightDecoder(), fb = Framebuffer(width: 8, height: 8)
        try runDecoder(d, rect: rect1, bytes: r1, fb: fb)
        XCTAssertThrowsError(try runDecoder(d, rect: rect2, bytes: [0x10] + body2, fb: fb)) {
            XCTAssertTrue("\($0)".contains("zlib"), "\($0)")
        }
        // reset bits on a fill rect (any type) take effect too: all four here
        let z2 = Deflater()
        let r3 = [0x20] + TightWire.data(img.flatMap(TightWire.rgb), z2)
        z2.reset()
        let r4 = [0x20] + TightWire.data(img2.flatMap(TightWire.rgb), z2)
        let out2 = try decodeSequenceBothWays({ TightDecoder() }, rects: [
            (rect1, r3), (Rect(x: 0, y: 0, w: 1, h: 1), [0x8f] + TightWire.rgb(0x010101)), (rect2, r4),
        ], fbSize: (8, 8))
        XCTAssertEqual(Array(out2[32..<64]), img2)
        XCTAssertEqual(out2[0], 0x010101)
    }

    func testRectsShareStreamsInterleaved() throws {
        let zs = [Deflater(), Deflater(), Deflater(), Deflater()]
        var rects: [(Rect, [UInt8])] = []
        var expected = [UInt32](repeating: 0, count: 16 * 8)
        for i in 0..<8 {
            let s = i % 4
            let img = picture(16, 1).map { $0 &+ UInt32(s) }   // repeats per stream: back-references
            rects.append((Rect(x: 0, y: i, w: 16, h: 1), [UInt8(s << 4)] + TightWire.data(img.flatMap(TightWire.rgb), zs[s])))
            expected.replaceSubrange((i * 16)..<(i * 16 + 16), with: img)
        }
        XCTAssertLessThan(rects[4].1.count, rects[0].1.count, "later rects should reuse the dictionary")
        XCTAssertEqual(try decodeSequenceBothWays({ TightDecoder() }, rects: rects, fbSize: (16, 8)), expected)
        // a palette rect and a gradient rect on a stream already in use
        let z = Deflater()
        let idx = (0..<40).map { $0 % 3 }
        let colours: [UInt32] = [0x111111, 0x222222, 0x333333]
        let img = picture(8, 5)
        let grad = TightWire.gradient(img, w: 8, h: 5, shifts: [16, 8, 0], maxes: [255, 255, 255]) { $0.map { UInt8($0) } }
        let out = try decodeSequenceBothWays({ TightDecoder() }, rects: [
            (Rect(x: 0, y: 0, w: 8, h: 5), paletteRect(idx, w: 8, h: 5, colours: colours, z, ctl: 0x70)),
            (Rect(x: 0, y: 5, w: 8, h: 5), [0x70, 2] + TightWire.data(grad, z)),
        ], fbSize: (8, 10))
        XCTAssertEqual(Array(out[0..<40]), idx.map { colours[$0] })
        XCTAssertEqual(Array(out[40..<80]), img)
    }

    func testZeroSized() throws {
        let z = Deflater()
        let out = try decodeSequenceBothWays({ TightDecoder() }, rects: [
            (Rect(x: 0, y: 0, w: 0, h: 2), [0x80] + TightWire.rgb(0xffffff)),    // fill
            (Rect(x: 0, y: 0, w: 2, h: 0), [0x00]),                              // copy: no data
            (Rect(x: 1, y: 0, w: 0, h: 1), [0x40, 1, 1] + TightWire.rgb(1) + TightWire.rgb(2)), // palette
            (Rect(x: 0, y: 1, w: 0, h: 0), [0x40, 2]),                           // gradient
            (Rect(x: 0, y: 0, w: 0, h: 0), [0x90, 0]),                           // JPEG with no data
            (Rect(x: 0, y: 0, w: 2, h: 2), [0x00] + TightWire.data([UInt8](repeating: 0x42, count: 12), z)),
        ], fbSize: (2, 2))
        XCTAssertEqual(out, [UInt32](repeating: 0x424242, count: 4))
    }

    // MARK: bad input

    func bad(_ bytes: [UInt8], _ rect: Rect = Rect(x: 0, y: 0, w: 8, h: 4), format: PixelFormat = .native,
             contains: String, line: UInt = #line) {
        assertDecodeError({ TightDecoder() }, rect: rect, bytes: bytes, fbSize: (max(rect.maxX, 1), max(rect.maxY, 1)),
                          format: format, contains: contains, line: line)
    }

    func testBadControlBytes() {
        bad([0xa0, 0, 0, 0], contains: "asks for PNG")
        for ctl: UInt8 in [0xb0, 0xc3, 0xf0, 0xff] {
            bad([ctl, 0, 0, 0], contains: "invalid compression control byte 0x\(String(ctl, radix: 16))")
        }
    }

    func testBadFilter() {
        for f: UInt8 in [3, 4, 0x80, 0xff] { bad([0x40, f, 0, 0, 0], contains: "unknown filter id \(f)") }
        bad([0x40, 2, 0, 0], format: .colourMap8, contains: "gradient filter needs a true-colour pixel format")
    }

    func testPaletteIndexPastPalette() {
        let colours: [UInt32] = [1, 2, 3]
        var idx = [Int](repeating: 0, count: 32)
        idx[17] = 200
        bad(paletteRect(idx, w: 8, h: 4, colours: colours, Deflater()), contains: "palette index 200 past the 3-colour palette")
        bad([0x40, 1, 0] + TightWire.rgb(5) + [0, 0b0100_0000], Rect(x: 0, y: 0, w: 3, h: 2),
            contains: "palette index 1 past the 1-colour palette")
    }

    func testJPEGSizeMismatch() {
        let (jpeg, _) = makeJPEG(picture(16, 8), w: 16, h: 8)
        bad([0x90] + TightWire.compact(jpeg.count) + jpeg, Rect(x: 0, y: 0, w: 8, h: 8), contains: "JPEG is 16x8, not the rect's 8x8")
        bad([0x90] + TightWire.compact(jpeg.count) + jpeg, Rect(x: 0, y: 0, w: 16, h: 9), contains: "JPEG is 16x8, not the rect's 16x9")
        bad([0x90, 4, 1, 2, 3, 4], contains: "bad JPEG header")
        bad([0x90, 0], contains: "empty JPEG data")
    }

    func testCorruptZlib() {
        var body = Deflater().compress([UInt8](repeating: 1, count: 96))
        body[0] ^= 0xff
        bad([0x00] + TightWire.compact(body.count) + body, contains: "corrupt zlib data")
    }

    func testTruncatedZlib() {
        // 8x4 needs 96 bytes; the stream holds 50
        bad([0x00] + TightWire.data([UInt8](repeating: 1, count: 50), Deflater()), contains: "ends after 50 of the 96 bytes")
    }

    func testInflatesPastRect() {
        bad([0x00] + TightWire.data([UInt8](repeating: 1, count: 120), Deflater()), contains: "inflates past the 96 bytes")
        let bomb = Deflater(level: 9).compress([UInt8](repeating: 0, count: 1 << 20))
        bad([0x00] + TightWire.compact(bomb.count) + bomb, contains: "inflates past the 96 bytes")
    }

    func testLengthOverLimit() {
        // only the length is sent: refused at once, not waited for
        bad([0x00, 0xff, 0xff, 0xff], contains: "exceeds the limit")
        bad([0x90, 0xff, 0xff, 0xff], Rect(x: 0, y: 0, w: 2, h: 2), contains: "JPEG length 4194303 exceeds the limit")
    }
}
