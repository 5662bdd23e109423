import XCTest
@testable import RFB

final class RawCopyRectTests: XCTestCase {
    func testRawNative() throws {
        let bytes = px(0x112233) + px(0x445566) + px(0x778899) + px(0xaabbcc)
        let out = try decodeBothWays({ RawDecoder() }, rect: Rect(x: 1, y: 1, w: 2, h: 2), bytes: bytes, fbSize: (4, 3))
        XCTAssertEqual(out, [0, 0, 0, 0, 0, 0x112233, 0x445566, 0, 0, 0x778899, 0xaabbcc, 0])
    }
    func testRawRGB565() throws {
        // pure red, green, blue, white in LE RGB565
        let bytes: [UInt8] = [0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0xff, 0xff]
        let out = try decodeBothWays({ RawDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 1), bytes: bytes, fbSize: (4, 1), format: .rgb565)
        XCTAssertEqual(out, [0xff0000, 0x00ff00, 0x0000ff, 0xffffff])
    }
    func testRawBGR233() throws {
        let bytes: [UInt8] = [0x07, 0x38, 0xc0]
        let out = try decodeBothWays({ RawDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1), bytes: bytes, fbSize: (3, 1), format: .bgr233)
        XCTAssertEqual(out, [0xff0000, 0x00ff00, 0x0000ff])
    }
    func testRawZeroSized() throws {
        _ = try decodeBothWays({ RawDecoder() }, rect: Rect(x: 2, y: 0, w: 0, h: 5), bytes: [], fbSize: (4, 5))
        _ = try decodeBothWays({ RawDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 0), bytes: [], fbSize: (4, 5))
    }
    func testCopyRectOverlapping() throws {
        let fb = Framebuffer(width: 4, height: 4)
        for i in 0..<16 { fb.pixels[i] = UInt32(i) }
        try runDecoder(CopyRectDecoder(), rect: Rect(x: 1, y: 1, w: 3, h: 3), bytes: be16(0) + be16(0), fb: fb)
        XCTAssertEqual(fb.snapshotPixels(), [0, 1, 2, 3, 4, 0, 1, 2, 8, 4, 5, 6, 12, 8, 9, 10])
        try runDecoder(CopyRectDecoder(), rect: Rect(x: 0, y: 0, w: 3, h: 3), bytes: be16(1) + be16(1), fb: fb)
        XCTAssertEqual(Array(fb.snapshotPixels()[0..<3]), [0, 1, 2])
    }
    func testCopyRectSourceOutside() throws {
        let fb = Framebuffer(width: 4, height: 4)
        XCTAssertThrowsError(try runDecoder(CopyRectDecoder(), rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be16(3) + be16(0), fb: fb)) {
            XCTAssertTrue("\($0)".contains("outside"))
        }
        XCTAssertThrowsError(try runDecoder(CopyRectDecoder(), rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: be16(65535) + be16(65535), fb: fb))
    }
}
