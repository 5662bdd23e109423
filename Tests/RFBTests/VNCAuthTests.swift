import XCTest
@testable import RFB

final class VNCAuthTests: XCTestCase {
    private func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = s.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
        return out
    }

    func testDESFIPSVector() {
        let des = DESCipher(key: hex("133457799BBCDFF1"))
        XCTAssertEqual(des.encrypt(0x0123_4567_89AB_CDEF), 0x85E8_1354_0F0A_B405)
        XCTAssertEqual(des.decrypt(0x85E8_1354_0F0A_B405), 0x0123_4567_89AB_CDEF)
    }

    func testDESClassicVectors() {
        // "Now is t" under 0123456789ABCDEF (the FIPS 81 example)
        let des = DESCipher(key: hex("0123456789ABCDEF"))
        XCTAssertEqual(des.encrypt(0x4E6F_7720_6973_2074), 0x3FA4_0E8A_984D_4815)
        // all-zero key and block
        XCTAssertEqual(DESCipher(key: [UInt8](repeating: 0, count: 8)).encrypt(0), 0x8CA6_4DE9_C1B1_23A7)
    }

    func testDESRoundTrip() {
        let des = DESCipher(key: hex("0E329232EA6D0D73"))
        var v: UInt64 = 0x8787_8787_8787_8787
        XCTAssertEqual(des.encrypt(v), 0)   // a well-known vector: this key maps 8787… to zero
        for _ in 0..<50 { v = v &* 6364136223846793005 &+ 1442695040888963407; XCTAssertEqual(des.decrypt(des.encrypt(v)), v) }
    }

    func testKeyBitReversal() {
        XCTAssertEqual(VNCAuth.vncKey([0x01, 0x80, 0x0f, 0x12]), [0x80, 0x01, 0xf0, 0x48, 0, 0, 0, 0])
        XCTAssertEqual(VNCAuth.vncKey(Array("longpassword".utf8)), VNCAuth.vncKey(Array("longpass".utf8)))
    }

    /// Vectors computed independently with Python `cryptography` (DES via TripleDES with key×3,
    /// ECB) using the bit-reversed key.
    func testVNCAuthResponse() {
        XCTAssertEqual(VNCAuth.response(challenge: Array(0..<16), password: Array("password".utf8)),
                       hex("b866924125c8eebb9debc1db61c538e2"))
        XCTAssertEqual(VNCAuth.response(challenge: hex("f0e1d2c3b4a5968778695a4b3c2d1e0f"), password: Array("pass".utf8)),
                       hex("a9e9e66bb39f8125baeef0e8636ede14"))
        // only the first 8 password bytes count
        XCTAssertEqual(VNCAuth.response(challenge: Array(0..<16), password: Array("longpassword".utf8)),
                       hex("5931256585fd62106d317e09fc963baf"))
        XCTAssertEqual(VNCAuth.response(challenge: Array(0..<16), password: Array("longpass".utf8)),
                       hex("5931256585fd62106d317e09fc963baf"))
    }

    func testOddChallengeLengthsDoNotCrash() {
        XCTAssertEqual(VNCAuth.response(challenge: [], password: []).count, 0)
        XCTAssertEqual(VNCAuth.response(challenge: [1, 2, 3], password: []).count, 8)
    }

    /// Bytes from `echo secret | vncpasswd -f` (TigerVNC tigervnc-tools).
    func testPasswordFile() {
        XCTAssertTrue(VNCAuth.decryptPasswordFile(hex("2e2dbf576eb06c9e")).equals(Secret(copying: Array("secret".utf8))))
        XCTAssertTrue(VNCAuth.decryptPasswordFile(hex("2e2dbf576eb06c9e") + [1, 2, 3, 4, 5, 6, 7, 8]).equals(Secret(copying: Array("secret".utf8))))
        XCTAssertTrue(VNCAuth.decryptPasswordFile([1, 2, 3]).isEmpty)
    }

    func testPasswordFileRoundTrip() {
        // obfuscate the way vncpasswd does (NUL-padded, encrypted with the fixed key), then read back
        let des = DESCipher(key: VNCAuth.vncKey(VNCAuth.passwordFileKey))
        var file: [UInt8] = []
        DESCipher.store(des.encrypt(DESCipher.load(Array("abcdefgh".utf8), at: 0)), into: &file)
        XCTAssertTrue(VNCAuth.decryptPasswordFile(file).equals(Secret(copying: Array("abcdefgh".utf8))))
        XCTAssertEqual(VNCAuth.passwordFileKey, [23, 82, 107, 6, 35, 78, 88, 7])
    }
}
