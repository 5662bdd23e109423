import Foundation
import VNCSession
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Recording a real Xvnc and playing it back: `viewer record`, the window's recording and
/// screenshots, `viewer play`, and the reference tools in ../shared/tools reading our files.
final class RecordingInteropTests: XCTestCase {
    func workDir(_ tag: String) throws -> URL {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-\(tag)-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// An xterm printing the time ten times a second for `seconds`, then still.
    func startTicker(_ server: VNCServer, seconds: Int, dir: URL) throws {
        let n = seconds * 10
        let xterm = try ChildProcess(name: "ticker", executable: InteropTools.need("xterm"),
                                     arguments: ["-display", server.displayName, "-geometry", "50x12+40+40", "-e", "sh", "-c",
                                                 "i=0; while [ $i -lt \(n) ]; do date +%T.%N; i=$((i+1)); sleep 0.1; done; sleep 3600"],
                                     logURL: dir.appendingPathComponent("ticker.log"))
        addTeardownBlock { xterm.stop() }
    }

    func viewer(_ args: [String], in dir: URL, env: [String: String] = [:], timeout: Double = 60) throws -> (status: Int32, stderr: String) {
        let r = try runTool(viewerPath, args, in: dir, environment: env, timeout: timeout, allowFailure: true)
        return (r.status, r.stderr)
    }

    /// 10 s of a changing desktop recorded headless: the recording's last frame is what a
    /// snapshot shows at the end and what the server shows; rfbreplay.py serves it to
    /// libvncclient, which ends on the same frame.
    func testRecordedSessionEndsOnTheServersFrameAndReplaysInLibvncclient() throws {
        let dir = try workDir("record")
        var o = VNCServer.Options()
        o.content = .scene
        let server = try startServer(.xvnc, o)
        try startTicker(server, seconds: 7, dir: dir)
        let fbs = dir.appendingPathComponent("session.fbs").path
        let rec = try viewer(["record", "127.0.0.1::\(server.port)", "-o", fbs, "--seconds", "10"], in: dir)
        XCTAssertEqual(rec.status, 0, rec.stderr)
        XCTAssertTrue(rec.stderr.contains("recorded 10."), rec.stderr)
        let bench = dir.appendingPathComponent("bench.png").path, snap = dir.appendingPathComponent("snap.png").path
        XCTAssertEqual(try viewer(["bench", fbs, "--final-frame", bench], in: dir).status, 0)
        XCTAssertEqual(try viewer(["snapshot", "127.0.0.1::\(server.port)", "-o", snap], in: dir).status, 0)
        let last = try PNG.read(path: bench)
        assertImagesEqual(last, try PNG.read(path: snap), "recording's last frame vs snapshot")
        assertImagesEqual(last, try server.captureStableScreen(), "recording's last frame vs server")

        // the reference tools: rfbreplay.py to libvncclient (lvc_consume, built here)
        let tools = InteropTools.repoRoot.deletingLastPathComponent().appendingPathComponent("shared/tools")
        guard FileManager.default.fileExists(atPath: tools.appendingPathComponent("rfbreplay.py").path) else {
            throw XCTSkip("../shared/tools is not beside the repository")
        }
        let lvc = dir.appendingPathComponent("lvc_consume").path
        let cc = try runTool("sh", ["-c", "cc -O2 -o '\(lvc)' '\(tools.path)/anchors/lvc_consume.c' $(pkg-config --cflags --libs libvncclient)"],
                             in: dir, allowFailure: true)
        XCTAssertEqual(cc.status, 0, "building lvc_consume: \(cc.stderr)")
        let port = try Loopback.freePort()
        let ready = dir.appendingPathComponent("ready").path
        let replay = try ChildProcess(name: "rfbreplay", executable: InteropTools.need("python3"),
                                      arguments: [tools.appendingPathComponent("rfbreplay.py").path, fbs, "--port", "\(port)",
                                                  "--idle", "3", "--ready-file", ready],
                                      logURL: dir.appendingPathComponent("replay.log"))
        addTeardownBlock { replay.stop() }
        XCTAssertTrue(poll(timeout: 15) { FileManager.default.fileExists(atPath: ready) }, replay.logTail())
        let ppm = dir.appendingPathComponent("lvc.ppm").path
        let out = try runTool(lvc, ["-d", ppm, "127.0.0.1", "\(port)"], in: dir, timeout: 60, allowFailure: true)
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertFalse(replay.logTail().contains("parse stopped"), replay.logTail())
        assertImagesEqual(try readPPM(ppm), last, "libvncclient's final frame of our recording")
    }

    /// In the window: Ctrl+Alt+S saves the desktop as PNG in the pictures folder; Ctrl+Alt+R
    /// records into the videos folder until pressed again. Then `viewer play` of that file,
    /// sent to its end, screenshots the same desktop.
    func testWindowScreenshotRecordingAndPlayback() throws {
        let dir = try workDir("capture")
        var o = VNCServer.Options()
        o.content = .scene
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1280x900", dir: dir)
        let home = dir.appendingPathComponent("home")
        let env = ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path]
        _ = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, environment: env)
        let x = ["DISPLAY": ":\(local)"]
        func xdo(_ a: [String]) throws { _ = try runTool("xdotool", a, in: dir, environment: x) }
        try xdo(["mousemove", "--sync", "300", "300"])   // focus follows the pointer (no window manager)
        Thread.sleep(forTimeInterval: 0.5)
        let screen = try server.captureStableScreen()

