import Foundation
import XCTest

/// The viewer as a native Wayland client without a GPU (issue 31), on real headless compositors:
/// sway (wlroots, pixman) with grim for the picture, weston (no seat), mutter (GNOME's), and the
/// same picture through sway's XWayland. The server is a TigerVNC Xvnc of the output's size; its
/// pointer stays where Xvnc puts it (never moved, so the viewer draws no remote cursor).
final class WaylandWindowInteropTests: XCTestCase {
    private func workDir() throws -> URL {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("farcast-interop-wlwin-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// Waits for grim's picture to equal the server's screen; keeps both when it does not.
    private func assertScreenMatches(_ desktop: WaylandDesktop, _ server: VNCServer, _ name: String, dir: URL,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try server.captureStableScreen()
        let shot = try desktop.waitForScreen(in: dir, timeout: 20) { compareImages($0, expected).isEqual }
        let d = compareImages(shot, expected)
        if !d.isEqual {
            let at = saveArtefacts("wayland-\(name)", ["grim": shot, "server": expected])
            XCTFail("\(name): grim vs server: \(d) (pictures in \(at.path))", file: file, line: line)
        }
    }

    /// Native, no GPU: our own wl_shm buffers (named by -v), the picture exact at the start and
    /// after the whole desktop changed (the presenter's incremental path).
    func testNativeWithoutGPUPresentsThroughOwnBuffersPixelExact() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "swaymsg", "xsetroot"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.sway, dir: dir)
        let server = try startServer(.xvnc)
        let v = try startViewerOnWayland(desktop, port: server.port, dir: dir)
        // "no GPU device" (OpenGL not started) where the machine has none, "no GPU (llvmpipe" elsewhere
        XCTAssertTrue(v.log.contains("window: wayland, no GPU"), v.logTail(30))
        XCTAssertTrue(v.log.contains("own wl_shm buffers"), v.logTail(30))
        try assertScreenMatches(desktop, server, "native", dir: dir)
        try runTool("xsetroot", ["-solid", "#7a3b1f"], in: dir, environment: ["DISPLAY": server.displayName])
        try assertScreenMatches(desktop, server, "native-changed", dir: dir)
        XCTAssertTrue(v.isRunning, v.logTail())
    }

