import Foundation
import RFB
import VNCSession
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// QEMU's own VNC server (not TigerVNC's) with TLS x509 credentials: VeNCrypt X509None through
/// GnuTLS on the server side. No guest: the machine is paused (-S) without a display device, so
/// QEMU shows its blank "display not active" console; only size and security are checked.
final class QEMUInteropTests: XCTestCase {
    struct QEMU {
        let port: Int
        let caCert: String
    }

    /// A CA and a server certificate for localhost/127.0.0.1 under the names QEMU's
    /// tls-creds-x509 directory wants, and QEMU listening on loopback with them.
    func startQEMU() throws -> QEMU {
        guard let qemu = InteropTools.path("qemu-system-x86_64") else {
            let msg = "qemu-system-x86_64 not installed: run scripts/install-deps.sh (qemu-system-x86)"
            if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
            throw XCTSkip(msg)
        }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-qemu-\(getpid())-\(UUID().uuidString.prefix(6))")
        let creds = dir.appendingPathComponent("creds")
        try FileManager.default.createDirectory(at: creds, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let ext = dir.appendingPathComponent("ext.cnf")
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
            .write(to: ext, atomically: true, encoding: .utf8)
        let ca = creds.appendingPathComponent("ca-cert.pem").path
        let caKey = dir.appendingPathComponent("ca-key.pem").path
        let csr = dir.appendingPathComponent("server.csr").path
        try runTool("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca,
                                "-days", "2", "-subj", "/CN=Farcast QEMU Test CA"], in: dir)
        try runTool("openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", creds.appendingPathComponent("server-key.pem").path,
                                "-out", csr, "-subj", "/CN=localhost"], in: dir)
        try runTool("openssl", ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial",
                                "-out", creds.appendingPathComponent("server-cert.pem").path, "-days", "2", "-extfile", ext.path], in: dir)

        // QEMU takes a display number: port 5900+N, a free one on loopback
        var lastLog = ""
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            guard port > 5900 else { continue }
            let child = try ChildProcess(
                name: "qemu", executable: qemu,
                arguments: ["-nodefaults", "-S", "-display", "none",
                            "-vnc", "\(Loopback.host):\(port - 5900),tls-creds=tls0",
                            "-object", "tls-creds-x509,id=tls0,dir=\(creds.path),endpoint=server,verify-peer=no"],
                logURL: dir.appendingPathComponent("qemu.log"))
            addTeardownBlock { child.stop() }
            if poll(timeout: 15, { Loopback.isListening(port: port) || !child.isRunning }), child.isRunning {
                return QEMU(port: port, caCert: ca)
            }
            lastLog = child.logTail()
            child.stop()
        }
        throw HarnessError("QEMU did not start: \(lastLog)")
    }

    func options(_ methods: String, port: Int, ca: String?, trust: TrustEvaluator?) throws -> SnapshotOptions {
        var o = SnapshotOptions()
        o.settings.securityMethods = try SecurityMethod.parseList(methods)
        o.settings.serverName = Loopback.host
        o.settings.serverPort = port
        o.settings.x509CAFile = ca
        o.trust = trust
        o.quietSeconds = 0.5
        o.maxSeconds = 20
        return o
    }

    func testX509NoneWithTheTestCA() throws {
        let q = try startQEMU()
        // only X509None is allowed: success means X509None was used; the CA verifies the
        // certificate and host name, so nobody is asked to trust anything
        let asked = ResultCounter()
        let o = try options("X509None", port: q.port, ca: q.caCert, trust: { _ in asked.add(); return .reject("asked") })
        let log = LogLines()
        let r = try Snapshot.capture(HostSpec(host: Loopback.host, port: q.port), options: o) { log.append($0) }
        let lines = log.lines
        XCTAssertEqual(r.securityType, SecurityType.veNCrypt)
        XCTAssertEqual(asked.count, 0, "a certificate the CA signed is not offered for trust")
        XCTAssertGreaterThan(r.framebuffer.width, 0)
        XCTAssertGreaterThan(r.framebuffer.height, 0)
        XCTAssertEqual(r.desktopName, "QEMU")
        XCTAssertTrue(lines.contains { $0.contains("security: VeNCrypt") }, "\(lines)")
    }

    func testQEMUOffersOnlyX509NoneAndNothingElseIsUsed() throws {
        let q = try startQEMU()
        let o = try options("TLSNone,VncAuth,None", port: q.port, ca: q.caCert, trust: nil)
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: Loopback.host, port: q.port), options: o)) {
            XCTAssertTrue("\($0)".contains("server offers X509None"), "\($0)")
        }
    }

    func testWithoutTheCATheCertificateIsOfferedForTrust() throws {
        let q = try startQEMU()
        let seen = IdentityBox()
        let o = try options("X509None", port: q.port, ca: nil, trust: { id in seen.set(id); return .reject("not trusted in this test") })
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: Loopback.host, port: q.port), options: o)) {
            XCTAssertTrue("\($0)".contains("not trusted in this test"), "\($0)")
        }
        let id = try XCTUnwrap(seen.get(), "the trust evaluator was asked")
        XCTAssertEqual(id.kind, .x509)
        XCTAssertNotNil(id.verifyError)
        XCTAssertEqual(id.fingerprint.count, 32)
    }
}

private final class ResultCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var count: Int { lock.withLock { n } }
}

private final class IdentityBox: @unchecked Sendable {
    private let lock = NSLock()
    private var id: ServerIdentity?
    func set(_ v: ServerIdentity) { lock.withLock { id = v } }
    func get() -> ServerIdentity? { lock.withLock { id } }
}

