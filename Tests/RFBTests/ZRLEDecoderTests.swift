import XCTest
@testable import RFB

/// How a test tile is encoded.
enum ZRLETile {
    case raw, solid, packed([UInt32]), plainRLE, paletteRLE([UInt32])
}

/// A small ZRLE encoder for building vectors: pixels are wire values of `format`.
struct ZRLEEncoder {
    let format: PixelFormat
    let cpixelSize: Int

    init(format: PixelFormat) {
        self.format = format
        cpixelSize = PixelConverter(format: format).cpixelSize
    }

    /// A CPIXEL: the low bytes of the little-endian wire value (our test formats are all LE).
    func cpixel(_ v: UInt32) -> [UInt8] { (0..<cpixelSize).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }

    static func runLength(_ n: Int) -> [UInt8] {
        var r = n - 1, out: [UInt8] = []
        while r >= 255 { out.append(255); r -= 255 }
        out.append(UInt8(r))
        return out
    }

    /// Consecutive equal pixels of a tile in row-major order.
    static func runs(_ px: [UInt32]) -> [(UInt32, Int)] {
        var out: [(UInt32, Int)] = []
        for p in px {
            if let last = out.last, last.0 == p { out[out.count - 1].1 += 1 } else { out.append((p, 1)) }
        }
        return out
    }

    func tile(_ kind: ZRLETile, pixels px: [UInt32], w: Int, h: Int) -> [UInt8] {
        switch kind {
        case .raw:
            return [0] + px.flatMap(cpixel)
        case .solid:
            precondition(Set(px).count == 1)
            return [1] + cpixel(px[0])
        case .packed(let pal):
            let bits = pal.count == 2 ? 1 : (pal.count <= 4 ? 2 : 4)
            var out: [UInt8] = [UInt8(pal.count)] + pal.flatMap(cpixel)
            for y in 0..<h {
                var row = [UInt8](repeating: 0, count: (w * bits + 7) / 8)
                for x in 0..<w {
                    let i = pal.firstIndex(of: px[y * w + x])!
                    let bit = x * bits
                    row[bit / 8] |= UInt8(i << (8 - bits - bit % 8))
                }
                out += row
            }
            return out
        case .plainRLE:
            return [128] + ZRLEEncoder.runs(px).flatMap { cpixel($0.0) + ZRLEEncoder.runLength($0.1) }
        case .paletteRLE(let pal):
            var out: [UInt8] = [UInt8(128 + pal.count)] + pal.flatMap(cpixel)
            for (p, n) in ZRLEEncoder.runs(px) {
                let i = UInt8(pal.firstIndex(of: p)!)
                out += n == 1 ? [i] : [i | 0x80] + ZRLEEncoder.runLength(n)
            }
            return out
        }
    }

    /// Encodes a rect whose tiles (row-major) are given by kind and a pixel function of (global x, y)
    /// inside the rect; returns the uncompressed tile bytes and the rect's wire pixels.
    func rect(w: Int, h: Int, tiles: [(ZRLETile, (Int, Int) -> UInt32)]) -> (bytes: [UInt8], pixels: [UInt32]) {
        var bytes: [UInt8] = [], pixels = [UInt32](repeating: 0, count: w * h)
        var t = 0
        for ty in stride(from: 0, to: h, by: 64) {
            for tx in stride(from: 0, to: w, by: 64) {
                let tw = min(64, w - tx), th = min(64, h - ty)
                let (kind, f) = tiles[t]; t += 1
                var px: [UInt32] = []
                for y in 0..<th { for x in 0..<tw { let v = f(tx + x, ty + y); px.append(v); pixels[(ty + y) * w + tx + x] = v } }
                bytes += tile(kind, pixels: px, w: tw, h: th)
            }
        }
        precondition(t == tiles.count)
        return (bytes, pixels)
    }
}

final class ZRLEDecoderTests: XCTestCase {
    func payload(_ tiles: [UInt8], _ z: Deflater = Deflater()) -> [UInt8] {
        let c = z.compress(tiles)
        return be32(c.count) + c
    }

