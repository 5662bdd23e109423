import XCTest
@testable import RFB

/// JPEG (21): one JPEG file per rect, its end found from the markers; tables left out of a
/// later rect (as RealVNC does) taken from the rect before.
final class JPEGDecoderTests: XCTestCase {
    func picture(_ w: Int, _ h: Int, _ seed: Int) -> [UInt32] {
        (0..<(w * h)).map { i in UInt32((i * 7 + seed) % 256) << 16 | UInt32((i / w * 13 + seed) % 256) << 8 | UInt32((i % w * 29) % 256) }
    }

    /// The JPEG without its DQT and DHT segments.
    func strippedOfTables(_ j: [UInt8]) -> [UInt8] {
        var out = Array(j.prefix(2)), i = 2
        while i + 4 <= j.count {
            let m = j[i + 1]
            let len = Int(j[i + 2]) << 8 | Int(j[i + 3])
            if m == 0xda { out += j[i...]; break }
            if m != 0xdb && m != 0xc4 { out += j[i..<(i + 2 + len)] }
            i += 2 + len
        }
        return out
    }

    func testRectsAndCachedTables() throws {
        let (a, refA) = makeJPEG(picture(16, 8, 1), w: 16, h: 8)
        let (b, refB) = makeJPEG(picture(16, 8, 90), w: 16, h: 8)
        let rect = Rect(x: 2, y: 1, w: 16, h: 8)
        for chunk in [Int.max, 1] {
            let fb = Framebuffer(width: 20, height: 10)
            let d = JPEGRectDecoder()
            XCTAssertEqual(try runDecoder(d, rect: rect, bytes: a + [0xaa], fb: fb, pf: PixelConverter(format: .native), chunk: chunk), 1,
                           "the byte after EOI is not the rect's")
            XCTAssertEqual((0..<8).flatMap { y in (0..<16).map { fb.pixels[(y + 1) * 20 + 2 + $0] & 0xff_ffff } }, refA.map { $0 & 0xff_ffff })
            // same tables (same quality): the second rect may leave them out
            let bare = strippedOfTables(b)
            XCTAssertLessThan(bare.count, b.count)
            XCTAssertEqual(try runDecoder(d, rect: rect, bytes: bare, fb: fb, pf: PixelConverter(format: .native), chunk: chunk), 0)
            XCTAssertEqual((0..<8).flatMap { y in (0..<16).map { fb.pixels[(y + 1) * 20 + 2 + $0] & 0xff_ffff } }, refB.map { $0 & 0xff_ffff })
        }
    }

    /// Feeds `bytes` in pieces ending at `splits`, as the engine does (resume after NeedMoreData,
    /// nothing committed); returns the bytes left unconsumed.
    @discardableResult
    func feed(_ d: RectDecoder, rect: Rect, _ bytes: [UInt8], splits: [Int], fb: Framebuffer) throws -> Int {
        var resume = false
        for end in splits + [bytes.count] {
            let done: Bool = try bytes.withUnsafeBufferPointer { bp in
                var r = ByteReader(base: bp.baseAddress!, count: end)
                do {
                    try d.decode(rect: rect, reader: &r, fb: fb, pf: PixelConverter(format: .native), resume: resume)
                    consumed = r.pos
                    return true
                } catch is NeedMoreData {
                    XCTAssertEqual(r.committed, 0, "nothing committed before the end of the rect")
                    return false
                }
            }
            if done { return bytes.count - consumed }
            resume = true
        }
        throw ProtocolError("test: the decoder wanted more than the \(bytes.count) bytes")
    }
    private var consumed = 0

    /// Every split point of a rect with tables, then of a rect without them (RealVNC): the same
    /// pixels as the rects fed whole, and exactly the rect's bytes consumed.
    func testEverySplitPointGivesTheWholeFedPixels() throws {
        let (a, refA) = makeJPEG(picture(24, 16, 5), w: 24, h: 16)
        let (b, refB) = makeJPEG(picture(24, 16, 77), w: 24, h: 16)
        let bare = strippedOfTables(b)
        let rect = Rect(x: 1, y: 2, w: 24, h: 16)
        func pixels(_ fb: Framebuffer) -> [UInt32] { (0..<16).flatMap { y in (0..<24).map { fb.pixels[(y + 2) * 30 + 1 + $0] & 0xff_ffff } } }
        for k in 0...a.count {
            let fb = Framebuffer(width: 30, height: 20)
            let d = JPEGRectDecoder()
            XCTAssertEqual(try feed(d, rect: rect, a + [0x42], splits: [k], fb: fb), 1, "split at \(k)")
            XCTAssertEqual(pixels(fb), refA.map { $0 & 0xff_ffff }, "split at \(k)")
            // the next rect leaves the tables out; split at each of its points too, in turn
            let m = k * bare.count / max(1, a.count)
            XCTAssertEqual(try feed(d, rect: rect, bare, splits: [m], fb: fb), 0, "table-less rect split at \(m)")
            XCTAssertEqual(pixels(fb), refB.map { $0 & 0xff_ffff }, "table-less rect split at \(m)")
        }
        for m in 0...bare.count {
            let fb = Framebuffer(width: 30, height: 20)
            let d = JPEGRectDecoder()
            try feed(d, rect: rect, a, splits: [], fb: fb)
            XCTAssertEqual(try feed(d, rect: rect, bare, splits: [m], fb: fb), 0, "table-less rect split at \(m)")
            XCTAssertEqual(pixels(fb), refB.map { $0 & 0xff_ffff }, "table-less rect split at \(m)")
        }
    }

