import Foundation
import RFB
import VNCSession
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real `viewer` in a window under Xvfb against a real Xvnc with VNC authentication and no
/// password given: the password is typed (xdotool) into the window's prompt.
final class WindowPromptInteropTests: XCTestCase {

    struct Setup {
        let dir: URL
        let env: [String: String]
        let viewer: ChildProcess
        let window: String
    }

    /// Xvnc with VncAuth, a local Xvfb and the viewer in it (no VNC_PASSWORD, no password file).
    func start(_ name: String, extraArgs: [String] = [], password: String = "s3cret-pw") throws -> Setup {
        try InteropTools.skipUnlessAvailable()
        _ = try InteropTools.need("xdotool")
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        // the children inherit our environment: no password may come from it
        unsetenv("VNC_PASSWORD"); unsetenv("VNC_USERNAME")

        var o = VNCServer.Options()
        o.content = .blank
        o.security = .vncAuth(password: password)
        let server = try startServer(.xvnc, o)

        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let env = ["DISPLAY": ":\(local)"]
        let viewer = try ChildProcess(name: "viewer", executable: viewerPath,
                                      arguments: ["127.0.0.1::\(server.port)", "-v"] + extraArgs,
                                      logURL: dir.appendingPathComponent("viewer.log"),
                                      environment: env.merging(["SDL_VIDEODRIVER": "x11", "XDG_CONFIG_HOME": dir.path]) { $1 })
        addTeardownBlock { viewer.stop() }
        var win = ""
        XCTAssertTrue(poll(timeout: 20) {
            guard let r = try? runTool("xdotool", ["search", "--name", "Farcast"], in: dir, environment: env, allowFailure: true) else { return false }
            win = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            return !win.isEmpty
        }, "viewer window: \(viewer.logTail())")
        _ = try runTool("xdotool", ["windowmove", win, "0", "0", "windowsize", win, "1024", "768"], in: dir, environment: env, allowFailure: true)
        // the session asks once the server has offered VncAuth
        XCTAssertTrue(poll(timeout: 15) { viewer.log.contains("authenticating") }, "session authenticating: \(viewer.logTail())")
        Thread.sleep(forTimeInterval: 1.0)
        // no window manager: a click gives the window the keyboard (on the prompt's field: it focuses it)
        _ = try runTool("xdotool", ["mousemove", "--sync", "512", "400", "click", "1"], in: dir, environment: env, allowFailure: true)
        Thread.sleep(forTimeInterval: 0.3)
        return Setup(dir: dir, env: env, viewer: viewer, window: win)
    }

