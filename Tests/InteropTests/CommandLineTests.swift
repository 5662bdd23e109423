import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The `viewer` executable as users script it: exit codes, one-line reasons, files written.
final class CommandLineTests: XCTestCase {
    struct Result { var status: Int32; var stdout: String; var stderr: String }

    func viewer(_ args: [String], env: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: viewerPath)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        e.removeValue(forKey: "VNC_PASSWORD")
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let r = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: r, as: UTF8.self))
    }

    func tempPath(_ name: String) -> String {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-cli-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir.appendingPathComponent(name).path
    }

    func testSnapshotWritesTheServersScreen() throws {
        let server = try startServer(.xvnc)
        let screen = try server.captureStableScreen()
        let out = tempPath("snap.png")
        let r = try viewer(["snapshot", "127.0.0.1::\(server.port)", "-o", out, "--encodings", "zrle,copyrect", "-v"])
        XCTAssertEqual(r.status, 0, r.stderr)
        assertImagesEqual(try PNG.read(path: out), screen, "cli-snapshot")
        // a snapshot waits for the screen to settle: one decoding thread unless asked for more
        XCTAssertTrue(r.stderr.contains("decoding on 1 thread\n"), r.stderr)
        let two = try viewer(["snapshot", "127.0.0.1::\(server.port)", "-o", out, "--encodings", "zrle", "--decode-threads", "2", "-v"])
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertTrue(two.stderr.contains("decoding on 2 threads"), two.stderr)
        assertImagesEqual(try PNG.read(path: out), screen, "cli-snapshot-2-threads")
        // a picture of someone's desktop: only the user may read it, replaced, never through a link
        var st = stat()
        XCTAssertEqual(lstat(out, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "mode of \(out)")
        let link = tempPath("link.png"), target = tempPath("target.png")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let viaLink = try viewer(["snapshot", "127.0.0.1::\(server.port)", "-o", link])
        XCTAssertNotEqual(viaLink.status, 0)
        XCTAssertTrue(viaLink.stderr.contains("not a regular file"), viaLink.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    func testSnapshotWithPasswordFile() throws {
        var o = VNCServer.Options()
        o.security = .vncAuth(password: "farcast1")
        o.content = .scene
        let server = try startServer(.xvnc, o)
        let screen = try server.captureStableScreen()
        // vncpasswd's obfuscated format, as TigerVNC writes it
        let pw = tempPath("passwd")
        let made = try runTool("vncpasswd", ["-f"], in: URL(fileURLWithPath: NSTemporaryDirectory()), stdin: Data("farcast1\n".utf8))
        try made.stdout.write(to: URL(fileURLWithPath: pw))
        let out = tempPath("auth.png")
        let r = try viewer(["snapshot", "127.0.0.1::\(server.port)", "-o", out, "--password-file", pw])
        XCTAssertEqual(r.status, 0, r.stderr)
        assertImagesEqual(try PNG.read(path: out), screen, "cli-vncauth")
        // wrong password via the environment: one line, non-zero, no password echoed
        let bad = try viewer(["snapshot", "127.0.0.1::\(server.port)", "-o", out], env: ["VNC_PASSWORD": "hunter22"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("authentication failed"), bad.stderr)
        XCTAssertFalse(bad.stderr.contains("hunter22"), "password leaked: \(bad.stderr)")
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
    }

    func testFailuresAreOneLineWithAReason() throws {
        let port = try Loopback.freePort()
        let cases: [([String], String)] = [
            (["snapshot", "127.0.0.1::\(port)", "-o", "/tmp/x.png"], "cannot connect to 127.0.0.1::\(port)"),
            (["snapshot", "host:abc", "-o", "/tmp/x.png"], "display 'abc' after ':' must be a number"),
            (["snapshot", "localhost:1", "-o", "/tmp/x.png", "--encodings", "zrle,bogus"], "unknown encoding 'bogus'"),
            (["snapshot", "localhost:1", "-o", "/tmp/x.png", "--quality", "12"], "'12' is invalid for '--quality <quality>': give a whole number from 0 to 9"),
            (["snapshot", "localhost:1", "-o", "/tmp/x.png", "--pixel-format", "rgb999"], "'rgb888', 'rgb565', 'bgr233' or 'cmap8'"),
            (["snapshot", "localhost:1", "-o", "/tmp/x.png", "--password-file", "/nonexistent/pw"], "cannot read password file"),
            (["bench", "/nonexistent.fbs"], "cannot read /nonexistent.fbs"),
            (["localhost:1", "--touch", "--trackpad"], "--touch and --trackpad choose one touch mode"),
            (["localhost:1", "--monitor", "0"], "'0' is invalid for '--monitor <monitor>': give a remote screen number from 1"),
            (["localhost:1", "--display", "left"], "'left' is invalid for '--display <display>': give a local display number from 1, or 'all'"),
            (["localhost:1", "--connect-timeout", "inf"], "'inf' is invalid for '--connect-timeout <connect-timeout>'"),
            (["snapshot", "localhost:1", "-o", "/tmp/x.png", "--timeout", "nan"], "'nan' is invalid for '--timeout <timeout>'"),
            (["localhost:1", "--security", "vnc,bogus"], "unknown security type 'bogus'; known: X509Plain"),
        ]
        for (args, fragment) in cases {
            let r = try viewer(args)
            XCTAssertNotEqual(r.status, 0, args.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains(fragment), "\(args): \(r.stderr)")
        }
        // not an FBS file
        let junk = tempPath("junk.fbs")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: junk))
        let r = try viewer(["bench", junk])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("not an FBS recording"), r.stderr)
    }

    /// A --via gateway ssh would read as an option is refused while the command line is parsed,
    /// written either way (`--via=-o...` and `--via -o...`), with one message and exit status 64,
    /// before a window opens (the window's dummy driver here: before, it opened and waited).
    func testViaThatLooksLikeAnOptionIsRefusedWhileParsing() throws {
        let marker = tempPath("proxy-ran")
        let gateway = "-oProxyCommand=touch \(marker)"
        for command in [[], ["snapshot"], ["record"]] {
            let out = command.isEmpty ? [] : ["-o", tempPath("out")]
            for via in [["--via=\(gateway)"], ["--via", gateway]] {
                let args = command + via + ["localhost:1"] + out
                let p = Process()
                p.executableURL = URL(fileURLWithPath: viewerPath)
                p.arguments = args
                var e = ProcessInfo.processInfo.environment
                e["SDL_VIDEODRIVER"] = "dummy"
                e["FARCAST_SSH"] = "/bin/false"
                p.environment = e
                let err = Pipe()
                p.standardOutput = FileHandle(forWritingAtPath: "/dev/null"); p.standardError = err
                try p.run()
                let ended = poll(timeout: 10) { !p.isRunning }
                if !ended { p.terminate() }
                let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                XCTAssertTrue(ended, "\(args) still running after 10 s: \(text)")
                XCTAssertEqual(p.terminationStatus, 64, "\(args): \(text)")
                XCTAssertTrue(text.contains("the --via gateway '\(gateway)' is not a host name"), "\(args): \(text)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
    }

    /// A recording from ../shared/corpus decodes through `viewer bench` into the frame libvncclient
    /// ends on (the full comparison over the whole corpus is scripts/bench.sh).
    func testBenchJSONAndFinalFrame() throws {
        let corpus = InteropTools.repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        let file = corpus.appendingPathComponent("xvnc-zrle-desktop-1080p.fbs").path
        guard FileManager.default.fileExists(atPath: file) else { throw XCTSkip("no ../shared/corpus") }
        let png = tempPath("final.png")
        let r = try viewer(["bench", "--json", "--final-frame", png, file])
        XCTAssertEqual(r.status, 0, r.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(obj?["updates"] as? Int, 16)
        XCTAssertEqual(obj?["pixels"] as? Int, 9_745_600)
        let img = try PNG.read(path: png)
        XCTAssertEqual(img.width, 1920)
        XCTAssertEqual(img.height, 1080)
        XCTAssertGreaterThan(img.distinctColours, 10000)
    }
}
