import XCTest
@testable import RFB

/// A login answered with a close or with nonsense instead of a SecurityResult and ServerInit:
/// reported as a refused login, not as a strange desktop. Each vector is fed whole and drip-fed.
final class LoginRefusedTests: XCTestCase {
    static let userPassword = "the server closed the connection after the login; the user name or password was probably refused"
    static let password = "the server closed the connection after the login; the password was probably refused"

    /// VeNCrypt Plain (no TLS, so the bytes stay readable), user "pi", password "raspberry".
    func plainEngine() -> ClientEngine {
        var s = ClientSettings()
        s.securityMethods = [.veNCrypt(VeNCryptSubtype.plain)]
        s.username = "pi"
        s.password = Array("raspberry".utf8)
        return ClientEngine(settings: s)
    }

    func vncAuthEngine() -> ClientEngine {
        var s = ClientSettings()
        s.securityMethods = [.type(SecurityType.vncAuth)]
        s.password = Array("secret".utf8)
        return ClientEngine(settings: s)
    }

    /// Up to the credentials: VeNCrypt 0.2, one subtype (Plain).
    let plainLogin = S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(256)
    let vncLogin = S.version("003.008") + [1, 2] + [UInt8](repeating: 7, count: 16)

    /// What wayvnc 0.5 (neatvnc) sent for a wrong password, as captured: htonl(1) stored in
    /// one byte (0), the reason's length in host order, then stack bytes; then it closed.
    let wayvncRefusal: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0xb0, 0x69, 0x35, 0x32, 0x88, 0x55, 0x00, 0x00,
                                  0x66, 0x4e, 0x64, 0x74, 0xb3, 0x7f, 0x00, 0x00, 0x30]

    /// Feeds `bytes` whole or one at a time, then the close; returns the error that ended it.
    func refusal(_ e: ClientEngine, _ bytes: [UInt8], drip: Bool, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            if drip { for b in bytes { try e.feed([b]) } } else { try e.feed(bytes) }
        } catch {
            XCTAssertNil(e.connectionClosed(), "a failed engine has nothing more to say", file: file, line: line)
            return "\(error)"
        }
        return e.connectionClosed().map { "\($0)" }
    }

    func testWayvncTruncatedResultAndStackBytes() {
        for drip in [false, true] {
            let e = plainEngine()
            XCTAssertEqual(refusal(e, plainLogin + wayvncRefusal, drip: drip), Self.userPassword, "drip \(drip)")
            XCTAssertEqual(e.phase, .failed)
            XCTAssertEqual(e.phaseAtFailure, .authenticating, "not retried: the server said no")
        }
    }

    func testResultZeroThenCloseBeforeServerInit() {
        for drip in [false, true] {
            // nothing of ServerInit, or part of one
            for partial in [[], Array(S.serverInit(w: 8, h: 4).prefix(10))] {
                let e = plainEngine()
                XCTAssertEqual(refusal(e, plainLogin + be32(0) + partial, drip: drip), Self.userPassword, "drip \(drip)")
                XCTAssertEqual(e.phase, .failed)
            }
            // closed before the SecurityResult, or in the middle of it
            XCTAssertEqual(refusal(plainEngine(), plainLogin + [0, 0], drip: drip), Self.userPassword)
            // a password alone (VncAuth): says so
            XCTAssertEqual(refusal(vncAuthEngine(), vncLogin + be32(0), drip: drip), Self.password)
        }
    }

    func testAbsurdServerInitAfterLogin() {
        for drip in [false, true] {
            XCTAssertEqual(refusal(plainEngine(), plainLogin + be32(0) + S.serverInit(w: 40000, h: 40000), drip: drip),
                           Self.userPassword)
            XCTAssertEqual(refusal(vncAuthEngine(), vncLogin + be32(0) + be16(8) + be16(4) + PixelFormat.native.wireBytes
                                   + be32(0x7000_0000), drip: drip), Self.password)
        }
    }

    func testNormalLoginIsUnaffected() throws {
        for drip in [false, true] {
            let e = plainEngine()
            XCTAssertNil(refusal(e, plainLogin + be32(0) + S.serverInit(w: 8, h: 4, name: "desk"), drip: drip))
            XCTAssertEqual(e.phase, .normal)
            XCTAssertEqual(e.server.name, "desk")
            let v = vncAuthEngine()
            XCTAssertNil(refusal(v, vncLogin + be32(0) + S.serverInit(w: 8, h: 4), drip: drip))
            XCTAssertEqual(v.phase, .normal)
        }
    }

    /// Without a password sent, the messages stay what they were: the engine knows nothing of
    /// a login to blame.
    func testWithoutCredentialsTheOldMessagesStay() {
        for drip in [false, true] {
            let huge = S.version("003.008") + S.none38 + be16(8) + be16(4) + PixelFormat.native.wireBytes + be32(0x7000_0000)
            XCTAssertEqual(refusal(ClientEngine(settings: ClientSettings()), huge, drip: drip),
                           "ServerInit desktop name is 1879048192 bytes long (limit \(Limits.maxDesktopNameLength))")
            XCTAssertNil(refusal(ClientEngine(settings: ClientSettings()), S.version("003.008") + S.none38, drip: drip))
        }
    }
}
