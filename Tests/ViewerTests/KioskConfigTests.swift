import FarcastTools
import Foundation
import Interaction
import RFB
@testable import viewer
import VNCSession
import XCTest

/// The kiosk's config file (`viewer kiosk`'s own: it is read only by the command line).
final class KioskConfigTests: XCTestCase {
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
                XCTAssertTrue($0 is ConfigError, "a mistake in kiosk.conf is the user's: \(type(of: $0))", file: file, line: line)
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

    /// Screenshots and recording are off unless kiosk.conf enables them; recordings have a cap.
    func testCaptureKeys() throws {
        let plain = try KioskConfig.parse("host = a")
        XCTAssertFalse(plain.screenshots)
        XCTAssertFalse(plain.recording)
        XCTAssertEqual(plain.recordingMaxBytes, RecordingLimit.defaultMaxBytes)
        let c = try KioskConfig.parse("host = a\nscreenshots = yes\nrecording = yes\nrecording-max-size = 200M")
        XCTAssertTrue(c.screenshots)
        XCTAssertTrue(c.recording)
        XCTAssertEqual(c.recordingMaxBytes, 200 << 20)
        XCTAssertThrowsError(try KioskConfig.parse("host = a\nrecording-max-size = 10K")) {
            XCTAssertTrue("\($0)".contains("line 2: recording-max-size takes a size from 64K"), "\($0)")
        }
        XCTAssertThrowsError(try KioskConfig.parse("host = a\nrecording = sometimes"))
    }

    /// A password file (or a kiosk.conf holding the PIN) that every user can read is refused,
    /// saying how to put it right; group-readable (the kiosk's group) is how it should be.
    func testSecretFilesOthersCanReadAreRefused() throws {
        let dir = NSTemporaryDirectory() + "farcast-kiosk-modes-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pw = dir + "/kiosk.password", conf = dir + "/kiosk.conf"
        try Data([1, 2, 3, 4, 5, 6, 7, 8]).write(to: URL(fileURLWithPath: pw))
        try "host = a\npassword-file = \(pw)\n".write(toFile: conf, atomically: false, encoding: .utf8)
        chmod(conf, 0o644)
        chmod(pw, 0o640)
        XCTAssertNoThrow(try KioskConfig.load(path: conf))
        for mode: mode_t in [0o644, 0o604, 0o642] {
            chmod(pw, mode)
            XCTAssertThrowsError(try KioskConfig.load(path: conf), String(mode, radix: 8)) {
                let m = "\($0)"
                XCTAssertTrue(m.contains("\(pw) holds the server's password and every user can"), m)
                XCTAssertTrue(m.contains("sudo chmod 0640 \(pw)"), m)
            }
        }
        chmod(pw, 0o600)
        try "host = a\nmenu = pin\npin = 2468\n".write(toFile: conf, atomically: false, encoding: .utf8)
        chmod(conf, 0o644)
        XCTAssertThrowsError(try KioskConfig.load(path: conf)) {
            XCTAssertTrue("\($0)".contains("holds the menu's PIN and every user can read it (mode 0644)"), "\($0)")
        }
        chmod(conf, 0o640)
        XCTAssertEqual(try KioskConfig.load(path: conf).menu, .pin("2468"))
    }
}