    /// Output scale 2: in "scale 1:1" mode one remote pixel is one device pixel, so the 1024x768
    /// desktop fills the 1024x768-pixel output (512x384 points) exactly.
    func testOutputScale2OneToOneIsPixelExact() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "swaymsg"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.sway, scale: 2, dir: dir)
        let server = try startServer(.xvnc)
        let v = try startViewerOnWayland(desktop, port: server.port, dir: dir, ["--scale", "1:1"])
        try assertScreenMatches(desktop, server, "scale2-1to1", dir: dir)
        XCTAssertTrue(v.isRunning, v.logTail())
    }

    /// Whether sway's one client window (the node with a pid) is full screen; nil when there is
    /// none (sway's workspaces carry a fullscreen_mode of their own, so the tree's text will not do).
    private func viewFullscreen(_ desktop: WaylandDesktop, _ dir: URL) -> Bool? {
        guard let json = try? desktop.swaymsg(["-t", "get_tree", "-r"], in: dir),
              let tree = try? JSONSerialization.jsonObject(with: Data(json.utf8)) else { return nil }
        func find(_ node: Any) -> Bool? {
            guard let n = node as? [String: Any] else { return nil }
            if n["pid"] != nil, let mode = n["fullscreen_mode"] as? Int { return mode == 1 }
            for key in ["nodes", "floating_nodes"] {
                for child in (n[key] as? [Any]) ?? [] { if let r = find(child) { return r } }
            }
            return nil
        }
        return find(tree)
    }

    /// --fullscreen on sway: the compositor reports the window full screen, the picture exact;
    /// F11 leaves it.
    func testFullscreenOnSway() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "swaymsg"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.sway, dir: dir)
        let server = try startServer(.xvnc)
        let v = try startViewerOnWayland(desktop, port: server.port, dir: dir, ["--fullscreen"])
        let full = poll(timeout: 10, interval: 0.2) { viewFullscreen(desktop, dir) == true }
        XCTAssertTrue(full, "sway reports no full-screen window: \(v.logTail())")
        try assertScreenMatches(desktop, server, "fullscreen", dir: dir)
        // F11 (typed after a pause, as a real keyboard gives its keymap first) leaves full screen
        try desktop.wtype(["-s", "300", "-k", "F11"], in: dir)
        let windowed = poll(timeout: 10, interval: 0.2) { viewFullscreen(desktop, dir) == false }
        XCTAssertTrue(windowed, "F11 did not leave full screen: \(v.logTail())")
        XCTAssertTrue(v.isRunning, v.logTail())
    }

    /// The launcher and `viewer play` windows start natively and present.
    func testLauncherAndPlaybackPresent() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.sway, dir: dir)
        let launcher = try ChildProcess(name: "launcher", executable: viewerPath, arguments: ["launcher"],
                                        logURL: dir.appendingPathComponent("launcher.log"),
                                        environment: desktop.nativeClient.merging(["XDG_CONFIG_HOME": dir.path, "XDG_STATE_HOME": dir.path]) { $1 })
        addTeardownBlock { launcher.stop() }
        // its background is a dark grey, not the output's black
        let shot = try desktop.waitForScreen(in: dir) { img in img.pixels[img.width * 600 + 500] & 0xFFFFFF != 0 }
        XCTAssertNotEqual(shot.pixels[shot.width * 600 + 500] & 0xFFFFFF, 0, "launcher drew nothing: \(launcher.logTail())")
        XCTAssertTrue(launcher.isRunning, launcher.logTail())
        launcher.stop()

        let server = try startServer(.xvnc)
        let fbs = dir.appendingPathComponent("s.fbs").path
        try runTool(viewerPath, ["record", "127.0.0.1::\(server.port)", "--encodings", "raw", "-o", fbs, "--seconds", "2"], in: dir, timeout: 30)
        let play = try ChildProcess(name: "play", executable: viewerPath, arguments: ["play", fbs, "-v"],
                                    logURL: dir.appendingPathComponent("play.log"), environment: desktop.nativeClient)
        addTeardownBlock { play.stop() }
        // the desktop above the playback bar (the bar's 64 points at the bottom)
        let expected = try server.captureStableScreen().crop(x: 0, y: 0, width: 1024, height: 680)
        let p = try desktop.waitForScreen(in: dir) { compareImages($0.crop(x: 0, y: 0, width: 1024, height: 680), expected).isEqual }
        let d = compareImages(p.crop(x: 0, y: 0, width: 1024, height: 680), expected)
        XCTAssertTrue(d.isEqual, "play vs server: \(d) \(play.logTail())")
        XCTAssertTrue(play.log.contains("own wl_shm buffers"), play.logTail())
        XCTAssertTrue(play.isRunning, play.logTail())
    }

    /// The launcher at output scale 2 draws in device pixels, not at 1x for the compositor to
    /// stretch: its surface says buffer scale 2 and its buffers are the output's 1024x768
    /// pixels (for a window of 512x384 points), read from its protocol log. FARCAST_SHOTS=DIR
    /// keeps the screenshot to look at.
    func testLauncherAtOutputScale2DrawsInDevicePixels() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.sway, scale: 2, dir: dir)
        let launcher = try ChildProcess(name: "launcher", executable: viewerPath, arguments: ["launcher"],
                                        logURL: dir.appendingPathComponent("launcher.log"),
                                        environment: desktop.nativeClient.merging(["XDG_CONFIG_HOME": dir.path, "XDG_STATE_HOME": dir.path,
                                                                                   "WAYLAND_DEBUG": "client"]) { $1 })
        addTeardownBlock { launcher.stop() }
        let shot = try desktop.waitForScreen(in: dir) { img in img.pixels[img.width * 600 + 500] & 0xFFFFFF != 0 }
        XCTAssertNotEqual(shot.pixels[shot.width * 600 + 500] & 0xFFFFFF, 0, "launcher drew nothing: \(launcher.logTail())")
        XCTAssertTrue(launcher.log.contains("set_buffer_scale(2)"), "buffer scale 2: \(launcher.logTail())")
        XCTAssertTrue(launcher.log.range(of: #"create_buffer\(new id wl_buffer@\d+, \d+, 1024, 768,"#, options: .regularExpression) != nil,
                      "1024x768 buffers: \(launcher.log.split(separator: "\n").filter { $0.contains("create_buffer") }.prefix(3))")
        if let keep = ProcessInfo.processInfo.environment["FARCAST_SHOTS"] {
            try runTool("grim", ["-t", "png", "\(keep)/launcher-scale2.png"], in: dir, environment: desktop.wayland, timeout: 20)
        }
        XCTAssertTrue(launcher.isRunning, launcher.logTail())
    }

    /// The menu at output scale 2 is drawn in device pixels: on a 2048x1536 output at scale 2
    /// (1024x768 points, as the 1024x768 output at scale 1) the menu's panel covers exactly twice
    /// the pixels each way, and the window's buffers are the output's pixels (buffer scale 2,
    /// 2048x1536 wl_shm buffers: not drawn at 1x for the compositor to stretch). The desktop is
    /// one colour, so whatever differs from it is the menu; it is larger than either output, so
    /// the window fills the output both times.
    func testMenuAtOutputScale2IsDrawnInDevicePixels() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "wtype"])
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 2560; o.height = 1600
        let server = try startServer(.xvnc, o)
        var boxes: [(w: Int, h: Int)] = []
        for scale in [1.0, 2.0] {
            let dir = try workDir()
            let desktop = try startWaylandDesktop(.sway, width: Int(1024 * scale), height: Int(768 * scale), scale: scale, dir: dir)
            let v = try startViewerOnWayland(desktop, port: server.port, dir: dir, environment: ["WAYLAND_DEBUG": "client"])
            // nothing over the desktop yet (a notice would count as menu)
            let plain = try desktop.waitForScreen(in: dir) { img in img.pixels.allSatisfy { $0 == img.pixels[0] } }
            let background = plain.pixels[0]
            try desktop.wtype(["-s", "300", "-k", "F8"], in: dir)
            Thread.sleep(forTimeInterval: 1)
            var box = (x0: Int.max, y0: Int.max, x1: -1, y1: -1)
            let shot = try desktop.waitForScreen(in: dir) { img in
                box = (Int.max, Int.max, -1, -1)
                for y in 0..<img.height { for x in 0..<img.width where img.pixels[y * img.width + x] != background {
                    box = (min(box.x0, x), min(box.y0, y), max(box.x1, x), max(box.y1, y))
                } }
                return box.x1 >= 0
            }
            XCTAssertGreaterThanOrEqual(box.x1, 0, "the menu is drawn: \(v.logTail())")
            boxes.append((box.x1 - box.x0 + 1, box.y1 - box.y0 + 1))
            if scale == 2 {
                XCTAssertTrue(v.log.contains("set_buffer_scale(2)"), "buffer scale 2")
                XCTAssertTrue(v.log.range(of: #"create_buffer\(new id wl_buffer@\d+, \d+, 2048, 1536,"#, options: .regularExpression) != nil,
                              "2048x1536 buffers")
                if let keep = ProcessInfo.processInfo.environment["FARCAST_SHOTS"] { try PNG.write(shot, to: "\(keep)/menu-scale2.png") }
            }
            v.stop(); desktop.stop()
        }
        guard boxes.count == 2 else { return }
        // twice, within the font's own rounding (its line heights at 15 and 30 pixels are not exactly 1:2)
        XCTAssertEqual(Double(boxes[1].w) / Double(boxes[0].w), 2, accuracy: 0.04, "menu widths at scale 1 and 2: \(boxes)")
        XCTAssertEqual(Double(boxes[1].h) / Double(boxes[0].h), 2, accuracy: 0.04, "menu heights at scale 1 and 2: \(boxes)")
    }

    /// weston's headless backend offers no wl_seat: SDL 2.26 would die in SDL_Init. Without an X
    /// display the viewer says so and exits 1; with one (the Xvnc's own) it uses X11.
    func testWestonWithoutSeatGivesTheMessageOrX11NeverASignal() throws {
        try WaylandDesktop.skipUnlessAvailable(.weston)
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.weston, dir: dir)
        let server = try startServer(.xvnc)
        let refused = try ChildProcess(name: "refused", executable: viewerPath, arguments: ["127.0.0.1::\(server.port)", "-v"],
                                       logURL: dir.appendingPathComponent("refused.log"), environment: desktop.nativeClient)
        addTeardownBlock { refused.stop() }
        XCTAssertTrue(refused.waitExit(timeout: 20), refused.logTail())
        XCTAssertEqual(refused.process.terminationReason, .exit, "killed by a signal: \(refused.logTail())")
        XCTAssertEqual(refused.process.terminationStatus, 1)
        XCTAssertTrue(refused.log.contains("offers no seat"), refused.logTail())

        let env = desktop.nativeClient.merging(["DISPLAY": server.displayName]) { $1 }
        let x11 = try ChildProcess(name: "x11", executable: viewerPath, arguments: ["127.0.0.1::\(server.port)", "-v"],
                                   logURL: dir.appendingPathComponent("x11.log"), environment: env)
        addTeardownBlock { x11.stop() }
        XCTAssertTrue(poll(timeout: 20) { x11.log.contains("viewer: ready") || !x11.isRunning }, x11.logTail())
        XCTAssertTrue(x11.log.contains("using X11 (DISPLAY=\(server.displayName)) instead"), x11.logTail())
        XCTAssertTrue(x11.isRunning, x11.logTail())
    }

    /// mutter (GNOME's compositor) headless: the viewer full screen, natively and through
    /// mutter's XWayland, and its picture equals the server's at 1:1 (a frame of mutter's own
    /// screen cast: it has no screencopy for grim), also after the whole desktop changed.
    /// FARCAST_SHOTS=DIR keeps the frames.
    func testMutterFullScreenPictureIsExact() throws { try mutterFullScreen(xwayland: false) }

    func testMutterThroughXWaylandFullScreenPictureIsExact() throws { try mutterFullScreen(xwayland: true) }

    /// At output scale 2 (mutter's DisplayConfig API): full screen at 1:1 in device pixels, the
    /// 2048x1536 desktop on the 2048x1536-pixel monitor, exact.
    func testMutterOutputScale2OneToOneIsPixelExact() throws {
        try WaylandDesktop.skipUnlessAvailable(.mutter, tools: ["pipewire", "gst-launch-1.0", "cc", "pkg-config", "gdbus"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.mutter, width: 2048, height: 1536, scale: 2, dir: dir)
        var o = VNCServer.Options()
        o.width = 2048; o.height = 1536
        let server = try startServer(.xvnc, o)
        let v = try startViewerOnWayland(desktop, port: server.port, dir: dir, ["--fullscreen", "--scale", "1:1"])
        try assertScreenMatches(desktop, server, "mutter-scale2-1to1", dir: dir)
        if let keep = ProcessInfo.processInfo.environment["FARCAST_SHOTS"] {
            try PNG.write(try desktop.screenshot(in: dir), to: "\(keep)/mutter-scale2.png")
        }
        XCTAssertTrue(v.isRunning, v.logTail())
    }

    func mutterFullScreen(xwayland: Bool) throws {
        try WaylandDesktop.skipUnlessAvailable(.mutter, tools: ["pipewire", "gst-launch-1.0", "cc", "pkg-config", "xsetroot"]
                                               + (xwayland ? ["Xwayland", "xhost"] : []))
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.mutter, xwayland: xwayland, dir: dir)
        let server = try startServer(.xvnc)
        let v = try startViewerOnWayland(desktop, port: server.port, dir: dir, ["--fullscreen"], xwayland: xwayland)
        XCTAssertTrue(v.log.contains(xwayland ? "drawing on the window surface" : "window: wayland, no GPU"), v.logTail(30))
        let name = xwayland ? "mutter-xwayland-fullscreen" : "mutter-fullscreen"
        try assertScreenMatches(desktop, server, name, dir: dir)
        try runTool("xsetroot", ["-solid", "#2f6b3a"], in: dir, environment: ["DISPLAY": server.displayName])
        try assertScreenMatches(desktop, server, name + "-changed", dir: dir)
        if let keep = ProcessInfo.processInfo.environment["FARCAST_SHOTS"] {
            try PNG.write(try desktop.screenshot(in: dir), to: "\(keep)/\(name).png")
        }
        XCTAssertTrue(v.isRunning, v.logTail())
        XCTAssertTrue(v.log.contains("viewer: ready"), v.logTail())
    }

    /// Through sway's XWayland: X11's own surface path, the same exact picture.
    func testThroughXWaylandSamePicture() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "swaymsg", "Xwayland"])
        let dir = try workDir()
        let desktop = try startWaylandDesktop(.sway, xwayland: true, dir: dir)
        let server = try startServer(.xvnc)
        let v = try startViewerOnWayland(desktop, port: server.port, dir: dir, xwayland: true)
        XCTAssertTrue(v.log.contains("drawing on the window surface"), v.logTail(30))
        try assertScreenMatches(desktop, server, "xwayland", dir: dir)
    }
}
