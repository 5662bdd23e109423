import XCTest
import Foundation
import CZlib
@testable import FarcastTools
import RFB

final class PNGWriterTests: XCTestCase {
    private struct Chunk { let type: String; let data: [UInt8] }

    private func u32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }

    /// Splits a PNG into chunks, checking the signature and every CRC.
    private func chunks(_ png: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [Chunk] {
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], file: file, line: line)
        var out: [Chunk] = []
        var i = 8
        while i + 12 <= png.count {
            let len = u32(png, i)
            guard i + 12 + len <= png.count else { XCTFail("chunk overruns file", file: file, line: line); break }
            let typeAndData = Array(png[(i + 4)..<(i + 8 + len)])
            let crc = typeAndData.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            XCTAssertEqual(UInt32(crc), UInt32(u32(png, i + 8 + len)), "CRC of chunk at \(i)", file: file, line: line)
            out.append(Chunk(type: String(decoding: typeAndData[0..<4], as: UTF8.self), data: Array(typeAndData[4...])))
            i += 12 + len
        }
        XCTAssertEqual(i, png.count, "trailing bytes", file: file, line: line)
        return out
    }

    /// Full decode of an 8-bit RGB PNG back to 0x00RRGGBB pixels (all five filter types).
    private func decode(_ png: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> (Int, Int, [UInt32]) {
        let cs = chunks(png, file: file, line: line)
        guard let ihdr = cs.first, ihdr.type == "IHDR", ihdr.data.count == 13 else { XCTFail("no IHDR first", file: file, line: line); return (0, 0, []) }
        XCTAssertEqual(cs.last?.type, "IEND", file: file, line: line)
        XCTAssertEqual(cs.last?.data.count, 0, file: file, line: line)
        let w = u32(ihdr.data, 0), h = u32(ihdr.data, 4)
        XCTAssertEqual(Array(ihdr.data[8...]), [8, 2, 0, 0, 0], file: file, line: line)
        let z = cs.filter { $0.type == "IDAT" }.flatMap { $0.data }
        let rowLen = 1 + 3 * w
        var raw = [UInt8](repeating: 0, count: rowLen * h + 1)   // one spare byte: a longer stream would not fit
        var rawLen = uLongf(raw.count)
        let rc = raw.withUnsafeMutableBufferPointer { r in z.withUnsafeBufferPointer { uncompress(r.baseAddress, &rawLen, $0.baseAddress, uLong($0.count)) } }
        XCTAssertEqual(rc, Z_OK, file: file, line: line)
        XCTAssertEqual(Int(rawLen), rowLen * h, file: file, line: line)
        var prev = [UInt8](repeating: 0, count: 3 * w), pixels: [UInt32] = []
        for y in 0..<h {
            let f = raw[y * rowLen]
            var cur = Array(raw[(y * rowLen + 1)..<((y + 1) * rowLen)])
            for i in 0..<cur.count {
                let a = i >= 3 ? Int(cur[i - 3]) : 0, b = Int(prev[i]), c = i >= 3 ? Int(prev[i - 3]) : 0
                let pred: Int
                switch f {
                case 0: pred = 0
                case 1: pred = a
                case 2: pred = b
                case 3: pred = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    pred = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: XCTFail("bad filter \(f)", file: file, line: line); pred = 0
                }
                cur[i] = cur[i] &+ UInt8(pred & 0xff)
            }
            for x in 0..<w { pixels.append(UInt32(cur[3 * x]) << 16 | UInt32(cur[3 * x + 1]) << 8 | UInt32(cur[3 * x + 2])) }
            prev = cur
        }
        return (w, h, pixels)
    }

    func testSmallImageStructure() {
        let pixels: [UInt32] = [0xff0000, 0x00ff00, 0x0000ff, 0x000000, 0xffffff, 0x123456]
        let png = pixels.withUnsafeBufferPointer { PNGWriter.encode(width: 3, height: 2, pixels: $0.baseAddress!) }
        let cs = chunks(png)
        XCTAssertEqual(cs.map(\.type).first, "IHDR")
        XCTAssertEqual(cs[0].data, [0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0])
        // IHDR's CRC for exactly this header, as every PNG tool writes it
        XCTAssertEqual(Array(png[8..<33]), [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0] + crcBytes("IHDR", [0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0]))
        XCTAssertEqual(Array(png.suffix(12)), [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])
        let (w, h, back) = decode(png)
        XCTAssertEqual(w, 3); XCTAssertEqual(h, 2)
        XCTAssertEqual(back, pixels)
    }

    private func crcBytes(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let b = Array(type.utf8) + data
        let c = UInt32(b.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
        return [UInt8(c >> 24), UInt8(c >> 16 & 0xff), UInt8(c >> 8 & 0xff), UInt8(c & 0xff)]
    }

    func testRoundTripMixedContent() {
        // gradients (Sub/Up win), noise (None wins), flat areas; the high byte must be ignored
        let w = 67, h = 41
        var pixels = [UInt32](repeating: 0, count: w * h)
        var seed: UInt32 = 1
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                switch y / 10 {
                case 0: pixels[y * w + x] = UInt32(x * 3) << 16 | UInt32(y * 5) << 8 | 0x40
                case 1: pixels[y * w + x] = seed >> 8
                case 2: pixels[y * w + x] = 0xff00_0000 | 0x336699
                default: pixels[y * w + x] = UInt32((x + y) & 0xff) * 0x010101
                }
            }
        }
        let png = pixels.withUnsafeBufferPointer { PNGWriter.encode(width: w, height: h, pixels: $0.baseAddress!) }
        let (dw, dh, back) = decode(png)
        XCTAssertEqual(dw, w); XCTAssertEqual(dh, h)
        XCTAssertEqual(back, pixels.map { $0 & 0xffffff })
    }

    func testOnePixelAndOneColumn() {
        for (w, h) in [(1, 1), (1, 9), (9, 1)] {
            let pixels = (0..<(w * h)).map { UInt32($0) * 0x0a0b0c }
            let png = pixels.withUnsafeBufferPointer { PNGWriter.encode(width: w, height: h, pixels: $0.baseAddress!) }
            XCTAssertEqual(decode(png).2, pixels)
        }
    }

    func testEmptyImage() {
        var p: UInt32 = 0
        XCTAssertEqual(PNGWriter.encode(width: 0, height: 5, pixels: &p), [])
        XCTAssertThrowsError(try PNGWriter.encode(Framebuffer(width: 0, height: 0)))
    }

    func testEncodeFramebuffer() throws {
        let fb = Framebuffer(width: 5, height: 4)
        fb.fill(Rect(x: 1, y: 1, w: 3, h: 2), 0xc0ffee)
        XCTAssertEqual(decode(try PNGWriter.encode(fb)).2, fb.snapshotPixels())
    }

    func testFullHDIsFast() {
        // A desktop-like 1920x1080 frame (bands, text-ish noise). Debug builds are slow, so the bound is loose;
        // release-mode speed is far under it.
        let w = 1920, h = 1080
        let fb = Framebuffer(width: w, height: h)
        for y in 0..<h { for x in 0..<w { fb.pixels[y * w + x] = (x / 7 + y / 13) % 5 == 0 ? 0x202020 : UInt32(0xf0f0f0 - (y & 0x3f)) } }
        let t0 = Date()
        let png = PNGWriter.encode(width: w, height: h, pixels: fb.pixels)
        let dt = Date().timeIntervalSince(t0)
        XCTAssertFalse(png.isEmpty)
        XCTAssertLessThan(dt, 5.0)
        print("PNG 1920x1080: \(png.count) bytes in \(Int(dt * 1000)) ms")
    }
}
