import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The launcher on a headless sway: it opens (natively, and through XWayland), a click of the
/// virtual pointer on a saved connection starts the session, and the session's window shows the
/// real Xvnc's desktop (grim against the server's own screen). sway gives the one window the
/// whole output, so the launcher's list and the session are where the X11 test puts them.
final class WaylandLauncherInteropTests: XCTestCase {
    func windowTitles(_ desktop: WaylandDesktop, _ dir: URL) -> String {
        (try? desktop.swaymsg(["-t", "get_tree"], in: dir)) ?? ""
    }

    /// The launcher on `desktop` (natively, or through its XWayland), with one saved connection
    /// to `server`: "Interop desktop", tagged green (the row the tests find and click), lossless
    /// so the session's pixels are the server's; no avahi-daemon: a private, empty system bus.
    func startLauncher(_ server: VNCServer, on desktop: WaylandDesktop, xwayland: Bool, dir: URL) throws -> ChildProcess {
        let config = dir.appendingPathComponent("config/farcast")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
            [Interop desktop]
            address = 127.0.0.1::\(server.port)
            colour = green
            quality = lossless
            """.write(to: config.appendingPathComponent("connections"), atomically: true, encoding: .utf8)
        guard let client = xwayland ? desktop.xwaylandClient : desktop.nativeClient else { throw HarnessError("no XWayland") }
        let env = client.merging(["XDG_CONFIG_HOME": dir.path + "/config", "XDG_STATE_HOME": dir.path + "/state",
                                  "XDG_CACHE_HOME": dir.path + "/cache",
                                  "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-bus"]) { $1 }
        let launcher = try ChildProcess(name: "launcher", executable: viewerPath, arguments: [],
                                        logURL: dir.appendingPathComponent("launcher.log"), environment: env)
        addTeardownBlock { launcher.stop() }
        return launcher
    }

    func clickSavedConnection(xwayland: Bool) throws {
        try InteropTools.skipUnlessAvailable()
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "swaymsg"])
        _ = try WaylandVirtualPointer.path()
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wllauncher-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        unsetenv("VNC_PASSWORD"); unsetenv("VNC_USERNAME")

        let server = try startServer(.xvnc)
        let desktop = try startWaylandDesktop(.sway, width: server.width, height: server.height, xwayland: xwayland, dir: dir)
        let launcher = try startLauncher(server, on: desktop, xwayland: xwayland, dir: dir)

        // the list drawn at the top left (the green tag of the first row), as under X11
        var shot = RGBImage(width: 0, height: 0, pixels: [])
        let drawn = poll(timeout: 20, interval: 0.3) {
            guard launcher.isRunning else { return true }
            guard let img = try? desktop.screenshot(in: dir), img.width > 20, img.height > 150 else { return false }
            shot = img
            return img.pixels[140 * img.width + 19] == 0x5AB464
        } && launcher.isRunning
        if !drawn, shot.width > 0 { try? PNG.write(shot, to: NSTemporaryDirectory() + "farcast-wl-launcher-fail.png") }
        guard drawn else { return XCTFail("the launcher's list is drawn: \(launcher.logTail())\ncompositor: \(desktop.logTail(10))") }
        XCTAssertTrue(windowTitles(desktop, dir).contains("\"Farcast\""), "the launcher's window is there")
        if drawn { try? PNG.write(shot, to: NSTemporaryDirectory() + "farcast-wl-launcher\(xwayland ? "-xwayland" : "").png") }

        // the first row: a click connects; then the pointer goes to a corner, off the compared picture's middle
        try WaylandVirtualPointer.run(desktop, ["move 500 500", "sleep 500", "move 300 140", "click 1", "sleep 300",
                                                "move \(server.width - 1) \(server.height - 1)"], in: dir)
        XCTAssertTrue(poll(timeout: 20) { windowTitles(desktop, dir).contains("farcast-interop") },
                      "session window: \(launcher.logTail())")
        XCTAssertFalse(windowTitles(desktop, dir).contains("\"Farcast\""), "the launcher hides while the session runs")
        let want = try server.captureScreen()
        var shown = RGBImage(width: 0, height: 0, pixels: [])
        let same = poll(timeout: 15, interval: 0.3) {
            guard let img = try? desktop.screenshot(in: dir) else { return false }
            shown = img
            return img.width == want.width && img.height == want.height && psnr(img, want) > 40
        }
        XCTAssertTrue(same, "the session shows the server's desktop (PSNR \(shown.width == want.width ? psnr(shown, want) : 0)): \(launcher.logTail())")
        if shown.width > 0 { try? PNG.write(shown, to: NSTemporaryDirectory() + "farcast-wl-launcher-session\(xwayland ? "-xwayland" : "").png") }
        XCTAssertTrue(launcher.isRunning, launcher.logTail())
    }

    /// On mutter (GNOME's compositor: libdecor's title bar, windows placed by mutter, no grim):
    /// the launcher's first row is found in a frame of mutter's screen cast (its green tag), a
    /// click there with mutter's RemoteDesktop pointer starts the session, and the session's
    /// window shows the server's desktop exactly, wherever mutter put it.
    func testClickSavedConnectionOnMutter() throws { try clickSavedConnectionOnMutter(xwayland: false) }

    /// The same through mutter's XWayland (X11 windows: mutter's own title bar).
    func testClickSavedConnectionOnMutterThroughXWayland() throws { try clickSavedConnectionOnMutter(xwayland: true) }

    func clickSavedConnectionOnMutter(xwayland: Bool) throws {
        try InteropTools.skipUnlessAvailable()
        try WaylandDesktop.skipUnlessAvailable(.mutter, tools: ["pipewire", "gst-launch-1.0", "cc", "pkg-config"]
                                               + (xwayland ? ["Xwayland", "xhost"] : []))
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wllauncher-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        unsetenv("VNC_PASSWORD"); unsetenv("VNC_USERNAME")
        let server = try startServer(.xvnc)
        // room for the session's 1024x768 window and its title bar
        let desktop = try startWaylandDesktop(.mutter, width: 1600, height: 1000, xwayland: xwayland, dir: dir)
        let launcher = try startLauncher(server, on: desktop, xwayland: xwayland, dir: dir)
        var tag: (x: Int, y: Int)?
        XCTAssertTrue(poll(timeout: 25, interval: 0.5) {
            guard launcher.isRunning, let img = try? desktop.screenshot(in: dir) else { return !launcher.isRunning }
            tag = img.pixels.firstIndex(of: 0x5AB464).map { ($0 % img.width, $0 / img.width) }
            return tag != nil
        } && launcher.isRunning, "the launcher's list is drawn: \(launcher.logTail())")
        guard let tag else { return }
        try MutterScreen.input(desktop, ["point \(tag.x + 150) \(tag.y + 20)", "sleep 200", "btn 272 1", "sleep 50", "btn 272 0",
                                         "sleep 300", "point 1599 999", "sleep 100"], in: dir)
        let want = try server.captureStableScreen()
        var at: (x: Int, y: Int)?, shot: RGBImage?
        XCTAssertTrue(poll(timeout: 20, interval: 0.5) {
            guard let img = try? desktop.screenshot(in: dir) else { return false }
            shot = img
            at = MutterScreen.find(want, in: img)
            return at != nil
        }, "the session shows the server's desktop: \(launcher.logTail())")
        if let keep = ProcessInfo.processInfo.environment["FARCAST_SHOTS"], let shot {
            try PNG.write(shot, to: "\(keep)/mutter-launcher-session.png")
            try? FileManager.default.copyItem(atPath: launcher.logURL.path, toPath: "\(keep)/launcher.log")
            try? PNG.write(want, to: "\(keep)/want.png")
        }
        XCTAssertTrue(launcher.isRunning, launcher.logTail())
    }

    func testClickSavedConnectionNatively() throws { try clickSavedConnection(xwayland: false) }

    func testClickSavedConnectionThroughXWayland() throws { try clickSavedConnection(xwayland: true) }
}
