import Foundation
import Interaction
@testable import viewer
import XCTest

/// The detection: tools run, files and environment read, in its order of precedence.

final class KeyboardLayoutDetectorTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("farcast-kbd-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func keyboardFile(_ text: String) throws -> String {
        let url = dir.appendingPathComponent("keyboard")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private let piFile = """
        # KEYBOARD CONFIGURATION FILE

        # Consult the keyboard(5) manual page.

        XKBMODEL="pc105"
        XKBLAYOUT="gb"
        XKBVARIANT=""
        XKBOPTIONS="ctrl:nocaps"

        BACKSPACE="guess"
        """

    private let xkbEnv = ["XKB_DEFAULT_LAYOUT": "fr", "XKB_DEFAULT_VARIANT": "bepo",
                          "XKB_DEFAULT_MODEL": "pc104", "XKB_DEFAULT_OPTIONS": "compose:ralt"]

    func testPrecedence() throws {
        let file = try keyboardFile(piFile)
        let noFile = dir.appendingPathComponent("missing").path
        // DISPLAY is set, but querySession: false keeps the test away from any X server.
        var env = xkbEnv
        env["DISPLAY"] = ":99"

        var (spec, source) = KeyboardLayoutDetector.detect(override: "de", environment: env,
                                                           defaultKeyboardPath: file, querySession: false)
        XCTAssertEqual(spec, KeyboardLayoutSpec(rules: "evdev", model: "pc105", layout: "de", variant: "", options: ""))
        XCTAssertEqual(source, "--keyboard de")

        (spec, source) = KeyboardLayoutDetector.detect(override: nil, environment: env,
                                                       defaultKeyboardPath: file, querySession: false)
        XCTAssertEqual(spec, KeyboardLayoutSpec(rules: "evdev", model: "pc104", layout: "fr", variant: "bepo", options: "compose:ralt"))
        XCTAssertEqual(source, "XKB_DEFAULT_* environment")

        (spec, source) = KeyboardLayoutDetector.detect(override: "  ", environment: [:],
                                                       defaultKeyboardPath: file, querySession: false)
        XCTAssertEqual(spec, KeyboardLayoutSpec(rules: "evdev", model: "pc105", layout: "gb", variant: "", options: "ctrl:nocaps"))
        XCTAssertEqual(source, file)

        (spec, source) = KeyboardLayoutDetector.detect(override: nil, environment: ["XKB_DEFAULT_LAYOUT": ""],
                                                       defaultKeyboardPath: noFile, querySession: false)
        XCTAssertEqual(spec, KeyboardLayoutSpec(rules: "evdev", model: "pc105", layout: "us", variant: "", options: ""))
        XCTAssertEqual(source, "default (us)")

        // A file without a layout does not count.
        let empty = try keyboardFile("XKBMODEL=pc105\nXKBLAYOUT=\n")
        (spec, source) = KeyboardLayoutDetector.detect(override: nil, environment: [:],
                                                       defaultKeyboardPath: empty, querySession: false)
        XCTAssertEqual(spec.layout, "us")
        XCTAssertEqual(source, "default (us)")
    }

    func testSessionQueryWithoutDisplayFallsThrough() throws {
        let file = try keyboardFile(piFile)
        // querySession: true but no DISPLAY: nothing is run, the file decides.
        let (spec, source) = KeyboardLayoutDetector.detect(override: nil, environment: ["PATH": "/nonexistent"],
                                                           defaultKeyboardPath: file, querySession: true)
        XCTAssertEqual(spec.layout, "gb")
        XCTAssertEqual(source, file)
        // DISPLAY set but neither tool on PATH: same.
        let (spec2, _) = KeyboardLayoutDetector.detect(override: nil, environment: ["PATH": "/nonexistent", "DISPLAY": ":99"],
                                                       defaultKeyboardPath: file, querySession: true)
        XCTAssertEqual(spec2.layout, "gb")
    }

    /// Puts an executable shell script named `name` in a temp bin directory.
    private func fakeTool(_ name: String, _ script: String) throws -> String {
        let bin = dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let url = bin.appendingPathComponent(name)
        try ("#!/bin/sh\n" + script + "\n").write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return bin.path
    }

    func testSessionBeatsEnvironmentAndFile() throws {
        let file = try keyboardFile(piFile)
        let bin = try fakeTool("setxkbmap", """
            [ "$1" = "-query" ] || exit 2
            [ "$DISPLAY" = ":42" ] || exit 3
            printf 'rules:      evdev\nmodel:      pc105\nlayout:     de\nvariant:    nodeadkeys\n'
            """)
        var env = xkbEnv
        env["PATH"] = bin
        env["DISPLAY"] = ":42"
        var (spec, source) = KeyboardLayoutDetector.detect(override: nil, environment: env,
                                                           defaultKeyboardPath: file, querySession: true)
        XCTAssertEqual(spec, KeyboardLayoutSpec(layout: "de", variant: "nodeadkeys"))
        XCTAssertEqual(source, "X session on :42 (setxkbmap -query)")
        // --keyboard still wins, and querySession: false skips the session.
        (spec, _) = KeyboardLayoutDetector.detect(override: "ru", environment: env, defaultKeyboardPath: file)
        XCTAssertEqual(spec.layout, "ru")
        (spec, _) = KeyboardLayoutDetector.detect(override: nil, environment: env,
                                                  defaultKeyboardPath: file, querySession: false)
        XCTAssertEqual(spec.layout, "fr")
    }

    func testRootWindowPropertyWhenSetxkbmapFails() throws {
        _ = try fakeTool("setxkbmap", "exit 1")
        let bin = try fakeTool("xprop", #"echo '_XKB_RULES_NAMES(STRING) = "evdev", "pc104", "gb", "extd", "compose:menu"'"#)
        let (spec, source) = KeyboardLayoutDetector.detect(override: nil, environment: ["PATH": bin, "DISPLAY": ":1"],
                                                           defaultKeyboardPath: "/nonexistent", querySession: true)
        XCTAssertEqual(spec, KeyboardLayoutSpec(rules: "evdev", model: "pc104", layout: "gb", variant: "extd", options: "compose:menu"))
        XCTAssertEqual(source, "X session on :1 (root window _XKB_RULES_NAMES)")
    }

    func testHangingToolIsCutOff() throws {
        let bin = try fakeTool("setxkbmap", "exec sleep 30")
        let start = Date()
        XCTAssertNil(KeyboardLayoutDetector.run("setxkbmap", ["-query"], environment: ["PATH": bin], timeout: 0.3))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testDetectedSpecBuildsATranslator() throws {
        let file = try keyboardFile(piFile)
        let (spec, _) = KeyboardLayoutDetector.detect(override: nil, environment: [:],
                                                      defaultKeyboardPath: file, querySession: false)
        let t = try KeyboardTranslator(spec: spec)
        // gb with ctrl:nocaps: Shift+3 is sterling, Caps Lock is a Control key.
        _ = t.key(scancode: 225, down: true)
        XCTAssertEqual(t.key(scancode: 32, down: true).first?.keysym, 0xa3)
        _ = t.releaseAll()
        XCTAssertEqual(t.key(scancode: 57, down: true).first?.keysym, 0xffe3)   // Control_L
        _ = t.releaseAll()
    }
}
