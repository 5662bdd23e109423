import XCTest
@testable import RFB

/// Drives a decoder exactly as the engine does: bytes arrive in chunks of `chunk` bytes;
/// on NeedMoreData the reader rewinds to its last commit and the decoder is called again
/// with `resume: true` once more bytes are buffered. Returns the unconsumed byte count.
@discardableResult
func runDecoder(_ d: RectDecoder, rect: Rect, bytes: [UInt8], fb: Framebuffer,
                pf: PixelConverter = PixelConverter(format: .native), chunk: Int = Int.max) throws -> Int {
    var buffered: [UInt8] = []
    var consumed = 0
    var fed = 0
    var resume = false
    while true {
        let n = min(chunk, bytes.count - fed)
        buffered += bytes[fed..<(fed + n)]
        fed += n
        let result: Bool = try buffered.withUnsafeBufferPointer { bp in
            var r = ByteReader(base: bp.baseAddress!, count: bp.count, pos: consumed)
            do {
                try d.decode(rect: rect, reader: &r, fb: fb, pf: pf, resume: resume)
                consumed = r.pos
                return true
            } catch is NeedMoreData {
                consumed = r.committed
                return false
            }
        }
        if result { return bytes.count - consumed }
        resume = true
        if fed >= bytes.count { throw ProtocolError("test harness: decoder wants more than the \(bytes.count) bytes given") }
    }
}

/// Runs `bytes` whole and drip-fed one byte at a time; both must give the same pixels.
func decodeBothWays(_ make: () -> RectDecoder, rect: Rect, bytes: [UInt8], fbSize: (Int, Int),
                    format: PixelFormat = .native, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt32] {
    let fb1 = Framebuffer(width: fbSize.0, height: fbSize.1)
    let left1 = try runDecoder(make(), rect: rect, bytes: bytes, fb: fb1, pf: PixelConverter(format: format))
    XCTAssertEqual(left1, 0, "decoder left bytes unconsumed", file: file, line: line)
    let fb2 = Framebuffer(width: fbSize.0, height: fbSize.1)
    let left2 = try runDecoder(make(), rect: rect, bytes: bytes, fb: fb2, pf: PixelConverter(format: format), chunk: 1)
    XCTAssertEqual(left2, 0, "drip-fed decoder left bytes unconsumed", file: file, line: line)
    XCTAssertEqual(fb1.snapshotPixels(), fb2.snapshotPixels(), "drip-fed result differs", file: file, line: line)
    return fb1.snapshotPixels()
}

/// Little-endian BGRX bytes of a 0x00RRGGBB pixel: what the native format puts on the wire.
func px(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), 0] }
func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