    /// Decodes `tiles` of a `w`x`h` rect placed at (2,1) in a framebuffer with a margin, both
    /// ways, and checks every pixel (outside the rect stays 0).
    func check(format: PixelFormat, w: Int, h: Int, tiles: [(ZRLETile, (Int, Int) -> UInt32)],
               file: StaticString = #filePath, line: UInt = #line) throws {
        let enc = ZRLEEncoder(format: format)
        let (bytes, wire) = enc.rect(w: w, h: h, tiles: tiles)
        let rect = Rect(x: 2, y: 1, w: w, h: h)
        let fbW = w + 5, fbH = h + 3
        let out = try decodeBothWays({ ZRLEDecoder() }, rect: rect, bytes: payload(bytes), fbSize: (fbW, fbH),
                                     format: format, file: file, line: line)
        let pf = PixelConverter(format: format)
        var expected = [UInt32](repeating: 0, count: fbW * fbH)
        for y in 0..<h { for x in 0..<w { expected[(y + 1) * fbW + x + 2] = pf.cpixel(enc.cpixel(wire[y * w + x])) } }
        if out != expected {
            let firstBad = zip(out, expected).enumerated().first { $0.element.0 != $0.element.1 }!.offset
            XCTFail("pixel \(firstBad % fbW),\(firstBad / fbW): got \(String(out[firstBad], radix: 16)), want \(String(expected[firstBad], radix: 16))",
                    file: file, line: line)
        }
    }

    /// Tiles of every kind on a 200x70 rect: 4x2 tiles, the right column 8 wide and the
    /// bottom row 6 high (partial edge tiles).
    func everyKind(mask: UInt32) -> [(ZRLETile, (Int, Int) -> UInt32)] {
        let pal2: [UInt32] = [0x123456 & mask, 0xfedcba & mask]
        let pal3: [UInt32] = [0x00ff00 & mask, 0x0000ff & mask, 0xff0000 & mask]
        let pal16: [UInt32] = (0..<16).map { UInt32($0 * 0x0f0b07 + 1) & mask }
        let pal5: [UInt32] = (0..<5).map { UInt32($0 * 0x332211 + 5) & mask }
        let pal7: [UInt32] = (0..<7).map { UInt32($0 * 0x251309 + 9) & mask }
        return [
            (.raw, { x, y in testPattern(x, y) & mask }),
            (.solid, { _, _ in 0xa1b2c3 & mask }),
            (.packed(pal2), { x, y in pal2[(x * 7 + y * 3) % 2] }),
            (.packed(pal3), { x, y in pal3[(x + y) % 3] }),                 // 8 wide: 2-bit rows of 2 bytes
            (.packed(pal16), { x, y in pal16[(x * 5 + y) % 16] }),          // 6 high
            // 64x6 = 384 pixels: runs of 300 (several length bytes), 83 and 1
            (.plainRLE, { x, y in let i = (y - 64) * 64 + (x - 64); return (i < 300 ? 0x111111 : i < 383 ? 0x222222 : 0x333333) & mask }),
            (.paletteRLE(pal7), { x, y in let i = (y - 64) * 64 + (x - 128); return pal7[i < 120 ? (i / 9) % 7 : i % 7] }),
            (.packed(pal5), { x, y in pal5[(x * 3 + y) % 5] }),             // 8x6 corner: 4-bit rows
        ]
    }

    func testEveryTileKindNative() throws {
        XCTAssertEqual(PixelConverter(format: .native).cpixelSize, 3)
        try check(format: .native, w: 200, h: 70, tiles: everyKind(mask: 0xffffff))
    }

    func testEveryTileKindRGB565() throws {
        XCTAssertEqual(PixelConverter(format: .rgb565).cpixelSize, 2)
        try check(format: .rgb565, w: 200, h: 70, tiles: everyKind(mask: 0xffff))
    }

    func testEveryTileKindBGR233() throws {
        XCTAssertEqual(PixelConverter(format: .bgr233).cpixelSize, 1)
        try check(format: .bgr233, w: 200, h: 70, tiles: everyKind(mask: 0xff))
    }

    /// 2- and 4-colour tiles (drawn from a table of index groups) with every index group, full
    /// tiles and a 61-wide edge whose rows end inside an index byte.
    func testTwoAndFourColourTilesEveryIndexGroup() throws {
        let pal2: [UInt32] = [0x0a0b0c, 0xf0e0d0], pal4: [UInt32] = [0x010203, 0x112233, 0x445566, 0x778899]
        func hash(_ x: Int, _ y: Int) -> Int { (x &* 0x9E37 ^ y &* 0x85EB ^ (x * y) >> 3) & 0xffff }
        try check(format: .native, w: 125, h: 70, tiles: [
            (.packed(pal2), { x, y in pal2[hash(x, y) >> 7 & 1] }), (.packed(pal4), { x, y in pal4[hash(x, y) >> 5 & 3] }),
            (.packed(pal4), { x, y in pal4[hash(x, y) >> 9 & 3] }), (.packed(pal2), { x, y in pal2[hash(x, y) >> 4 & 1] }),
        ])
    }

