import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The clipboard and primary selection of the viewer as a native Wayland client on a headless
/// sway, against a real Xvnc: wl-copy / wl-paste on sway's side (wlr-data-control), xclip on the
/// server's display, 1 MiB of mixed-script UTF-8 each way, and a text over `--clipboard-max-size`
/// refused as on X11.
///
/// Wayland gives selections to the focused window only, and a client may set one only with the
/// serial of an input event it received: the window is focused (the only one on the output), and
/// a key typed through wtype into it gives the serial before the server's text is expected here.
final class WaylandClipboardInteropTests: XCTestCase {
    func workDir() -> URL {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wlclip-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    struct Setup {
        let server: VNCServer, desktop: WaylandDesktop, viewer: ChildProcess, dir: URL
        var serverEnv: [String: String] { ["DISPLAY": server.displayName] }
    }

    func start(_ args: [String] = [], xwayland: Bool = false, on compositor: WaylandDesktop.Compositor = .sway) throws -> Setup {
        try WaylandDesktop.skipUnlessAvailable(compositor, tools: ["wl-copy", "wl-paste", "xclip", "python3"]
                                               + (compositor == .sway ? ["wtype"] : ["pipewire", "cc", "pkg-config"])
                                               + (xwayland ? ["Xwayland", "xhost"] : []))
        let dir = workDir()
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 320; o.height = 240
        // Xvnc drops cut text over MaxCutText (256 KiB by default); the 1 MiB case needs more
        o.extraArguments = ["-MaxCutText", "\(4 << 20)"]
        let server = try startServer(.xvnc, o)
        let desktop = try startWaylandDesktop(compositor, width: 640, height: 480, xwayland: xwayland, dir: dir)
        let viewer = try startViewerOnWayland(desktop, port: server.port, dir: dir, args, xwayland: xwayland)
        XCTAssertTrue(viewer.log.contains(xwayland ? "clipboard: reading local selections on our own X connection"
                                                   : "clipboard: our own Wayland data devices"), viewer.logTail())
        return Setup(server: server, desktop: desktop, viewer: viewer, dir: dir)
    }

    /// wl-copy serving `text` (from a file: 1 MiB is over the length of one argument).
    func wlCopy(_ text: String, primary: Bool = false, _ s: Setup, name: String) throws -> ChildProcess {
        let file = s.dir.appendingPathComponent("\(name).txt")
        try Data(text.utf8).write(to: file)
        let copy = try InteropTools.need("wl-copy")
        let c = try ChildProcess(name: name, executable: "/bin/sh",
                                 arguments: ["-c", "exec \"$0\" --foreground \(primary ? "--primary " : "")--type 'text/plain;charset=utf-8' < \"$1\"", copy, file.path],
                                 logURL: s.dir.appendingPathComponent("\(name).log"), environment: s.desktop.wayland)
        addTeardownBlock { c.stop() }
        return c
    }

    func wlPaste(primary: Bool = false, _ s: Setup) -> String {
        let args = ["--no-newline"] + (primary ? ["--primary"] : [])
        guard let r = try? runTool("wl-paste", args, in: s.dir, environment: s.desktop.wayland, timeout: 10, allowFailure: true)
        else { return "" }
        return String(decoding: r.stdout, as: UTF8.self)
    }

    func xclipRead(_ sel: String, _ s: Setup) -> String {
        guard let r = try? runTool("xclip", ["-o", "-selection", sel], in: s.dir, environment: s.serverEnv, timeout: 10, allowFailure: true)
        else { return "" }
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// An owner of the server's `sel` serving `text` whole (Xvnc 1.12 reads no INCR; see ClipboardInteropTests).
    func serverOwner(_ text: String, _ sel: String, _ s: Setup, name: String) throws -> ChildProcess {
        let script = s.dir.appendingPathComponent("owner.py"), file = s.dir.appendingPathComponent("\(name).txt")
        try ClipboardInteropTests.ownerScript.write(to: script, atomically: true, encoding: .utf8)
        try Data(text.utf8).write(to: file)
        let c = try ChildProcess(name: name, executable: InteropTools.need("python3"),
                                 arguments: [script.path, sel.uppercased(), file.path],
                                 logURL: s.dir.appendingPathComponent("\(name).log"), environment: s.serverEnv)
        addTeardownBlock { c.stop() }
        return c
    }

    func testClipboardCarriesOneMebibyteBothWays() throws { try oneMebibyteBothWays(xwayland: false) }

    /// The same through XWayland: the viewer's X11 path, sway's XWayland bridging the selections.
    func testClipboardCarriesOneMebibyteBothWaysThroughXWayland() throws { try oneMebibyteBothWays(xwayland: true) }

    /// On mutter (GNOME's compositor: no wlr-data-control, so wl-copy and wl-paste take the
    /// focus with a surface of their own, which needs a keyboard on the seat: a RemoteDesktop
    /// session holds one, MutterScreen.holdKeyboard).
    func testClipboardCarriesOneMebibyteBothWaysOnMutter() throws { try oneMebibyteBothWays(xwayland: false, on: .mutter) }

    /// The same through mutter's XWayland: the viewer's X11 reader, mutter bridging the selections.
    func testClipboardCarriesOneMebibyteBothWaysThroughXWaylandOnMutter() throws { try oneMebibyteBothWays(xwayland: true, on: .mutter) }

    func oneMebibyteBothWays(xwayland: Bool, on compositor: WaylandDesktop.Compositor = .sway) throws {
        let s = try start(xwayland: xwayland, on: compositor)
        if compositor == .mutter {
            let kb = try MutterScreen.holdKeyboard(s.desktop, in: s.dir)
            addTeardownBlock { kb.stop() }
        }
        // local → remote
        let local = "wayland " + ClipboardInteropTests.large(1 << 20)
        let copy = try wlCopy(local, s, name: "local")
        var last = ""
        XCTAssertTrue(poll(timeout: 20, interval: 0.5) { last = xclipRead("clipboard", s); return last == local },
                      "server CLIPBOARD has \(last.utf8.count) bytes, not \(local.utf8.count); viewer: \(s.viewer.logTail())")
        copy.stop()
        // the serial a client needs to set a selection: a key into the focused window (on
        // mutter the keyboard's arrival gave one)
        if compositor == .sway { try s.desktop.type("x", in: s.dir) }
        // remote → local
        let remote = "server " + ClipboardInteropTests.large(1 << 20)
        let owner = try serverOwner(remote, "clipboard", s, name: "remote")
        XCTAssertTrue(poll(timeout: 20, interval: 0.5) { last = wlPaste(s); return last == remote },
                      "\(compositor.rawValue)'s clipboard has \(last.utf8.count) bytes, not \(remote.utf8.count); viewer: \(s.viewer.logTail())")
        owner.stop()
        XCTAssertTrue(s.viewer.isRunning, s.viewer.logTail())
    }

    func testPrimarySelectionBothWays() throws {
        let s = try start(["--clipboard-primary"])
        try s.desktop.type("x", in: s.dir)
        var last = ""
        for (n, text) in ["primary 日本語 😀 שלום\nline 2", "Grüße © " + ClipboardInteropTests.large(1 << 20)].enumerated() {
            let remote = try serverOwner(text, "primary", s, name: "remote\(n)")
            XCTAssertTrue(poll(timeout: 20, interval: 0.3) { last = wlPaste(primary: true, s); return last == text },
                          "sway's primary has \(last.utf8.count) bytes, not \(text.utf8.count); viewer: \(s.viewer.logTail())")
            remote.stop()
            let back = "selected \(n): 中文 👍🏽 مرحبا\n\tend"
            let copy = try wlCopy(back, primary: true, s, name: "local\(n)")
            XCTAssertTrue(poll(timeout: 20, interval: 0.3) { last = xclipRead("primary", s); return last == back },
                          "server PRIMARY is '\(last.prefix(80))', not '\(back)'; viewer: \(s.viewer.logTail())")
            copy.stop()
        }
    }

    /// Over `--clipboard-max-size`: refused (logged, as on X11), the server keeps its text.
    func testTextOverTheCapIsRefused() throws {
        let s = try start(["--clipboard-max-size", "100"])
        let small = "small"
        let first = try wlCopy(small, s, name: "small")
        var last = ""
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { last = xclipRead("clipboard", s); return last == small },
                      "server CLIPBOARD is '\(last)'; viewer: \(s.viewer.logTail())")
        first.stop()
        let big = try wlCopy(String(repeating: "0123456789", count: 100), s, name: "big")
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { s.viewer.log.contains("over the 100-byte limit; not sent") },
                      "no refusal; viewer: \(s.viewer.logTail())")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(xclipRead("clipboard", s), small)
        big.stop()
        XCTAssertTrue(s.viewer.isRunning, s.viewer.logTail())
    }
}
