import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// One real VNC server per test (the processes, ports, displays and scene it uses are in
// ServerHarness.swift), plus small helpers the interop tests share.

/// One running VNC server on 127.0.0.1 with its own X display.
final class VNCServer: @unchecked Sendable {
    enum Kind: String, Sendable { case xvnc = "Xvnc", x11vnc = "x11vnc" }
    enum Security: Sendable, Equatable { case none, vncAuth(password: String) }
    enum Content: Sendable, Equatable {
        case blank           // whatever the X server starts with
        case scene           // the scene image on the root window
        case sceneWithXterm  // the scene plus an xterm with fixed text
    }

    struct Options: Sendable {
        var width = 1024
        var height = 768
        var security: Security = .none
        var content: Content = .sceneWithXterm
        /// Readiness timeout per step; generous for a loaded 2-core machine.
        var timeout: TimeInterval = 30
        var extraArguments: [String] = []  // appended to Xvnc's or x11vnc's command line
        /// x11vnc only: keep its selection (clipboard) handling, i.e. leave out -nosel.
        var x11vncSelection = false
        init() {}
    }

    let kind: Kind
    let options: Options
    let host = Loopback.host
    let port: Int
    let display: Int
    var displayName: String { ":\(display)" }
    var width: Int { options.width }
    var height: Int { options.height }
    /// The VNC password (VncAuth only); VNC uses at most 8 characters of it.
    var password: String? { if case .vncAuth(let p) = options.security { return p } else { return nil } }
    let workDir: URL

    private let lock = NSLock()
    private var children: [ChildProcess]  // X server first, then the rest
    private let xserver: ChildProcess
    let vncProcess: ChildProcess  // Xvnc itself, or x11vnc
    private var stopped = false

    private init(kind: Kind, options: Options, port: Int, display: Int, workDir: URL,
                 xserver: ChildProcess, vnc: ChildProcess, children: [ChildProcess]) {
        self.kind = kind; self.options = options; self.port = port; self.display = display
        self.workDir = workDir; self.xserver = xserver; self.vncProcess = vnc; self.children = children
    }

    deinit { stop() }

