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

    /// The output buffer follows what the stream really inflates to, not the size the rect
    /// claims: a short stream claiming 256 MiB fails having reserved 64 KiB.
    func testOutputGrowsWithWhatInflatesNotWithTheClaim() throws {
        let z = ZStream(), scratch = ScratchBuffer()
        let small = Deflater().compress([UInt8](repeating: 7, count: 100))
        XCTAssertThrowsError(try small.withUnsafeBufferPointer { b in
            try z.inflateExactly(b.baseAddress!, count: b.count, into: scratch, size: 256 << 20, what: "test")
        }) { XCTAssertTrue("\($0)".contains("ends after 100 of the 268435456 bytes"), "\($0)") }
        XCTAssertLessThanOrEqual(scratch.capacity, ZStream.firstOutputChunk)

        // a real 3 MiB of output grows the buffer by doubling to exactly what is needed
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 / 4096) }
        let zb = ZStream(), sb = ScratchBuffer()
        let packed = Deflater().compress(big)
        try packed.withUnsafeBufferPointer { b in
            try zb.inflateExactly(b.baseAddress!, count: b.count, into: sb, size: big.count, what: "test")
        }
        XCTAssertEqual(Array(UnsafeBufferPointer(start: sb.pointer, count: big.count)), big)
        XCTAssertEqual(sb.capacity, big.count, "never past the size")
    }
}
