import Foundation
import XCTest
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// VeNCrypt against a real TigerVNC Xvnc (1.12, GnuTLS) with each -SecurityTypes value:
/// anonymous TLS, X509 certificates made here with openssl, VNC passwords and Plain user names
/// checked by PAM (a private PAM service file bind-mounted in a private mount namespace, so no
/// system account or file is touched).
final class SecurityInteropTests: XCTestCase {

    // MARK: certificates

    struct TestPKI {
        let dir: URL
        var caCert: String { dir.appendingPathComponent("ca.pem").path }
        var serverCert: String { dir.appendingPathComponent("server.pem").path }
        var serverKey: String { dir.appendingPathComponent("server.key").path }
        var otherCert: String { dir.appendingPathComponent("other.pem").path }
        var otherKey: String { dir.appendingPathComponent("other.key").path }
    }

    /// A CA, a server certificate for localhost/127.0.0.1 signed by it, and an unrelated
    /// self-signed certificate (the "changed" one).
    func makePKI() throws -> TestPKI { try SecurityInteropTests.makePKI(for: self) }

    static func makePKI(for test: XCTestCase) throws -> TestPKI {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-sec-pki-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let p = TestPKI(dir: dir)
        let ext = dir.appendingPathComponent("ext.cnf")
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
            .write(to: ext, atomically: true, encoding: .utf8)
        try runTool("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.appendingPathComponent("ca.key").path,
                                "-out", p.caCert, "-days", "2", "-subj", "/CN=Farcast Test CA"], in: dir)
        try runTool("openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", p.serverKey,
                                "-out", dir.appendingPathComponent("server.csr").path, "-subj", "/CN=localhost"], in: dir)
        try runTool("openssl", ["x509", "-req", "-in", dir.appendingPathComponent("server.csr").path, "-CA", p.caCert,
                                "-CAkey", dir.appendingPathComponent("ca.key").path, "-CAcreateserial", "-out", p.serverCert,
                                "-days", "2", "-extfile", ext.path], in: dir)
        try runTool("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p.otherKey, "-out", p.otherCert,
                                "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], in: dir)
        return p
    }

    // MARK: helpers

    func xvnc(_ types: String, password: String? = nil, pki: TestPKI? = nil, cert: String? = nil, key: String? = nil) throws -> VNCServer {
        var o = VNCServer.Options()
        o.content = .scene
        if let password { o.security = .vncAuth(password: password) }
        // Later -SecurityTypes wins over the harness's own.
        o.extraArguments = ["-SecurityTypes", types]
        if let pki {
            o.extraArguments += ["-X509Cert", cert ?? pki.serverCert, "-X509Key", key ?? pki.serverKey]
        }
        return try startServer(.xvnc, o)
    }

    func settings(_ methods: String, host: String = "127.0.0.1", port: Int, password: String? = nil,
                  user: String? = nil, ca: String? = nil, trust: TrustEvaluator? = nil) throws -> SnapshotOptions {
        var o = SnapshotOptions()
        o.settings.securityMethods = try SecurityMethod.parseList(methods)
        o.settings.encodings = [Encoding.zrle]
        o.settings.password = password.map { Array($0.utf8) }
        o.settings.username = user
        o.settings.serverName = host
        o.settings.serverPort = port
        o.settings.x509CAFile = ca
        o.trust = trust
        o.quietSeconds = 0.7
        return o
    }

    @discardableResult
    func snap(_ server: VNCServer, _ o: SnapshotOptions, host: String = "127.0.0.1", compare: Bool = true,
              file: StaticString = #filePath, line: UInt = #line) throws -> SnapshotResult {
        let r = try Snapshot.capture(HostSpec(host: host, port: server.port), options: o)
        if compare {
            let screen = try server.captureStableScreen()
            assertImagesEqual(RGBImage(r.framebuffer), screen, "security", file: file, line: line)
        }
        return r
    }

    func assertFails(_ server: VNCServer, _ o: SnapshotOptions, _ fragment: String, host: String = "127.0.0.1",
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: host, port: server.port), options: o), file: file, line: line) {
            XCTAssertTrue("\($0)".contains(fragment), "error '\($0)' lacks '\(fragment)'", file: file, line: line)
        }
    }

    // MARK: anonymous TLS

    func testTLSNone() throws {
        let s = try xvnc("TLSNone")
        let r = try snap(s, try settings("TLSNone", port: s.port))
        XCTAssertEqual(r.securityType, SecurityType.veNCrypt)
    }

    /// Leaving ends the TLS session with close_notify: Xvnc (GnuTLS) logs a plain close, not
    /// "readTLS: The TLS connection was non-properly terminated" as it does for a viewer killed.
    func testTLSSessionEndsWithCloseNotify() throws {
        let s = try xvnc("TLSNone")
        try snap(s, try settings("TLSNone", port: s.port), compare: false)
        XCTAssertTrue(poll(timeout: 5) { s.vncProcess.logTail(40).contains("Connections: closed") }, s.vncProcess.logTail(40))
        XCTAssertFalse(s.vncProcess.logTail(40).contains("non-properly"), s.vncProcess.logTail(40))
    }

    func testTLSVncAndWrongPassword() throws {
        let s = try xvnc("TLSVnc", password: "farcast1")
        try snap(s, try settings("TLSVnc", port: s.port, password: "farcast1"))
        assertFails(s, try settings("TLSVnc", port: s.port, password: "wrong"), "authentication failed")
        assertFails(s, try settings("TLSVnc", port: s.port), "--password-file")
    }

    func testNothingInCommon() throws {
        let s = try xvnc("TLSVnc", password: "farcast1")
        // The user excluded everything encrypted the server has: no silent fallback.
        assertFails(s, try settings("VncAuth,None", port: s.port), "no common security type: server offers VeNCrypt")
        let t = try xvnc("X509None,TLSNone")
        assertFails(t, try settings("TLSVnc,X509Plain", port: t.port), "no common VeNCrypt subtype: server offers X509None, TLSNone")
    }

    // MARK: certificates

    func testX509NoneWithCA() throws {
        let pki = try makePKI()
        let s = try xvnc("X509None", pki: pki)
        // Verified through --x509-ca: no trust question asked.
        let asked = Counter()
        try snap(s, try settings("X509None", port: s.port, ca: pki.caCert, trust: { _ in asked.add(); return .reject("asked") }))
        XCTAssertEqual(asked.value, 0)
        // by name too (host name checking against DNS:localhost)
        try snap(s, try settings("X509None", host: "localhost", port: s.port, ca: pki.caCert), host: "localhost", compare: false)
    }

    func testX509VncUnverifiedCertificateIsAskedAbout() throws {
        let pki = try makePKI()
        let s = try xvnc("X509Vnc", password: "farcast1", pki: pki)
        // Without the CA: refused by default with the fingerprint and the way out.
        assertFails(s, try settings("X509Vnc", port: s.port, password: "farcast1"), "did not verify")
        assertFails(s, try settings("X509Vnc", port: s.port, password: "farcast1"), "SHA-256 fingerprint")
        // An evaluator that accepts: connects; it saw the certificate's real fingerprint.
        let seen = Box<ServerIdentity>()
        try snap(s, try settings("X509Vnc", port: s.port, password: "farcast1", trust: { seen.set($0); return .accept }))
        let der = try runTool("openssl", ["x509", "-in", pki.serverCert, "-outform", "DER"], in: pki.dir).stdout
        let fp = try runTool("openssl", ["dgst", "-sha256", "-hex"], in: pki.dir, stdin: der).stdout
        let hex = String(decoding: fp, as: UTF8.self).split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        XCTAssertEqual(seen.value?.displayFingerprint.replacingOccurrences(of: ":", with: "").lowercased(), hex)
        XCTAssertNotNil(seen.value?.verifyError)
        // Wrong host name with the right CA: host name checking fails, so it is asked about.
        let seen2 = Box<ServerIdentity>()
        assertFails(s, try settings("X509Vnc", host: "127.0.0.2", port: s.port, password: "farcast1", ca: pki.caCert,
                                    trust: { seen2.set($0); return .reject("refused by test") }), "refused by test", host: "127.0.0.1")
        XCTAssertEqual(seen2.value?.verifyError?.contains("mismatch"), true, "\(seen2.value?.verifyError ?? "nil")")
    }

    func testKnownHostsTOFUAndChangedCertificate() throws {
        let pki = try makePKI()
        let file = pki.dir.appendingPathComponent("known_hosts").path
        let s = try xvnc("X509None", pki: pki)
        // First use: accepted by the user, remembered.
        let kh = KnownHosts(path: file)
        try snap(s, try settings("X509None", port: s.port, trust: kh.evaluator(ask: { _ in true })), compare: false)
        // Second use: known, not asked.
        try snap(s, try settings("X509None", port: s.port, trust: kh.evaluator(ask: { _ in XCTFail("asked again"); return false })), compare: false)
        // Same port, another certificate: refused loudly, not asked.
        s.stop()
        var o = VNCServer.Options()
        o.content = .blank
        o.extraArguments = ["-SecurityTypes", "X509None", "-X509Cert", pki.otherCert, "-X509Key", pki.otherKey]
        let s2 = try startServer(.xvnc, o)
        // The known-hosts key is the host:port the user asked for; the new server sits on another
        // port, so the settings name the old one, as if the same server had changed its key.
        var changed = try settings("X509None", port: s.port, trust: kh.evaluator(ask: { _ in XCTFail("asked about a changed key"); return true }))
        changed.settings.serverPort = s.port
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s2.port), options: changed)) {
            XCTAssertTrue("\($0)".contains("CHANGED"), "\($0)")
        }
    }

    // MARK: Plain through PAM

    /// Xvnc with a private PAM service: user "farcast", password "plain-pw-1".
    func xvncPlain(_ types: String, pki: TestPKI? = nil) throws -> PlainServer {
        try PlainServer.start(types: types, pki: pki, test: self)
    }

    func testPlainTLSPlainX509Plain() throws {
        let pki = try makePKI()
        let s = try xvncPlain("Plain,TLSPlain,X509Plain", pki: pki)
        for method in ["X509Plain", "TLSPlain", "Plain"] {
            var o = try settings(method, port: s.port, password: "plain-pw-1", user: "farcast", ca: pki.caCert)
            o.settings.encodings = [Encoding.zrle]
            let r = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port), options: o)
            XCTAssertEqual(r.framebuffer.width, 640, method)
            XCTAssertEqual(RGBImage(r.framebuffer), try s.capture(), method)
        }
        assertFailsPlain(s, try settings("X509Plain", port: s.port, password: "wrong", user: "farcast", ca: pki.caCert), "authentication failed")
        assertFailsPlain(s, try settings("TLSPlain", port: s.port, password: "plain-pw-1", user: "mallory"), "authentication failed")
        assertFailsPlain(s, try settings("TLSPlain", port: s.port), "user name and password")
    }

    func assertFailsPlain(_ s: PlainServer, _ o: SnapshotOptions, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port), options: o), file: file, line: line) {
            XCTAssertTrue("\($0)".contains(fragment), "error '\($0)' lacks '\(fragment)'", file: file, line: line)
        }
    }
}

