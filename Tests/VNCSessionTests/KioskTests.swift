import Foundation
@testable import VNCSession
import XCTest

/// The kiosk's config file and systemd's notify protocol.
final class KioskTests: XCTestCase {
    func testConfigReadsEveryKey() throws {
        let c = try KioskConfig.parse("""
            # the remote desktop on the wall
            host = 192.168.1.10:0
            password-file = /etc/farcast/kiosk.password   # mode 0640
            username = pi
            security = X509Plain,RA2
            input = trackpad
            monitor = 2
            scale = 1:1
            quality = 6
            rotate = 90
            on-screen-keyboard = yes
            view-only = no
            menu = pin
            pin = 2468
            """)
        XCTAssertEqual(c.host, "192.168.1.10:0")
        XCTAssertEqual(c.passwordFile, "/etc/farcast/kiosk.password")
        XCTAssertEqual(c.username, "pi")
        XCTAssertEqual(c.security, "X509Plain,RA2")
        XCTAssertEqual(c.input, "trackpad")
        XCTAssertEqual(c.monitor, 2)
        XCTAssertEqual(c.scale, "1:1")
        XCTAssertEqual(c.quality, 6)
        XCTAssertEqual(c.rotate, 90)
        XCTAssertTrue(c.onScreenKeyboard)
        XCTAssertFalse(c.viewOnly)
        XCTAssertEqual(c.menu, .pin("2468"))
        XCTAssertEqual(try KioskConfig.parse("host = pi.local").menu, .locked, "locked unless said otherwise")
        XCTAssertTrue(try KioskConfig.parse("host = a\nquality = lossless").lossless)
    }

    func testConfigMistakesNameTheLine() {
        func fails(_ text: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try KioskConfig.parse(text), file: file, line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", file: file, line: line)
            }
        }
        fails("host = a\nrotate = 45", "line 2: rotate takes 0, 90, 180 or 270")
        fails("host = a\nhots = b", "line 2: unknown key 'hots'")
        fails("host = a\njust words", "line 2: expected 'key = value'")
        fails("input = touch", "no host given")
        fails("host = a\nmenu = pin", "needs pin = 4 to 12 digits")
        fails("host = a\nmenu = pin\npin = 12a4", "needs pin = 4 to 12 digits")
        fails("host = a\non-screen-keyboard = perhaps", "takes yes or no")
        fails("host = a\nquality = 11", "quality takes 0 to 9 or lossless")
        XCTAssertThrowsError(try KioskConfig.load(path: "/nonexistent/kiosk.conf")) {
            XCTAssertTrue("\($0)".contains("cannot read /nonexistent/kiosk.conf"), "\($0)")
        }
    }

    /// READY=1 and WATCHDOG=1 arrive on the socket systemd would listen on, pings at most at
    /// half the watchdog interval.
    func testNotifySendsReadyAndWatchdogPings() throws {
        let path = NSTemporaryDirectory() + "farcast-notify-\(getpid()).sock"
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd); unlink(path) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in for (i, b) in path.utf8.enumerated() { dst[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(rc, 0)
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        func receive() -> String? {
            var buf = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &buf, buf.count, 0)
            return n > 0 ? String(decoding: buf.prefix(n), as: UTF8.self) : nil
        }
        XCTAssertNil(SystemdNotifier(environment: [:]), "not under systemd: nothing to notify")
        let n = try XCTUnwrap(SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"]))
        XCTAssertEqual(n.pingInterval, 1.0)
        n.ready(status: "connecting")
        XCTAssertEqual(receive(), "READY=1\nSTATUS=connecting")
        n.pingIfDue(now: 100)
        XCTAssertEqual(receive(), "WATCHDOG=1")
        n.pingIfDue(now: 100.5)   // too soon: nothing
        n.pingIfDue(now: 101)
        XCTAssertEqual(receive(), "WATCHDOG=1")
        XCTAssertNil(SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"])?.pingInterval,
                     "a watchdog meant for another process")
    }
}