    func testLargestPaletteRLEAndSmallTiles() throws {
        // subencoding 255: 127 colours, mostly single pixels
        let pal: [UInt32] = (0..<127).map { UInt32($0) * 0x010203 + 0x040000 }
        try check(format: .native, w: 64, h: 64, tiles: [(.paletteRLE(pal), { x, y in pal[(x + y * 64) % 127] })])
        // a 1x1 rect of each simple kind
        for kind in [ZRLETile.raw, .solid, .plainRLE, .packed([1, 2]), .paletteRLE([1, 2])] {
            try check(format: .native, w: 1, h: 1, tiles: [(kind, { _, _ in kind.isPalette ? 2 : 0x445566 })])
        }
    }

    /// Palette RLE as text servers send it (libvncserver and neatvnc: two colours a tile, a run
    /// or a single pixel every few pixels), every pixel checked: runs of 1 to 20, 63 to 65, 255
    /// and 256 (a second length byte) and 600 pixels, crossing rows, the last one ending on the
    /// tile's last pixel, in whole and partial tiles, at 32 and 16 bpp.
    func testPaletteRLERunsOfEveryLength() throws {
        let lengths = Array(1...20) + [63, 64, 65, 255, 256, 600, 7, 3, 9]
        // the palette index of a tile's pixel i: runs of `lengths` in turn, colours in turn
        func index(_ i: Int, colours: Int) -> Int {
            var at = 0, k = 0
            while i >= at + lengths[k % lengths.count] { at += lengths[k % lengths.count]; k += 1 }
            return k % colours
        }
        for (format, mask) in [(PixelFormat.native, UInt32(0xffffff)), (.rgb565, 0xffff)] {
            let pal2: [UInt32] = [0x101010 & mask, 0xe0e0e0 & mask]
            let pal5: [UInt32] = [0x102030, 0x405060, 0x708090, 0xa0b0c0, 0xd0e0f0].map { $0 & mask }
            func tile(_ pal: [UInt32], tx: Int, ty: Int, tw: Int) -> (ZRLETile, (Int, Int) -> UInt32) {
                (.paletteRLE(pal), { x, y in pal[index((y - ty) * tw + (x - tx), colours: pal.count)] })
            }
            // 130x70: tiles 64x64, 64x64, 2x64, then 64x6, 64x6, 2x6
            try check(format: format, w: 130, h: 70, tiles: [
                tile(pal2, tx: 0, ty: 0, tw: 64), tile(pal5, tx: 64, ty: 0, tw: 64), tile(pal2, tx: 128, ty: 0, tw: 2),
                tile(pal5, tx: 0, ty: 64, tw: 64), tile(pal2, tx: 64, ty: 64, tw: 64), tile(pal5, tx: 128, ty: 64, tw: 2),
            ])
        }
    }

    /// Palette RLE with the mixes servers send (singles and short runs in any order, now and then
    /// a run with several length bytes), on rects of random sizes: every pair of entries the
    /// decoder takes from one load, every tile ending on either entry of a pair.
    func testPaletteRLERandomMixes() throws {
        var rng = SplitMix(0x2a11)
        for round in 0..<24 {
            let w = 1 + Int(rng.next() % 140), h = 1 + Int(rng.next() % 70)
            let colours = [2, 2, 3, 7, 16, 127][round % 6]
            let pal: [UInt32] = (0..<colours).map { UInt32($0) &* 0x0a_1b2c &+ 0x30_2010 & 0xffffff }
            var tiles: [(ZRLETile, (Int, Int) -> UInt32)] = []
            for ty in stride(from: 0, to: h, by: 64) {
                for tx in stride(from: 0, to: w, by: 64) {
                    let tw = min(64, w - tx), th = min(64, h - ty)
                    var idx: [Int] = [], last = -1
                    while idx.count < tw * th {
                        let r = rng.next() % 100
                        let len = r < 45 ? 1 : r < 90 ? 2 + Int(r % 5) : r < 97 ? 6 + Int(rng.next() % 60) : 250 + Int(rng.next() % 400)
                        // a new colour each run, so the encoder's runs are these runs
                        var c = Int(rng.next() % UInt64(colours))
                        if c == last { c = (c + 1) % colours }
                        last = c
                        idx += Array(repeating: c, count: min(len, tw * th - idx.count))
                    }
                    tiles.append((.paletteRLE(pal), { x, y in pal[idx[(y - ty) * tw + (x - tx)]] }))
                }
            }
            try check(format: .native, w: w, h: h, tiles: tiles)
        }
    }

