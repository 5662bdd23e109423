import Foundation
import XCTest

/// `farcast kiosk` in a real window under Xvfb against a real Xvnc: the config file, the
/// picture turned for a portrait panel, the menu behind a PIN (or locked), and systemd's notify
/// protocol on a socket the test listens on as systemd would. (The KMSDRM path under systemd in
/// a virtual machine is scripts/test-kiosk-vm.sh.)
final class KioskInteropTests: XCTestCase {
    /// A datagram socket standing in for systemd's NOTIFY_SOCKET.
    final class NotifySocket {
        let path: String
        let fd: Int32
        init(_ path: String) throws {
            self.path = path
            unlink(path)
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { dst in for (i, b) in path.utf8.enumerated() where i < dst.count - 1 { dst[i] = b } }
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, rc == 0 else { throw HarnessError("cannot bind \(path)") }
        }
        deinit { close(fd); unlink(path) }

        /// The next message, or nil after `timeout` seconds.
        func receive(timeout: Double) -> String? {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return nil }
            var buf = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &buf, buf.count, 0)
            return n > 0 ? String(decoding: buf.prefix(n), as: UTF8.self) : nil
        }
    }

    func traces(_ log: URL, _ name: String) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("trace \(name) ") }.count
    }


    /// The screen of a panel turned 90° clockwise, turned back: logical (x, y) is physical
    /// (W - 1 - y, x).
    func unturned(_ p: RGBImage) -> RGBImage {
        var out = RGBImage(width: p.height, height: p.width)
        for y in 0..<out.height { for x in 0..<out.width { out.pixels[y * out.width + x] = p[p.width - 1 - y, x] } }
        return out
    }

    func startKiosk(_ config: String, dir: URL, display: Int, notify: String?) throws -> (ChildProcess, URL) {
        let conf = dir.appendingPathComponent("kiosk.conf")
        try config.write(to: conf, atomically: true, encoding: .utf8)
        chmod(conf.path, 0o600)   // it may hold the PIN: the kiosk refuses one every user can read
        var env = ["DISPLAY": ":\(display)", "SDL_VIDEODRIVER": "x11", "FARCAST_TRACE": "1",
                   "STATE_DIRECTORY": dir.appendingPathComponent("state").path]
        if let notify { env["NOTIFY_SOCKET"] = notify; env["WATCHDOG_USEC"] = "1000000" }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("state"), withIntermediateDirectories: true)
        let log = dir.appendingPathComponent("kiosk.log")
        let k = try ChildProcess(name: "kiosk", executable: viewerPath, arguments: ["kiosk", "--config", conf.path, "-v"],
                                 logURL: log, environment: env)
        addTeardownBlock { k.stop() }
        return (k, log)
    }

    func testPortraitKioskWithPinAndWatchdog() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-kiosk-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .scene; o.width = 800; o.height = 600
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "600x800", dir: dir)
        let notify = try NotifySocket(dir.appendingPathComponent("notify").path)
        let (kiosk, log) = try startKiosk("""
            # a portrait panel
            host = 127.0.0.1::\(server.port)
            rotate = 90
            quality = lossless
            menu = pin
            pin = 2468
            """, dir: dir, display: local, notify: notify.path)

        // systemd hears READY=1, then WATCHDOG=1 about every half second (WATCHDOG_USEC 1 s)
        XCTAssertEqual(notify.receive(timeout: 20)?.hasPrefix("READY=1"), true, kiosk.logTail())
        var pings = 0
        let until = Date(timeIntervalSinceNow: 2.2)
        while Date() < until { if notify.receive(timeout: 0.5) == "WATCHDOG=1" { pings += 1 } }
        XCTAssertGreaterThanOrEqual(pings, 3, "watchdog pings in 2.2 s")

        // the 800x600 desktop fills the 600x800 panel turned a quarter clockwise, pixel for pixel
        let screen = try server.captureStableScreen()
        var shown = RGBImage(width: 1, height: 1)
        XCTAssertTrue(poll(timeout: 15) {
            shown = (try? self.unturned(captureDisplay(":\(local)", in: dir))) ?? shown
            return shown == screen
        }, "the turned picture differs: \(compareImages(shown, screen))\n\(kiosk.logTail())")

        // F8: the PIN pad, not the menu; a wrong PIN keeps it shut, the right one opens it
        let x = ["DISPLAY": ":\(local)"]
        func xdo(_ a: [String]) throws { _ = try runTool("xdotool", a, in: dir, environment: x) }
        try xdo(["mousemove", "--sync", "300", "400"])
        Thread.sleep(forTimeInterval: 0.3)
        try xdo(["key", "F8"])
        Thread.sleep(forTimeInterval: 0.5)
        try xdo(["key", "1", "1", "1", "1", "Return"])
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(traces(log, "menu-shown"), 0, "a wrong PIN opened the menu")
        try xdo(["key", "2", "4", "6", "8", "Return"])
        let opened = poll(timeout: 5) { self.traces(log, "menu-shown") > 0 }
        if !opened { _ = try? saveArtefacts("kiosk-pin", ["local": captureDisplay(":\(local)", in: dir)]) }
        XCTAssertTrue(opened, "the right PIN did not open the menu: \(kiosk.logTail())")
        XCTAssertTrue(kiosk.isRunning)
        // nobody read the socket since: the pings were dropped, the loop never waited on them
        XCTAssertEqual(notify.receive(timeout: 2), "WATCHDOG=1", "pings still come")
    }

    /// Wrong PINs count across pads and restarts: four wrong, Esc, F8, one more locks the pad;
    /// the kiosk started again (same state directory) still refuses the right PIN, and the
    /// count is in the state directory. (Before, each pad counted from zero and nothing was kept.)
    func testWrongPinsCountAcrossPadsAndRestarts() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-kiosk-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .scene
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let config = "host = 127.0.0.1::\(server.port)\nmenu = pin\npin = 2468\n"
        let x = ["DISPLAY": ":\(local)"]
        func xdo(_ a: [String]) throws { _ = try runTool("xdotool", a, in: dir, environment: x) }
        func lines(_ log: URL, _ text: String) -> Int {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").components(separatedBy: "\n").filter { $0.contains(text) }.count
        }
        func up(_ kiosk: ChildProcess, _ log: URL) throws {
            XCTAssertTrue(poll(timeout: 20) { self.traces(log, "present") > 0 }, kiosk.logTail())
            try xdo(["mousemove", "--sync", "500", "400"])
            Thread.sleep(forTimeInterval: 0.3)
        }
        var (kiosk, log) = try startKiosk(config, dir: dir, display: local, notify: nil)
        try up(kiosk, log)
        try xdo(["key", "F8"])
        for n in 1...4 {
            try xdo(["key", "1", "1", "1", "1", "Return"])
            XCTAssertTrue(poll(timeout: 5) { lines(log, "a wrong PIN (\(n) in a row)") == 1 }, kiosk.logTail())
        }
        try xdo(["key", "Escape", "F8", "1", "3", "5", "7", "Return"])
        XCTAssertTrue(poll(timeout: 5) { lines(log, "a wrong PIN (5 in a row): the PIN pad is locked for 60 s") == 1 },
                      "a new pad started a new count: \(kiosk.logTail())")
        let saved = try String(contentsOfFile: dir.appendingPathComponent("state/farcast/pin-failures").path, encoding: .utf8)
        XCTAssertTrue(saved.contains("failures = 5"), saved)

        // a restart (systemd's, or the plug): the count is read back, the pad opens locked
        kiosk.stop()
        (kiosk, log) = try startKiosk(config, dir: dir, display: local, notify: nil)
        try up(kiosk, log)
        try xdo(["key", "F8"])
        XCTAssertTrue(poll(timeout: 5) { lines(log, "s more (5 wrong PINs in a row)") == 1 }, kiosk.logTail())
        try xdo(["key", "2", "4", "6", "8", "Return"])
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(traces(log, "menu-shown"), 0, "the right PIN opened the menu during the lock")
        XCTAssertEqual(lines(log, "the menu was opened with the PIN"), 0)
    }

    /// A password file every user can read stops `farcast kiosk` at once with status 2 (a
    /// config mistake: the unit does not restart it), saying how to put it right.
    func testPasswordFileOthersCanReadIsRefused() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-kiosk-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let pw = dir.appendingPathComponent("kiosk.password").path
        try Data([0x2f, 0x8d, 0x1a, 0x3b, 0x79, 0x2c, 0x5e, 0x10]).write(to: URL(fileURLWithPath: pw))
        chmod(pw, 0o644)
        let conf = dir.appendingPathComponent("kiosk.conf").path
        try "host = 127.0.0.1::1\npassword-file = \(pw)\n".write(toFile: conf, atomically: false, encoding: .utf8)
        let r = try runTool(viewerPath, ["kiosk", "--config", conf], in: dir, environment: ["SDL_VIDEODRIVER": "dummy"],
                            timeout: 30, allowFailure: true)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(pw) holds the server's password and every user can read it (mode 0644)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("sudo chmod 0640 \(pw)"), r.stderr)
    }

    /// menu = locked (the default): F8 opens nothing.
    func testLockedMenuStaysShut() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-kiosk-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var o = VNCServer.Options()
        o.content = .scene
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let (kiosk, log) = try startKiosk("host = 127.0.0.1::\(server.port)\n", dir: dir, display: local, notify: nil)
        XCTAssertTrue(poll(timeout: 20) { self.traces(log, "present") > 0 && kiosk.logTail(50).contains("ready") }, kiosk.logTail())
        let x = ["DISPLAY": ":\(local)"]
        _ = try runTool("xdotool", ["mousemove", "--sync", "500", "400"], in: dir, environment: x)
        Thread.sleep(forTimeInterval: 0.3)
        _ = try runTool("xdotool", ["key", "F8"], in: dir, environment: x)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(traces(log, "menu-shown"), 0, "the locked menu opened")
        XCTAssertTrue(kiosk.isRunning)
    }
}