    /// A progressive JPEG (ten scans, Huffman tables between them), byte by byte and whole; a
    /// rect larger than `directPixels` (decoded outside the lock, then copied in).
    func testProgressiveAndLargeRects() throws {
        let (p, refP) = makeJPEG(picture(40, 24, 9), w: 40, h: 24, flags: 16384)   // TJFLAG_PROGRESSIVE
        let rect = Rect(x: 0, y: 0, w: 40, h: 24)
        var w = JPEGMarkerWalk(limit: 1 << 20)
        XCTAssertEqual(try p.withUnsafeBufferPointer { try w.advance($0.baseAddress!, count: $0.count) }, true)
        XCTAssertGreaterThan(w.scans, 1, "progressive")
        let out = try decodeBothWays({ JPEGRectDecoder() }, rect: rect, bytes: p, fbSize: (40, 24))
        XCTAssertEqual(out, refP.map { $0 & 0xff_ffff })

        let big = (320, 240)
        XCTAssertGreaterThan(big.0 * big.1, JPEGRectDecoder.directPixels)
        let (j, ref) = makeJPEG(picture(big.0, big.1, 3), w: big.0, h: big.1)
        let fb = Framebuffer(width: 330, height: 250)
        try runDecoder(JPEGRectDecoder(), rect: Rect(x: 5, y: 7, w: big.0, h: big.1), bytes: j, fb: fb, chunk: 1000)
        XCTAssertEqual((0..<big.1).flatMap { y in (0..<big.0).map { fb.pixels[(y + 7) * 330 + 5 + $0] & 0xff_ffff } }, ref.map { $0 & 0xff_ffff })
        XCTAssertEqual(fb.pixels[6 * 330 + 5], 0, "outside the rect untouched")
        XCTAssertEqual(fb.pixels[7 * 330 + 4], 0, "outside the rect untouched")
    }

    /// The walk looks at each byte about once however the rect is split: fed 1 byte, then 2,
    /// then 3... more at a time (a trickle), a 77 KB rect is examined about once, not once per piece.
    func testTheWalkIsLinearInTheRectsLength() throws {
        var img = picture(256, 256, 1)
        var g: UInt32 = 1
        for i in img.indices { g = g &* 1_664_525 &+ 1_013_904_223; img[i] ^= g >> 8 }   // noise: a long entropy segment
        let (j, _) = makeJPEG(img, w: 256, h: 256, quality: 95)
        XCTAssertGreaterThan(j.count, 60_000)
        var w = JPEGMarkerWalk(limit: 1 << 20)
        var n = 0, calls = 0
        let ended = try j.withUnsafeBufferPointer { bp -> Bool in
            while n < bp.count {
                n = min(bp.count, n + 1 + calls % 97)
                calls += 1
                if try w.advance(bp.baseAddress!, count: n) { return true }
            }
            return false
        }
        XCTAssertTrue(ended)
        XCTAssertEqual(w.at, j.count)
        // every byte once, plus at most a segment header (4 bytes) looked at again per call
        XCTAssertLessThanOrEqual(w.examined, j.count + 4 * calls, "\(calls) calls")
    }

