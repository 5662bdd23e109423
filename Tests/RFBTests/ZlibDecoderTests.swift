import XCTest
import CZlib
@testable import RFB

/// The server side of a connection-long zlib stream: one deflate stream, flushed (Z_SYNC_FLUSH)
/// after each rect as servers do, so the decoder sees each rect's data complete.
final class Deflater {
    private let strm: UnsafeMutablePointer<z_stream>

    init(level: Int32 = 6) {
        strm = .allocate(capacity: 1)
        strm.initialize(to: z_stream())
        let rc = deflateInit_(strm, level, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "deflateInit failed")
    }
    deinit { deflateEnd(strm); strm.deallocate() }

    /// Compresses `input` and flushes; `finish` ends the stream instead (Z_FINISH).
    func compress(_ input: [UInt8], finish: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        input.withUnsafeBufferPointer { ib in
            strm.pointee.next_in = UnsafeMutablePointer(mutating: ib.baseAddress)
            strm.pointee.avail_in = UInt32(ib.count)
            repeat {
                buf.withUnsafeMutableBufferPointer { ob in
                    strm.pointee.next_out = ob.baseAddress
                    strm.pointee.avail_out = UInt32(ob.count)
                    _ = deflate(strm, finish ? Z_FINISH : Z_SYNC_FLUSH)
                    out += ob[0..<(ob.count - Int(strm.pointee.avail_out))]
                }
            } while strm.pointee.avail_out == 0
        }
        return out
    }

    /// A new stream (the server resetting it, as Tight's reset bits announce).
    func reset() { deflateReset(strm) }
}

/// Runs several rects through one decoder (streams carry over), whole and drip-fed one byte
/// at a time; both must give the same pixels, which are returned.
func decodeSequenceBothWays(_ make: () -> RectDecoder, rects: [(Rect, [UInt8])], fbSize: (Int, Int),
                            format: PixelFormat = .native, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt32] {
    var results: [[UInt32]] = []
    for chunk in [Int.max, 1] {
        let d = make()
        let fb = Framebuffer(width: fbSize.0, height: fbSize.1)
        let pf = PixelConverter(format: format)
        for (rect, bytes) in rects {
            let left = try runDecoder(d, rect: rect, bytes: bytes, fb: fb, pf: pf, chunk: chunk)
            XCTAssertEqual(left, 0, "decoder left bytes unconsumed (chunk \(chunk))", file: file, line: line)
        }
        results.append(fb.snapshotPixels())
    }
    XCTAssertEqual(results[0], results[1], "drip-fed result differs", file: file, line: line)
    return results[0]
}

/// Bad input must end in a ProtocolError naming the problem, whole and drip-fed.
func assertDecodeError(_ make: () -> RectDecoder, rect: Rect, bytes: [UInt8], fbSize: (Int, Int),
                       format: PixelFormat = .native, contains needle: String,
                       file: StaticString = #filePath, line: UInt = #line) {
    for chunk in [Int.max, 1] {
        let fb = Framebuffer(width: fbSize.0, height: fbSize.1)
        XCTAssertThrowsError(try runDecoder(make(), rect: rect, bytes: bytes, fb: fb, pf: PixelConverter(format: format), chunk: chunk),
                             "chunk \(chunk)", file: file, line: line) { error in
            guard let e = error as? ProtocolError else {
                return XCTFail("not a ProtocolError: \(error)", file: file, line: line)
            }
            XCTAssertTrue(e.message.contains(needle), "message '\(e.message)' lacks '\(needle)'", file: file, line: line)
            XCTAssertFalse(e.message.hasPrefix("test harness"), "decoder waited for more bytes: \(e.message)", file: file, line: line)
        }
    }
}

/// A deterministic test picture, 0x00RRGGBB.
func testPattern(_ x: Int, _ y: Int) -> UInt32 {
    UInt32((x * 37 + y * 11) & 0xff) << 16 | UInt32((x * 5 + y * 29) & 0xff) << 8 | UInt32((x * y + 3) & 0xff)
}

final class ZlibDecoderTests: XCTestCase {
    func zlibRect(_ raw: [UInt8], _ z: Deflater) -> [UInt8] {
        let c = z.compress(raw)
        return be32(c.count) + c
    }

    func testNative() throws {
        let rect = Rect(x: 1, y: 1, w: 3, h: 2)
        var raw: [UInt8] = []
        for y in 0..<2 { for x in 0..<3 { raw += px(testPattern(x, y)) } }
        let out = try decodeBothWays({ ZlibDecoder() }, rect: rect, bytes: zlibRect(raw, Deflater()), fbSize: (5, 4))
        for y in 0..<4 {
            for x in 0..<5 {
                let inside = x >= 1 && x < 4 && y >= 1 && y < 3
                XCTAssertEqual(out[y * 5 + x], inside ? testPattern(x - 1, y - 1) : 0, "\(x),\(y)")
            }
        }
    }