    /// Starts a server, shows the content and waits until the port answers with an RFB
    /// banner and the screen is settled. Retries a few times with another display or port
    /// if a parallel run took them first.
    static func start(_ kind: Kind, options: Options = Options()) throws -> VNCServer {
        try InteropTools.skipUnlessAvailable()
        XDisplays.sweepStale
        let workDir = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("farcast-interop-\(kind.rawValue)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)
        var passwordFile: String?
        if case .vncAuth(let pw) = options.security {
            let r = try runTool("vncpasswd", ["-f"], in: workDir, stdin: Data((pw + "\n").utf8))
            let url = workDir.appendingPathComponent("passwd")
            try r.stdout.write(to: url)
            _ = chmod(url.path, 0o600)
            passwordFile = url.path
        }
        var lastError: Error = HarnessError("not started")
        var tried = Set<Int>()
        for _ in 0..<5 {
            let display = try XDisplays.freeDisplay(avoiding: tried)
            tried.insert(display)
            do {
                switch kind {
                case .xvnc: return try startXvnc(options, display: display, workDir: workDir, passwordFile: passwordFile)
                case .x11vnc: return try startX11vnc(options, display: display, workDir: workDir, passwordFile: passwordFile)
                }
            } catch let e as RetryableStart {
                lastError = e.error
                continue
            }
        }
        throw lastError
    }

    private struct RetryableStart: Error { let error: Error }

    private static func startXvnc(_ o: Options, display: Int, workDir: URL, passwordFile: String?) throws -> VNCServer {
        let port = try Loopback.freePort()
        var args = [":\(display)", "-rfbport", "\(port)", "-interface", Loopback.host,
                    "-geometry", "\(o.width)x\(o.height)", "-depth", "24", "-AlwaysShared",
                    "-nolisten", "tcp", "-noreset", "-desktop", "farcast-interop"]
        if let passwordFile {
            args += ["-SecurityTypes", "VncAuth", "-PasswordFile", passwordFile]
        } else {
            args += ["-SecurityTypes", "None"]
        }
        args += o.extraArguments
        let x = try ChildProcess(name: "Xvnc", executable: InteropTools.need("Xvnc"), arguments: args,
                                 logURL: workDir.appendingPathComponent("Xvnc-\(display).log"))
        let server = VNCServer(kind: .xvnc, options: o, port: port, display: display, workDir: workDir,
                               xserver: x, vnc: x, children: [x])
        do {
            try server.waitForX(x)
            try server.waitForRFB(x)
            try server.showContent()
            return server
        } catch {
            server.stop()
            throw error
        }
    }

    private static func startX11vnc(_ o: Options, display: Int, workDir: URL, passwordFile: String?) throws -> VNCServer {
        let xvfb = try ChildProcess(name: "Xvfb", executable: InteropTools.need("Xvfb"),
                                    arguments: [":\(display)", "-screen", "0", "\(o.width)x\(o.height)x24",
                                                "-nolisten", "tcp", "-noreset"],
                                    logURL: workDir.appendingPathComponent("Xvfb-\(display).log"))
        // A placeholder until x11vnc runs: the object must exist so stop() can clean up.
        var server = VNCServer(kind: .x11vnc, options: o, port: 0, display: display, workDir: workDir,
                               xserver: xvfb, vnc: xvfb, children: [xvfb])
        do {
            try server.waitForX(xvfb)
            // The scene goes up first: x11vnc copies the screen when it starts, so its first
            // update then already holds the settled scene and no poll cycle is needed.
            try server.showContent()
        } catch {
            server.stop()
            throw error
        }
        var lastError: Error = HarnessError("x11vnc not started")
        for _ in 0..<4 {
            let port = try Loopback.freePort()
            // Loopback only, IPv4 only (x11vnc otherwise also listens on [::]:5900), no
            // password prompt or warning, never exit, shared; no client-side cache (it makes
            // the framebuffer 11 times taller), no DAMAGE heuristics, wireframes, scroll
            // detection, cursor shapes, clipboard, bell or remote control: just the screen.
            var args = ["-display", ":\(display)", "-rfbport", "\(port)", "-rfbportv6", "-1",
                        "-listen", Loopback.host, "-noipv6", "-forever", "-shared", "-norc",
                        "-ncache", "0", "-noxdamage", "-nowf", "-noscr", "-nocursor",
                        "-nobell", "-noxrecord", "-noremote", "-nolookup", "-nonap"]
            if !o.x11vncSelection { args.append("-nosel") }
            if let passwordFile { args += ["-rfbauth", passwordFile] } else { args += ["-nopw"] }
            args += o.extraArguments
            let vnc = try ChildProcess(name: "x11vnc", executable: InteropTools.need("x11vnc"), arguments: args,
                                       logURL: workDir.appendingPathComponent("x11vnc-\(port).log"))
            let s = VNCServer(kind: .x11vnc, options: o, port: port, display: display, workDir: workDir,
                              xserver: xvfb, vnc: vnc, children: server.takeChildren() + [vnc])
            server = s
            do {
                try s.waitForRFB(vnc)
                return s
            } catch let e as RetryableStart {
                lastError = e.error
                vnc.stop()
                s.dropChild(vnc)
                continue
            } catch {
                s.stop()
                throw error
            }
        }
        server.stop()
        throw lastError
    }

    private func takeChildren() -> [ChildProcess] {
        lock.lock(); defer { lock.unlock() }
        let c = children
        children = []
        stopped = true  // the new owner stops them
        return c
    }

    private func dropChild(_ c: ChildProcess) {
        lock.lock(); defer { lock.unlock() }
        children.removeAll { $0 === c }
    }

    // MARK: readiness

    private func failure(_ what: String, _ p: ChildProcess) -> HarnessError {
        HarnessError("\(what) (\(p.name) on display \(displayName), port \(port)); log \(p.logURL.path):\n\(p.logTail())")
    }

    /// Waits until `xdpyinfo` talks to the display. A server that exits early because the
    /// display was taken is reported as retryable.
    private func waitForX(_ x: ChildProcess) throws {
        let ok = poll(timeout: options.timeout, interval: 0.1) {
            guard x.isRunning else { return true }
            return (try? runTool("xdpyinfo", ["-display", displayName], in: workDir, timeout: 10))?.status == 0
        }
        if !x.isRunning {
            let log = x.log
            let err = failure("X server exited at start", x)
            stop()
            if log.contains("already active") || log.contains("Address already in use")
                || log.contains("Cannot establish any listening sockets") || log.contains("Unable to") {
                throw RetryableStart(error: err)
            }
            throw err
        }
        if !ok { stop(); throw failure("X display did not come up within \(options.timeout)s", x) }
    }

    /// Waits until the RFB port answers with a version banner.
    private func waitForRFB(_ p: ChildProcess) throws {
        var banner: String?
        let ok = poll(timeout: options.timeout, interval: 0.05) {
            guard p.isRunning else { return true }
            banner = Loopback.rfbBanner(port: port)
            return banner?.hasPrefix("RFB ") == true
        }
        if !p.isRunning {
            let log = p.log
            let err = failure("\(p.name) exited at start", p)
            if log.contains("in use") || log.contains("Unable to") || log.contains("listen") {
                if p !== xserver { throw RetryableStart(error: err) }
                stop()
                throw RetryableStart(error: err)
            }
            stop()
            throw err
        }
        if !ok { stop(); throw failure("RFB port did not answer within \(options.timeout)s (got \(banner ?? "nothing"))", p) }
    }

    /// Paints the scene and waits until the screen shows it and stops changing.
    private func showContent() throws {
        guard options.content != .blank else { return }
        let sceneURL = try Scene.imageURL(width: width, height: height)
        let expected = try PNG.read(path: sceneURL.path)
        try runTool("bash", [InteropTools.sceneScript, "show", displayName, sceneURL.path], in: workDir,
                    timeout: options.timeout)
        var ready: URL?
        if options.content == .sceneWithXterm {
            let r = workDir.appendingPathComponent("xterm-ready")
            let xterm = try ChildProcess(name: "xterm", executable: InteropTools.need("bash"),
                                         arguments: [InteropTools.sceneScript, "xterm", displayName, r.path],
                                         logURL: workDir.appendingPathComponent("xterm.log"))
            lock.lock(); children.append(xterm); lock.unlock()
            ready = r
        }
        let f = Scene.xtermFrame
        // Outside the xterm the screen must equal the scene image exactly; with the xterm,
        // its text must be written and two captures 150 ms apart must agree.
        var last: RGBImage?
        var why = "no capture"
        let ok = poll(timeout: options.timeout, interval: 0.15) {
            guard let img = try? self.captureScreen() else { why = "xwd failed"; return false }
            defer { last = img }
            let outside = compareImages(img, expected, excluding: ready == nil ? nil : (f.x, f.y, f.w, f.h))
            if outside.differing != 0 { why = "root window differs from scene: \(outside)"; return false }
            guard let ready else { return true }
            if !FileManager.default.fileExists(atPath: ready.path) { why = "xterm text not written"; return false }
            if img.crop(x: f.x, y: f.y, width: f.w, height: f.h) == expected.crop(x: f.x, y: f.y, width: f.w, height: f.h) {
                why = "xterm not mapped"; return false
            }
            if last != img { why = "screen still changing"; return false }
            return true
        }
        if !ok { throw failure("scene did not settle within \(options.timeout)s: \(why)", xserver) }
    }

    // MARK: capture and stop

    /// The X server's own screen as xwd sees it (0x00RRGGBB). For Xvnc this is exactly the
    /// RFB framebuffer; for x11vnc it is what x11vnc mirrors.
    func captureScreen() throws -> RGBImage {
        try captureDisplay(displayName, in: workDir, timeout: options.timeout)
    }

    /// Captures until two consecutive captures agree (for a screen a test just changed).
    func captureStableScreen(timeout: TimeInterval = 10) throws -> RGBImage {
        var last = try captureScreen()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.15)
            let img = try captureScreen()
            if img == last { return img }
            last = img
        }
        throw HarnessError("screen of \(displayName) kept changing for \(timeout)s")
    }

    /// True while the VNC process and its X server run.
    var isRunning: Bool { vncProcess.isRunning && xserver.isRunning }

    /// Stops everything this server started (newest first: x11vnc and xterm before the X
    /// server), removes lock files a killed X server leaves, and the work directory.
    /// Safe to call more than once.
    func stop() {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        let all = children
        lock.unlock()
        for c in all.reversed() { c.stop() }
        XDisplays.removeLeftovers(display: display, pid: xserver.pid)
        if ProcessInfo.processInfo.environment["FARCAST_INTEROP_KEEP"] == nil {
            try? FileManager.default.removeItem(at: workDir)
        }
    }
}

extension XCTestCase {
    /// Starts a server for this test and stops it in teardown, whatever the test's outcome.
    /// Skips the test (or fails with FARCAST_INTEROP_REQUIRED=1) when the tools are missing.
    func startServer(_ kind: VNCServer.Kind, _ options: VNCServer.Options = VNCServer.Options()) throws -> VNCServer {
        let server = try VNCServer.start(kind, options: options)
        addTeardownBlock { server.stop() }
        return server
    }
}

/// Lines a session logs, collected from its thread for assertions.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
    func clear() { lock.withLock { stored.removeAll() } }
}
