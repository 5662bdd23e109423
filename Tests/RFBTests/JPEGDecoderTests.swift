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
            XCTAssertEqual((0..<8).flatMap { y in (0..<16).map { fb.pixels[(y + 1) * 20 + 2 + $0] } }, refA.map { $0 & 0xff_ffff })
            // same tables (same quality): the second rect may leave them out
            let bare = strippedOfTables(b)
            XCTAssertLessThan(bare.count, b.count)
            XCTAssertEqual(try runDecoder(d, rect: rect, bytes: bare, fb: fb, pf: PixelConverter(format: .native), chunk: chunk), 0)
            XCTAssertEqual((0..<8).flatMap { y in (0..<16).map { fb.pixels[(y + 1) * 20 + 2 + $0] } }, refB.map { $0 & 0xff_ffff })
        }
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
