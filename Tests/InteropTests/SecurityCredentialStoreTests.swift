import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--save-password` end to end: `viewer snapshot` against a real Xvnc with VNC authentication,
/// once with VNC_PASSWORD and --save-password, then with no password at all (from the store).
/// No session bus here (DBUS_SESSION_BUS_ADDRESS removed), so the store is the 0600 file under a
/// private XDG_CONFIG_HOME; the Secret Service path is tested against a real gnome-keyring-daemon
/// in VNCSessionTests.CredentialStoreTests.
final class SecurityCredentialStoreTests: XCTestCase {

    func viewer(_ args: [String], env: [String: String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: viewerPath)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        for k in ["VNC_PASSWORD", "VNC_USERNAME", "DBUS_SESSION_BUS_ADDRESS"] { e.removeValue(forKey: k) }
        for (k, v) in env { e[k] = v }
        p.environment = e
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let err = Pipe()
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = err
        try p.run()
        let r = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: r, as: UTF8.self))
    }

    func testSavePasswordThenConnectFromTheStore() throws {
        var o = VNCServer.Options()
        o.security = .vncAuth(password: "farcast1")
        o.content = .scene
        let server = try startServer(.xvnc, o)
        let screen = try server.captureStableScreen()
        let dir = NSTemporaryDirectory() + "farcast-savepw-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config", out = dir + "/snap.png"
        let store = config + "/farcast/credentials"
        let target = "127.0.0.1::\(server.port)"

        // Without --save-password nothing is saved.
        let plain = try viewer(["snapshot", target, "-o", out], env: ["XDG_CONFIG_HOME": config, "VNC_PASSWORD": "farcast1"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))

        // A wrong password is not saved.
        let bad = try viewer(["snapshot", target, "-o", out, "--save-password"], env: ["XDG_CONFIG_HOME": config, "VNC_PASSWORD": "wrong-pw"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("authentication failed"), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))

        // The right one with --save-password: saved after the login, 0600, password never shown.
        let first = try viewer(["snapshot", target, "-o", out, "--save-password"], env: ["XDG_CONFIG_HOME": config, "VNC_PASSWORD": "farcast1"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("saved the password for 127.0.0.1:\(server.port) in \(store)"), first.stderr)
        XCTAssertFalse(first.stderr.contains("farcast1"), first.stderr)
        var st = stat()
        XCTAssertEqual(stat(store, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        XCTAssertEqual(stat(config + "/farcast", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        try FileManager.default.removeItem(atPath: out)

        // No password at all, no terminal: from the store.
        let second = try viewer(["snapshot", target, "-o", out], env: ["XDG_CONFIG_HOME": config])
        XCTAssertEqual(second.status, 0, second.stderr)
        assertImagesEqual(try PNG.read(path: out), screen, "saved-password")

        // Another config (nothing saved): the usual message.
        let none = try viewer(["snapshot", target, "-o", out], env: ["XDG_CONFIG_HOME": dir + "/empty"])
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("VNC_PASSWORD"), none.stderr)
    }

    /// A password saved from an encrypted login goes on its own only to a server whose
    /// identity is checked. Over anonymous TLS (TLSVnc) it is not sent without asking: with no
    /// terminal to ask on, the connection is refused saying so. With a certificate seen for the
    /// first time (accepted by --trust-new-certificate) likewise; once that certificate is the
    /// remembered one, or verified through --x509-ca, the saved password is used. Before, the
    /// saved password went over anonymous TLS and to the new certificate without a word.
    func testSavedPasswordGoesOnItsOwnOnlyToACheckedServer() throws {
        let pki = try SecurityInteropTests.makePKI(for: self)
        var o = VNCServer.Options()
        o.security = .vncAuth(password: "farcast1")
        o.content = .scene
        o.extraArguments = ["-SecurityTypes", "X509Vnc,TLSVnc", "-X509Cert", pki.serverCert, "-X509Key", pki.serverKey]
        let server = try startServer(.xvnc, o)
        let screen = try server.captureStableScreen()
        let dir = NSTemporaryDirectory() + "farcast-savedtls-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_CONFIG_HOME": dir + "/config"]
        let target = "127.0.0.1::\(server.port)", out = dir + "/snap.png"

        // given and saved over X509Vnc (an encrypted login: the protected entry)
        let save = try viewer(["snapshot", target, "-o", out, "--security", "X509Vnc", "--trust-new-certificate", "--save-password"],
                              env: env.merging(["VNC_PASSWORD": "farcast1"]) { $1 })
        XCTAssertEqual(save.status, 0, save.stderr)
        XCTAssertTrue(save.stderr.contains("saved the password for 127.0.0.1:\(server.port)"), save.stderr)
        // as if this host's certificate had never been seen (another machine's known hosts)
        try FileManager.default.removeItem(atPath: dir + "/config/farcast/known_hosts")

        // a certificate seen for the first time (trusted as new, and remembered): not sent
        let first = try viewer(["snapshot", target, "-o", out, "--security", "X509Vnc", "--trust-new-certificate"], env: env)
        XCTAssertNotEqual(first.status, 0, "sent to a certificate seen for the first time: \(first.stderr)")
        XCTAssertTrue(first.stderr.contains("a password is saved for 127.0.0.1:\(server.port), but X509Vnc does not prove"), first.stderr)
        XCTAssertFalse(first.stderr.contains("farcast1"))

        // the same certificate, now the remembered one: the saved password goes
        try? FileManager.default.removeItem(atPath: out)
        let pinned = try viewer(["snapshot", target, "-o", out, "--security", "X509Vnc"], env: env)
        XCTAssertEqual(pinned.status, 0, pinned.stderr)
        assertImagesEqual(try PNG.read(path: out), screen, "saved password, pinned certificate")

        // anonymous TLS (named, so not refused as a downgrade), nothing given: not sent without asking
        let anon = try viewer(["snapshot", target, "-o", out, "--security", "TLSVnc"], env: env)
        XCTAssertNotEqual(anon.status, 0, "sent over anonymous TLS: \(anon.stderr)")
        XCTAssertTrue(anon.stderr.contains("but TLSVnc does not prove"), anon.stderr)

        // verified through the CA: the saved password goes
        try FileManager.default.removeItem(atPath: out)
        let verified = try viewer(["snapshot", target, "-o", out, "--security", "X509Vnc", "--x509-ca", pki.caCert], env: env)
        XCTAssertEqual(verified.status, 0, verified.stderr)
        XCTAssertEqual(try PNG.read(path: out).width, screen.width, "logged in: a snapshot of the desktop")
    }
}