    /// Plain RLE as libvncserver sends photographs and gradients: runs of 1 to 20, 63 to 65,
    /// 255 and 256 (a second length byte) and 600 pixels, each a new colour, crossing rows, in
    /// whole and partial tiles, at 32 bpp (24-bit CPIXELs read as one load), 16 and 8 bpp.
    func testPlainRLERunsOfEveryLength() throws {
        let lengths = Array(1...20) + [63, 64, 65, 255, 256, 600, 7, 3, 9]
        func run(_ i: Int) -> Int {
            var at = 0, k = 0
            while i >= at + lengths[k % lengths.count] { at += lengths[k % lengths.count]; k += 1 }
            return k
        }
        for (format, mask) in [(PixelFormat.native, UInt32(0xffffff)), (.rgb565, 0xffff), (.bgr233, 0xff)] {
            func tile(tx: Int, ty: Int, tw: Int, seed: UInt32) -> (ZRLETile, (Int, Int) -> UInt32) {
                (.plainRLE, { x, y in (UInt32(run((y - ty) * tw + (x - tx))) &* 0x01_0305 &+ seed) & mask })
            }
            try check(format: format, w: 130, h: 70, tiles: [
                tile(tx: 0, ty: 0, tw: 64, seed: 0x40), tile(tx: 64, ty: 0, tw: 64, seed: 0x9a),
                tile(tx: 128, ty: 0, tw: 2, seed: 0x11), tile(tx: 0, ty: 64, tw: 64, seed: 0xf0),
                tile(tx: 64, ty: 64, tw: 64, seed: 0x33), tile(tx: 128, ty: 64, tw: 2, seed: 0x7),
            ])
        }
    }

    func testRectsShareOneStream() throws {
        let enc = ZRLEEncoder(format: .native)
        let (tiles, wire) = enc.rect(w: 32, h: 8, tiles: [(.raw, testPattern)])
        let z = Deflater()
        let r1 = payload(tiles, z), r2 = payload(tiles, z)
        XCTAssertLessThan(r2.count, r1.count / 2, "second rect should reuse the dictionary")
        let out = try decodeSequenceBothWays({ ZRLEDecoder() }, rects: [
            (Rect(x: 0, y: 0, w: 32, h: 8), r1), (Rect(x: 0, y: 8, w: 32, h: 8), r2),
        ], fbSize: (32, 16))
        XCTAssertEqual(Array(out[0..<256]), wire)
        XCTAssertEqual(Array(out[256..<512]), wire)
    }

    func testZeroSized() throws {
        let z = Deflater()
        let empty = payload([], z)
        let next = payload([1] + ZRLEEncoder(format: .native).cpixel(0x0a0b0c), z)
        let out = try decodeSequenceBothWays({ ZRLEDecoder() }, rects: [
            (Rect(x: 0, y: 0, w: 0, h: 2), empty), (Rect(x: 1, y: 1, w: 1, h: 0), be32(0)),
            (Rect(x: 1, y: 0, w: 1, h: 2), next),
        ], fbSize: (2, 2))
        XCTAssertEqual(out, [0, 0x0a0b0c, 0, 0x0a0b0c])
    }

    // MARK: bad input