        // Links planted where the next screenshots and recordings would go (their names are
        // stamped to the second), each to a file that does not exist: a file is made
        // exclusively and no link is followed, so none of these files may appear.
        let victims = dir.appendingPathComponent("victims")
        try FileManager.default.createDirectory(at: victims, withIntermediateDirectories: true)
        let now = Date()
        for (folder, ext) in [("Pictures", "png"), ("Videos", "fbs")] {
            let d = home.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            for s in -2..<120 {
                let name = UserDirectories.stampedName("farcast-interop", ext: ext, date: now.addingTimeInterval(Double(s)))
                try FileManager.default.createSymbolicLink(atPath: d.appendingPathComponent(name).path,
                                                           withDestinationPath: victims.appendingPathComponent("\(ext)-\(s)").path)
            }
        }
        func isPrivateRegularFile(_ path: String) -> Bool {
            var st = stat()
            return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_mode & 0o777 == 0o600
        }

        try xdo(["key", "ctrl+alt+s"])
        let pictures = home.appendingPathComponent("Pictures")
        var shot: String?
        XCTAssertTrue(poll(timeout: 10) { shot = self.newest(in: pictures, ext: "png"); return shot != nil }, "no screenshot in \(pictures.path)")
        if let shot {
            assertImagesEqual(try PNG.read(path: shot), screen, "window screenshot")
            XCTAssertTrue(isPrivateRegularFile(shot), "the screenshot is a regular file of mode 0600: \(shot)")
        }

        try xdo(["key", "ctrl+alt+r"])
        Thread.sleep(forTimeInterval: 1.5)
        try xdo(["key", "ctrl+alt+r"])
        let videos = home.appendingPathComponent("Videos")
        var fbs: String?
        XCTAssertTrue(poll(timeout: 10) { fbs = self.newest(in: videos, ext: "fbs"); return fbs != nil }, "no recording in \(videos.path)")
        guard let fbs else { return }
        XCTAssertTrue(isPrivateRegularFile(fbs), "the recording is a regular file of mode 0600: \(fbs)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: victims.path), [], "a planted link was followed")
        let bench = dir.appendingPathComponent("bench.png").path
        XCTAssertEqual(try viewer(["bench", fbs, "--final-frame", bench], in: dir).status, 0)
        assertImagesEqual(try PNG.read(path: bench), screen, "the window's recording")

        // playback: to the end, then a screenshot of it
        let playHome = dir.appendingPathComponent("playhome")
        let play = try ChildProcess(name: "play", executable: viewerPath, arguments: ["play", fbs, "--paused"],
                                    logURL: dir.appendingPathComponent("play.log"),
                                    environment: x.merging(["SDL_VIDEODRIVER": "x11", "HOME": playHome.path]) { $1 })
        addTeardownBlock { play.stop() }
        XCTAssertTrue(poll(timeout: 20) {
            ((try? runTool("xdotool", ["search", "--name", "Farcast playback"], in: dir, environment: x, allowFailure: true))?.stdout.isEmpty == false)
        }, "playback window: \(play.logTail())")
        try xdo(["mousemove", "--sync", "600", "400"])
        Thread.sleep(forTimeInterval: 0.3)
        try xdo(["key", "End"])
        Thread.sleep(forTimeInterval: 0.5)
        try xdo(["key", "ctrl+alt+s"])
        var played: String?
        XCTAssertTrue(poll(timeout: 10) { played = self.newest(in: playHome.appendingPathComponent("Pictures"), ext: "png"); return played != nil },
                      "no playback screenshot: \(play.logTail())")
        if let played { assertImagesEqual(try PNG.read(path: played), screen, "playback at its end") }
    }

