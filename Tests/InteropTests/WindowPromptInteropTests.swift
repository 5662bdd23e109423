import Foundation
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
    func start(_ name: String, extraArgs: [String] = []) throws -> Setup {
        try InteropTools.skipUnlessAvailable()
        _ = try InteropTools.need("xdotool")
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        // the children inherit our environment: no password may come from it
        unsetenv("VNC_PASSWORD"); unsetenv("VNC_USERNAME")

        var o = VNCServer.Options()
        o.content = .blank
        o.security = .vncAuth(password: "s3cret-pw")
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
