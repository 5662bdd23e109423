import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The launcher end to end under Xvfb: a saved connection to a real Xvnc is clicked, its
/// session (a process of its own) shows the server's desktop, the session is disconnected from
/// its menu, and the launcher is back with the connection's "last connected" and thumbnail.
final class LauncherInteropTests: XCTestCase {
    func windows(_ name: String, _ dir: URL, _ env: [String: String]) -> [String] {
        guard let r = try? runTool("xdotool", ["search", "--onlyvisible", "--name", name], in: dir, environment: env, allowFailure: true) else { return [] }
        return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Waits until the launcher's list is drawn at the top left (the green tag of the first
    /// row), taking the screen into `path`.
    func launcherDrawn(_ dir: URL, _ env: [String: String], into path: String) -> Bool {
        poll(timeout: 15, interval: 0.2) {
            guard (try? runTool("import", ["-window", "root", path], in: dir, environment: env, allowFailure: true)) != nil,
                  let img = try? PNG.read(path: path), img.width > 20, img.height > 150 else { return false }
            return img.pixels[140 * img.width + 19] == 0x5AB464
        }
    }

    func testClickConnectDisconnectAndBack() throws {
        try InteropTools.skipUnlessAvailable()
        _ = try InteropTools.need("xdotool")
        _ = try InteropTools.need("import")
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-launcher-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        unsetenv("VNC_PASSWORD"); unsetenv("VNC_USERNAME")

        let server = try startServer(.xvnc)
        let local = try startLocalXvfb(avoiding: [server.display], size: "\(server.width)x\(server.height)", dir: dir)
        let env = ["DISPLAY": ":\(local)"]
        let config = dir.appendingPathComponent("config/farcast")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        // lossless, so the session's pixels are the server's
        try """
            [Interop desktop]
            address = 127.0.0.1::\(server.port)
            colour = green
            quality = lossless
            """.write(to: config.appendingPathComponent("connections"), atomically: true, encoding: .utf8)
        let launcher = try ChildProcess(name: "launcher", executable: viewerPath, arguments: [],
                                        logURL: dir.appendingPathComponent("launcher.log"),
                                        environment: env.merging(["SDL_VIDEODRIVER": "x11", "XDG_CONFIG_HOME": dir.path + "/config",
                                                                  "XDG_STATE_HOME": dir.path + "/state", "XDG_CACHE_HOME": dir.path + "/cache",
                                                                  // no avahi-daemon here: a private, empty bus
                                                                  "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-bus"]) { $1 })
        addTeardownBlock { launcher.stop() }
        var win = ""
        XCTAssertTrue(poll(timeout: 20) { win = windows("^Farcast$", dir, env).first ?? ""; return !win.isEmpty }, "launcher window: \(launcher.logTail())")
        _ = try runTool("xdotool", ["windowmove", win, "0", "0", "windowsize", win, "1024", "720"], in: dir, environment: env, allowFailure: true)
        XCTAssertTrue(launcherDrawn(dir, env, into: dir.appendingPathComponent("before.png").path), "the list is drawn")

        // the first row (below the quick-connect field and the heading): a click connects
        _ = try runTool("xdotool", ["mousemove", "--sync", "300", "140", "click", "1"], in: dir, environment: env)
        var session = ""
        XCTAssertTrue(poll(timeout: 20) { session = windows("farcast-interop", dir, env).first ?? ""; return !session.isEmpty },
                      "session window: \(launcher.logTail())")
        XCTAssertTrue(windows("^Farcast$", dir, env).isEmpty, "the launcher hides while the session runs")
        _ = try runTool("xdotool", ["windowmove", session, "0", "0", "windowsize", session, "\(server.width)", "\(server.height)"],
                        in: dir, environment: env, allowFailure: true)
        let want = try server.captureScreen()
        var shown = PNGShot.blank
        let same = poll(timeout: 15, interval: 0.3) {
            let p = dir.appendingPathComponent("session.png").path
            guard (try? runTool("import", ["-window", "root", p], in: dir, environment: env, allowFailure: true)) != nil,
                  let img = try? PNG.read(path: p) else { return false }
            shown = img
            return img.width == want.width && img.height == want.height && psnr(img, want) > 40
        }
        XCTAssertTrue(same, "the session shows the server's desktop (PSNR \(shown.width == want.width ? psnr(shown, want) : 0)): \(launcher.logTail())")

        // disconnect from the session's own menu (F8, up to the last entry, Enter)
        _ = try runTool("xdotool", ["mousemove", "--sync", "512", "384", "click", "1"], in: dir, environment: env, allowFailure: true)
        _ = try runTool("xdotool", ["key", "--delay", "150", "F8", "Up", "Return"], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 15) { windows("farcast-interop", dir, env).isEmpty && !windows("^Farcast$", dir, env).isEmpty },
                      "the launcher is back: \(launcher.logTail())")
        XCTAssertTrue(launcher.isRunning)
        let saved = try String(contentsOf: config.appendingPathComponent("connections"), encoding: .utf8)
        XCTAssertTrue(saved.contains("last-connected = "), saved)
        let thumbs = (try? FileManager.default.contentsOfDirectory(atPath: dir.path + "/cache/farcast/thumbnails")) ?? []
        XCTAssertEqual(thumbs.count, 1, "a thumbnail of the last screen")
        if let t = thumbs.first {
            let mode = try FileManager.default.attributesOfItem(atPath: dir.path + "/cache/farcast/thumbnails/" + t)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, "a picture of a remote screen is the user's alone")
            let img = try PNG.read(path: dir.path + "/cache/farcast/thumbnails/" + t)
            XCTAssertTrue(img.width <= 240 && img.width >= 120, "\(img.width)")
            XCTAssertEqual(img.height * server.width / img.width / 10, server.height / 10, "the desktop's shape")
        }
        // kept outside the test directory for a person to look at
        let after = NSTemporaryDirectory() + "farcast-launcher-back.png"
        XCTAssertTrue(launcherDrawn(dir, env, into: after), "the list is drawn again")

