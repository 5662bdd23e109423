import XCTest
@testable import RFB

/// The true-colour tables are shared between converters of one format (built once); colour maps
/// are per converter. Both must give the pixels a table built from scratch gives.
final class PixelConverterTests: XCTestCase {
    /// 0x00RRGGBB for a true-colour value, worked out here without the converter.
    private func expected(_ f: PixelFormat, _ v: UInt32) -> UInt32 {
        func ch(_ shift: UInt8, _ max: UInt16) -> UInt32 {
            let c = (v >> UInt32(shift)) & UInt32(max)
            return UInt32((Double(c) * 255 / Double(max)).rounded())
        }
        return ch(f.redShift, f.redMax) << 16 | ch(f.greenShift, f.greenMax) << 8 | ch(f.blueShift, f.blueMax)
    }

    func testEveryTableEntryForEachFormatAndEndianness() {
        var formats: [PixelFormat] = [.rgb565, .bgr233]
        var be = PixelFormat.rgb565; be.bigEndian = true; formats.append(be)
        var odd = PixelFormat.rgb565; odd.redShift = 0; odd.blueShift = 11; formats.append(odd)
        for f in formats {
            // twice: the second converter takes the kept table
            for round in 0..<2 {
                let c = PixelConverter(format: f)
                XCTAssertEqual(c.lut.count, f.bitsPerPixel == 8 ? 256 : 65536)
                for key in 0..<c.lut.count {
                    // 16-bit keys are the wire bytes as b0 | b1 << 8
                    let v = f.bitsPerPixel == 16 && f.bigEndian ? UInt32((key & 0xff) << 8 | key >> 8) : UInt32(key)
                    if c.lut[key] != expected(f, v) {
                        XCTFail("\(f) round \(round): key \(key) gives \(c.lut[key]), not \(expected(f, v))")
                        break
                    }
                }
            }
        }
    }

    func testMoreFormatsThanKeptStillConvert() {
        // more formats than the cache keeps, then the first again: rebuilt, still right
        var formats: [PixelFormat] = []
        for shift in 0..<6 {
            var f = PixelFormat.bgr233
            f.redShift = UInt8(shift % 3 == 0 ? 0 : 5); f.blueShift = UInt8(shift % 3 == 0 ? 6 : 0)
            f.greenMax = UInt16(shift % 2 == 0 ? 7 : 3)
            formats.append(f)
        }
        for f in formats + formats {
            let c = PixelConverter(format: f)
            for key in [0, 1, 37, 128, 255] {
                XCTAssertEqual(c.lut[key], expected(f, UInt32(key)), "\(f) key \(key)")
            }
        }
    }

    func testColourMapsAreNotShared() {
        let a = PixelConverter(format: .colourMap8)
        a.setColourMapEntry(5, r: 0xffff, g: 0, b: 0)
        let b = PixelConverter(format: .colourMap8)
        XCTAssertEqual(a.lut[5], 0xff0000)
        XCTAssertEqual(b.lut[5], 0, "a new converter's colour map starts black")
        XCTAssertEqual(b.lut.count, 256)
    }

    func testFramebuffersStartBlackAndResizeBlack() {
        // large enough that the allocator maps it fresh; small enough for any machine
        let fb = Framebuffer(width: 1024, height: 600)
        XCTAssertTrue(fb.snapshotPixels().allSatisfy { $0 == 0 })
        fb.fill(Rect(x: 0, y: 0, w: 1024, h: 600), 0x123456)
        fb.resize(width: 1100, height: 700)
        let px = fb.snapshotPixels()
        XCTAssertEqual(px[0], 0x123456)
        XCTAssertEqual(px[1023], 0x123456)
        XCTAssertEqual(px[1024], 0, "the new columns are black")
        XCTAssertEqual(px[600 * 1100], 0, "the new rows are black")
        XCTAssertEqual(px.count, 1100 * 700)
    }
}
