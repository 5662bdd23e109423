import COpenSSL
import Foundation
import XCTest
@_spi(Fuzzing) @testable import RFB

/// Security handshakes as byte vectors, the AES-EAX known answers, and malformed input.
final class SecurityTests: XCTestCase {
    func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []; var i = s.startIndex
        while i < s.endIndex { let j = s.index(i, offsetBy: 2); out.append(UInt8(s[i..<j], radix: 16)!); i = j }
        return out
    }

    /// The EAX paper's (Bellare, Rogaway, Wagner) first test vectors: ciphertext then tag.
    func testEAXPaperVectors() throws {
        let vectors: [(msg: String, key: String, nonce: String, header: String, out: String)] = [
            ("", "233952DEE4D5ED5F9B9C6D6FF80FF478", "62EC67F9C3A4A407FCB2A8C49031A8B3", "6BFB914FD07EAE6B", "E037830E8389F27B025A2D6527E79D01"),
            ("F7FB", "91945D3F4DCBEE0BF45EF52255F095A4", "BECAF043B0A23D843194BA972C66DEBD", "FA3BFD4806EB53FA", "19DD5C4C9331049D0BDAB0277408F67967E5"),
            ("1A47CB4933", "01F74AD64077F2E704C0F60ADA3DD523", "70C3DB4F0D26368400A10ED05D2BFF5E", "234A3463C1264AC6", "D851D5BAE03A59F238A23E39199DC9266626C40F80"),
            ("481C9E39B1", "D07CF6CBB7F313BDDE66B727AFD3C5E8", "8408DFFF3C1A2B1292DC199E46B7D617", "33CCE2EABFF5A79D", "632A9D131AD4C168A4225D8E1FF755939974A7BEDE"),
        ]
        for v in vectors {
            let eax = try AESEAX(key: hex(v.key))
            let msg = hex(v.msg)
            let out = try msg.withUnsafeBytes { try eax.seal(nonce: hex(v.nonce), header: hex(v.header), plaintext: $0) }
            XCTAssertEqual(out, hex(v.out), v.key)
            let ct = Array(out.dropLast(16)), tag = Array(out.suffix(16))
            let back = try ct.withUnsafeBytes { c in try tag.withUnsafeBytes { t in try eax.open(nonce: hex(v.nonce), header: hex(v.header), ciphertext: c, tag: t) } }
            XCTAssertEqual(back, msg)
            var bad = tag; bad[0] ^= 1
            let rejected = try ct.withUnsafeBytes { c in try bad.withUnsafeBytes { t in try eax.open(nonce: hex(v.nonce), header: hex(v.header), ciphertext: c, tag: t) } }
            XCTAssertNil(rejected, "a flipped tag bit must be rejected")
            // the key is set once: every later message starts from its own IV, not where the last one ended
            let again = try msg.withUnsafeBytes { try eax.seal(nonce: hex(v.nonce), header: hex(v.header), plaintext: $0) }
            XCTAssertEqual(again, hex(v.out), "sealed again with the same instance")
        }
    }

    /// OpenSSL's own CMAC, as the reference for OMAC: OMAC^t(M) = CMAC([t]_128 || M).
    func cmac(_ key: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        let mac = try XCTUnwrap(EVP_MAC_fetch(nil, "CMAC", nil)); defer { EVP_MAC_free(mac) }
        let ctx = try XCTUnwrap(EVP_MAC_CTX_new(mac)); defer { EVP_MAC_CTX_free(ctx) }
        let name = strdup("cipher"), cipher = strdup(key.count == 16 ? "AES-128-CBC" : "AES-256-CBC")
        defer { free(name); free(cipher) }
        var params = [OSSL_PARAM_construct_utf8_string(name, cipher, 0), OSSL_PARAM_construct_end()]
        XCTAssertEqual(EVP_MAC_init(ctx, key, key.count, &params), 1)
        XCTAssertEqual(EVP_MAC_update(ctx, data, data.count), 1)
        var out = [UInt8](repeating: 0, count: 16), len = 0
        XCTAssertEqual(EVP_MAC_final(ctx, &out, &len, 16), 1)
        return Array(out.prefix(len))
    }

    /// OMAC streams its message through CBC (whole blocks as they lie, the last one XORed with
    /// K1 or padded and XORed with K2): every length from 0 to 70, around each block edge,
    /// both key sizes, each tweak, against OpenSSL's CMAC.
    func testOMACOfEveryLengthMatchesCMAC() throws {
        for keySize in [16, 32] {
            let key = (0..<keySize).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let eax = try AESEAX(key: key)
            for n in 0...70 {
                let m = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 101 &+ n) }
                for t: UInt8 in 0...2 {
                    XCTAssertEqual(try eax.omac(t, m), try cmac(key, [UInt8](repeating: 0, count: 15) + [t] + m), "key \(keySize), \(n) bytes, tweak \(t)")
                }
            }
        }
    }

    func testEAXChannelFramingAndNonces() throws {
        let k1 = [UInt8](repeating: 1, count: 32), k2 = [UInt8](repeating: 2, count: 32)
        let a = try EAXChannel(receiveKey: k1, sendKey: k2), b = try EAXChannel(receiveKey: k2, sendKey: k1)
        let big = (0..<20000).map { UInt8(truncatingIfNeeded: $0) }
        try a.writePlain(Array("hello".utf8)); try a.writePlain(big)
        let raw = a.takeRaw()
        XCTAssertEqual(Array(raw[0..<2]), [0, 5], "u16 length first")
        // 5 bytes, then 8192 + 8192 + 3616: four messages, each with a 2-byte length and a 16-byte tag
        XCTAssertEqual(raw.count, 5 + 20000 + 4 * 18)
        let input = InputBuffer()
        for byte in raw { try [byte].withUnsafeBytes { try b.ingest($0.baseAddress!, 1) }; try b.drainPlain(into: input) }
        XCTAssertEqual(Array(UnsafeBufferPointer(start: input.storage + input.start, count: input.count)), Array("hello".utf8) + big)
        // a replayed message fails: the nonce moved on
        try raw.prefix(23).withUnsafeBytes { try b.ingest($0.baseAddress!, 23) }
        XCTAssertThrowsError(try b.drainPlain(into: input)) { XCTAssertTrue("\($0)".contains("corrupted"), "\($0)") }
    }

    func testNonceIsLittleEndianCounter() {
        var n = [UInt8](repeating: 0xff, count: 2) + [UInt8](repeating: 0, count: 14)
        EAXChannel.increment(&n)
        XCTAssertEqual(Array(n.prefix(3)), [0, 0, 1])
    }

    func testRealVNCFingerprintForm() {
        let fp = RSAAESHandler.realVNCFingerprint([0, 0, 4, 0, 1, 2, 3])
        XCTAssertEqual(fp.split(separator: "-").count, 8)
        XCTAssertTrue(fp.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isUppercase })
    }

    // MARK: names and choice

    func testSecurityNames() throws {
        XCTAssertEqual(try SecurityMethod.parseList("X509Plain, tlsvnc,VncAuth"),
                       [.veNCrypt(262), .veNCrypt(258), .type(2)])
        XCTAssertEqual(try SecurityMethod.parseList("RA2_256,RA2ne,ARD,None"), [.type(129), .type(6), .type(30), .type(1)])
        XCTAssertThrowsError(try SecurityMethod.parseList("TLS,None")) { XCTAssertTrue("\($0)".contains("unknown security type 'tls'")) }
        var s = ClientSettings()
        s.securityMethods = try SecurityMethod.parseList("TLSVnc,VncAuth,X509None")
        XCTAssertEqual(s.securityTypes, [19, 2])
    }

    func engine(_ methods: String, user: String? = nil, password: String? = nil) throws -> ClientEngine {
        var s = ClientSettings()
        s.securityMethods = try SecurityMethod.parseList(methods)
        s.username = user
        s.password = password.map { Array($0.utf8) }
        return ClientEngine(settings: s)
    }

    func assertFails(_ e: ClientEngine, _ bytes: [UInt8], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try e.feed(bytes), file: file, line: line) {
            XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", file: file, line: line)
        }
        XCTAssertEqual(e.phase, .failed, file: file, line: line)
    }

    func testStrongestCommonTypeAndNoSilentFallback() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.version("003.008") + [3, 2, 19, 1])
        XCTAssertEqual(e.takeOutput().last, 19, "default prefers VeNCrypt to VncAuth and None")
        let v = try engine("VncAuth,None")
        try v.feed(S.version("003.008") + [2, 19, 2])
        XCTAssertEqual(v.takeOutput().last, 2)
        assertFails(try engine("TLSVnc,X509Plain"), S.version("003.008") + [2, 2, 1], "this viewer accepts TLSVnc, X509Plain")
    }

    // MARK: VeNCrypt byte vectors

    func testVeNCryptPlainBytes() throws {
        for drip in [false, true] {
            let e = try engine("Plain", user: "pi", password: "raspberry")
            let server = S.version("003.008") + [1, 19] + [0, 2] + [0] + [2] + be32(257) + be32(256)
                + be32(0) + S.serverInit(w: 2, h: 2)
            if drip { for b in server { try e.feed([b]) } } else { try e.feed(server) }
            XCTAssertEqual(e.phase, .normal)
            let out = e.takeOutput()
            let expect = Array("RFB 003.008\n".utf8) + [19] + [0, 2] + be32(256) + be32(2) + be32(9) + Array("pi".utf8) + Array("raspberry".utf8) + [1]
            XCTAssertEqual(Array(out.prefix(expect.count)), expect, "drip \(drip)")
        }
    }

    /// Missing credentials are an event; the engine waits in a phase, more bytes meanwhile
    /// change nothing, and the answer completes the login without repeating what was sent.
    func testVeNCryptAsksForMissingCredentialsAsAnEvent() throws {
        for drip in [false, true] {
            var s = ClientSettings()
            s.securityMethods = [.veNCrypt(VeNCryptSubtype.plain)]
            s.serverName = "pi.local"; s.serverPort = 5900
            let e = ClientEngine(settings: s)
            let server = S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(256)
            if drip { for b in server { try e.feed([b]) } } else { try e.feed(server) }
            XCTAssertEqual(e.takeEvents().filter { if case .credentialsRequired = $0 { return true }; return false },
                           [.credentialsRequired(CredentialRequest(method: "Plain", needsUsername: true, server: "pi.local:5900"))])
            XCTAssertEqual(e.phase, .awaitingCredentials)
            let before = e.takeOutput()
            XCTAssertEqual(Array(before.suffix(4)), be32(256), "the subtype choice went out once")
            // the SecurityResult arrives before the user answered: still waiting, asked once
            try e.feed(be32(0))
            XCTAssertEqual(e.phase, .awaitingCredentials)
            XCTAssertTrue(e.takeEvents().isEmpty)
            XCTAssertTrue(e.takeOutput().isEmpty)
            try e.provideCredentials(Credentials(username: "u", password: Array("p".utf8)))
            XCTAssertEqual(e.takeOutput(), be32(1) + be32(1) + [UInt8(ascii: "u"), UInt8(ascii: "p")] + [1], "credentials, then ClientInit")
            XCTAssertEqual(e.phase, .initialising)
            try e.feed(S.serverInit(w: 2, h: 2))
            XCTAssertEqual(e.phase, .normal)
        }
        // a user name the method needs and did not get
        var s = ClientSettings()
        s.securityMethods = [.veNCrypt(VeNCryptSubtype.plain)]
        let e = ClientEngine(settings: s)
        try e.feed(S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(256))
        XCTAssertThrowsError(try e.provideCredentials(Credentials(password: Array("p".utf8)))) {
            XCTAssertTrue("\($0)".contains("user name"), "\($0)")
        }
        // nobody to answer: the front end ends the handshake with its reason
        let c = ClientEngine(settings: s)
        try c.feed(S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(256))
        XCTAssertEqual(c.cancelHandshake("no password given").message, "no password given")
        XCTAssertEqual(c.phase, .failed)
    }

    func testVeNCryptMalformed() throws {
        let pre = S.version("003.008") + [1, 19]
        assertFails(try engine("TLSNone"), pre + [0, 1], "VeNCrypt 0.1")
        assertFails(try engine("TLSNone"), pre + [0, 2, 1], "refused VeNCrypt version")
        assertFails(try engine("TLSNone"), pre + [0, 2, 0, 0], "no VeNCrypt subtypes")
        assertFails(try engine("TLSNone"), pre + [0, 2, 0, 2] + be32(0xffff_ffff) + be32(300), "no common VeNCrypt subtype: server offers subtype 4294967295, subtype 300")
        assertFails(try engine("TLSNone"), pre + [0, 2, 0, 1] + be32(257) + [0], "could not start TLS")
        // truncated: waits, never crashes; then the failure reason path
        let e = try engine("TLSNone")
        try e.feed(pre + [0, 2, 0, 200] + be32(257))
        XCTAssertEqual(e.phase, .authenticating)
        // TLS garbage instead of a ServerHello
        let g = try engine("TLSNone")
        try g.feed(pre + [0, 2, 0, 1] + be32(257) + [1])
        XCTAssertFalse(g.takeOutput().isEmpty, "a ClientHello went out")
        XCTAssertThrowsError(try g.feed(Array(repeating: 0x41, count: 64))) { XCTAssertTrue("\($0)".contains("TLS"), "\($0)") }
    }

    func testRSAAESMalformedKeyLengths() throws {
        let pre = S.version("003.008") + [1, 129]
        assertFails(try engine("RA2_256"), pre + be32(512), "too short")
        assertFails(try engine("RA2_256"), pre + be32(0x7fff_ffff), "too long")
        assertFails(try engine("RA2_256"), pre + be32(1024) + [UInt8](repeating: 0, count: 256), "server key is invalid")
    }
}

final class LockedRequests: @unchecked Sendable {
    private let l = NSLock(); private var r: [CredentialRequest] = []
    func add(_ x: CredentialRequest) { l.withLock { r.append(x) } }
    var all: [CredentialRequest] { l.withLock { r } }
}