    /// A recording in the window stops by itself at --recording-max-size: the file stays within
    /// it and plays (whole blocks), and the window says why on stderr (and in a notice).
    func testWindowRecordingStopsAtItsSizeLimit() throws {
        let dir = try workDir("capped")
        var o = VNCServer.Options()
        o.content = .scene; o.width = 800; o.height = 600
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let home = dir.appendingPathComponent("home")
        let env = ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path]
        // raw: the full picture asked for when recording starts is 800x600x4 = 1.83 MiB, under
        // the limit; the next change of the whole root window crosses it
        let limit = 2 << 20
        let v = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--recording-max-size", "2M"], environment: env)
        let x = ["DISPLAY": ":\(local)"]
        _ = try runTool("xdotool", ["mousemove", "--sync", "300", "300"], in: dir, environment: x)
        Thread.sleep(forTimeInterval: 0.5)
        _ = try runTool("xdotool", ["key", "ctrl+alt+r"], in: dir, environment: x)
        let videos = home.appendingPathComponent("Videos")
        var fbs: String?
        XCTAssertTrue(poll(timeout: 10) { fbs = self.newest(in: videos, ext: "fbs"); return fbs != nil }, "no recording in \(videos.path)")
        guard let fbs else { return }
        // the first picture is in before the desktop changes
        XCTAssertTrue(poll(timeout: 10) { ((try? FileManager.default.attributesOfItem(atPath: fbs)[.size] as? Int) ?? 0) > 1_900_000 }, v.logTail())
        for colour in ["#aa2020", "#20aa20", "#2020aa"] {
            _ = try runTool("xsetroot", ["-display", server.displayName, "-solid", colour], in: server.workDir, timeout: 10)
            if poll(timeout: 3, { v.logTail(50).contains("Recording stopped at its size limit") }) { break }
        }
        XCTAssertTrue(poll(timeout: 10) { v.logTail(50).contains("Recording stopped at its size limit (2 MiB): \(fbs)") }, v.logTail())
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: fbs)[.size] as? Int)
        XCTAssertLessThanOrEqual(size, limit)
        XCTAssertEqual(try viewer(["bench", fbs], in: dir).status, 0, "the capped recording plays")
        XCTAssertTrue(v.isRunning, "the window goes on")
    }

    /// The newest file (not a link) named *.ext in `dir`.
    func newest(in dir: URL, ext: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { name in
            var st = stat()
            return name.hasSuffix("." + ext) && lstat(dir.appendingPathComponent(name).path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFLNK
        }.sorted().last.map { dir.appendingPathComponent($0).path }
    }

    /// Binary P6 with maxval 255 (what lvc_consume -d writes).
    func readPPM(_ path: String) throws -> RGBImage {
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields: [Int] = [], i = 2, cur = ""
        guard b.count > 2, b[0] == UInt8(ascii: "P"), b[1] == UInt8(ascii: "6") else { throw HarnessError("not a P6 PPM") }
        while fields.count < 3 && i < b.count {
            let c = Character(UnicodeScalar(b[i])); i += 1
            if c.isNumber { cur.append(c) } else if !cur.isEmpty { fields.append(Int(cur) ?? 0); cur = "" }
        }
        let (w, h) = (fields[0], fields[1])
        guard b.count >= i + w * h * 3 else { throw HarnessError("PPM too short") }
        var px = [UInt32](repeating: 0, count: w * h)
        for k in 0..<(w * h) {
            px[k] = UInt32(b[i + 3 * k]) << 16 | UInt32(b[i + 3 * k + 1]) << 8 | UInt32(b[i + 3 * k + 2])
        }
        return RGBImage(width: w, height: h, pixels: px)
    }
}