    func testRGB565AndBGR233() throws {
        let raw565: [UInt8] = [0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0xff, 0xff]
        let out = try decodeBothWays({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2),
                                     bytes: zlibRect(raw565, Deflater()), fbSize: (2, 2), format: .rgb565)
        XCTAssertEqual(out, [0xff0000, 0x00ff00, 0x0000ff, 0xffffff])
        let out8 = try decodeBothWays({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1),
                                      bytes: zlibRect([0x07, 0x38, 0xc0], Deflater()), fbSize: (3, 1), format: .bgr233)
        XCTAssertEqual(out8, [0xff0000, 0x00ff00, 0x0000ff])
    }

    func testRectsShareOneStream() throws {
        // The second rect repeats the first's pixels, so its deflate output back-references
        // data of the first rect: decodable only if the stream carries over.
        let z = Deflater()
        var raw: [UInt8] = []
        for x in 0..<64 { raw += px(testPattern(x, 0)) }
        let r1 = zlibRect(raw, z), r2 = zlibRect(raw, z)
        XCTAssertLessThan(r2.count, r1.count / 2, "second rect should reuse the dictionary")
        let out = try decodeSequenceBothWays({ ZlibDecoder() },
                                             rects: [(Rect(x: 0, y: 0, w: 64, h: 1), r1), (Rect(x: 0, y: 1, w: 64, h: 1), r2)],
                                             fbSize: (64, 2))
        for x in 0..<64 {
            XCTAssertEqual(out[x], testPattern(x, 0)); XCTAssertEqual(out[64 + x], testPattern(x, 0))
        }
        // A fresh decoder cannot make sense of the second rect alone.
        XCTAssertThrowsError(try runDecoder(ZlibDecoder(), rect: Rect(x: 0, y: 1, w: 64, h: 1), bytes: r2,
                                            fb: Framebuffer(width: 64, height: 2)))
    }

    func testResetStartsNewStream() throws {
        let d = ZlibDecoder()
        let fb = Framebuffer(width: 2, height: 1)
        try runDecoder(d, rect: Rect(x: 0, y: 0, w: 1, h: 1), bytes: zlibRect(px(0x123456), Deflater()), fb: fb)
        d.reset()
        try runDecoder(d, rect: Rect(x: 1, y: 0, w: 1, h: 1), bytes: zlibRect(px(0xabcdef), Deflater()), fb: fb)
        XCTAssertEqual(fb.snapshotPixels(), [0x123456, 0xabcdef])
    }

    func testZeroSized() throws {
        let z = Deflater()
        // an empty flush keeps the stream in step; a zero length is fine too
        let empty = zlibRect([], z)
        let next = zlibRect(px(0x010203), z)
        let out = try decodeSequenceBothWays({ ZlibDecoder() }, rects: [
            (Rect(x: 0, y: 0, w: 0, h: 3), empty), (Rect(x: 1, y: 0, w: 2, h: 0), be32(0)),
            (Rect(x: 0, y: 0, w: 1, h: 1), next),
        ], fbSize: (2, 2))
        XCTAssertEqual(out, [0x010203, 0, 0, 0])
    }

    func testCorruptData() {
        var bad = Deflater().compress([UInt8](repeating: 7, count: 16))
        bad[0] = 0x00 // not a zlib header
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(bad.count) + bad,
                          fbSize: (2, 2), contains: "corrupt zlib data")
    }

    func testTruncatedOutput() {
        // 12 bytes of pixels for a rect that needs 16
        let c = Deflater().compress([UInt8](repeating: 7, count: 12))
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(c.count) + c,
                          fbSize: (2, 2), contains: "ends after 12 of the 16 bytes")
    }

    func testInflatesPastRect() {
        let c = Deflater().compress([UInt8](repeating: 7, count: 20))
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(c.count) + c,
                          fbSize: (2, 2), contains: "inflates past the 16 bytes")
        // a zlib bomb: a megabyte for a 4-pixel rect fails at once
        let bomb = Deflater(level: 9).compress([UInt8](repeating: 0, count: 1 << 20))
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(bomb.count) + bomb,
                          fbSize: (2, 2), contains: "inflates past")
    }

    func testDataAfterStreamEnd() {
        let c = Deflater().compress([UInt8](repeating: 7, count: 16), finish: true) + [1, 2, 3]
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(c.count) + c,
                          fbSize: (2, 2), contains: "left after the end of the stream")
    }

    func testLengthOverLimit() {
        // only the length field is sent: the decoder must refuse it, not wait for 4 GiB
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(0xffff_ffff),
                          fbSize: (2, 2), contains: "exceeds the limit")
        let limit = Limits.maxCompressedLength(rawSize: 16)
        assertDecodeError({ ZlibDecoder() }, rect: Rect(x: 0, y: 0, w: 2, h: 2), bytes: be32(limit + 1),
                          fbSize: (2, 2), contains: "exceeds the limit")
    }
}
