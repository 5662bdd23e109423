import XCTest
@testable import RFB

/// Apple Remote Desktop key derivation against a vector computed independently in Python
/// (plain integers for the Diffie-Hellman, `cryptography` for MD5 and AES-128-ECB), with the
/// 1024-bit MODP prime (RFC 2409 group 2), g = 2, fixed private values and filler.
final class SecurityARDTests: XCTestCase {
    func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []; var i = s.startIndex
        while i < s.endIndex { let j = s.index(i, offsetBy: 2); out.append(UInt8(s[i..<j], radix: 16)!); i = j }
        return out
    }
    let p = "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7edee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff"
    let ys = "457120764f3a1e6fd58103e41a4093a6c8bc1d97cb8759de41c21afdd2d3048a5ef3d88ce24aa6ba4fe30bcfb0b0f75abf1a8aeaff3723f1bf53740c902005e1199fabad7c538e94a7034fd585339a02f3634893f748929d2a7257643e398130541ae64124c17d4507a97f1cbebeb7b933642b8df479eb59e36cfeffbf1671dd"
    let ct = "b9fed06b45ab32502e1797eb22668472b0b1e1b040ddf87eb2b28e4065113d83447186c6f80afe5bba7a71e9fb6ddaa7e766d4c49cb71f1424fe93ecc9922bef7423fc7a68e614af12e057c1acf4fa67afe1ae8d0a6145593eda80f11697192a52969b8a5a3596c1b7d7189c2c4d3b53320d00ed4a8a780f0ce2e5a2cb8d7526"
    let pub = "7b1d7d3188d79522e49e1ef8a54a32403fa559965ff46561a8d12fc1f79273e70b2c6ea601992ec15910b87dffa610904bdbc2bdd35b13c95a0d7cb40a0d62720f4a904259982b507d9981f4eedb7371db1336d26e29d58e2d2da00d7928a64cadc4eb683c04df21ac4f5f71174805326a640a789679de2fc1b3ed28d2c9ba71"

    func testKnownVector() throws {
        let (c, y) = try ARDHandler.response(generator: 2, prime: hex(p), serverPublic: hex(ys),
                                             clientPrivate: (0..<128).map { UInt8(($0 * 7 + 3) & 255) },
                                             username: Array("alice".utf8), password: Array("s3cret!".utf8),
                                             filler: (0..<128).map { UInt8(($0 * 13 + 5) & 255) })
        XCTAssertEqual(c, hex(ct))
        XCTAssertEqual(y, hex(pub))
    }

    func testHandshakeBytesAndMalformed() throws {
        var s = ClientSettings()
        s.securityMethods = [.type(SecurityType.appleRemoteDesktop)]
        s.username = "alice"; s.password = Array("pw".utf8)
        let e = ClientEngine(settings: s)
        // macOS's 3.889 banner is answered with 3.8
        try e.feed(Array("RFB 003.889\n".utf8) + [1, 30] + [0, 2, 0, 128] + hex(p) + hex(ys))
        let out = e.takeOutput()
        XCTAssertEqual(out.count, 12 + 1 + 128 + 128)
        XCTAssertEqual(Array(out.prefix(13)), Array("RFB 003.008\n".utf8) + [30])
        try e.feed([0, 0, 0, 0] + S.serverInit(w: 2, h: 2))
        XCTAssertEqual(e.phase, .normal)
        for (bytes, fragment) in [([0, 2, 0, 0], "key length 0"), ([0, 2, 0xff, 0xff], "key length 65535"),
                                  ([0, 1, 0, 128], "generator 1")] as [([UInt8], String)] {
            let f = ClientEngine(settings: s)
            XCTAssertThrowsError(try f.feed(Array("RFB 003.889\n".utf8) + [1, 30] + bytes)) {
                XCTAssertTrue("\($0)".contains(fragment), "\($0)")
            }
        }
        // wrong password: SecurityResult failed with a reason
        let w = ClientEngine(settings: s)
        XCTAssertThrowsError(try w.feed(Array("RFB 003.889\n".utf8) + [1, 30] + [0, 2, 0, 128] + hex(p) + hex(ys) + [0, 0, 0, 1] + [0, 0, 0, 6] + Array("denied".utf8))) {
            XCTAssertTrue("\($0)".contains("authentication failed"), "\($0)")
            XCTAssertTrue("\($0)".contains("denied"), "\($0)")
        }
    }
}
