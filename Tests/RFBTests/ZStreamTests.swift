import XCTest
@testable import RFB

/// ZStream inflates raw deflate after checking the zlib header itself (no Adler-32 work).
final class ZStreamTests: XCTestCase {
    func inflate(_ z: ZStream, _ bytes: [UInt8], capacity: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: capacity)
        let r = try bytes.withUnsafeBufferPointer { b in
            try out.withUnsafeMutableBufferPointer { o in
                try z.inflate(b.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: b.count, into: o.baseAddress!, capacity: capacity, what: "test")
            }
        }
        XCTAssertEqual(r.consumed, bytes.count)
        return Array(out.prefix(r.produced))
    }

    func testHeaderSplitAcrossPayloadsAndStreamContinues() throws {
        let d = Deflater()
        let a = d.compress(Array("hello ".utf8)), b = d.compress(Array("world".utf8))
        let z = ZStream()
        XCTAssertEqual(try inflate(z, [a[0]], capacity: 64), [])            // one header byte only
        XCTAssertEqual(try inflate(z, Array(a[1...]), capacity: 64), Array("hello ".utf8))
        XCTAssertEqual(try inflate(z, b, capacity: 64), Array("world".utf8))  // same stream, next rect
        z.reset()
        let c = Deflater().compress(Array("again".utf8))
        XCTAssertEqual(try inflate(z, c, capacity: 64), Array("again".utf8))
    }

    func testBadHeaderAndPresetDictionary() {
        XCTAssertThrowsError(try inflate(ZStream(), [0x78, 0x00, 0x01], capacity: 8)) { XCTAssertTrue("\($0)".contains("bad zlib header")) }
        XCTAssertThrowsError(try inflate(ZStream(), [0x18, 0x00], capacity: 8)) { XCTAssertTrue("\($0)".contains("bad zlib header")) }
        // FDICT set (0x78 0xBB passes the check bits)
        XCTAssertThrowsError(try inflate(ZStream(), [0x78, 0xbb, 0, 0, 0, 0], capacity: 8)) { XCTAssertTrue("\($0)".contains("preset dictionary")) }
    }
}