    func title(_ s: Setup) -> String {
        guard let n = try? runTool("xdotool", ["getwindowname", s.window], in: s.dir, environment: s.env, allowFailure: true) else { return "" }
        return String(decoding: n.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testPasswordTypedIntoTheWindowPrompt() throws {
        let s = try start("window-prompt")
        // a picture of the prompt (kept outside the test directory for a person to look at)
        let shot = s.dir.appendingPathComponent("prompt.png")
        _ = try runTool("import", ["-window", "root", shot.path], in: s.dir, environment: s.env, allowFailure: true)
        let keep = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-window-prompt.png")
        try? FileManager.default.removeItem(at: keep)
        try? FileManager.default.copyItem(at: shot, to: keep)
        XCTAssertTrue(title(s).contains("connecting"), "not ready before the password: \(title(s))")

        // a wrong character, corrected with Backspace, then the rest and Enter
        _ = try runTool("xdotool", ["type", "--delay", "60", "s3cret-pX"], in: s.dir, environment: s.env)
        _ = try runTool("xdotool", ["key", "--delay", "60", "BackSpace", "w", "Return"], in: s.dir, environment: s.env)
        XCTAssertTrue(poll(timeout: 15) { let t = title(s); return t.hasSuffix("— Farcast") && !t.contains("connecting") },
                      "session ready (title \(title(s))): \(s.viewer.logTail())")
        XCTAssertFalse(s.viewer.log.contains("s3cret"), "the password is never logged")
    }

    /// A password typed into the window is used for the login and then gone from the process:
    /// after the session is up, the viewer's memory (read through /proc as root) holds no copy
    /// of it. Before, the session kept the typed credentials for the life of the process (to
    /// save them, even without --save-password), and the engine zeroed a copy of its array.
    func testTypedPasswordIsNotKeptInMemory() throws {
        guard geteuid() == 0 else { throw XCTSkip("reading another process's memory needs root") }
        let password = "Qz7-farcast-\(UUID().uuidString.prefix(6))"
        let s = try start("window-prompt-memory", password: password)
        _ = try runTool("xdotool", ["type", "--delay", "40", password], in: s.dir, environment: s.env)
        _ = try runTool("xdotool", ["key", "Return"], in: s.dir, environment: s.env)
        XCTAssertTrue(poll(timeout: 15) { let t = title(s); return t.hasSuffix("— Farcast") && !t.contains("connecting") },
                      "session ready (title \(title(s))): \(s.viewer.logTail())")
        Thread.sleep(forTimeInterval: 1)
        let found = try ProcessMemory.find(Array(password.utf8), pid: s.viewer.pid)
        XCTAssertEqual(found, [], "the typed password is still in the viewer's memory at \(found.map { String($0, radix: 16) })")
        // the search itself works: a string the viewer holds by design (its server's address) is found
        XCTAssertFalse(try ProcessMemory.find(Array("farcast-interop".utf8), pid: s.viewer.pid).isEmpty, "the desktop name")
    }

    /// The desktop meets an RSA-AES key for the first time, with a password saved for that
    /// server: the key is asked about, and then the password is asked for with the saved one
    /// filled in (a key seen for the first time proves nothing), so Enter logs in. Before, once
    /// the key was accepted, the saved password went without a question.
    func testKeySeenFirstAsksWithTheSavedPasswordFilledIn() throws {
        try InteropTools.skipUnlessAvailable()
        _ = try InteropTools.need("xdotool")
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-ra2-window-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        unsetenv("VNC_PASSWORD"); unsetenv("VNC_USERNAME")
        let ra2 = try SecurityRSAAESTests.start(for: self, type: SecurityType.ra2_256, user: "pi", password: "pw-saved-1")
        let config = dir.appendingPathComponent("config").path
        try FileCredentialStore(path: config + "/farcast/credentials")
            .save(server: "127.0.0.1:\(ra2.port)", credentials: Credentials(username: "pi", password: Array("pw-saved-1".utf8)))
        let local = try startLocalXvfb(avoiding: [], size: "1024x768", dir: dir)
        let env = ["DISPLAY": ":\(local)"]
        let viewer = try ChildProcess(name: "viewer", executable: viewerPath,
                                      arguments: ["127.0.0.1::\(ra2.port)", "--security", "RA2_256", "--encodings", "raw", "-v"],
                                      logURL: dir.appendingPathComponent("viewer.log"),
                                      environment: env.merging(["SDL_VIDEODRIVER": "x11", "XDG_CONFIG_HOME": config,
                                                                "DBUS_SESSION_BUS_ADDRESS": ""]) { $1 })
        addTeardownBlock { viewer.stop() }
        var win = ""
        XCTAssertTrue(poll(timeout: 20) {
            guard let r = try? runTool("xdotool", ["search", "--name", "Farcast"], in: dir, environment: env, allowFailure: true) else { return false }
            win = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            return !win.isEmpty
        }, "viewer window: \(viewer.logTail())")
        let s = Setup(dir: dir, env: env, viewer: viewer, window: win)
        _ = try runTool("xdotool", ["windowmove", win, "0", "0", "windowsize", win, "1024", "768"], in: dir, environment: env, allowFailure: true)
        XCTAssertTrue(poll(timeout: 15) { viewer.log.contains("authenticating") }, "session authenticating: \(viewer.logTail())")
        Thread.sleep(forTimeInterval: 1.0)
        _ = try runTool("xdotool", ["mousemove", "--sync", "5", "5", "click", "1"], in: dir, environment: env, allowFailure: true)
        Thread.sleep(forTimeInterval: 0.3)
        // the key prompt: Tab to "Accept and remember", Enter
        _ = try runTool("xdotool", ["key", "--delay", "100", "Tab", "Return"], in: dir, environment: env)
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertTrue(title(s).contains("connecting"), "the saved password went without asking (title \(title(s))): \(viewer.logTail())")
        // the password prompt, the saved one filled in: Enter sends it
        _ = try runTool("xdotool", ["key", "Return"], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 15) { let t = title(s); return t.hasSuffix("— Farcast") && !t.contains("connecting") },
                      "logged in with the saved password (title \(title(s))): \(viewer.logTail()) \(ra2.process.logTail())")
        XCTAssertFalse(viewer.log.contains("pw-saved-1"))
    }

    func testEscapeCancelsWithAClearFailure() throws {
        let s = try start("window-prompt-cancel", extraArgs: ["--on-disconnect", "quit", "--reconnect", "always"])
        _ = try runTool("xdotool", ["type", "--delay", "60", "abc"], in: s.dir, environment: s.env)
        _ = try runTool("xdotool", ["key", "Escape"], in: s.dir, environment: s.env)
        XCTAssertTrue(s.viewer.waitExit(timeout: 10), "viewer exits after cancel: \(s.viewer.logTail())")
        XCTAssertNotEqual(s.viewer.process.terminationStatus, 0)
        XCTAssertTrue(s.viewer.log.contains("viewer: authentication cancelled"), s.viewer.logTail())
        // not retried, even with --reconnect always
        XCTAssertEqual(s.viewer.log.components(separatedBy: "authenticating").count - 1, 1, s.viewer.logTail())
    }
}
