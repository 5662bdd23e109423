import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The real `viewer` in a real window under Xvfb, driven like a person would (xdotool on the
/// local display, German layout), against a real Xvnc where `xev` logs what arrived.
final class InputInteropTests: XCTestCase {

    func testTypingAndClickingThroughTheViewerWindow() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-input-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }

        // The remote desktop: 1024x768 with a full-screen xev window logging events.
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

        // The local display: Xvfb (its keymap is US; the viewer is told the keyboard is German,
        // so each physical key must give what a German keyboard has at that position).
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let env = ["DISPLAY": ":\(local)"]

        // The viewer, its window filling the local screen (fit: 1:1 here), keys through xkbcommon.
        let viewer = try ChildProcess(name: "viewer", executable: viewerPath,
                                      arguments: ["127.0.0.1::\(server.port)", "--keyboard", "de", "--encodings", "zrle"],
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

        // Click at known points (focus follows the pointer without a window manager).
        func xdo(_ args: [String]) throws { _ = try runTool("xdotool", args, in: dir, environment: env) }
        try xdo(["mousemove", "--sync", "200", "150"]); try xdo(["click", "1"])
        try xdo(["mousemove", "--sync", "700", "500"]); try xdo(["click", "3"])
        // Type by physical key (named by what the local US map has there): plain, Shift, AltGr
        // (the right Alt key) and the German layout's own keys.
        for k in ["h", "shift+a", "bracketleft", "minus", "shift+2", "Alt_R+q", "Alt_R+e", "z", "y"] {
            try xdo(["key", "--delay", "40", k])
        }
        let expected = ["h", "A", "udiaeresis", "ssharp", "quotedbl", "at", "EuroSign", "y", "z"]
        var keysyms: [String] = []
        var buttons: [(Int, Int, Int)] = []
        let done = poll(timeout: 15, interval: 0.2) {
            let log = (try? String(contentsOf: xevLog, encoding: .utf8)) ?? ""
            (keysyms, buttons) = InputInteropTests.parseXev(log)
            // Xvnc adds modifier presses of its own to produce @ or € on its US map: compare the rest
            let mods = ["Shift_", "ISO_Level3", "Alt_", "Control_", "Meta_", "Super_", "Mode_switch"]
            return keysyms.filter { k in !mods.contains { k.hasPrefix($0) } } == expected && buttons.count >= 2
        }
        XCTAssertTrue(done, "server got keys \(keysyms) and buttons \(buttons); viewer log: \(viewer.logTail())")
        // The clicks land on the right remote pixels (window and framebuffer are both 1024x768 at the origin).
        XCTAssertTrue(buttons.contains { $0 == (1, 200, 150) }, "left click at 200,150: \(buttons)")
        XCTAssertTrue(buttons.contains { $0 == (3, 700, 500) }, "right click at 700,500: \(buttons)")
        // Modifiers arrive as their own keysyms, AltGr as ISO_Level3_Shift.
        XCTAssertTrue(keysyms.contains("Shift_L"), "\(keysyms)")
        XCTAssertTrue(keysyms.contains("ISO_Level3_Shift"), "\(keysyms)")
    }

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
