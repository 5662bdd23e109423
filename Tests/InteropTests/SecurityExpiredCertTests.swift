import Foundation
import XCTest
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// A real Xvnc (X509None) serving a certificate that expired in 2021, issued by a CA made here
/// with `openssl ca -startdate/-enddate`: the viewer given that CA does not connect, and says
/// the certificate has expired (OpenSSL's verify error) and what to do about it.
final class SecurityExpiredCertTests: XCTestCase {
    struct PKI { var dir: String; var ca: String { dir + "/ca.pem" }; var cert: String { dir + "/server.pem" }; var key: String { dir + "/server.key" } }

    func makeExpiredPKI() throws -> PKI {
        let dir = NSTemporaryDirectory() + "farcast-expired-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let u = URL(fileURLWithPath: dir)
        try """
            [ca]
            default_ca = test
            [test]
            dir = \(dir)
            database = \(dir)/index.txt
            new_certs_dir = \(dir)
            serial = \(dir)/serial
            default_md = sha256
            policy = anything
            unique_subject = no
            [anything]
            commonName = supplied
            [ext]
            subjectAltName = DNS:localhost,IP:127.0.0.1
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature,keyEncipherment
            extendedKeyUsage = serverAuth

            """.write(toFile: dir + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: dir + "/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: dir + "/serial", atomically: true, encoding: .utf8)
        let p = PKI(dir: dir)
        try runTool("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/ca.key", "-out", p.ca,
                                "-days", "2", "-subj", "/CN=Farcast Test CA"], in: u)
        try runTool("openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", p.key, "-out", dir + "/server.csr",
                                "-subj", "/CN=localhost"], in: u)
        // Valid from 2020-01-01 to 2021-01-01: long expired, otherwise in order.
        try runTool("openssl", ["ca", "-batch", "-config", dir + "/ca.cnf", "-cert", p.ca, "-keyfile", dir + "/ca.key", "-in", dir + "/server.csr",
                                "-out", p.cert, "-startdate", "20200101000000Z", "-enddate", "20210101000000Z",
                                "-extensions", "ext", "-notext"], in: u)
        return p
    }

    func testExpiredCertificateIsRefusedWithAClearMessage() throws {
        let pki = try makeExpiredPKI()
        var o = VNCServer.Options()
        o.content = .scene
        o.extraArguments = ["-SecurityTypes", "X509None", "-X509Cert", pki.cert, "-X509Key", pki.key]
        let server = try startServer(.xvnc, o)

        // The engine without a trust evaluator: refused, the reason named.
        var so = SnapshotOptions()
        so.settings.securityMethods = try SecurityMethod.parseList("X509None")
        so.settings.serverName = "127.0.0.1"
        so.settings.serverPort = server.port
        so.settings.x509CAFile = pki.ca
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: server.port), options: so)) {
            let m = "\($0)"
            XCTAssertTrue(m.contains("did not verify (certificate has expired)"), m)
            XCTAssertTrue(m.contains("The certificate has expired: renew it on the server"), m)
            XCTAssertFalse(m.contains("Give its CA with --x509-ca"), "misleading advice: \(m)")
        }

        // The viewer with --x509-ca and no terminal: one line, non-zero, nothing remembered.
        let known = pki.dir + "/known_hosts"
        let p = Process()
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        p.executableURL = [dir, dir.deletingLastPathComponent()].map { $0.appendingPathComponent("viewer") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? InteropTools.repoRoot.appendingPathComponent(".build/debug/viewer")
        p.arguments = ["snapshot", "127.0.0.1::\(server.port)", "-o", pki.dir + "/x.png", "--security", "X509None",
                       "--x509-ca", pki.ca, "--known-hosts", known]
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let err = Pipe()
        p.standardError = err
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertNotEqual(p.terminationStatus, 0)
        XCTAssertEqual(text.split(separator: "\n").count, 1, text)
        XCTAssertTrue(text.contains("the certificate of 127.0.0.1:\(server.port) is not trusted (certificate has expired)"), text)
        XCTAssertTrue(text.contains("renew it on the server"), text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pki.dir + "/x.png"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: known))
    }
}
