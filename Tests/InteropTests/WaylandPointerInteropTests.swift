import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Pointer input through the viewer on a headless sway, driven by a virtual pointer
/// (zwlr_virtual_pointer_v1, WaylandVirtualPointer) and checked on the server's side: xev on a
/// real Xvnc logs the buttons (wheel steps are buttons 4 and 5) at the remote pixel they hit.
/// The output and the server are the same size, so the window shows the desktop at 1:1.
///
/// sway 1.7 offers wl_seat v7, so SDL 2.26 gets discrete wheel steps there (axis_discrete);
/// axis_value120 (high-resolution wheels) needs a v8 seat: mutter 43's, below. Either way SDL
/// sums the precise values into the whole notches the viewer sends (RFB's wheel has only notches).
final class WaylandPointerInteropTests: XCTestCase {
    /// xev on the server, as large as its screen, logging buttons (wheel steps are 4 and 5): its log.
    func buttonLog(_ server: VNCServer, _ dir: URL) throws -> URL {
        let log = dir.appendingPathComponent("xev.log")
        let xev = try ChildProcess(name: "xev", executable: InteropTools.need("xev"),
                                   arguments: ["-display", server.displayName, "-geometry", "\(server.width)x\(server.height)+0+0", "-event", "button"],
                                   logURL: log)
        addTeardownBlock { xev.stop() }
        XCTAssertTrue(poll(timeout: 10) { xev.isRunning }, "xev started")
        return log
    }

