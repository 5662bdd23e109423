import XCTest
@testable import RFB

final class RREDecoderTests: XCTestCase {
    private func expected(_ fbW: Int, _ fbH: Int, _ blocks: [(Rect, UInt32)]) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: fbW * fbH)
        for (r, c) in blocks { for y in r.y..<r.maxY { for x in r.x..<r.maxX { out[y * fbW + x] = c } } }
        return out
    }
    private func rreSub(_ c: UInt32, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [UInt8] { px(c) + be16(x) + be16(y) + be16(w) + be16(h) }
    private func coSub(_ c: UInt32, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [UInt8] { px(c) + [UInt8(x), UInt8(y), UInt8(w), UInt8(h)] }

    func testRRE() throws {
        let bytes = be32(3) + px(0x101010) + rreSub(0xff0000, 0, 0, 2, 2) + rreSub(0x00ff00, 1, 1, 5, 4) + rreSub(0x0000ff, 5, 4, 1, 1)
        let out = try decodeBothWays({ RREDecoder(compact: false) }, rect: Rect(x: 3, y: 2, w: 6, h: 5), bytes: bytes, fbSize: (10, 8))
        XCTAssertEqual(out, expected(10, 8, [(Rect(x: 3, y: 2, w: 6, h: 5), 0x101010), (Rect(x: 3, y: 2, w: 2, h: 2), 0xff0000),
                                             (Rect(x: 4, y: 3, w: 5, h: 4), 0x00ff00), (Rect(x: 8, y: 6, w: 1, h: 1), 0x0000ff)]))
    }

    func testCoRRE() throws {
        let bytes = be32(2) + px(0x202020) + coSub(0xabcdef, 2, 0, 3, 1) + coSub(0x123456, 0, 3, 1, 2)
        let out = try decodeBothWays({ RREDecoder(compact: true) }, rect: Rect(x: 1, y: 1, w: 5, h: 5), bytes: bytes, fbSize: (7, 7))
        XCTAssertEqual(out, expected(7, 7, [(Rect(x: 1, y: 1, w: 5, h: 5), 0x202020), (Rect(x: 3, y: 1, w: 3, h: 1), 0xabcdef),
                                            (Rect(x: 1, y: 4, w: 1, h: 2), 0x123456)]))
    }

    func testCoRRELargerThan255() throws {
        // CoRRE fields are relative to the rect, so a 300-wide rect is fine as long as subrects fit in u8 offsets.
        let bytes = be32(1) + px(0x000001) + coSub(0x0000ff, 255, 1, 40, 1)
        let out = try decodeBothWays({ RREDecoder(compact: true) }, rect: Rect(x: 0, y: 0, w: 300, h: 2), bytes: bytes, fbSize: (300, 2))
        XCTAssertEqual(out, expected(300, 2, [(Rect(x: 0, y: 0, w: 300, h: 2), 1), (Rect(x: 255, y: 1, w: 40, h: 1), 0xff)]))
    }

    func testZeroSubrects() throws {
        let out = try decodeBothWays({ RREDecoder(compact: false) }, rect: Rect(x: 0, y: 1, w: 2, h: 1), bytes: be32(0) + px(0x777777), fbSize: (2, 2))
        XCTAssertEqual(out, [0, 0, 0x777777, 0x777777])
        let co = try decodeBothWays({ RREDecoder(compact: true) }, rect: Rect(x: 1, y: 0, w: 1, h: 2), bytes: be32(0) + px(0x777777), fbSize: (2, 2))
        XCTAssertEqual(co, [0, 0x777777, 0, 0x777777])
    }

    func testZeroSizedRect() throws {
        // the header is still there; empty subrects at the origin are inside an empty rect
        let out = try decodeBothWays({ RREDecoder(compact: false) }, rect: Rect(x: 1, y: 1, w: 0, h: 0),
                                     bytes: be32(1) + px(0x777777) + rreSub(0x888888, 0, 0, 0, 0), fbSize: (3, 3))
        XCTAssertEqual(out, [UInt32](repeating: 0, count: 9))
        _ = try decodeBothWays({ RREDecoder(compact: true) }, rect: Rect(x: 0, y: 0, w: 3, h: 0), bytes: be32(0) + px(1), fbSize: (3, 3))
    }

    func testRGB565() throws {
        let bytes = be32(1) + [0x1f, 0x00] + [0x00, 0xf8] + be16(1) + be16(0) + be16(1) + be16(1)
        let out = try decodeBothWays({ RREDecoder(compact: false) }, rect: Rect(x: 0, y: 0, w: 2, h: 1), bytes: bytes, fbSize: (2, 1), format: .rgb565)
        XCTAssertEqual(out, [0x0000ff, 0xff0000])
        let co = be32(1) + [0x38] + [0x07] + [1, 0, 1, 1]
        let out8 = try decodeBothWays({ RREDecoder(compact: true) }, rect: Rect(x: 0, y: 0, w: 2, h: 1), bytes: co, fbSize: (2, 1), format: .bgr233)
        XCTAssertEqual(out8, [0x00ff00, 0xff0000])
    }

    /// Header parsed once: a resumed call must not repaint the background over drawn subrects.
    func testResumeKeepsSubrects() throws {
        let bytes = be32(2) + px(0x111111) + rreSub(0x222222, 0, 0, 1, 1) + rreSub(0x333333, 1, 0, 1, 1)
        let fb = Framebuffer(width: 3, height: 1)
        for chunk in [1, 5, 9, 13, 40] {
            try runDecoder(RREDecoder(compact: false), rect: Rect(x: 0, y: 0, w: 3, h: 1), bytes: bytes, fb: fb, chunk: chunk)
            XCTAssertEqual(fb.snapshotPixels(), [0x222222, 0x333333, 0x111111], "chunk \(chunk)")
        }
    }

    // MARK: bad input

    func testRRESubrectOutside() {
        let fb = Framebuffer(width: 10, height: 10)
        for sub in [rreSub(1, 3, 0, 2, 1), rreSub(1, 0, 2, 1, 2), rreSub(1, 65535, 65535, 65535, 65535), rreSub(1, 0, 0, 5, 0)] {
            XCTAssertThrowsError(try runDecoder(RREDecoder(compact: false), rect: Rect(x: 2, y: 2, w: 4, h: 3), bytes: be32(1) + px(0) + sub, fb: fb)) {
                XCTAssertTrue($0 is ProtocolError)
                XCTAssertTrue("\($0)".contains("RRE subrect") && "\($0)".contains("outside its 4x3 rect"), "\($0)")
            }
        }
    }

    func testCoRRESubrectOutside() {
        let fb = Framebuffer(width: 10, height: 10)
        for sub in [coSub(1, 4, 0, 1, 1), coSub(1, 255, 255, 255, 255)] {
            XCTAssertThrowsError(try runDecoder(RREDecoder(compact: true), rect: Rect(x: 0, y: 0, w: 4, h: 3), bytes: be32(1) + px(0) + sub, fb: fb, chunk: 1)) {
                XCTAssertTrue("\($0)".contains("CoRRE subrect") && "\($0)".contains("outside"), "\($0)")
            }
        }
    }

    /// A count of 0xFFFFFFFF with 3 subrects buffered: those 3 are drawn, nothing is allocated for
    /// the rest, and the decoder simply asks for more (the harness reports that as "wants more").
    func testHugeCountStreams() {
        let bytes = be32(0xFFFF_FFFF) + px(0x010101) + rreSub(0xaa0000, 0, 0, 1, 1) + rreSub(0x00bb00, 1, 0, 1, 1) + rreSub(0x0000cc, 2, 0, 1, 1)
        for chunk in [Int.max, 1] {
            let fb = Framebuffer(width: 4, height: 1)
            XCTAssertThrowsError(try runDecoder(RREDecoder(compact: false), rect: Rect(x: 0, y: 0, w: 4, h: 1), bytes: bytes, fb: fb, chunk: chunk)) {
                XCTAssertTrue("\($0)".contains("wants more"), "\($0)")
            }
            XCTAssertEqual(fb.snapshotPixels(), [0xaa0000, 0x00bb00, 0x0000cc, 0x010101])
        }
        let co = be32(0xFFFF_FFFF) + px(0) + coSub(5, 0, 0, 1, 1)
        XCTAssertThrowsError(try runDecoder(RREDecoder(compact: true), rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: co, fb: Framebuffer(width: 1, height: 1))) {
            XCTAssertTrue("\($0)".contains("wants more"), "\($0)")
        }
    }

    func testTruncatedHeader() {
        XCTAssertThrowsError(try runDecoder(RREDecoder(compact: false), rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: be32(1) + [0, 0], fb: Framebuffer(width: 1, height: 1))) {
            XCTAssertTrue("\($0)".contains("wants more"), "\($0)")
        }
    }

    /// The native format's own loop (one per field layout, short runs inline, big subrects in
    /// bands) against a plain reference and against the converting loop (the same pixels sent
    /// big-endian), on random subrects of every width class, whole and drip-fed.
    func testNativeLoopMatchesReferenceAndConvertingLoop() throws {
        var rng = RobustnessTests.Rng(s: 17)
        let bigEndian = PixelFormat(bitsPerPixel: 32, depth: 24, bigEndian: true, trueColour: true,
                                    redMax: 255, greenMax: 255, blueMax: 255, redShift: 16, greenShift: 8, blueShift: 0)
        func be(_ c: UInt32) -> [UInt8] { [0, UInt8(c >> 16 & 0xff), UInt8(c >> 8 & 0xff), UInt8(c & 0xff)] }
        for compact in [true, false] {
            let rect = Rect(x: 3, y: 2, w: compact ? 255 : 300, h: compact ? 200 : 260)
            var blocks: [(Rect, UInt32)] = [(rect, 0x102030)]
            var native = px(0x102030), swapped = be(0x102030)
            let n = 600
            for i in 0..<n {
                let c = UInt32(truncatingIfNeeded: rng.next()) & 0xff_ffff
                // every fourth: a line or dot of 0-5 pixels either way (the inline stores' cases)
                let small = i % 4 == 3
                let w = small ? rng.int(6) : [1, 1 + rng.int(16), 17 + rng.int(rect.w - 17)][i % 3]
                let h = small ? (w == 1 ? rng.int(6) : [0, 1, 1, 2][rng.int(4)]) : 1 + rng.int(i % 5 == 0 ? rect.h : 20)
                let x = rng.int(rect.w - w + 1), y = rng.int(rect.h - h + 1)
                let f = compact ? [UInt8(x), UInt8(y), UInt8(w), UInt8(h)] : be16(x) + be16(y) + be16(w) + be16(h)
                native += px(c) + f; swapped += be(c) + f
                blocks.append((Rect(x: rect.x + x, y: rect.y + y, w: w, h: h), c))
            }
            let size = (rect.maxX + 2, rect.maxY + 1)
            let a = try decodeBothWays({ RREDecoder(compact: compact) }, rect: rect, bytes: be32(n) + native, fbSize: size)
            let b = try decodeBothWays({ RREDecoder(compact: compact) }, rect: rect, bytes: be32(n) + swapped, fbSize: size, format: bigEndian)
            XCTAssertEqual(a, expected(size.0, size.1, blocks), compact ? "CoRRE" : "RRE")
            XCTAssertEqual(a, b, compact ? "CoRRE" : "RRE")
        }
        // a subrect over a million pixels is drawn in bands (a waiting window may take the lock between them)
        let big = Rect(x: 0, y: 0, w: 1200, h: 1000)
        let bytes = be32(2) + px(1) + rreSub(0xabcdef, 1, 2, 1199, 998) + rreSub(0x123456, 5, 5, 3, 3)
        let out = try runDecoderPixels(RREDecoder(compact: false), rect: big, bytes: bytes)
        XCTAssertEqual(out, expected(1200, 1000, [(big, 1), (Rect(x: 1, y: 2, w: 1199, h: 998), 0xabcdef), (Rect(x: 5, y: 5, w: 3, h: 3), 0x123456)]))
    }

    private func runDecoderPixels(_ d: RREDecoder, rect: Rect, bytes: [UInt8]) throws -> [UInt32] {
        let fb = Framebuffer(width: rect.w, height: rect.h)
        XCTAssertEqual(try runDecoder(d, rect: rect, bytes: bytes, fb: fb), 0)
        return fb.snapshotPixels()
    }
}
