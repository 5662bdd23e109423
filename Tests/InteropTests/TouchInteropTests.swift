import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Touch gestures through the real viewer window under Xvfb against a real Xvnc, where `xev`
/// logs what arrived. Xvfb has no touch device, so the fingers are a script the viewer replays
/// into SDL's event queue (FARCAST_TOUCH_REPLAY), as SDL's XInput2/evdev back ends deliver them:
/// from another thread, with real timing. Everything after SDL's queue is the real path.
final class TouchInteropTests: XCTestCase {
    /// Button presses and releases (press?, button, x, y) in root coordinates, from xev's log.
    static func buttons(_ log: String) -> [(press: Bool, button: Int, x: Int, y: Int)] {
        var out: [(Bool, Int, Int, Int)] = []
        for b in log.components(separatedBy: "\n\n") {
            let press = b.hasPrefix("ButtonPress event")
            guard press || b.hasPrefix("ButtonRelease event"),
                  let pr = b.range(of: #"root:\((\d+),(\d+)\)"#, options: .regularExpression),
                  let br = b.range(of: #"button (\d+)"#, options: .regularExpression) else { continue }
            let xy = b[pr].dropFirst(6).prefix { $0 != ")" }.split(separator: ",").compactMap { Int($0) }
            let btn = Int(b[br].split(separator: " ")[1]) ?? 0
            if xy.count == 2 { out.append((press, btn, xy[0], xy[1])) }
        }
        return out
    }

    /// A finger script line at window pixel (x, y) of a 1024x768 window; y a multiple of 3 keeps
    /// the fraction exact in SDL's float.
    static func at(_ op: String, _ id: Int, _ x: Int, _ y: Int) -> String {
        "\(op) \(id) \(Double(x) / 1024) \(Double(y) / 768)"
    }

    /// Runs the viewer with a finger script; returns what xev (a full-screen window of its own
    /// for this run) logged on the server.
    func run(script: [String], arguments: [String], server: VNCServer, dir: URL, name: String,
             until done: @escaping ([(press: Bool, button: Int, x: Int, y: Int)]) -> Bool) throws -> [(press: Bool, button: Int, x: Int, y: Int)] {
        let xevLog = dir.appendingPathComponent("xev-\(name).log")
        let xev = try ChildProcess(name: "xev", executable: InteropTools.need("xev"),
                                   arguments: ["-display", server.displayName, "-geometry", "1024x768+0+0", "-event", "button"],
                                   logURL: xevLog)
        defer { xev.stop() }
        XCTAssertTrue(poll(timeout: 10) { (try? runTool("xdotool", ["search", "--name", "Event Tester"], in: dir,
                                                          environment: ["DISPLAY": server.displayName], allowFailure: true))?.stdout.isEmpty == false },
                      "xev window up")
        let file = dir.appendingPathComponent("\(name).touch")
        try script.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let env = ["DISPLAY": ":\(local)", "SDL_VIDEODRIVER": "x11", "FARCAST_TOUCH_REPLAY": file.path]
        let viewer = try ChildProcess(name: "viewer-\(name)", executable: viewerPath,
                                      arguments: ["127.0.0.1::\(server.port)", "--encodings", "raw", "--verbose"] + arguments,
                                      logURL: dir.appendingPathComponent("viewer-\(name).log"), environment: env)
        defer { viewer.stop() }
        var got: [(press: Bool, button: Int, x: Int, y: Int)] = []
        let ok = poll(timeout: 30, interval: 0.25) {
            let log = (try? String(contentsOf: xevLog, encoding: .utf8)) ?? ""
            got = Self.buttons(log)
            return done(got) && viewer.logTail().contains("steps done")
        }
        // momentum and late events settle
        Thread.sleep(forTimeInterval: 0.5)
        let log = (try? String(contentsOf: xevLog, encoding: .utf8)) ?? ""
        got = Self.buttons(log)
        XCTAssertTrue(ok, "\(name): server got \(got); viewer: \(viewer.logTail())")
        return got
    }

    func testGesturesArriveAtTheRightRemotePixels() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-touch-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)

        // Touch mode: the window is 1024x768 like the desktop (fit is 1:1), so window pixel = remote pixel.
        var s = ["wait 1500"]
        s += [Self.at("down", 1, 200, 150), "wait 50", Self.at("up", 1, 200, 150), "wait 600"]            // tap
        s += [Self.at("down", 1, 700, 501), Self.at("down", 2, 740, 501), "wait 60",
              Self.at("up", 1, 700, 501), Self.at("up", 2, 740, 501), "wait 600"]                          // two-finger tap
        s += [Self.at("down", 1, 300, 399), "wait 700"]                                                    // hold...
        for (x, y) in [(320, 399), (400, 450), (450, 480), (500, 501)] { s += [Self.at("move", 1, x, y), "wait 30"] }
        s += [Self.at("up", 1, 500, 501), "wait 600"]                                                      // ...then drag
        s += [Self.at("down", 1, 500, 300), Self.at("down", 2, 540, 300), "wait 30"]                       // two-finger scroll up
        for i in 1...10 { s += [Self.at("move", 1, 500, 300 - 12 * i), Self.at("move", 2, 540, 300 - 12 * i), "wait 20"] }
        s += [Self.at("up", 1, 500, 180), Self.at("up", 2, 540, 180)]
        let touch = try run(script: s, arguments: ["--touch"], server: server, dir: dir, name: "touch") { got in
            got.contains { $0.press && $0.button == 5 }
        }
        let presses = touch.filter(\.press).filter { $0.button <= 3 }
        XCTAssertEqual(presses.map { "\($0.button)@\($0.x),\($0.y)" }, ["1@200,150", "3@700,501", "1@300,399"], "\(touch)")
        let releases = touch.filter { !$0.press && $0.button <= 3 }
        XCTAssertEqual(releases.map { "\($0.button)@\($0.x),\($0.y)" }, ["1@200,150", "3@700,501", "1@500,501"], "\(touch)")
        // fingers moving up = wheel down (button 5), at the two fingers' starting midpoint
        let wheel = touch.filter { $0.press && $0.button >= 4 }
        XCTAssertGreaterThanOrEqual(wheel.count, 5, "\(touch)")
        XCTAssertTrue(wheel.allSatisfy { $0.button == 5 && $0.x == 520 && $0.y == 300 }, "\(wheel)")

        // Trackpad mode: the soft cursor starts in the middle (512,384); a slow 40-point move
        // right (gain 1) puts it at 552; a tap clicks there; two-finger tap right-clicks there.
        var t = ["wait 1500", Self.at("down", 1, 100, 600)]
        for i in 1...10 { t += ["wait 50", Self.at("move", 1, 100 + 4 * i, 600)] }
        t += [Self.at("up", 1, 140, 600), "wait 500"]
        t += [Self.at("down", 1, 800, 150), "wait 50", Self.at("up", 1, 800, 150), "wait 600"]
        t += [Self.at("down", 1, 800, 150), Self.at("down", 2, 840, 150), "wait 60", Self.at("up", 1, 800, 150), Self.at("up", 2, 840, 150)]
        let pad = try run(script: t, arguments: ["--trackpad"], server: server, dir: dir, name: "trackpad") { got in
            got.contains { !$0.press && $0.button == 3 }
        }
        XCTAssertEqual(pad.map { "\($0.press ? "+" : "-")\($0.button)@\($0.x),\($0.y)" },
                       ["+1@552,384", "-1@552,384", "+3@552,384", "-3@552,384"], "\(pad)")
    }
}