    func bad(_ tiles: [UInt8], w: Int = 2, h: Int = 2, contains: String, line: UInt = #line) {
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: w, h: h), bytes: payload(tiles),
                          fbSize: (max(w, 1), max(h, 1)), contains: contains, line: line)
    }

    func testRunPastTileEnd() {
        let c: [UInt8] = [1, 2, 3]
        bad([128] + c + ZRLEEncoder.runLength(5), contains: "run of 5 pixels goes past the end of the tile")
        bad([128] + c + ZRLEEncoder.runLength(3) + c + ZRLEEncoder.runLength(2), contains: "run of 2 pixels goes past")
        bad([130] + c + c + [0x81] + ZRLEEncoder.runLength(300), contains: "goes past the end of the tile")
        // palette RLE: the second of two entries read together goes past, then the first alone
        bad([130] + c + c + [0x80, 2, 0x81, 5, 0, 0], contains: "run of 6 pixels goes past the end of the tile at 0,0 (1 pixels left)")
        bad([130] + c + c + [0x80, 5, 0x81, 0, 0, 0], contains: "run of 6 pixels goes past the end of the tile at 0,0 (4 pixels left)")
        // a long chain of 255s is refused as soon as it passes the tile
        bad([128] + c + [UInt8](repeating: 255, count: 1000) + [0], w: 64, h: 64, contains: "goes past the end of the tile")
    }

    func testPaletteIndexPastPalette() {
        let c: [UInt8] = [1, 2, 3]
        // 3 colours, 2 bits per index: index 3 in the second pixel of row 0
        bad([3] + c + c + c + [0b0011_0000, 0], contains: "palette index past the 3-colour palette")
        // 5 colours at 4 bits: index 9
        bad([5] + c + c + c + c + c + [0x09, 0x00], contains: "palette index past the 5-colour palette")
        // palette RLE with 2 colours: index 5 (single) and 0x7f (run)
        bad([130] + c + c + [5], contains: "palette index 5 past the 2-colour palette")
        bad([130] + c + c + [0xff, 1], contains: "palette index 127 past the 2-colour palette")
        // the bad index second of two entries read together, the tile's data going on after it
        bad([130] + c + c + [0, 5, 0, 0, 1, 1, 1], contains: "palette index 5 past the 2-colour palette")
        bad([130] + c + c + [0x81, 1, 9, 1, 1, 1], contains: "palette index 9 past the 2-colour palette")
    }

    func testPackedPaddingBitsIgnored() throws {
        // 3-pixel-wide rows at 1 bit: the 5 padding bits are set and must not matter
        let c0: [UInt8] = [0x10, 0x20, 0x30], c1: [UInt8] = [0x40, 0x50, 0x60]
        let out = try decodeBothWays({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1),
                                     bytes: payload([2] + c0 + c1 + [0b0101_1111]), fbSize: (3, 1))
        XCTAssertEqual(out, [0x302010, 0x605040, 0x302010])
    }

    func testUnknownSubencodings() {
        for sub: UInt8 in [17, 64, 127, 129] {
            bad([sub, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], contains: "invalid subencoding \(sub)")
        }
    }

    func testTruncatedTileData() {
        // raw 2x2 needs 12 bytes of CPIXELs; 11 are there
        bad([0] + [UInt8](repeating: 9, count: 11), contains: "inflated data ends inside the tile at 0,0")
        // second tile missing altogether (rect 65 wide = 2 tiles)
        bad([1, 1, 2, 3], w: 65, h: 1, contains: "ends inside the tile at 64,0")
        // a plain RLE run with no length byte
        bad([128, 1, 2, 3], contains: "ends inside the tile")
        bad([], contains: "ends inside the tile")
    }

    func testCorruptZlib() {
        var c = Deflater().compress([1, 1, 2, 3])
        c[0] ^= 0xff
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(c.count) + c,
                          fbSize: (2, 2), contains: "corrupt zlib data")
    }

    func testInflatesPastBound() {
        let bound = ZRLEDecoder.maxInflatedSize(w: 1, h: 1, cpixelSize: 3)
        XCTAssertEqual(bound, 1 + 127 * 3 + 4)
        // a solid tile followed by a megabyte of zeros
        let big = Deflater(level: 9).compress([1, 1, 2, 3] + [UInt8](repeating: 0, count: 1 << 20))
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: be32(big.count) + big,
                          fbSize: (1, 1), contains: "inflates past \(bound) bytes")
        // a zero-sized rect may carry no pixel data at all
        let one = Deflater().compress([1])
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 0, h: 4), bytes: be32(one.count) + one,
                          fbSize: (1, 4), contains: "inflates past 0 bytes")
    }

    func testLengthOverLimit() {
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: be32(0xffff_ffff),
                          fbSize: (16, 16), contains: "exceeds the limit")
        let limit = Limits.maxCompressedLength(rawSize: ZRLEDecoder.maxInflatedSize(w: 16, h: 16, cpixelSize: 3))
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: be32(limit + 1),
                          fbSize: (16, 16), contains: "exceeds the limit of \(limit) bytes")
    }

    func testDataAfterStreamEnd() {
        let c = Deflater().compress([1, 1, 2, 3], finish: true) + [9, 9]
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: be32(c.count) + c,
                          fbSize: (1, 1), contains: "left after the end of the stream")
    }
}

extension ZRLETile {
    var isPalette: Bool {
        switch self { case .packed, .paletteRLE: return true; default: return false }
    }
}
