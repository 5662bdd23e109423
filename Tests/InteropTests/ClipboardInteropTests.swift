import Foundation
import XCTest
import RFB
@testable import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// The Extended Clipboard against a real TigerVNC Xvnc: text set on the server display's
/// CLIPBOARD with xclip arrives as exactly that text, and text we send is what xclip reads there.
final class ClipboardInteropTests: XCTestCase {
    static let samples = ["plain ASCII text", "Latin-1: café, Grüße, ñ ÿ ©", "CJK: 日本語 中文 한국어",
                          "emoji: 😀👍🏽🇫🇷 👨‍👩‍👧", "RTL: שלום עולם مرحبا", "multi\nline\n\ttext\nend"]
    /// Mixed-script multi-line text of at least `bytes` bytes, whole lines.
    static func large(_ bytes: Int) -> String {
        let line = "0123456789abcdef 日本 😀 שלום\n"
        return String(repeating: line, count: (bytes + line.utf8.count - 1) / line.utf8.count)
    }

    func workDir() -> URL {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-clip-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    /// Owns an X selection and serves it whole, in one property written in 64 KiB appends,
    /// never INCR: xclip sends large data INCR (in parts), which Xvnc 1.12 does not read (the
    /// viewer does: ClipboardIncrInteropTests); this owner stands for those that use one property.
    static let ownerScript = """
    import sys
    from Xlib import X, Xatom, display
    from Xlib.protocol import event
    d = display.Display()
    w = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    sel = d.intern_atom(sys.argv[1])
    data = open(sys.argv[2], "rb").read()
    utf8, targets = d.intern_atom("UTF8_STRING"), d.intern_atom("TARGETS")
    w.set_selection_owner(sel, X.CurrentTime)
    d.sync()
    if d.get_selection_owner(sel) != w: sys.exit("could not own the selection")
    print("owned", flush=True)
    while True:
        e = d.next_event()
        if e.type == X.SelectionClear: break
        if e.type != X.SelectionRequest: continue
        prop = e.property if e.property != X.NONE else e.target
        if e.target == targets:
            e.requestor.change_property(prop, Xatom.ATOM, 32, [targets, utf8])
        elif e.target == utf8:
            for i in range(0, max(len(data), 1), 65536):
                e.requestor.change_property(prop, utf8, 8, data[i:i + 65536], X.PropModeReplace if i == 0 else X.PropModeAppend)
        else:
            prop = X.NONE
        e.requestor.send_event(event.SelectionNotify(time=e.time, requestor=e.requestor, selection=e.selection,
                                                     target=e.target, property=prop))
        d.flush()
    """

    /// Starts `ownerScript` holding `text` in `selection` on the display of `env`.
    func selectionOwner(_ text: String, _ selection: String, _ env: [String: String], dir: URL, name: String) throws -> ChildProcess {
        let script = dir.appendingPathComponent("owner.py"), file = dir.appendingPathComponent("\(name).txt")
        try Self.ownerScript.write(to: script, atomically: true, encoding: .utf8)
        try Data(text.utf8).write(to: file)
        return try ChildProcess(name: "owner", executable: InteropTools.need("python3"),
                                arguments: [script.path, selection.uppercased(), file.path],
                                logURL: dir.appendingPathComponent("\(name).log"), environment: env)
    }

    /// A ready session to a blank Xvnc that announced the Extended Clipboard.
    func connect() throws -> (VNCServer, Session, URL) {
        _ = try InteropTools.need("xclip")
        var o = VNCServer.Options()
        o.content = .blank
        o.width = 320; o.height = 240
        // Xvnc drops cut text over MaxCutText (256 KiB by default); the 1 MiB case needs more
        o.extraArguments = ["-MaxCutText", "\(4 << 20)"]
        let server = try startServer(.xvnc, o)
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: server.port))),
                        settings: ClientSettings())
        s.start()
        addTeardownBlock { s.stop() }
        var announced = false
        XCTAssertTrue(poll(timeout: 15) {
            announced = announced || s.takeEvents().contains(.extendedClipboardSupported)
            return announced && s.state == .ready
        }, "extended clipboard announced: \(s.state)")
        return (server, s, workDir())
    }

    func testServerClipboardReachesSession() throws {
        let (server, s, dir) = try connect()
        for (n, text) in (Self.samples + [Self.large(1 << 20)]).enumerated() {
            let file = dir.appendingPathComponent("in.txt")
            try Data(text.utf8).write(to: file)
            // xclip for the short texts (-quiet keeps it serving in the foreground); the large
            // one from an owner that does not send it INCR, which Xvnc 1.12 cannot read
            let xclip = text.utf8.count > 100_000
                ? try selectionOwner(text, "clipboard", ["DISPLAY": server.displayName], dir: dir, name: "owner\(n)")
                : try ChildProcess(name: "xclip", executable: InteropTools.need("xclip"),
                                   arguments: ["-quiet", "-selection", "clipboard", "-i", file.path],
                                   logURL: dir.appendingPathComponent("xclip.log"),
                                   environment: ["DISPLAY": server.displayName])
            var got: [String] = []
            let ok = poll(timeout: 10) {
                for ev in s.takeEvents() {
                    switch ev {
                    case .cutText(let t): got.append(t)
                    case .cutTextSkipped, .cutTextNotSent: got.append("\(ev)")
                    default: break
                    }
                }
                return got.contains(text)
            }
            XCTAssertTrue(ok, "'\(text.prefix(100))' (\(text.utf8.count) bytes) not received; got \(got.map { "\($0.prefix(100)) (\($0.utf8.count) bytes)" })")
            xclip.stop()
            // let the lost ownership settle before the next owner
            Thread.sleep(forTimeInterval: 0.2)
            _ = s.takeEvents()
        }
    }

    func testSessionClipboardReachesServer() throws {
        let (server, s, dir) = try connect()
        for text in Self.samples + [Self.large(1 << 20)] {
            s.sendCutText(text)
            var last = "", err = ""
            var evs: [EngineEvent] = []
            let ok = poll(timeout: 10, interval: 0.2) {
                guard let r = try? runTool("xclip", ["-o", "-selection", "clipboard"], in: dir,
                                           environment: ["DISPLAY": server.displayName], timeout: 5, allowFailure: true)
                else { return false }
                evs += s.takeEvents().filter { if case .updateEnded = $0 { return false }; if case .updateBegan = $0 { return false }; return true }
                last = String(decoding: r.stdout, as: UTF8.self); err = "status \(r.status): \(r.stderr)"
                return last == text
            }
            XCTAssertTrue(ok, "server clipboard is '\(last.prefix(200))' (\(last.utf8.count) bytes), not '\(text.prefix(200))' (\(text.utf8.count) bytes); events \(evs); xclip \(err); Xvnc: \(server.vncProcess.logTail(60))")
        }
    }

    /// The real viewer in an SDL window under Xvfb: the server's CLIPBOARD lands on the local
    /// display's CLIPBOARD, and the local one reaches the server, read with xclip on each side.
    func testViewerWindowBridgesClipboardBothWays() throws {
        let (server, probe, dir) = try connect()
        probe.stop()
        let local = try startLocalXvfb(avoiding: [server.display], size: "640x480", dir: dir)
        let localEnv = ["DISPLAY": ":\(local)"], serverEnv = ["DISPLAY": server.displayName]
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, [])

        func owner(_ text: String, _ env: [String: String], _ name: String) throws -> ChildProcess {
            let file = dir.appendingPathComponent("\(name).txt")
            try Data(text.utf8).write(to: file)
            return try ChildProcess(name: "xclip", executable: InteropTools.need("xclip"),
                                    arguments: ["-quiet", "-selection", "clipboard", "-i", file.path],
                                    logURL: dir.appendingPathComponent("\(name).log"), environment: env)
        }
        func clipboard(_ env: [String: String]) -> String {
            guard let r = try? runTool("xclip", ["-o", "-selection", "clipboard"], in: dir, environment: env, timeout: 5, allowFailure: true)
            else { return "" }
            return String(decoding: r.stdout, as: UTF8.self)
        }
        for (n, text) in ["remote 日本語 😀 שלום\nsecond line", "Grüße ©"].enumerated() {
            // server → local
            let remote = try owner(text, serverEnv, "remote\(n)")
            var last = ""
            XCTAssertTrue(poll(timeout: 10, interval: 0.2) { last = clipboard(localEnv); return last == text },
                          "local clipboard is '\(last)', not '\(text)'; viewer: \(viewer.logTail())")
            remote.stop()
            // local → server
            let back = "local \(n): 中文 👍🏽 مرحبا\n\tend"
            let mine = try owner(back, localEnv, "local\(n)")
            XCTAssertTrue(poll(timeout: 10, interval: 0.2) { last = clipboard(serverEnv); return last == back },
                          "server clipboard is '\(last)', not '\(back)'; viewer: \(viewer.logTail())")
            mine.stop()
        }
    }
    /// 1 MiB of mixed-script text through the real viewer window, both ways, exact: the
    /// server's CLIPBOARD onto the local one, then a local one onto the server's.
    func testViewerWindowCarriesOneMebibyteBothWays() throws {
        let (server, probe, dir) = try connect()
        probe.stop()
        let local = try startLocalXvfb(avoiding: [server.display], size: "640x480", dir: dir)
        let localEnv = ["DISPLAY": ":\(local)"], serverEnv = ["DISPLAY": server.displayName]
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--verbose"])
        func clipboard(_ env: [String: String]) -> String {
            guard let r = try? runTool("xclip", ["-o", "-selection", "clipboard"], in: dir, environment: env, timeout: 10, allowFailure: true)
            else { return "" }
            return String(decoding: r.stdout, as: UTF8.self)
        }
        let text = Self.large(1 << 20)
        let remote = try selectionOwner(text, "clipboard", serverEnv, dir: dir, name: "remote")
        var last = ""
        XCTAssertTrue(poll(timeout: 20, interval: 0.5) { last = clipboard(localEnv); return last == text },
                      "local clipboard has \(last.utf8.count) bytes, not \(text.utf8.count); viewer: \(viewer.logTail())")
        remote.stop()
        let back = "local " + Self.large(1 << 20)
        let mine = try selectionOwner(back, "clipboard", localEnv, dir: dir, name: "local")
        XCTAssertTrue(poll(timeout: 20, interval: 0.5) { last = clipboard(serverEnv); return last == back },
                      "server clipboard has \(last.utf8.count) bytes, not \(back.utf8.count); viewer: \(viewer.logTail())")
        mine.stop()
    }
    /// `--clipboard-primary`: the server's PRIMARY lands on the local PRIMARY and a new local
    /// PRIMARY reaches the server (Xvnc's SetPrimary/SendPrimary are on by default), read with
    /// `xclip -selection primary` on each side; CLIPBOARD keeps working, and nothing echoes.
    func testViewerWindowBridgesPrimarySelection() throws {
        let (server, probe, dir) = try connect()
        probe.stop()
        let local = try startLocalXvfb(avoiding: [server.display], size: "640x480", dir: dir)
        let localEnv = ["DISPLAY": ":\(local)"], serverEnv = ["DISPLAY": server.displayName]
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--clipboard-primary"])

        func owner(_ text: String, _ sel: String, _ env: [String: String], _ name: String) throws -> ChildProcess {
            let file = dir.appendingPathComponent("\(name).txt")
            try Data(text.utf8).write(to: file)
            return try ChildProcess(name: "xclip", executable: InteropTools.need("xclip"),
                                    arguments: ["-quiet", "-selection", sel, "-i", file.path],
                                    logURL: dir.appendingPathComponent("\(name).log"), environment: env)
        }
        func read(_ sel: String, _ env: [String: String]) -> String {
            guard let r = try? runTool("xclip", ["-o", "-selection", sel], in: dir, environment: env, timeout: 5, allowFailure: true)
            else { return "" }
            return String(decoding: r.stdout, as: UTF8.self)
        }
        var last = ""
        for (n, text) in ["primary 日本語 😀 שלום\nline 2", "Grüße ©"].enumerated() {
            // server PRIMARY → local PRIMARY (and CLIPBOARD)
            let remote = try owner(text, "primary", serverEnv, "remote\(n)")
            XCTAssertTrue(poll(timeout: 10, interval: 0.2) { last = read("primary", localEnv); return last == text },
                          "local PRIMARY is '\(last)', not '\(text)'; viewer: \(viewer.logTail())")
            remote.stop()
            // local PRIMARY → server
            let back = "selected \(n): 中文 👍🏽 مرحبا\n\tend"
            let mine = try owner(back, "primary", localEnv, "local\(n)")
            XCTAssertTrue(poll(timeout: 10, interval: 0.2) { last = read("primary", serverEnv); return last == back },
                          "server PRIMARY is '\(last)', not '\(back)'; viewer: \(viewer.logTail())")
            mine.stop()
        }
        // CLIPBOARD still goes both ways with the option on
        let copied = "copied: καλημέρα"
        let mine = try owner(copied, "clipboard", localEnv, "localclip")
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { last = read("clipboard", serverEnv); return last == copied },
                      "server CLIPBOARD is '\(last)', not '\(copied)'; viewer: \(viewer.logTail())")
        mine.stop()
        // no echo: the last text settles, the server's selection is not switched back
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(read("clipboard", serverEnv), copied)
    }
    /// `--clipboard-max-size`: a local text over it is refused (logged), the server keeps its
    /// text, and the window shows a notice in its lower part that is gone a few seconds later
    /// (read back from the Xvfb screen with ImageMagick's import; the window has no manager and
    /// covers the screen). TigerVNC sends nothing over the size we announce, so the refusal is
    /// local → server.
    func testViewerWindowRefusesOversizedText() throws {
        let (server, probe, dir) = try connect()
        probe.stop()
        let local = try startLocalXvfb(avoiding: [server.display], size: "1280x1024", dir: dir)
        let localEnv = ["DISPLAY": ":\(local)"], serverEnv = ["DISPLAY": server.displayName]
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--clipboard-max-size", "100", "--verbose"])
        // the lower half of the screen, where the notice goes (the status panels are centred)
        _ = try InteropTools.need("import")
        func brightBelow() -> Int {
            guard let r = try? runTool("import", ["-window", "root", "-crop", "1280x480+0+544", "gray:-"], in: dir,
                                       environment: localEnv, timeout: 10, allowFailure: true) else { return -1 }
            return r.stdout.filter { $0 > 150 }.count
        }
        // a small server text first: the viewer owns the local CLIPBOARD, so the next local
        // owner is reported on SDL's path too (it sees a change only as a lost selection; the
        // X11 reader sees any new owner)
        let smallFile = dir.appendingPathComponent("small.txt")
        try Data("small".utf8).write(to: smallFile)
        let remote = try ChildProcess(name: "xclip", executable: InteropTools.need("xclip"),
                                      arguments: ["-quiet", "-selection", "clipboard", "-i", smallFile.path],
                                      logURL: dir.appendingPathComponent("small.log"), environment: serverEnv)
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) {
            let r = try? runTool("xclip", ["-o", "-selection", "clipboard"], in: dir, environment: localEnv, timeout: 5, allowFailure: true)
            return r.map { String(decoding: $0.stdout, as: UTF8.self) } == "small"
        }, "small text taken; viewer: \(viewer.logTail())")
        remote.stop()
        Thread.sleep(forTimeInterval: 0.5)
        let before = brightBelow()
        // Xvnc sends nothing over the size we announced: the refused way is local → server
        let big = String(repeating: "0123456789", count: 100)
        let file = dir.appendingPathComponent("big.txt")
        try Data(big.utf8).write(to: file)
        let owner = try ChildProcess(name: "xclip", executable: InteropTools.need("xclip"),
                                     arguments: ["-quiet", "-selection", "clipboard", "-i", file.path],
                                     logURL: dir.appendingPathComponent("big.log"), environment: localEnv)
        defer { owner.stop() }
        XCTAssertTrue(poll(timeout: 10, interval: 0.2) { viewer.logTail().contains("local text of 1000 bytes is over the 100-byte limit; not sent") },
                      "no refusal; viewer: \(viewer.logTail())")
        // the notice: text in the lower half, gone again after a few seconds
        var shown = 0
        XCTAssertTrue(poll(timeout: 3, interval: 0.1) { shown = brightBelow(); return shown > before + 100 },
                      "no notice: \(shown) bright pixels, \(before) before")
        var after = 0
        XCTAssertTrue(poll(timeout: 8, interval: 0.5) { after = brightBelow(); return after <= before },
                      "notice still shown: \(after) bright pixels, \(before) before")
        // not sent: the server's clipboard still holds the small text
        let r = try? runTool("xclip", ["-o", "-selection", "clipboard"], in: dir, environment: serverEnv, timeout: 5, allowFailure: true)
        XCTAssertNotEqual(r.map { String(decoding: $0.stdout, as: UTF8.self) }, big)
    }
}
