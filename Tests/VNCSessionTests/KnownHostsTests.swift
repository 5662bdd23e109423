import Foundation
import RFB
@testable import VNCSession
import XCTest

/// The known-hosts file: identities (fail closed when unreadable, another kind of key is a
/// change) and the strongest security method each host was reached with.
final class KnownHostsTests: XCTestCase {
    func path() -> String {
        let d = NSTemporaryDirectory() + "farcast-kh-\(getpid())-\(UUID().uuidString.prefix(6))"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d + "/known_hosts"
    }

    func id(_ kind: ServerIdentity.Kind, _ fp: UInt8) -> ServerIdentity {
        ServerIdentity(kind: kind, server: "h:5900", fingerprint: [fp, 2, 3], displayFingerprint: "fp", verifyError: nil, subject: nil)
    }

    func testUnknownRememberedChangedAndOtherKind() throws {
        let kh = KnownHosts(path: path())
        XCTAssertNil(kh.decision(id(.x509, 1), acceptNew: false), "unknown: ask")
        XCTAssertEqual(kh.acceptAndRemember(id(.x509, 1)), .accept)
        XCTAssertEqual(kh.decision(id(.x509, 1), acceptNew: false), .known, "remembered: the channel is authenticated")
        guard case .reject(let why)? = kh.decision(id(.x509, 9), acceptNew: true) else { return XCTFail("a changed certificate is refused") }
        XCTAssertTrue(why.contains("HAS CHANGED"), why)
        // both fingerprints in one form, comparable by eye
        XCTAssertTrue(why.contains("Now: x509 SHA-256 09:02:03;"), why)
        XCTAssertTrue(why.contains("x509 SHA-256 01:02:03. Refusing"), why)
        // the same host showing an RSA-AES key instead of its certificate: changed too
        guard case .reject(let why2)? = kh.decision(id(.rsa, 1), acceptNew: true) else { return XCTFail("another kind of key is a change") }
        XCTAssertTrue(why2.contains("HAS CHANGED"), why2)
    }

    func testUnreadableFileFailsClosed() throws {
        let p = path()
        let kh = KnownHosts(path: p)
        XCTAssertEqual(kh.acceptAndRemember(id(.x509, 1)), .accept)
        // a directory where the file should be cannot be read
        try FileManager.default.removeItem(atPath: p)
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        guard case .reject(let why)? = kh.decision(id(.x509, 1), acceptNew: true) else { return XCTFail("unreadable: refused") }
        XCTAssertTrue(why.contains("cannot read the known-hosts file"), why)
    }

    func testStrongestSecurityIsRemembered() throws {
        let kh = KnownHosts(path: path())
        XCTAssertNil(kh.strongestSecurity(server: "h:5900"))
        kh.rememberSecurity(server: "h:5900", .type(SecurityType.vncAuth))
        kh.rememberSecurity(server: "h:5900", .type(SecurityType.none))
        // nothing is weaker than an unencrypted method: no line, not even a file
        XCTAssertNil(kh.strongestSecurity(server: "h:5900"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: kh.path))
        kh.rememberSecurity(server: "h:5900", .veNCrypt(VeNCryptSubtype.x509Plain))
        kh.rememberSecurity(server: "h:5900", .veNCrypt(VeNCryptSubtype.tlsNone))   // weaker: not lowered
        XCTAssertEqual(kh.strongestSecurity(server: "h:5900"), .veNCrypt(VeNCryptSubtype.x509Plain))
        XCTAssertNil(kh.strongestSecurity(server: "h:5901"))
        // security lines are not identities
        XCTAssertNil(kh.decision(id(.x509, 1), acceptNew: false))
    }

    /// A long file of other hosts (benchmarks leave one per port), hosts whose names start with
    /// this one's, leading spaces and comments: the right lines, the right line numbers.
    func testLongFileOfOtherHosts() throws {
        let p = path()
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var text = ""
        for port in 0..<3000 { text += "127.0.0.1::\(6000 + port) security VncAuth\n" }
        text += "#h:5900 x509 ffffff\n"
        text += "h:59001 x509 aaaaaa\nh:59001 security X509Plain\n"
        text += "   h:5900   security   TLSNone\n"
        text += "h:5900 security VncAuth\n"
        text += "h:5900 x509 010203\n"
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        let kh = KnownHosts(path: p)
        XCTAssertEqual(kh.strongestSecurity(server: "h:5900"), .veNCrypt(VeNCryptSubtype.tlsNone))
        XCTAssertEqual(kh.strongestSecurity(server: "h:59001"), .veNCrypt(VeNCryptSubtype.x509Plain))
        XCTAssertEqual(kh.strongestSecurity(server: "127.0.0.1::8999"), .type(SecurityType.vncAuth))
        XCTAssertNil(kh.strongestSecurity(server: "127.0.0.1::9000"))
        XCTAssertEqual(kh.decision(id(.x509, 1), acceptNew: false), .known)
        guard case .mismatch(_, let line) = kh.lookup(id(.x509, 7)) else { return XCTFail("a changed key") }
        XCTAssertEqual(line, 3006, "the line number counts every line of the file")
    }

    /// A host that proved itself with a certificate an authority verified leaves an x509-ca
    /// record (once): any key nobody vouches for is then a change, refused as a changed pin is,
    /// even where new keys are trusted without asking (the kiosk).
    func testCertificateVerifiedByAnAuthorityMakesAnyOtherKeyAChange() throws {
        let kh = KnownHosts(path: path())
        kh.rememberVerified(server: "h:5900", fingerprint: [5, 5, 5])
        kh.rememberVerified(server: "h:5900", fingerprint: [6, 6, 6])   // a renewed certificate: no second record
        let text = try String(contentsOfFile: kh.path, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("h:5900 ") }, ["h:5900 x509-ca 050505"])
        for other in [id(.rsa, 1), id(.x509, 1)] {
            for acceptNew in [false, true] {
                guard case .reject(let why)? = kh.decision(other, acceptNew: acceptNew) else { return XCTFail("\(other.kind) after x509-ca: refused") }
                XCTAssertTrue(why.contains("HAS CHANGED"), why)
                XCTAssertTrue(why.contains("a certificate verified by a certificate authority"), why)
            }
        }
        XCTAssertNil(KnownHosts(path: kh.path).decision(ServerIdentity(kind: .rsa, server: "k:5900", fingerprint: [1], displayFingerprint: "",
                                                                       verifyError: nil, subject: nil), acceptNew: false), "another host: unknown")
    }

    /// Trusting a new key without asking (the kiosk, --trust-new-certificate) is only for a host
    /// with no record at all: one reached before (a security line) is refused with why.
    func testNewKeysAreTrustedWithoutAskingOnlyForHostsNeverReached() throws {
        let kh = KnownHosts(path: path())
        kh.rememberSecurity(server: "h:5900", .type(SecurityType.appleRemoteDesktop))
        guard case .reject(let why)? = kh.decision(id(.rsa, 1), acceptNew: true) else { return XCTFail("a host reached before: refused") }
        XCTAssertTrue(why.contains("reached before"), why)
        XCTAssertTrue(why.contains("security ARD"), why)
        XCTAssertNil(kh.decision(id(.rsa, 1), acceptNew: false), "on the desktop: asked")
        let fresh = ServerIdentity(kind: .rsa, server: "new:5900", fingerprint: [1], displayFingerprint: "", verifyError: nil, subject: nil)
        XCTAssertEqual(kh.decision(fresh, acceptNew: true), .accept, "never reached: trusted and remembered")
        XCTAssertEqual(kh.decision(fresh, acceptNew: true), .known)
    }
}