        // Esc closes the launcher
        _ = try runTool("xdotool", ["mousemove", "--sync", "900", "600", "click", "1", "key", "Escape"], in: dir, environment: env, allowFailure: true)
        XCTAssertTrue(launcher.waitExit(timeout: 10), "Esc quits: \(launcher.logTail())")
        XCTAssertEqual(launcher.process.terminationStatus, 0)
    }
}

extension LauncherInteropTests {
    /// `viewer FILE.tigervnc` connects with the file's settings, as vncviewer does.
    func testTigerVNCFileConnects() throws {
        try InteropTools.skipUnlessAvailable()
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-tigerfile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let server = try startServer(.xvnc)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let env = ["DISPLAY": ":\(local)"]
        let file = dir.appendingPathComponent("Interop box.tigervnc")
        try "TigerVNC Configuration file Version 1.0\r\nServerName=127.0.0.1::\(server.port)\r\nViewOnly=1\r\nMenuKey=F9\r\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let v = try ChildProcess(name: "viewer", executable: viewerPath, arguments: [file.path, "-v"],
                                 logURL: dir.appendingPathComponent("viewer.log"),
                                 environment: env.merging(["SDL_VIDEODRIVER": "x11", "XDG_CONFIG_HOME": dir.path]) { $1 })
        addTeardownBlock { v.stop() }
        XCTAssertTrue(poll(timeout: 20) { !windows("farcast-interop", dir, env).isEmpty }, "session window: \(v.logTail())")
        XCTAssertTrue(v.log.contains("not carried over: MenuKey=F9"), v.logTail())
    }
}

private enum PNGShot { static let blank = RGBImage(width: 0, height: 0, pixels: []) }
