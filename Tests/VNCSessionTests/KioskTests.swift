import Foundation
@testable import VNCSession
import XCTest

/// The kiosk's PIN failure count and systemd's notify protocol (kiosk.conf: ViewerTests).
final class KioskTests: XCTestCase {
    /// The count of wrong PINs in the state directory: saved 0600, read back, and a file that
    /// cannot be read or makes no sense is an error (the kiosk then starts locked), never a
    /// fresh count.
    func testPinFailureFile() throws {
        let dir = NSTemporaryDirectory() + "farcast-pin-\(UUID().uuidString.prefix(6))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = PinFailureFile(path: dir + "/farcast/pin-failures")
        XCTAssertNil(try f.load(), "no file: no wrong PIN")
        try f.save(.init(failures: 5, lockedUntil: 1_767_225_600.2))
        XCTAssertEqual(try f.load(), .init(failures: 5, lockedUntil: 1_767_225_601))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: f.path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(PinFailureFile.standard(environment: ["XDG_STATE_HOME": "/var/lib/farcast-kiosk"]).path,
                       "/var/lib/farcast-kiosk/farcast/pin-failures", "next to known_hosts in the kiosk's state directory")
        for bad in ["failures = 5\n", "failures = x\nlocked-until = 1\n", "failures = -1\nlocked-until = 1\n",
                    "failures = 1\nlocked-until = 1\nsmuggled = 1\n", String(repeating: "#", count: 5000)] {
            try bad.write(toFile: f.path, atomically: false, encoding: .utf8)
            XCTAssertThrowsError(try f.load(), bad.prefix(40).description)
        }
        try FileManager.default.removeItem(atPath: f.path)
        XCTAssertEqual(symlink("/etc/passwd", f.path), 0)
        XCTAssertThrowsError(try f.load(), "a link is not followed")
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
