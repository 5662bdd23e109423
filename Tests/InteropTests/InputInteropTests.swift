import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real `viewer` in a real window under Xvfb, driven like a person would (xdotool on the
/// local display, German layout), against a real Xvnc where `xev` logs what arrived.
final class InputInteropTests: XCTestCase {

    /// The remote desktop (an Xvnc with a full-screen xev logging keys and buttons), a local
    /// Xvfb and the viewer's window on it filling the screen at the origin (fit: 1:1 here).
    private struct Rig {
        let dir: URL, env: [String: String], xevLog: URL, viewer: ChildProcess, local: Int
        func xdo(_ args: [String]) throws { _ = try runTool("xdotool", args, in: dir, environment: env) }
        /// The keysyms xev logged, Xvnc's own modifier presses left out (it adds them to make
        /// @ or € on its US map).
        func typed() -> [String] {
            let mods = ["Shift_", "ISO_Level3", "Alt_", "Control_", "Meta_", "Super_", "Mode_switch"]
            return keysyms().filter { k in !mods.contains { k.hasPrefix($0) } }
        }
        func keysyms() -> [String] { InputInteropTests.parseXev((try? String(contentsOf: xevLog, encoding: .utf8)) ?? "").0 }
    }

    private func rig(_ viewerArgs: [String]) throws -> Rig {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-input-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }

        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        let xevLog = dir.appendingPathComponent("xev.log")
        let xev = try ChildProcess(name: "xev", executable: InteropTools.need("xev"),
                                   arguments: ["-display", server.displayName, "-geometry", "1024x768+0+0", "-event", "keyboard", "-event", "button"],
                                   logURL: xevLog)
        addTeardownBlock { xev.stop() }
        XCTAssertTrue(poll(timeout: 10) { (try? String(contentsOf: xevLog, encoding: .utf8))?.contains("Event") ?? false }
                      || xev.isRunning, "xev started")

        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let env = ["DISPLAY": ":\(local)"]
        let viewer = try ChildProcess(name: "viewer", executable: viewerPath,
                                      arguments: ["127.0.0.1::\(server.port)", "--encodings", "zrle", "-v"] + viewerArgs,
                                      logURL: dir.appendingPathComponent("viewer.log"), environment: env.merging(["SDL_VIDEODRIVER": "x11"]) { $1 })
        addTeardownBlock { viewer.stop() }
        var win = ""
        XCTAssertTrue(poll(timeout: 20) {
            // the title carries the desktop name once the session is ready
            guard let r = try? runTool("xdotool", ["search", "--name", "Farcast"], in: dir, environment: env, allowFailure: true) else { return false }
            win = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            guard !win.isEmpty, let n = try? runTool("xdotool", ["getwindowname", win], in: dir, environment: env, allowFailure: true) else { return false }
            return String(decoding: n.stdout, as: UTF8.self).contains("farcast-interop") || String(decoding: n.stdout, as: UTF8.self).contains(":")
        }, "viewer window ready: \(viewer.logTail())")
        // no window manager: put the window at the origin so window and screen coordinates agree
        _ = try runTool("xdotool", ["windowmove", win, "0", "0", "windowsize", win, "1024", "768"], in: dir, environment: env, allowFailure: true)
        Thread.sleep(forTimeInterval: 1.0)
        return Rig(dir: dir, env: env, xevLog: xevLog, viewer: viewer, local: local)
    }

    /// Xvfb's keymap is US; the viewer is told the keyboard is German (`--keyboard de`), so each
    /// physical key must give what a German keyboard has at that position.
    func testTypingAndClickingThroughTheViewerWindow() throws {
        let r = try rig(["--keyboard", "de"])
        // Click at known points (focus follows the pointer without a window manager).
        try r.xdo(["mousemove", "--sync", "200", "150"]); try r.xdo(["click", "1"])
        try r.xdo(["mousemove", "--sync", "700", "500"]); try r.xdo(["click", "3"])
        // Type by physical key (named by what the local US map has there): plain, Shift, AltGr
        // (the right Alt key) and the German layout's own keys.
        for k in ["h", "shift+a", "bracketleft", "minus", "shift+2", "Alt_R+q", "Alt_R+e", "z", "y"] {
            try r.xdo(["key", "--delay", "40", k])
        }
        let expected = ["h", "A", "udiaeresis", "ssharp", "quotedbl", "at", "EuroSign", "y", "z"]
        var buttons: [(Int, Int, Int)] = []
        let done = poll(timeout: 15, interval: 0.2) {
            buttons = InputInteropTests.parseXev((try? String(contentsOf: r.xevLog, encoding: .utf8)) ?? "").1
            return r.typed() == expected && buttons.count >= 2
        }
        XCTAssertTrue(done, "server got keys \(r.keysyms()) and buttons \(buttons); viewer log: \(r.viewer.logTail())")
        // The clicks land on the right remote pixels (window and framebuffer are both 1024x768 at the origin).
        XCTAssertTrue(buttons.contains { $0 == (1, 200, 150) }, "left click at 200,150: \(buttons)")
        XCTAssertTrue(buttons.contains { $0 == (3, 700, 500) }, "right click at 700,500: \(buttons)")
        // Modifiers arrive as their own keysyms, AltGr as ISO_Level3_Shift.
        XCTAssertTrue(r.keysyms().contains("Shift_L"), "\(r.keysyms())")
        XCTAssertTrue(r.keysyms().contains("ISO_Level3_Shift"), "\(r.keysyms())")
        // the named layout stays: the X server's keymap is not read
        XCTAssertFalse(r.viewer.log.contains("window system's keymap"), r.viewer.logTail())
    }

    /// Without `--keyboard` the X server's own keymap decides, and its changes mid-session are
    /// followed: setxkbmap to German (the Y position gives z), back to US (y), then a keymap of
    /// the kind XWayland passes on from a virtual or on-screen keyboard (wtype's: one key per
    /// character at the lowest key codes, positions of Escape and the digits), loaded with
    /// xkbcomp: its ü, ß and a arrive as ü, ß and a, not as 1, 2 and 3.
    func testTheXServersKeymapAndItsChangesTranslateTheKeys() throws {
        let r = try rig([])
        let display = ":\(r.local)"
        func setxkbmap(_ layout: String) throws {
            _ = try runTool("setxkbmap", ["-display", display, "-layout", layout], in: r.dir, environment: r.env)
        }
        func waitFor(_ n: Int) { _ = poll(timeout: 10, interval: 0.2) { r.typed().count >= n } }
        try r.xdo(["mousemove", "--sync", "500", "400"])
        try setxkbmap("de")
        XCTAssertTrue(poll(timeout: 10) { r.viewer.log.contains("layout German) translates the keys") }, r.viewer.logTail())
        // X key codes: 29 is Y's position, 24 is Q's (with AltGr, 108: @)
        try r.xdo(["key", "--delay", "40", "29"]); try r.xdo(["keydown", "108"]); try r.xdo(["key", "24"]); try r.xdo(["keyup", "108"])
        waitFor(2)
        try setxkbmap("us")
        XCTAssertTrue(poll(timeout: 10) { r.viewer.log.contains("layout English (US)) translates the keys") }, r.viewer.logTail())
        try r.xdo(["key", "--delay", "40", "29"])
        waitFor(3)
        let keymap = r.dir.appendingPathComponent("virtual.xkb")
        try Self.virtualKeymap.write(to: keymap, atomically: true, encoding: .utf8)
        func keymapsTaken() -> Int { r.viewer.log.components(separatedBy: "window system's keymap (").count - 1 }
        let before = keymapsTaken()
        _ = try runTool("xkbcomp", ["-w", "0", keymap.path, display], in: r.dir, environment: r.env)
        // (the server keeps its group's name, English (US): only a new keymap read tells)
        XCTAssertTrue(poll(timeout: 10) { keymapsTaken() > before }, r.viewer.logTail())
        // (xdotool reads a lone digit as a keysym: the key codes here have two)
        for code in ["10", "11", "12"] { try r.xdo(["key", "--delay", "40", code]) }
        let want = ["z", "at", "y", "udiaeresis", "ssharp", "a"]
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { r.typed() == want }, "server got \(r.keysyms()); viewer: \(r.viewer.logTail())")
        XCTAssertTrue(r.viewer.isRunning)
    }

    /// What wtype makes for "üßa" (one key per character, one level), from key code 10.
    static let virtualKeymap = """
        xkb_keymap {
        xkb_keycodes "(unnamed)" { minimum = 8; maximum = 255; <K1> = 10; <K2> = 11; <K3> = 12; };
        xkb_types "(unnamed)" { include "complete" };
        xkb_compatibility "(unnamed)" { include "complete" };
        xkb_symbols "(unnamed)" { key <K1> {[udiaeresis]}; key <K2> {[ssharp]}; key <K3> {[a]}; };
        };
        """

    /// KeyPress keysym names and ButtonPress (button, x, y) from xev's log.
    static func parseXev(_ log: String) -> ([String], [(Int, Int, Int)]) {
        var keys: [String] = [], buttons: [(Int, Int, Int)] = []
        let blocks = log.components(separatedBy: "\n\n")
        for b in blocks {
            if b.hasPrefix("KeyPress event") {
                // "keycode 38 (keysym 0x61, a)"
                if let r = b.range(of: #"keysym 0x[0-9a-f]+, ([^)]+)\)"#, options: .regularExpression) {
                    let m = String(b[r])
                    if let comma = m.firstIndex(of: ",") { keys.append(String(m[m.index(comma, offsetBy: 2)...].dropLast())) }
                }
            } else if b.hasPrefix("ButtonPress event") {
                // "(198,148), root:(200,150)," ... "button 1,": root coordinates (xev's window has a border)
                if let pr = b.range(of: #"root:\((\d+),(\d+)\)"#, options: .regularExpression),
                   let br = b.range(of: #"button (\d+)"#, options: .regularExpression) {
                    let xy = b[pr].dropFirst(6).prefix { $0 != ")" }.split(separator: ",").compactMap { Int($0) }
                    let btn = Int(b[br].split(separator: " ")[1]) ?? 0
                    if xy.count == 2 { buttons.append((btn, xy[0], xy[1])) }
                }
            }
        }
        return (keys, buttons)
    }
}
