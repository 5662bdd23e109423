import FarcastTools
import XCTest
@testable import RFB

/// TightPNG: PNG rects (made here with our own PNG writer), fills and JPEG as in Tight; a PNG
/// in plain Tight, a wrong size and corrupt data fail cleanly.
final class TightPNGTests: XCTestCase {
    func png(_ w: Int, _ h: Int, _ f: (Int, Int) -> UInt32) -> [UInt8] {
        let px = (0..<(w * h)).map { f($0 % w, $0 / w) }
        return px.withUnsafeBufferPointer { PNGWriter.encode(width: w, height: h, pixels: $0.baseAddress!) }
    }

    func testPNGRectDecodesExactly() throws {
        let colour: (Int, Int) -> UInt32 = { x, y in UInt32(x * 20) << 16 | UInt32(y * 30) << 8 | UInt32((x ^ y) * 7) }
        let data = png(9, 5, colour)
        let rect = Rect(x: 2, y: 1, w: 9, h: 5)
        let out = try decodeBothWays({ TightDecoder(png: true) }, rect: rect, bytes: [0xa0] + TightWire.compact(data.count) + data, fbSize: (12, 8))
        for y in 0..<5 { for x in 0..<9 { XCTAssertEqual(out[(y + 1) * 12 + x + 2], colour(x, y), "(\(x),\(y))") } }
        XCTAssertEqual(out[0], 0, "outside the rect untouched")
    }

    func testBadPNGRects() {
        let data = png(4, 4) { _, _ in 0x112233 }
        let rect = Rect(x: 0, y: 0, w: 4, h: 4)
        func fails(_ d: RectDecoder, _ bytes: [UInt8], _ fragment: String, line: UInt = #line) {
            XCTAssertThrowsError(try runDecoder(d, rect: rect, bytes: bytes, fb: Framebuffer(width: 8, height: 8), pf: PixelConverter(format: .native)), line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", line: line)
            }
        }
        fails(TightDecoder(), [0xa0] + TightWire.compact(data.count) + data, "only TightPNG may send")
        fails(TightDecoder(png: true), [0xa0] + TightWire.compact(8) + Array(data.prefix(8)), "bad PNG data")
        let other = png(3, 4) { _, _ in 0 }
        fails(TightDecoder(png: true), [0xa0] + TightWire.compact(other.count) + other, "PNG is 3x4, not the rect's 4x4")
        var broken = data
        broken[broken.count - 20] ^= 0xff
        fails(TightDecoder(png: true), [0xa0] + TightWire.compact(broken.count) + broken, "TightPNG rect")
    }

    func testTightPNGIsOfferedByName() throws {
        XCTAssertEqual(try Encoding.parseList("tightpng,zrle"), [-260, 16])
    }
}
