import XCTest
@testable import RFB

/// Security defaults and downgrade protection in the engine, the ARD parameter checks, and the
/// sanitising of text a server chose.
final class SecurityPolicyTests: XCTestCase {
    func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    func fails(_ s: ClientSettings, _ bytes: [UInt8], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        let e = ClientEngine(settings: s)
        XCTAssertThrowsError(try e.feed(bytes), file: file, line: line) {
            XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", file: file, line: line)
        }
    }

    /// A man in the middle offering only VeNCrypt Plain gets nothing: Plain is not in the
    /// default list (as TigerVNC), only used when named.
    func testPlainIsNotOfferedByDefault() throws {
        XCTAssertFalse(SecurityMethod.defaultOrder.contains(.veNCrypt(VeNCryptSubtype.plain)))
        XCTAssertTrue(SecurityMethod.knownNames.contains("Plain"), "still accepted by name")
        fails(ClientSettings(), S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(VeNCryptSubtype.plain),
              "no common VeNCrypt subtype: server offers Plain")
        var named = ClientSettings()
        named.securityMethods = try SecurityMethod.parseList("Plain")
        let e = ClientEngine(settings: named)
        try e.feed(S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(VeNCryptSubtype.plain))
        XCTAssertEqual(e.phase, .awaitingCredentials, "named: used, and the password is asked for")
        XCTAssertTrue(e.takeEvents().contains(.credentialsRequired(CredentialRequest(method: "Plain", needsUsername: true, server: ":5900", channel: .clear))))
    }

    /// A host reached with X509Plain before that now offers only weaker methods is refused
    /// loudly, in each place a method is chosen; a method as strong is still fine.
    func testDowngradeIsRefused() throws {
        var s = ClientSettings()
        s.serverName = "h"; s.serverPort = 5900
        s.minimumStrength = SecurityMethod.veNCrypt(VeNCryptSubtype.x509Plain).strength
        s.strongestBefore = .veNCrypt(VeNCryptSubtype.x509Plain)
        let refusal = "refusing to connect: h:5900 was reached with X509Plain before and now offers only"
        fails(s, S.version("003.008") + [2, 2, 1], "\(refusal) VncAuth, None")
        fails(s, S.version("003.003") + be32(2), "\(refusal) VncAuth")
        fails(s, S.version("003.008") + [1, 19] + [0, 2] + [0] + [2] + be32(VeNCryptSubtype.tlsVnc) + be32(VeNCryptSubtype.tlsNone),
              "\(refusal) TLSVnc, TLSNone")
        fails(s, S.version("003.008") + [1, 6], "\(refusal) RA2ne")
        // as strong as before: chosen
        let e = ClientEngine(settings: s)
        try e.feed(S.version("003.008") + [2, 2, 129])
        XCTAssertEqual(e.chosenMethod, .type(SecurityType.ra2_256))
        // the ordering of strengths
        XCTAssertLessThan(SecurityMethod.type(SecurityType.vncAuth).strength, SecurityMethod.veNCrypt(VeNCryptSubtype.tlsNone).strength)
        XCTAssertLessThan(SecurityMethod.veNCrypt(VeNCryptSubtype.tlsPlain).strength, SecurityMethod.type(SecurityType.ra2ne).strength)
        XCTAssertLessThan(SecurityMethod.type(SecurityType.ra2ne_256).strength, SecurityMethod.type(SecurityType.ra2).strength)
        XCTAssertEqual(SecurityMethod.type(SecurityType.ra2).strength, SecurityMethod.veNCrypt(VeNCryptSubtype.x509None).strength)
    }

