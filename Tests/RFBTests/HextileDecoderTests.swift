import XCTest
@testable import RFB

final class HextileDecoderTests: XCTestCase {
    private let raw: UInt8 = 1, bgSpec: UInt8 = 2, fgSpec: UInt8 = 4, anySub: UInt8 = 8, coloured: UInt8 = 16

    private func xy(_ x: Int, _ y: Int) -> UInt8 { UInt8(x << 4 | y) }
    private func wh(_ w: Int, _ h: Int) -> UInt8 { UInt8((w - 1) << 4 | (h - 1)) }

    /// Expected framebuffer: `fill` blocks in order, everything else 0.
    private func expected(_ fbW: Int, _ fbH: Int, _ blocks: [(Rect, UInt32)]) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: fbW * fbH)
        for (r, c) in blocks { for y in r.y..<r.maxY { for x in r.x..<r.maxX { out[y * fbW + x] = c } } }
        return out
    }

    func testRawTile() throws {
        let pixels: [UInt32] = (0..<12).map { UInt32($0) * 0x010203 + 0x100000 }
        let bytes = [raw] + pixels.flatMap { px($0) }
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 1, y: 1, w: 4, h: 3), bytes: bytes, fbSize: (6, 5))
        var want = [UInt32](repeating: 0, count: 30)
        for y in 0..<3 { for x in 0..<4 { want[(y + 1) * 6 + x + 1] = pixels[y * 4 + x] } }
        XCTAssertEqual(out, want)
    }

    func testBackgroundOnlyCarriedAcrossPartialTiles() throws {
        // 20x20 at +2+3: tiles 16x16, 4x16, 16x4, 4x4; only the first names the background.
        let bytes = [bgSpec] + px(0x123456) + [0, 0, 0]
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 2, y: 3, w: 20, h: 20), bytes: bytes, fbSize: (24, 24))
        XCTAssertEqual(out, expected(24, 24, [(Rect(x: 2, y: 3, w: 20, h: 20), 0x123456)]))
    }

    func testBackgroundForegroundSubrects() throws {
        let bytes = [bgSpec | fgSpec | anySub] + px(0x0000ff) + px(0xff0000) + [2, xy(0, 0), wh(16, 1), xy(3, 4), wh(2, 5)]
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: bytes, fbSize: (16, 16))
        XCTAssertEqual(out, expected(16, 16, [(Rect(x: 0, y: 0, w: 16, h: 16), 0x0000ff),
                                              (Rect(x: 0, y: 0, w: 16, h: 1), 0xff0000),
                                              (Rect(x: 3, y: 4, w: 2, h: 5), 0xff0000)]))
    }

    func testColouredSubrects() throws {
        let bytes = [bgSpec | anySub | coloured] + px(0x111111)
            + [3] + px(0xaa0000) + [xy(1, 1), wh(3, 3)] + px(0x00bb00) + [xy(2, 2), wh(3, 3)] + px(0x0000cc) + [xy(15, 15), wh(1, 1)]
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: bytes, fbSize: (16, 16))
        XCTAssertEqual(out, expected(16, 16, [(Rect(x: 0, y: 0, w: 16, h: 16), 0x111111),
                                              (Rect(x: 1, y: 1, w: 3, h: 3), 0xaa0000),
                                              (Rect(x: 2, y: 2, w: 3, h: 3), 0x00bb00),
                                              (Rect(x: 15, y: 15, w: 1, h: 1), 0x0000cc)]))
    }

    func testCarriedBackgroundAndForeground() throws {
        // Tile 0 names bg and fg; tile 1 inherits both; tile 2 is raw (keeps them); tile 3 inherits again;
        // tile 4 uses coloured subrects; tile 5 inherits the last coloured subrect's colour as foreground
        // (TigerVNC and libvncclient behaviour).
        var bytes = [bgSpec | fgSpec | anySub] + px(0x000010) + px(0x200000) + [1, xy(0, 0), wh(1, 1)]
        bytes += [anySub, 1, xy(1, 1), wh(1, 1)]
        bytes += [raw] + (0..<256).flatMap { _ in px(0x777777) }
        bytes += [anySub, 1, xy(2, 2), wh(1, 1)]
        bytes += [anySub | coloured, 2] + px(0x003300) + [xy(0, 0), wh(1, 1)] + px(0x004400) + [xy(1, 0), wh(1, 1)]
        bytes += [anySub, 1, xy(3, 3), wh(1, 1)]
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 96, h: 16), bytes: bytes, fbSize: (96, 16))
        XCTAssertEqual(out, expected(96, 16, [
            (Rect(x: 0, y: 0, w: 16, h: 16), 0x000010), (Rect(x: 0, y: 0, w: 1, h: 1), 0x200000),
            (Rect(x: 16, y: 0, w: 16, h: 16), 0x000010), (Rect(x: 17, y: 1, w: 1, h: 1), 0x200000),
            (Rect(x: 32, y: 0, w: 16, h: 16), 0x777777),
            (Rect(x: 48, y: 0, w: 16, h: 16), 0x000010), (Rect(x: 50, y: 2, w: 1, h: 1), 0x200000),
            (Rect(x: 64, y: 0, w: 16, h: 16), 0x000010), (Rect(x: 64, y: 0, w: 1, h: 1), 0x003300), (Rect(x: 65, y: 0, w: 1, h: 1), 0x004400),
            (Rect(x: 80, y: 0, w: 16, h: 16), 0x000010), (Rect(x: 83, y: 3, w: 1, h: 1), 0x004400),
        ]))
    }

    func testColoursStartAtZeroForEachRect() throws {
        let d = HextileDecoder()
        let fb = Framebuffer(width: 16, height: 32)
        try runDecoder(d, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: [bgSpec | fgSpec] + px(0xabcdef) + px(0x123456), fb: fb)
        // a new rect without BackgroundSpecified (a server bug) gets 0, not the previous rect's colour
        try runDecoder(d, rect: Rect(x: 0, y: 16, w: 16, h: 16), bytes: [anySub, 1, xy(0, 0), wh(1, 1)], fb: fb)
        XCTAssertEqual(fb.snapshotPixels(), expected(16, 32, [(Rect(x: 0, y: 0, w: 16, h: 16), 0xabcdef)]))
    }

    func testPartialEdgeTilesWithSubrectsAtTheirEdges() throws {
        // 18x17: tiles 16x16, 2x16, 16x1, 2x1; each subrect touches its tile's far edge.
        var bytes = [bgSpec | fgSpec | anySub] + px(0x010101) + px(0xf0f0f0) + [1, xy(15, 15), wh(1, 1)]
        bytes += [anySub, 1, xy(1, 0), wh(1, 16)]
        bytes += [anySub, 1, xy(0, 0), wh(16, 1)]
        bytes += [anySub | coloured, 1] + px(0x0a0b0c) + [xy(0, 0), wh(2, 1)]
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 1, y: 2, w: 18, h: 17), bytes: bytes, fbSize: (20, 20))
        XCTAssertEqual(out, expected(20, 20, [
            (Rect(x: 1, y: 2, w: 18, h: 17), 0x010101),
            (Rect(x: 16, y: 17, w: 1, h: 1), 0xf0f0f0),
            (Rect(x: 18, y: 2, w: 1, h: 16), 0xf0f0f0),
            (Rect(x: 1, y: 18, w: 16, h: 1), 0xf0f0f0),
            (Rect(x: 17, y: 18, w: 2, h: 1), 0x0a0b0c),
        ]))
    }

    func testRGB565() throws {
        // LE RGB565: red 0xf800, green 0x07e0, blue 0x001f, white 0xffff
        let red: [UInt8] = [0x00, 0xf8], green: [UInt8] = [0xe0, 0x07], blue: [UInt8] = [0x1f, 0x00], white: [UInt8] = [0xff, 0xff]
        var bytes = [bgSpec | fgSpec | anySub] + blue + red + [1, xy(0, 0), wh(2, 2)]
        bytes += [anySub | coloured, 1] + green + [xy(1, 1), wh(1, 1)]
        bytes += [raw] + white + red + green + blue   // 2x2 tile
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 34, h: 2), bytes: bytes, fbSize: (34, 2), format: .rgb565)
        XCTAssertEqual(out, expected(34, 2, [
            (Rect(x: 0, y: 0, w: 32, h: 2), 0x0000ff), (Rect(x: 0, y: 0, w: 2, h: 2), 0xff0000),
            (Rect(x: 17, y: 1, w: 1, h: 1), 0x00ff00),
            (Rect(x: 32, y: 0, w: 1, h: 1), 0xffffff), (Rect(x: 33, y: 0, w: 1, h: 1), 0xff0000),
            (Rect(x: 32, y: 1, w: 1, h: 1), 0x00ff00), (Rect(x: 33, y: 1, w: 1, h: 1), 0x0000ff),
        ]))
    }

    func testBGR233() throws {
        // BGR233: red 0x07, green 0x38, blue 0xc0
        var bytes = [bgSpec | fgSpec | anySub] + [0x07, 0x38] + [2, xy(0, 0), wh(1, 3), xy(2, 1), wh(1, 1)]
        bytes += [raw] + [0xc0, 0x07, 0x38]           // 1x3 tile
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 17, h: 3), bytes: bytes, fbSize: (17, 3), format: .bgr233)
        XCTAssertEqual(out, expected(17, 3, [
            (Rect(x: 0, y: 0, w: 16, h: 3), 0xff0000), (Rect(x: 0, y: 0, w: 1, h: 3), 0x00ff00), (Rect(x: 2, y: 1, w: 1, h: 1), 0x00ff00),
            (Rect(x: 16, y: 0, w: 1, h: 1), 0x0000ff), (Rect(x: 16, y: 1, w: 1, h: 1), 0xff0000), (Rect(x: 16, y: 2, w: 1, h: 1), 0x00ff00),
        ]))
    }

    func testGeneric32BigEndian() throws {
        var be = PixelFormat.native
        be.bigEndian = true
        let bytes = [bgSpec | anySub | coloured] + [0, 0x11, 0x22, 0x33] + [1] + [0, 0xaa, 0xbb, 0xcc] + [xy(0, 0), wh(1, 1)]
        let out = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 1), bytes: bytes, fbSize: (2, 1), format: be)
        XCTAssertEqual(out, [0xaabbcc, 0x112233])
    }

    func testZeroSizedRect() throws {
        _ = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 0, h: 7), bytes: [], fbSize: (4, 8))
        _ = try decodeBothWays({ HextileDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 0), bytes: [], fbSize: (4, 8))
    }

    /// A random mix of every subencoding over a rect with partial tiles, checked against a model.
    func testRandomTilesAgainstModel() throws {
        var rng = HextileTestRNG(seed: 42)
        let rect = Rect(x: 3, y: 5, w: 75, h: 41)
        let fbW = 80, fbH = 50
        var want = [UInt32](repeating: 0, count: fbW * fbH)
        var bytes: [UInt8] = []
        var bg: UInt32 = 0, fg: UInt32 = 0
        func colour() -> UInt32 { UInt32(truncatingIfNeeded: rng.next()) & 0xffffff }
        func paint(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ c: UInt32) {
            for yy in y..<(y + h) { for xx in x..<(x + w) { want[yy * fbW + xx] = c } }
        }
        for ty in stride(from: 0, to: rect.h, by: 16) {
            for tx in stride(from: 0, to: rect.w, by: 16) {
                let tw = min(16, rect.w - tx), th = min(16, rect.h - ty)
                let ox = rect.x + tx, oy = rect.y + ty
                let kind = rng.next() % 5
                if kind == 0 {
                    bytes.append(raw)
                    for y in 0..<th { for x in 0..<tw { let c = colour(); bytes += px(c); paint(ox + x, oy + y, 1, 1, c) } }
                    continue
                }
                var mask: UInt8 = 0
                var body: [UInt8] = []
                if rng.next() % 2 == 0 || (tx == 0 && ty == 0) { mask |= bgSpec; bg = colour(); body += px(bg) }
                let useColoured = kind == 1
                if !useColoured && rng.next() % 2 == 0 { mask |= fgSpec; fg = colour(); body += px(fg) }
                paint(ox, oy, tw, th, bg)
                if kind != 4 {
                    mask |= anySub
                    if useColoured { mask |= coloured }
                    let n = Int(rng.next() % 40)
                    body.append(UInt8(n))
                    for _ in 0..<n {
                        let sx = Int(rng.next() % UInt64(tw)), sy = Int(rng.next() % UInt64(th))
                        let sw = 1 + Int(rng.next() % UInt64(tw - sx)), sh = 1 + Int(rng.next() % UInt64(th - sy))
                        if useColoured { fg = colour(); body += px(fg) }
                        body += [xy(sx, sy), wh(sw, sh)]
                        paint(ox + sx, oy + sy, sw, sh, fg)
                    }
                }
                bytes += [mask] + body
            }
        }
        let out = try decodeBothWays({ HextileDecoder() }, rect: rect, bytes: bytes, fbSize: (fbW, fbH))
        XCTAssertEqual(out, want)
    }

    // MARK: bad input

    func testSubrectOutsideFullTile() {
        let bytes = [bgSpec | fgSpec | anySub] + px(1) + px(2) + [1, xy(15, 0), wh(2, 1)]
        XCTAssertThrowsError(try runDecoder(HextileDecoder(), rect: Rect(x: 0, y: 0, w: 32, h: 16), bytes: bytes, fb: Framebuffer(width: 32, height: 16))) {
            XCTAssertTrue("\($0)".contains("outside its 16x16 tile"), "\($0)")
        }
    }

    func testSubrectOutsidePartialTile() {
        // second tile is 3x5; a subrect 2 wide at x=2 sticks out (it would fit a full 16x16 tile)
        let bytes = [bgSpec] + px(1) + [fgSpec | anySub] + px(2) + [1, xy(2, 0), wh(2, 1)]
        XCTAssertThrowsError(try runDecoder(HextileDecoder(), rect: Rect(x: 0, y: 0, w: 19, h: 5), bytes: bytes, fb: Framebuffer(width: 19, height: 5))) {
            XCTAssertTrue("\($0)".contains("outside its 3x5 tile"), "\($0)")
            XCTAssertTrue($0 is ProtocolError)
        }
        let tall = [bgSpec | anySub] + px(1) + [1, xy(0, 4), wh(1, 2)]
        XCTAssertThrowsError(try runDecoder(HextileDecoder(), rect: Rect(x: 0, y: 0, w: 3, h: 5), bytes: tall, fb: Framebuffer(width: 3, height: 5), chunk: 1)) {
            XCTAssertTrue("\($0)".contains("outside"), "\($0)")
        }
    }

    func testUndefinedSubencodingBits() {
        for bad: UInt8 in [0x20, 0x40, 0x80, 0x21, 0xff] {
            XCTAssertThrowsError(try runDecoder(HextileDecoder(), rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: [bad] + px(0), fb: Framebuffer(width: 1, height: 1))) {
                XCTAssertTrue("\($0)".contains("undefined bits"), "\($0)")
            }
        }
    }

    func testTruncatedTileWantsMore() {
        // 200 subrects announced, 3 sent: the harness runs out, the decoder never reads past the buffer
        let bytes = [bgSpec | fgSpec | anySub] + px(1) + px(2) + [200, 0, 0, 0, 0, 0, 0]
        XCTAssertThrowsError(try runDecoder(HextileDecoder(), rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: bytes, fb: Framebuffer(width: 16, height: 16))) {
            XCTAssertTrue("\($0)".contains("wants more"), "\($0)")
        }
    }

    /// Each tile is committed once whole: the decoder stops at a tile boundary and resumes from there.
    func testCommitsPerTile() throws {
        let d = HextileDecoder()
        let fb = Framebuffer(width: 32, height: 16)
        let tile0 = [bgSpec] + px(0x0000aa)
        let tile1 = [bgSpec | fgSpec | anySub] + px(0x00bb00) + px(0xcc0000) + [1, xy(0, 0), wh(1, 1)]
        let all = tile0 + tile1
        let partial = Array(all[0..<(tile0.count + 3)])
        var committed = 0
        partial.withUnsafeBufferPointer { bp in
            var r = ByteReader(base: bp.baseAddress!, count: bp.count)
            do {
                try d.decode(rect: Rect(x: 0, y: 0, w: 32, h: 16), reader: &r, fb: fb, pf: PixelConverter(format: .native), resume: false)
                XCTFail("decoded a partial tile")
            } catch {
                XCTAssertTrue(error is NeedMoreData)
            }
            committed = r.committed
        }
        XCTAssertEqual(committed, tile0.count)
        XCTAssertEqual(Array(fb.snapshotPixels()[0..<16]), [UInt32](repeating: 0x0000aa, count: 16))
        // the rest arrives: resume from the commit point with the whole stream buffered
        try all.withUnsafeBufferPointer { bp in
            var r = ByteReader(base: bp.baseAddress!, count: bp.count, pos: committed)
            try d.decode(rect: Rect(x: 0, y: 0, w: 32, h: 16), reader: &r, fb: fb, pf: PixelConverter(format: .native), resume: true)
            XCTAssertEqual(r.pos, all.count)
        }
        XCTAssertEqual(fb.pixels[0], 0x0000aa)
        XCTAssertEqual(fb.pixels[16], 0xcc0000)
        XCTAssertEqual(fb.pixels[17], 0x00bb00)
    }
}

/// Small deterministic generator for test data.
fileprivate struct HextileTestRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
