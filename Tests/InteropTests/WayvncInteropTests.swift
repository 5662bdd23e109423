import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `viewer snapshot` against Debian 12's wayvnc 0.5 on a headless sway (WayvncHarness.swift):
/// VeNCrypt X509Plain with the server's self-signed certificate given as --x509-ca, the user
/// name and password through VNC_USERNAME / VNC_PASSWORD.
final class WayvncInteropTests: XCTestCase {
    static let refused = "the server closed the connection after the login; the user name or password was probably refused"

    struct Run { let status: Int32; let stderr: String }

    /// The viewer as a user runs it: no terminal, no session bus, a private config directory.
    func snapshot(_ s: WayvncServer, password: String, to out: String, timeout: TimeInterval = 60) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: viewerPath)
        p.arguments = ["snapshot", "127.0.0.1::\(s.port)", "-o", out, "--security", "X509Plain",
                       "--x509-ca", s.certificate, "--known-hosts", s.dir.appendingPathComponent("known_hosts").path,
                       "--encodings", "zrle"]   // lossless: the picture must equal the screen
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        env["XDG_CONFIG_HOME"] = s.dir.appendingPathComponent("config").path
        env["VNC_USERNAME"] = WayvncServer.username
        env["VNC_PASSWORD"] = password
        p.environment = env
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        // a file, not a pipe: the viewer may not outlive the timeout with a full pipe
        let errURL = s.dir.appendingPathComponent("viewer-\(UUID().uuidString.prefix(6)).err")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        p.standardError = err
        try p.run()
        if !poll(timeout: timeout, interval: 0.02, { !p.isRunning }) {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTFail("viewer snapshot did not end within \(timeout) s")
        }
        try? err.close()
        return Run(status: p.terminationStatus, stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// What wayvnc logged from `offset` on (one viewer's connection), once it logged the close.
    func logAfter(_ s: WayvncServer, _ offset: Int, timeout: TimeInterval = 5) -> String {
        var part = ""
        _ = poll(timeout: timeout, interval: 0.05) {
            part = String(decoding: s.log.utf8.dropFirst(offset), as: UTF8.self)
            return part.contains("Closing client connection")
        }
        return part
    }

    // MARK: tests

    /// (a) The right user name and password: the picture is sway's screen (grim's screenshot),
    /// which is the scene.
    func testRightPasswordGivesTheServersScreen() throws {
        let s = try startWayvnc()
        let out = s.dir.appendingPathComponent("snap.png").path
        let r = try snapshot(s, password: WayvncServer.password, to: out)
        XCTAssertEqual(r.status, 0, r.stderr)
        let picture = try PNG.read(path: out)
        let screen = try s.captureScreen()
        assertImagesEqual(picture, screen, "wayvnc")
        XCTAssertEqual(screen, s.scene, "sway still shows the scene")
        XCTAssertTrue(s.log.contains("User \"\(WayvncServer.username)\" authenticated"), s.log)
    }

    /// (b) A wrong password: wayvnc 0.5 answers with a 1-byte SecurityResult 0, stack bytes and a
    /// close, which read as a ServerInit with an absurd name length. The viewer says the login
    /// was probably refused, in one line, and writes nothing.
    func testWrongPasswordIsReportedAsARefusedLogin() throws {
        let s = try startWayvnc()
        let out = s.dir.appendingPathComponent("bad.png").path
        for _ in 0..<2 {   // the stack bytes differ from one refusal to the next
            let r = try snapshot(s, password: "wrong-pw", to: out)
            XCTAssertNotEqual(r.status, 0)
            XCTAssertTrue(r.stderr.contains(Self.refused), r.stderr)
            XCTAssertFalse(r.stderr.contains("bytes long"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
        XCTAssertTrue(s.log.contains("User \"\(WayvncServer.username)\" rejected"), "the server really refused: \(s.log)")
        XCTAssertTrue(s.isRunning)
    }

    /// After the viewer leaves, wayvnc lets go of the connection and goes idle. wayvnc 0.5
    /// (neatvnc 0.5.4) busy-loops on a client that sent close_notify and then closed, and never
    /// logs it closed, so the viewer sends no close_notify to a desktop named "WayVNC" (it
    /// logs "Client connection error" instead, which harms nothing).
    func testWayvncLetsGoOfTheViewerAndGoesIdle() throws {
        let s = try startWayvnc()
        let before = s.log.utf8.count
        let r = try snapshot(s, password: WayvncServer.password, to: s.dir.appendingPathComponent("snap.png").path)
        XCTAssertEqual(r.status, 0, r.stderr)
        let part = logAfter(s, before)
        XCTAssertTrue(part.contains("Closing client connection"), "wayvnc still holds the viewer's connection:\n\(part)")
        Thread.sleep(forTimeInterval: 0.5)
        guard let c0 = s.cpuSeconds else { throw HarnessError("wayvnc's CPU time unreadable") }
        Thread.sleep(forTimeInterval: 2)
        guard let c1 = s.cpuSeconds else { throw HarnessError("wayvnc's CPU time unreadable") }
        XCTAssertLessThan(c1 - c0, 0.5, "wayvnc used \(c1 - c0) s of CPU in 2 s with no client")
    }
}
