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

    /// Rows of 3-byte CPIXELs (ZRLE raw tiles) of every length up to 70, in the native format
    /// and through the general path: each pixel as `cpixel` reads it, nothing written past the
    /// row (and, under AddressSanitizer, nothing read past it: the source is exactly one row).
    /// Rows of every length from 0 to 70 of random 3-byte pixels: each pixel as `expected` says,
    /// nothing written past the row (a sentinel), nothing read past it (the source is exactly
    /// one row, for AddressSanitizer).
    func checkRowsOfEveryLength(seed: UInt32, _ convert: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt32>, Int) -> Void,
                                expected: (UnsafePointer<UInt8>) -> UInt32, file: StaticString = #filePath, line: UInt = #line) {
        var seed = seed
        for count in 0...70 {
            let src = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count * 3))
            let dst = UnsafeMutablePointer<UInt32>.allocate(capacity: count + 1)
            defer { src.deallocate(); dst.deallocate() }
            for i in 0..<(count * 3) { seed = seed &* 1_103_515_245 &+ 12345; src[i] = UInt8(truncatingIfNeeded: seed >> 16) }
            dst[count] = 0xdead_beef
            convert(src, dst, count)
            for i in 0..<count { XCTAssertEqual(dst[i], expected(src + i * 3), "pixel \(i) of \(count)", file: file, line: line) }
            XCTAssertEqual(dst[count], 0xdead_beef, "written past a row of \(count)", file: file, line: line)
        }
    }

    func testCPixelRowsOfEveryLength() {
        let bgr = PixelFormat(bitsPerPixel: 32, depth: 24, bigEndian: false, trueColour: true,
                              redMax: 255, greenMax: 255, blueMax: 255, redShift: 0, greenShift: 8, blueShift: 16)
        for format in [PixelFormat.native, bgr] {
            let pc = PixelConverter(format: format)
            XCTAssertEqual(pc.cpixelSize, 3)
            checkRowsOfEveryLength(seed: 12345, { pc.convertCPixels($0, to: $1, count: $2) }, expected: { pc.cpixel($0) })
        }
    }

    /// Tight's R,G,B rows, through the same loop with the other byte order.
    func testRGBRowsOfEveryLength() {
        checkRowsOfEveryLength(seed: 99, { TightDecoder.rgbRow($0, to: $1, count: $2) },
                               expected: { UInt32($0[0]) << 16 | UInt32($0[1]) << 8 | UInt32($0[2]) })
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