    /// At output `scale` the viewer shows the desktop 1:1 in device pixels (`--scale 1:1`) and
    /// the pointer moves in the output's logical points: each must land on the remote pixel under it.
    func clickAndWheel(xwayland: Bool, scale: Double = 1) throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["xev"])
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wlptr-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        _ = try WaylandVirtualPointer.path()
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 640; o.height = 480
        let server = try startServer(.xvnc, o)
        let xevLog = try buttonLog(server, dir)
        let desktop = try startWaylandDesktop(.sway, width: 640, height: 480, scale: scale, xwayland: xwayland, dir: dir)
        let viewer = try startViewerOnWayland(desktop, port: server.port, dir: dir, scale == 1 ? [] : ["--scale", "1:1"], xwayland: xwayland)
        func at(_ x: Int, _ y: Int) -> String { "move \(Int(Double(x) / scale)) \(Int(Double(y) / scale))" }
        // the seat gains its pointer with this device: the clients bind their wl_pointer a moment
        // later, and a button before their `enter` goes nowhere (a real mouse is there from the start)
        try WaylandVirtualPointer.run(desktop, [at(100, 100), "sleep 500", at(200, 150), "click 1", "sleep 100", "wheel 1", "sleep 100",
                                                "wheel -1", "sleep 100", at(400, 300), "click 3"], in: dir)
        var buttons: [(Int, Int, Int)] = []
        let ok = poll(timeout: 10, interval: 0.2) {
            buttons = InputInteropTests.parseXev((try? String(contentsOf: xevLog, encoding: .utf8)) ?? "").1
            return buttons.count >= 4
        }
        XCTAssertTrue(ok, "server got buttons \(buttons); viewer: \(viewer.logTail())")
        XCTAssertTrue(buttons.contains { $0 == (1, 200, 150) }, "left click at 200,150: \(buttons)")
        XCTAssertTrue(buttons.contains { $0.0 == 5 && $0.1 == 200 && $0.2 == 150 }, "wheel down at 200,150: \(buttons)")
        XCTAssertTrue(buttons.contains { $0.0 == 4 && $0.1 == 200 && $0.2 == 150 }, "wheel up at 200,150: \(buttons)")
        XCTAssertTrue(buttons.contains { $0 == (3, 400, 300) }, "right click at 400,300: \(buttons)")
        XCTAssertEqual(buttons.filter { $0.0 == 4 || $0.0 == 5 }.count, 2, "one notch per wheel step: \(buttons)")
        XCTAssertTrue(viewer.isRunning, viewer.logTail())
    }

    func testClickAndWheelReachTheServerNatively() throws { try clickAndWheel(xwayland: false) }

    func testClickAndWheelAtOutputScale2LandOnTheRemotePixel() throws { try clickAndWheel(xwayland: false, scale: 2) }

    /// High-resolution wheels (wl_pointer v8's axis_value120: mutter 43 offers a v8 seat, sway 1.7
    /// a v7 one), driven through mutter's RemoteDesktop API (scripts/wayland/mutter-pointer.c) and
    /// counted on the server (wheel notches are buttons 4 and 5): a wheel click is one notch;
    /// quarter steps (value120 30 each, what a hi-res or free-spinning wheel sends) add up: two
    /// send nothing yet, four make one notch; upward ones a notch up.
    func testHighResolutionWheelStepsAddUpToNotchesOnMutter() throws {
        try WaylandDesktop.skipUnlessAvailable(.mutter, tools: ["xev", "cc", "pkg-config", "setpriv"])
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wlwheel-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let tool = try WaylandDesktop.buildTool("mutter-pointer", "gio-2.0", dir).path
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 640; o.height = 480
        let server = try startServer(.xvnc, o)
        let xevLog = try buttonLog(server, dir)
        let desktop = try startWaylandDesktop(.mutter, width: 1280, height: 800, dir: dir)
        let viewer = try startViewerOnWayland(desktop, port: server.port, dir: dir, environment: ["WAYLAND_DEBUG": "client"])
        func notches() -> [Int] {
            InputInteropTests.parseXev((try? String(contentsOf: xevLog, encoding: .utf8)) ?? "").1.map(\.0).filter { $0 == 4 || $0 == 5 }
        }
        func pointer(_ steps: String) throws {
            try desktop.runOnSessionBus(tool, steps.split(separator: " ").map(String.init), in: dir)
        }
        // (each call is a RemoteDesktop session of its own: a motion first, or its axis events go nowhere)
        let quarterDown = "axis 0 2.5 2 sleep 100", quarterUp = "axis 0 -2.5 2 sleep 100", wake = "rel 1 0 sleep 200"
        // to the middle of the output, where mutter put the window
        try pointer("rel -4000 -4000 sleep 100 rel 640 400 sleep 300 discrete 0 1 sleep 200")
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { notches() == [5] }, "a click: \(notches()); \(viewer.logTail())")
        try pointer([wake, quarterDown, quarterDown].joined(separator: " "))
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(notches(), [5], "half a notch sends nothing yet")
        try pointer([wake, quarterDown, quarterDown].joined(separator: " "))
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { notches() == [5, 5] }, "four quarters: \(notches())")
        try pointer(([wake] + Array(repeating: quarterUp, count: 4)).joined(separator: " "))
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { notches() == [5, 5, 4] }, "four quarters up: \(notches())")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(notches(), [5, 5, 4])
        XCTAssertTrue(viewer.log.contains("axis_value120(0, 30)"), "hi-res steps reached the viewer")
        XCTAssertTrue(viewer.isRunning, viewer.logTail())
    }

    /// Touch on a compositor (`wl_touch`): mutter's touchscreen, through its RemoteDesktop touch
    /// calls (MutterScreen; sway has no virtual touch protocol). The viewer full screen on a
    /// 1024x768 output showing a 1024x768 desktop (1:1), touch mode: the same gesture code as on
    /// X11 and KMSDRM turns a tap into a click, a two-finger tap into a right click and two
    /// fingers moving up into wheel steps down, each at the remote pixel under the fingers.
    func testTouchGesturesOnMutterReachTheServer() throws {
        try WaylandDesktop.skipUnlessAvailable(.mutter, tools: ["xev", "pipewire", "cc", "pkg-config", "setpriv"])
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wltouch-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        let xevLog = try buttonLog(server, dir)
        let desktop = try startWaylandDesktop(.mutter, dir: dir)
        let viewer = try startViewerOnWayland(desktop, port: server.port, dir: dir, ["--fullscreen", "--touch"],
                                              environment: ["WAYLAND_DEBUG": "client"])
        var s = ["down 1 200 150", "sleep 50", "up 1", "sleep 600"]                                   // tap
        s += ["down 1 700 501", "down 2 740 501", "sleep 60", "up 1", "up 2", "sleep 600"]            // two-finger tap
        s += ["down 1 500 300", "down 2 540 300", "sleep 30"]                                          // two fingers up
        for i in 1...10 { s += ["move 1 500 \(300 - 12 * i)", "move 2 540 \(300 - 12 * i)", "sleep 20"] }
        s += ["up 1", "up 2", "sleep 300"]
        try MutterScreen.input(desktop, s, in: dir)
        var got: [(Int, Int, Int)] = []
        _ = poll(timeout: 10, interval: 0.2) {
            got = InputInteropTests.parseXev((try? String(contentsOf: xevLog, encoding: .utf8)) ?? "").1
            return got.contains { $0.0 == 5 }
        }
        Thread.sleep(forTimeInterval: 0.5)
        got = InputInteropTests.parseXev((try? String(contentsOf: xevLog, encoding: .utf8)) ?? "").1
        // MutterScreen.input's warm-up touch at (1,1) is a tap too when the viewer binds wl_touch in time
        let clicks = got.filter { $0.0 <= 3 }.map { "\($0.0)@\($0.1),\($0.2)" }.filter { $0 != "1@1,1" }
        XCTAssertEqual(clicks, ["1@200,150", "3@700,501"], "server got \(got); viewer: \(viewer.logTail())")
        let wheel = got.filter { $0.0 >= 4 }
        XCTAssertGreaterThanOrEqual(wheel.count, 3, "\(got)")
        XCTAssertTrue(wheel.allSatisfy { $0.0 == 5 && $0.1 == 520 && $0.2 == 300 }, "\(wheel)")
        XCTAssertTrue(viewer.log.contains("wl_touch@"), "SDL bound mutter's wl_touch")
        XCTAssertTrue(viewer.isRunning, viewer.logTail())
    }

    /// QEMU's relative pointer (its PS/2 mouse; no guest, so what QEMU does with the deltas is not
    /// seen): a click captures, SDL locks the pointer through pointer-constraints (sway answers
    /// `locked`) and relative-pointer's unaccelerated deltas reach the viewer, read from its
    /// protocol log (WAYLAND_DEBUG).
    func testRelativeModeLocksThePointerOnSway() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway)
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wlrel-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        _ = try WaylandVirtualPointer.path()
        let qemu = try startQEMU([])
        let desktop = try startWaylandDesktop(.sway, width: 800, height: 600, dir: dir)
        let viewer = try ChildProcess(name: "viewer", executable: viewerPath, arguments: ["127.0.0.1::\(qemu.port)", "-v"],
                                      logURL: dir.appendingPathComponent("viewer.log"),
                                      environment: desktop.nativeClient.merging(["FARCAST_TRACE": "1", "WAYLAND_DEBUG": "client"]) { $1 })
        addTeardownBlock { viewer.stop() }
        XCTAssertTrue(poll(timeout: 20) { viewer.log.contains("viewer: trace present") && viewer.log.contains("the remote pointer is relative") || !viewer.isRunning },
                      "viewer ready with a relative pointer: \(viewer.logTail())")
        try WaylandVirtualPointer.run(desktop, ["move 100 100", "sleep 500", "move 400 300", "click 1", "sleep 500",
                                                "rel 10 5", "sleep 100", "rel -3 7", "sleep 300"], in: dir)
        XCTAssertTrue(poll(timeout: 5) { viewer.log.contains("pointer: captured (Ctrl+Alt+G releases it)") }, viewer.logTail())
        let log = viewer.log
        XCTAssertTrue(log.contains("zwp_pointer_constraints_v1@") && log.contains(".lock_pointer("), "SDL asked for a lock")
        XCTAssertNotNil(log.range(of: #"zwp_locked_pointer_v1@\d+\.locked\(\)"#, options: .regularExpression), "sway granted it")
        XCTAssertNotNil(log.range(of: #"zwp_relative_pointer_v1@\d+\.relative_motion\([^)]*10\.0+, 5\.0+"#, options: .regularExpression),
                        "the deltas arrived as relative motion")
        XCTAssertTrue(viewer.isRunning, viewer.logTail())
    }

    func testClickAndWheelReachTheServerThroughXWayland() throws { try clickAndWheel(xwayland: true) }
}
