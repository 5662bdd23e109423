import Foundation
import XCTest

/// LED State against a real Xvnc: the server's Caps Lock follows the local keyboard's. Caps
/// Lock turned on at the server (as another viewer or a program would) is turned off again by
/// the viewer, whose local Caps Lock is off; turned on locally, the server's follows.
final class LockKeysInteropTests: XCTestCase {
    func capsLock(_ display: String, dir: URL) -> Bool? {
        guard let r = try? runTool("xset", ["-display", display, "q"], in: dir, allowFailure: true) else { return nil }
        let text = String(decoding: r.stdout, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Caps Lock:") }) else { return nil }
        return line.replacingOccurrences(of: " ", with: "").contains("CapsLock:on")
    }

    func testServerCapsLockFollowsTheLocalKeyboard() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-leds-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir)
        let x = ["DISPLAY": ":\(local)"]
        _ = try runTool("xdotool", ["mousemove", "--sync", "500", "400"], in: dir, environment: x)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(capsLock(server.displayName, dir: dir), false)
        // on at the server: the viewer (local Caps Lock off) puts it back
        _ = try runTool("xdotool", ["key", "Caps_Lock"], in: dir, environment: ["DISPLAY": server.displayName])
        XCTAssertTrue(poll(timeout: 5) { self.capsLock(server.displayName, dir: dir) == false },
                      "server Caps Lock stayed on: \(viewer.logTail())")
        // on locally (a key typed in the window): the server's is on too, and stays on
        _ = try runTool("xdotool", ["key", "Caps_Lock"], in: dir, environment: x)
        XCTAssertTrue(poll(timeout: 5) { self.capsLock(server.displayName, dir: dir) == true }, viewer.logTail())
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(capsLock(server.displayName, dir: dir), true, "no fight over the lock")
    }

    /// The control: a view-only viewer sends nothing, so a Caps Lock turned on at the server stays on.
    func testViewOnlyLeavesTheServersLocksAlone() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-leds-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        _ = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--view-only"])
        _ = try runTool("xdotool", ["mousemove", "--sync", "500", "400"], in: dir, environment: ["DISPLAY": ":\(local)"])
        _ = try runTool("xdotool", ["key", "Caps_Lock"], in: dir, environment: ["DISPLAY": server.displayName])
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(capsLock(server.displayName, dir: dir), true)
    }
}