/// Thread-safe little holders for closures the engine calls.
final class Counter: @unchecked Sendable {
    private let l = NSLock(); private var n = 0
    func add() { l.withLock { n += 1 } }
    var value: Int { l.withLock { n } }
}
final class Box<T: Sendable>: @unchecked Sendable {
    private let l = NSLock(); private var v: T?
    func set(_ x: T) { l.withLock { v = x } }
    var value: T? { l.withLock { v } }
}

/// Xvnc whose PAM service "tigervnc" is replaced, inside a private mount namespace, by one that
/// accepts exactly user "farcast" with password "plain-pw-1" (pam_exec and a shell script).
final class PlainServer: @unchecked Sendable {
    let port: Int
    let display: Int
    let dir: URL
    let process: ChildProcess

    private init(port: Int, display: Int, dir: URL, process: ChildProcess) {
        self.port = port; self.display = display; self.dir = dir; self.process = process
    }

    static func start(types: String, pki: SecurityInteropTests.TestPKI?, test: XCTestCase) throws -> PlainServer {
        try InteropTools.skipUnlessAvailable()
        guard getuid() == 0, let unshare = InteropTools.path("unshare") else {
            throw XCTSkip("Plain needs a private mount namespace (root and unshare) for its test PAM service")
        }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-sec-plain-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let check = dir.appendingPathComponent("check.sh")
        // pam_exec hands the password on stdin, NUL-terminated.
        try "#!/bin/sh\npw=$(head -c 256 | tr -d '\\000\\n')\n[ \"$PAM_USER\" = farcast ] && [ \"$pw\" = plain-pw-1 ]\n"
            .write(to: check, atomically: true, encoding: .utf8)
        chmod(check.path, 0o755)
        let pam = dir.appendingPathComponent("tigervnc.pam")
        try "auth required pam_exec.so expose_authtok quiet \(check.path)\naccount required pam_permit.so\nsession required pam_permit.so\n"
            .write(to: pam, atomically: true, encoding: .utf8)
        var lastError: Error = HarnessError("not started")
        for _ in 0..<4 {
            let display = try XDisplays.freeDisplay()
            let port = try Loopback.freePort()
            var xargs = [":\(display)", "-rfbport", "\(port)", "-interface", Loopback.host, "-geometry", "640x480", "-depth", "24",
                         "-nolisten", "tcp", "-noreset", "-SecurityTypes", types, "-PlainUsers", "farcast", "-PAMService", "tigervnc"]
            if let pki { xargs += ["-X509Cert", pki.serverCert, "-X509Key", pki.serverKey] }
            let cmd = "mount --bind '\(pam.path)' /etc/pam.d/tigervnc && exec \(try InteropTools.need("Xvnc")) " + xargs.map { "'\($0)'" }.joined(separator: " ")
            let p = try ChildProcess(name: "Xvnc-plain", executable: unshare,
                                     arguments: ["--mount", "--propagation", "private", "/bin/sh", "-c", cmd],
                                     logURL: dir.appendingPathComponent("Xvnc.log"))
            let s = PlainServer(port: port, display: display, dir: dir, process: p)
            let ok = poll(timeout: 30, interval: 0.1) { !p.isRunning || Loopback.rfbBanner(port: port)?.hasPrefix("RFB ") == true }
            if ok && p.isRunning {
                test.addTeardownBlock { s.stop() }
                return s
            }
            lastError = HarnessError("Xvnc (Plain) did not start: \(p.logTail())")
            s.stop()
        }
        throw lastError
    }

    func capture() throws -> RGBImage {
        try captureDisplay(":\(display)", in: dir)
    }

    func stop() {
        process.stop()
        XDisplays.removeLeftovers(display: display, pid: process.pid)
        try? FileManager.default.removeItem(at: dir)
    }
}