    func testCredentialRequestsSayWhetherTheyTravelEncrypted() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.version("003.008") + [1, 2] + [UInt8](repeating: 9, count: 16))
        XCTAssertEqual(e.takeEvents().compactMap { if case .credentialsRequired(let r) = $0 { return r.protected } else { return nil } }, [false])
        XCTAssertTrue(SecurityMethod.veNCrypt(VeNCryptSubtype.tlsPlain).protectsCredentials)
        XCTAssertTrue(SecurityMethod.type(SecurityType.ra2ne).protectsCredentials)
        XCTAssertFalse(SecurityMethod.veNCrypt(VeNCryptSubtype.plain).protectsCredentials)
    }

    /// A certificate is only ever checked against a name: X509 without one fails closed.
    func testX509WithoutAServerNameFailsClosed() throws {
        var s = ClientSettings()
        s.securityMethods = [.veNCrypt(VeNCryptSubtype.x509None)]
        fails(s, S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(VeNCryptSubtype.x509None) + [1],
              "needs the server's name to check its certificate")
    }

    func testARDRefusesShortPrimesAndDegeneratePublicValues() throws {
        let p = [UInt8](repeating: 0xff, count: 128)
        func response(_ ys: [UInt8], prime: [UInt8] = p) throws {
            _ = try ARDHandler.response(generator: 2, prime: prime, serverPublic: ys, clientPrivate: [UInt8](repeating: 3, count: prime.count),
                                        username: Array("u".utf8), password: Array("p".utf8), filler: [UInt8](repeating: 0, count: 128))
        }
        var one = [UInt8](repeating: 0, count: 128); one[127] = 1
        var pMinus1 = p; pMinus1[127] = 0xfe
        for bad in [[UInt8](repeating: 0, count: 128), one, pMinus1, p] {
            XCTAssertThrowsError(try response(bad)) { XCTAssertTrue("\($0)".contains("outside (1, p-1)"), "\($0)") }
        }
        var two = one; two[127] = 2
        XCTAssertNoThrow(try response(two))
        // a 64-byte (512-bit) group is refused before any arithmetic
        var s = ClientSettings()
        s.securityMethods = [.type(SecurityType.appleRemoteDesktop)]
        s.username = "u"; s.password = Array("p".utf8)
        fails(s, Array("RFB 003.889\n".utf8) + [1, 30] + [0, 2, 0, 64] + [UInt8](repeating: 0xff, count: 128), "key length 64 is outside 128...1024")
    }

    /// Control characters (C0, DEL, C1) and bidirectional overrides never leave a server's text.
    func testServerTextIsSanitised() throws {
        XCTAssertEqual(ServerText.printable("ok\u{1b}[2J\u{07}\u{7f}\u{9b}31m\u{202e}gnp.exe\u{85}end"), "ok[2J31mgnp.exeend")
        XCTAssertEqual(ServerText.printable(String(repeating: "x", count: 5000)).count, 1024)
        let e = ClientEngine(settings: ClientSettings())
        let name = Array("desk\u{1b}]0;pwned\u{07}top\u{9d}".utf8)
        try e.feed(S.version("003.008") + [1, 1] + be32(0) + [0, 1, 0, 1] + [32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]
                   + be32(UInt32(name.count)) + name)
        XCTAssertEqual(e.server.name, "desk]0;pwnedtop")
        XCTAssertTrue(e.takeEvents().contains(.ready(name: "desk]0;pwnedtop", width: 1, height: 1)))
        let reason = Array("no\u{1b}[31mred!".utf8)
        fails(ClientSettings(), S.version("003.008") + [0] + be32(UInt32(reason.count)) + reason, "refused the connection: no[31mred!")
    }

    /// Line and paragraph separators break a log line or a title as a newline would; the
    /// left-to-right, right-to-left and Arabic letter marks reorder what is shown around them.
    func testServerTextDropsSeparatorsAndDirectionMarks() {
        XCTAssertEqual(ServerText.printable("a\u{2028}b\u{2029}c\u{200e}d\u{200f}e\u{061c}f"), "abcdef")
        // the characters beside them stay: Arabic, Hebrew, the zero-width joiner of an emoji
        XCTAssertEqual(ServerText.printable("\u{0627}\u{05d0}\u{1f468}\u{200d}\u{1f4bb}"), "\u{0627}\u{05d0}\u{1f468}\u{200d}\u{1f4bb}")
    }

    /// A refused login names the method, says only what was asked, and has balanced brackets.
    func testRefusedLoginMessages() throws {
        var s = ClientSettings()
        s.securityMethods = [.veNCrypt(2)]   // VncAuth offered as a VeNCrypt subtype, no TLS
        s.password = Array("pw".utf8)
        fails(s, S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(2) + [UInt8](repeating: 1, count: 16) + be32(1) + be32(0),
              "authentication failed with VncAuth (wrong password?)")
        var ard = ClientSettings()
        ard.securityMethods = [.type(SecurityType.appleRemoteDesktop)]
        ard.username = "u"; ard.password = Array("p".utf8)
        var p = [UInt8](repeating: 0xff, count: 128); p[0] = 0xfb
        var y = [UInt8](repeating: 0, count: 128); y[127] = 5
        fails(ard, Array("RFB 003.889\n".utf8) + [1, 30] + [0, 2, 0, 128] + p + y + be32(1) + be32(0),
              "authentication failed with Apple Remote Desktop (wrong user name or password?)")
    }
}
