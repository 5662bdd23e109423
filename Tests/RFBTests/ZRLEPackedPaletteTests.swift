import XCTest
@testable import RFB

/// The byte-at-a-time packed-palette paths (1, 2 and 4 bits per index), including the
/// out-of-palette check that must look at each field, not at bytes OR-ed together.
final class ZRLEPackedPaletteTests: XCTestCase {
    let colours: [UInt32] = [0x102030, 0x405060, 0x708090, 0xa0b0c0, 0xd0e0f0]

    /// One tile of `w`x`h` with a palette of `n` colours and the given packed rows.
    func tile(w: Int, h: Int, n: Int, rows: [[UInt8]]) -> [UInt8] {
        var raw: [UInt8] = [UInt8(n)]
        for c in colours.prefix(n) { raw += [UInt8(c & 0xff), UInt8(c >> 8 & 0xff), UInt8(c >> 16 & 0xff)] }
        for r in rows { raw += r }
        let z = Deflater()
        let comp = z.compress(raw)
        return be32(comp.count) + comp
    }

    func testTwoBitIndicesTwoAndOneInOneByteAreNotThree() throws {
        // 3 colours, 4 pixels per byte: indices 2,1,2,1 = 0b10_01_10_01
        let bytes = tile(w: 4, h: 1, n: 3, rows: [[0b1001_1001]])
        let out = try decodeBothWays({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 1), bytes: bytes, fbSize: (4, 1))
        XCTAssertEqual(out, [colours[2], colours[1], colours[2], colours[1]])
    }

    func testTwoBitIndexThreeIsRejectedWithThreeColours() {
        let bytes = tile(w: 4, h: 1, n: 3, rows: [[0b0000_0011]])
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 4, h: 1), bytes: bytes, fbSize: (4, 1),
                          contains: "palette index past the 3-colour palette")
    }

    func testOneBitRowsWithTails() throws {
        // 11 pixels: one full byte and 3 pixels in the next (padding bits set, ignored)
        let bytes = tile(w: 11, h: 2, n: 2, rows: [[0b1010_0101, 0b1101_1111], [0b0000_0000, 0b0001_1111]])
        let out = try decodeBothWays({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 11, h: 2), bytes: bytes, fbSize: (11, 2))
        let a = colours[0], b = colours[1]
        XCTAssertEqual(Array(out[0..<11]), [b, a, b, a, a, b, a, b, b, b, a])
        XCTAssertEqual(Array(out[11..<22]), [a, a, a, a, a, a, a, a, a, a, a])
    }

    func testFourBitIndicesWithTailAndRangeCheck() throws {
        let bytes = tile(w: 3, h: 1, n: 5, rows: [[0x40, 0x20]])
        let out = try decodeBothWays({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1), bytes: bytes, fbSize: (3, 1))
        XCTAssertEqual(out, [colours[4], colours[0], colours[2]])
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1), bytes: tile(w: 3, h: 1, n: 5, rows: [[0x05, 0x00]]),
                          fbSize: (3, 1), contains: "palette index past the 5-colour palette")
        // an out-of-range index in the tail pixel counts too
        assertDecodeError({ ZRLEDecoder() }, rect: Rect(x: 0, y: 0, w: 3, h: 1), bytes: tile(w: 3, h: 1, n: 5, rows: [[0x00, 0x70]]),
                          fbSize: (3, 1), contains: "palette index past the 5-colour palette")
    }
}
