import Foundation
import XCTest
import RFB
@testable import VNCSession

/// Large selections with xclip as the local owner, through the real viewer window: xclip sends
/// 1 MiB and more in parts (INCR), which the viewer reads with its own X connection on X11
/// (SDL 2.26 cannot), and it is seen when set (XFixes), without the viewer having owned the
/// selection or gained focus. Read back with xclip on each side, compared exactly.
final class ClipboardIncrInteropTests: XCTestCase {
    struct Setup {
        let server: VNCServer, viewer: ChildProcess, dir: URL
        let localEnv: [String: String], serverEnv: [String: String]
    }

    /// Xvnc (its MaxCutText raised past our 1 MiB texts) and the viewer on a local Xvfb.
    func start(_ args: [String] = []) throws -> Setup {
        _ = try InteropTools.need("xclip")
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 320; o.height = 240
        o.extraArguments = ["-MaxCutText", "\(8 << 20)"]
        let server = try startServer(.xvnc, o)
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-incr-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let local = try startLocalXvfb(avoiding: [server.display], size: "640x480", dir: dir)
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--verbose"] + args)
        return Setup(server: server, viewer: viewer, dir: dir, localEnv: ["DISPLAY": ":\(local)"],
                     serverEnv: ["DISPLAY": server.displayName])
    }

    /// Numbered lines of mixed scripts, at least `bytes` long: a part lost, doubled or out of
    /// order shows.
    static func numbered(_ bytes: Int, tag: String) -> String {
        var s = "", n = 0
        while s.utf8.count < bytes { s += "\(tag) \(n): 日本語 😀 שלום café\n"; n += 1 }
        return s
    }

    /// xclip owning `sel` with `text` on the display of `env` (-quiet: in the foreground).
    func xclipOwner(_ text: String, _ sel: String, _ env: [String: String], _ s: Setup, name: String) throws -> ChildProcess {
        let file = s.dir.appendingPathComponent("\(name).txt")
        try Data(text.utf8).write(to: file)
        let p = try ChildProcess(name: "xclip", executable: InteropTools.need("xclip"),
                                 arguments: ["-quiet", "-selection", sel, "-i", file.path],
                                 logURL: s.dir.appendingPathComponent("\(name).log"), environment: env)
        addTeardownBlock { p.stop() }
        return p
    }

    func read(_ sel: String, _ env: [String: String], _ s: Setup) -> String {
        guard let r = try? runTool("xclip", ["-o", "-selection", sel], in: s.dir, environment: env, timeout: 10, allowFailure: true)
        else { return "" }
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// Waits until `sel` on the display of `env` holds `text` exactly.
    func expect(_ text: String, _ sel: String, _ env: [String: String], _ s: Setup, _ what: String,
                file: StaticString = #filePath, line: UInt = #line) {
        var last = ""
        XCTAssertTrue(poll(timeout: 20, interval: 0.5) { last = read(sel, env, s); return last == text },
                      "\(what): \(last.utf8.count) bytes, not \(text.utf8.count); first difference at byte \(zip(last.utf8, text.utf8).prefix { $0 == $1 }.count); viewer: \(s.viewer.logTail(20))",
                      file: file, line: line)
    }

    /// 1 MiB copied locally with xclip (INCR) reaches the server's CLIPBOARD exactly; then a
    /// second one replaces it (a change seen while the viewer does not own the selection).
    func testLocalIncrClipboardReachesServer() throws {
        let s = try start()
        XCTAssertTrue(s.viewer.log.contains("reading local selections on our own X connection (change notification: XFixes)"),
                      s.viewer.logTail(30))
        for n in 0..<2 {
            let text = Self.numbered((1 << 20) + n * 70_001, tag: "local\(n)")
            let owner = try xclipOwner(text, "clipboard", s.localEnv, s, name: "local\(n)")
            expect(text, "clipboard", s.serverEnv, s, "server CLIPBOARD")
            XCTAssertTrue(s.viewer.log.contains("clipboard: read the local clipboard selection (\(text.utf8.count) bytes)"))
            owner.stop()
        }
    }

    /// 1 MiB set on the server reaches the local display, where xclip reads it from the
    /// viewer's (SDL's) one property; nothing is echoed back. The server side owner puts it in
    /// one property: Xvnc 1.12 does not read INCR.
    func testServerMebibyteIsReadLocallyWithXclip() throws {
        let s = try start()
        let text = Self.numbered(1 << 20, tag: "remote")
        let file = s.dir.appendingPathComponent("remote.txt")
        try Data(text.utf8).write(to: file)
        let script = s.dir.appendingPathComponent("owner.py")
        try ClipboardInteropTests.ownerScript.write(to: script, atomically: true, encoding: .utf8)
        let owner = try ChildProcess(name: "owner", executable: InteropTools.need("python3"),
                                     arguments: [script.path, "CLIPBOARD", file.path],
                                     logURL: s.dir.appendingPathComponent("owner.log"), environment: s.serverEnv)
        addTeardownBlock { owner.stop() }
        expect(text, "clipboard", s.localEnv, s, "local CLIPBOARD")
        // our own selection is not read back and sent (the owner keeps the server's selection)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(owner.isRunning, "the server's owner lost its selection: an echo; viewer: \(s.viewer.logTail(20))")
        // nor even read: the reader knows SDL's windows as ours
        XCTAssertFalse(s.viewer.log.contains("clipboard: read the local"), s.viewer.logTail(20))
        XCTAssertFalse(s.viewer.log.contains("selection was not read"), s.viewer.logTail(20))
    }

    /// `--clipboard-primary`: 1 MiB selected locally (PRIMARY, INCR) reaches the server's PRIMARY.
    func testLocalIncrPrimaryReachesServer() throws {
        let s = try start(["--clipboard-primary"])
        let text = Self.numbered((1 << 20) + 4321, tag: "primary")
        let owner = try xclipOwner(text, "primary", s.localEnv, s, name: "primary")
        expect(text, "primary", s.serverEnv, s, "server PRIMARY")
        owner.stop()
    }

    /// Over `--clipboard-max-size` an INCR selection is refused with the size (it is taken to
    /// its end and dropped, so xclip is free again and still serves locally), and not sent.
    func testOversizedIncrSelectionIsRefused() throws {
        let s = try start(["--clipboard-max-size", "100000"])
        let text = Self.numbered(2 << 20, tag: "big")
        let owner = try xclipOwner(text, "clipboard", s.localEnv, s, name: "big")
        let line = "local text of \(text.utf8.count) bytes is over the 100000-byte limit; not sent"
        XCTAssertTrue(poll(timeout: 20, interval: 0.2) { s.viewer.log.contains(line) }, "no refusal; viewer: \(s.viewer.logTail(20))")
        XCTAssertTrue(owner.isRunning)
        XCTAssertEqual(read("clipboard", s.localEnv, s), text, "xclip still serves locally")
        XCTAssertNotEqual(read("clipboard", s.serverEnv, s), text)
    }
}