    /// Restart markers and stuffed bytes inside a scan, fill bytes before a marker, a comment:
    /// the walk finds EOI, not the first 0xFF.
    func testRestartMarkersStuffingAndFill() throws {
        let seg: (UInt8, [UInt8]) -> [UInt8] = { m, body in [0xff, m] + be16(body.count + 2) + body }
        let bytes: [UInt8] = [0xff, 0xd8] + seg(0xfe, [1, 2, 3]) + [0xff, 0xff] + seg(0xda, [1, 1, 0, 0, 0x3f, 0])
            + [0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56, 0xff, 0xd7, 0xff, 0x00] + [0xff, 0xff, 0xd9] + [0x99]
        for k in 0...bytes.count {
            var w = JPEGMarkerWalk(limit: 1000)
            let ended = try bytes.withUnsafeBufferPointer { bp in
                try w.advance(bp.baseAddress!, count: k) ? true : w.advance(bp.baseAddress!, count: bp.count)
            }
            XCTAssertTrue(ended)
            XCTAssertEqual(w.at, bytes.count - 1, "split at \(k)")
            XCTAssertEqual(w.scans, 1)
            XCTAssertNil(w.frameAt)
        }
    }

    /// Counts past the named limits end the connection, saying which; a rect without an end
    /// stops at its byte limit even as it trickles in.
    func testSegmentAndTableLimits() throws {
        let (a, _) = makeJPEG(picture(8, 8, 3), w: 8, h: 8)
        let rect = Rect(x: 0, y: 0, w: 8, h: 8)
        let seg: (UInt8, [UInt8]) -> [UInt8] = { m, body in [0xff, m] + be16(body.count + 2) + body }
        func fails(_ bytes: [UInt8], _ fragment: String, chunk: Int = Int.max, line: UInt = #line) {
            XCTAssertThrowsError(try runDecoder(JPEGRectDecoder(), rect: rect, bytes: bytes, fb: Framebuffer(width: 8, height: 8),
                                                chunk: chunk), line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", line: line)
            }
        }
        let soi: [UInt8] = [0xff, 0xd8], rest = Array(a.dropFirst(2))
        let comments = (0..<JPEGMarkerWalk.maxSegments).flatMap { _ in seg(0xfe, [0]) }
        fails(soi + comments + rest, "more than 1024 marker segments")
        XCTAssertNoThrow(try runDecoder(JPEGRectDecoder(), rect: rect, bytes: soi + Array(comments.dropLast(5 * 12)) + rest,
                                        fb: Framebuffer(width: 8, height: 8)), "just under the limit")
        let dqt = seg(0xdb, [0] + [UInt8](repeating: 1, count: 64))
        fails(soi + (0..<JPEGMarkerWalk.maxTableSegments + 1).flatMap { _ in dqt } + rest, "more than 64 quantisation and Huffman table segments")
        let bigTable = seg(0xc4, [UInt8](repeating: 0, count: 60_000))
        fails(soi + bigTable + bigTable + rest, "over 65536 bytes of quantisation and Huffman tables")
        let scan = seg(0xda, [1, 1, 0, 0, 0x3f, 0]) + [0x11, 0x22]
        fails(soi + (0..<JPEGMarkerWalk.maxScans + 1).flatMap { _ in scan } + [0xff, 0xd9], "more than 64 scans")
        // no 0xFF at all after SOS: refused once past the limit, fed whole or 1000 bytes at a time
        let limit = Limits.maxCompressedLength(rawSize: 256) + 4096
        let endless = soi + scan + [UInt8](repeating: 0x11, count: limit + 10)
        fails(endless, "over \(limit) bytes without an end-of-image marker")
        fails(endless, "over \(limit) bytes without an end-of-image marker", chunk: 1000)
    }

    func testBadJPEGRects() {
        let (a, _) = makeJPEG(picture(8, 8, 3), w: 8, h: 8)
        let rect = Rect(x: 0, y: 0, w: 8, h: 8)
        func fails(_ bytes: [UInt8], _ fragment: String, _ rect: Rect = Rect(x: 0, y: 0, w: 8, h: 8), line: UInt = #line) {
            XCTAssertThrowsError(try runDecoder(JPEGRectDecoder(), rect: rect, bytes: bytes, fb: Framebuffer(width: 16, height: 16),
                                                pf: PixelConverter(format: .native)), line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", line: line)
            }
        }
        fails([0x89, 0x50] + a, "does not start with a JPEG start-of-image marker")
        fails(a, "image is 8x8, not the rect's 4x4", Rect(x: 0, y: 0, w: 4, h: 4))
        fails(strippedOfTables(a), "no quantisation or Huffman tables")
        fails([0xff, 0xd8, 0xff, 0xe0, 0, 1], "marker segment of length 1")
        // entropy data with no end: refused at the limit, not buffered for ever
        fails(Array(a.prefix(a.count - 2)) + [UInt8](repeating: 0x11, count: Limits.maxCompressedLength(rawSize: 256) + 4200), "without an end-of-image marker")
        _ = rect
    }
}
