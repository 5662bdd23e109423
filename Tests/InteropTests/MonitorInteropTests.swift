import Foundation
import RFB
import XCTest

/// Multi-monitor through the real viewer window under Xvfb against a real Xvnc whose layout a
/// second client sets with SetDesktopSize (Xvnc makes a RandR monitor per screen).
final class MonitorInteropTests: XCTestCase {
    func workDir() throws -> URL {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-mon-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    /// Sets `screens` on the server from a client of our own, and waits until RandR agrees.
    func setLayout(_ server: VNCServer, width: Int, height: Int, _ screens: [Screen]) throws {
        let c = try DesktopSizeInteropTests.Client(server)
        XCTAssertTrue(try c.pump { _ in c.engine.server.screenLayout != nil }, "layout announced")
        try c.engine.requestDesktopSize(width: width, height: height, screens: screens)
        XCTAssertTrue(try c.pump { _ in !c.requestResults.isEmpty }, "a reply: \(c.events)")
        XCTAssertEqual(c.requestResults, [.ok])
        XCTAssertTrue(poll(timeout: 5) { (try? server.monitors()) == screens.map(\.rect).sorted { ($0.x, $0.y) < ($1.x, $1.y) } },
                      "monitors: \((try? server.monitors()) ?? [])")
    }

    func startViewer(_ server: VNCServer, display: String, dir: URL, _ args: [String], name: String = "viewer") throws -> ChildProcess {
        // the screen choice is remembered in the test's own directory
        try startViewerWindow(port: server.port, display: display, dir: dir, ["--verbose"] + args, name: name,
                              environment: ["XDG_STATE_HOME": dir.appendingPathComponent("state").path])
    }


    /// `--monitor 2` frames the view on screen 2 (1024x768, the window's size: 1:1); the window
    /// shows exactly that region of the server's screen. Then the server drops to one screen:
    /// the viewer falls back to all screens and says so; and the choice was remembered.
    func testViewFramedOnScreenTwoMatchesServerRegion() throws {
        try InteropTools.need("xrandr")
        let dir = try workDir()
        let server = try startServer(.xvnc, VNCServer.Options())   // the scene with an xterm
        // screen 2 is the right one: it shows the scene's right part and the root beyond it
        try setLayout(server, width: 1824, height: 768, [Screen(id: 1, x: 0, y: 0, width: 800, height: 768),
                                                        Screen(id: 7, x: 800, y: 0, width: 1024, height: 768)])
        // the server's pointer where our client's (never sent) pointer is: Xvnc draws its cursor
        // into the picture for a client whose last pointer event is elsewhere, and xwd does not
        _ = try runTool("xdotool", ["mousemove", "0", "0"], in: dir, environment: ["DISPLAY": server.displayName])
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let viewer = try startViewer(server, display: ":\(local)", dir: dir, ["--monitor", "2"])
        // both sides captured afresh each round: the server may still be repainting after the
        // layout change when a first capture looks stable
        var diff = ImageDiff()
        XCTAssertTrue(poll(timeout: 15, interval: 0.5) {
            guard let want = try? server.captureScreen().crop(x: 800, y: 0, width: 1024, height: 768),
                  let got = try? captureDisplay(":\(local)", in: dir) else { return false }
            diff = compareImages(got, want)
            return diff.isEqual
        }, "window vs server screen 2: \(diff); viewer: \(viewer.logTail())")
        // remembered for this host (XDG_STATE_HOME points into the test's directory)
        let memory = try String(contentsOf: dir.appendingPathComponent("state/farcast/monitors"), encoding: .utf8)
        XCTAssertTrue(memory.contains("screen:7 127.0.0.1::\(server.port)"), memory)

        // screen 2 goes away: back to all screens, with a notice
        try setLayout(server, width: 1024, height: 768, [Screen(id: 1, x: 0, y: 0, width: 1024, height: 768)])
        // the resize moved the server's pointer (see above)
        _ = try runTool("xdotool", ["mousemove", "0", "0"], in: dir, environment: ["DISPLAY": server.displayName])
        XCTAssertTrue(poll(timeout: 10) { viewer.logTail(200).contains("notice: Screen 2 is gone; showing all screens") }, viewer.logTail())
        var last: (RGBImage, RGBImage)?
        let same = poll(timeout: 15, interval: 0.5) {
            guard let whole = try? server.captureScreen(), let got = try? captureDisplay(":\(local)", in: dir) else { return false }
            last = (got, whole)
            diff = compareImages(got, whole)
            return diff.isEqual
        }
        let art = same ? nil : last.map { saveArtefacts("monitor-fallback", ["viewer": $0.0, "server": $0.1]) }
        XCTAssertTrue(same, "window vs the whole server screen: \(diff); images in \(art?.path ?? "-")")
    }

    /// `--monitor 3` on a two-screen desktop: a notice that says why, and all screens shown.
    func testMonitorOutOfRangeFallsBackWithNotice() throws {
        try InteropTools.need("xrandr")
        let dir = try workDir()
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        try setLayout(server, width: 1600, height: 600, [Screen(id: 1, x: 0, y: 0, width: 800, height: 600),
                                                        Screen(id: 2, x: 800, y: 0, width: 800, height: 600)])
        let local = try startLocalXvfb(avoiding: [server.display], size: "800x600", dir: dir)
        let viewer = try startViewer(server, display: ":\(local)", dir: dir, ["--monitor", "3"])
        XCTAssertTrue(poll(timeout: 10) {
            viewer.logTail(200).contains("notice: the server has 2 screens; --monitor 3 is not one of them; showing all screens")
        }, viewer.logTail())
    }

    /// `--remote-resize`: the server's desktop takes the window's size at the start and again
    /// after the window is resized (once it is still).
    func testRemoteResizeFollowsTheWindow() throws {
        try InteropTools.need("xrandr")
        let dir = try workDir()
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 800; o.height = 600
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1280x1024", dir: dir)
        let viewer = try startViewer(server, display: ":\(local)", dir: dir, ["--remote-resize"])
        XCTAssertTrue(poll(timeout: 10) { (try? server.monitors()) == [Rect(x: 0, y: 0, w: 1024, h: 768)] },
                      "server monitors \((try? server.monitors()) ?? []); viewer: \(viewer.logTail())")
        let r = try runTool("xdotool", ["search", "--name", "farcast-interop"], in: dir, environment: ["DISPLAY": ":\(local)"])
        let win = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        // a drag: several sizes in a row, one request at the end
        for (w, h) in [(900, 700), (950, 720), (1000, 700)] {
            _ = try runTool("xdotool", ["windowsize", win, "\(w)", "\(h)"], in: dir, environment: ["DISPLAY": ":\(local)"])
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertTrue(poll(timeout: 10) { (try? server.monitors()) == [Rect(x: 0, y: 0, w: 1000, h: 700)] },
                      "server monitors \((try? server.monitors()) ?? []); viewer: \(viewer.logTail())")
        let asked = viewer.logTail(200).components(separatedBy: "\n").filter { $0.contains("remote resize: asked for") }
        XCTAssertEqual(asked, ["viewer: remote resize: asked for 1024x768", "viewer: remote resize: asked for 1000x700"], "debounced")
    }

    /// Local monitors: the local display is itself an Xvnc with two RandR monitors (Xvfb has
    /// one). `--display 2` fills the second; `--display all --remote-resize` spans both and asks
    /// the server for the same two-screen layout.
    func testLocalDisplaysChosenAndSpanned() throws {
        try InteropTools.need("xrandr")
        let dir = try workDir()
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        let localServer = try startServer(.xvnc, o)
        try setLayout(localServer, width: 1824, height: 768, [Screen(id: 1, x: 0, y: 0, width: 1024, height: 768),
                                                             Screen(id: 2, x: 1024, y: 0, width: 800, height: 600)])
        let display = localServer.displayName
        let one = try startViewer(server, display: display, dir: dir, ["--display", "2"], name: "viewer-display2")
        XCTAssertTrue(poll(timeout: 10) {
            guard let r = try? runTool("xdotool", ["search", "--name", "farcast-interop", "getwindowgeometry"], in: dir,
                                       environment: ["DISPLAY": display], allowFailure: true) else { return false }
            let t = String(decoding: r.stdout, as: UTF8.self)
            return t.contains("Position: 1024,0") && t.contains("Geometry: 800x600")
        }, "window on local display 2: \(one.logTail())")
        one.stop()

        let all = try startViewer(server, display: display, dir: dir, ["--display", "all", "--remote-resize"], name: "viewer-all")
        let want = [Rect(x: 0, y: 0, w: 1024, h: 768), Rect(x: 1024, y: 0, w: 800, h: 600)]
        XCTAssertTrue(poll(timeout: 15) { (try? server.monitors()) == want },
                      "server monitors \((try? server.monitors()) ?? []); viewer: \(all.logTail())")
    }
}
