import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// Starts real VNC servers (TigerVNC Xvnc, or Xvfb + x11vnc) on loopback, paints a
// deterministic scene on them and captures the X screen with xwd, so a test can compare
// what the viewer decoded with what the server shows, pixel for pixel.

// MARK: - Errors and tools

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Where the external programs are. /usr/bin first: /usr/local/bin may hold stand-ins.
enum InteropTools {
    static let required = ["Xvnc", "vncpasswd", "x11vnc", "Xvfb", "xwd", "xdpyinfo", "xsetroot",
                           "convert", "display", "xterm"]

    /// A program by name in the system's directories, or by absolute path (one the test built).
    static func path(_ name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for dir in ["/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin"] {
            let p = dir + "/" + name
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static func need(_ name: String) throws -> String {
        guard let p = path(name) else { throw HarnessError("\(name) not found; run scripts/install-deps.sh") }
        return p
    }

    /// Tools from `required` that are not installed.
    static var missing: [String] { required.filter { path($0) == nil } }

    /// Skips the calling test when the servers are not installed. CI installs them, so there
    /// the skip never happens; set FARCAST_INTEROP_REQUIRED=1 to fail instead of skipping.
    static func skipUnlessAvailable() throws {
        let m = missing
        guard !m.isEmpty else { return }
        let msg = "interop tools missing (\(m.joined(separator: ", "))): run scripts/install-deps.sh"
        if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
        throw XCTSkip(msg)
    }

    /// The repository root, found from this file's path (Tests/InteropTests/Support/…).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var sceneScript: String { repoRoot.appendingPathComponent("scripts/scene.sh").path }
}

// MARK: - Processes

/// Spawns long-lived children from one thread that lives as long as the test process.
/// Servers are wrapped in `setpriv --pdeathsig TERM` so they exit (and X servers remove
/// their lock files) if the test process crashes. Linux sends that signal when the *thread*
/// that spawned the child exits, and Dispatch/concurrency pool threads come and go, so the
/// spawning thread must be permanent.
final class SpawnThread: @unchecked Sendable {
    static let shared = SpawnThread()
    private let cond = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
        let t = Thread { [self] in self.loop() }
        t.name = "interop-spawner"
        t.start()
    }

    private func loop() {
        while true {
            cond.lock()
            while jobs.isEmpty { cond.wait() }
            let job = jobs.removeFirst()
            cond.unlock()
            job()
        }
    }

    func run(_ process: Process) throws {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error?
        cond.lock()
        jobs.append {
            do { try process.run() } catch { failure = error }
            done.signal()
        }
        cond.signal()
        cond.unlock()
        done.wait()
        if let failure { throw failure }
    }
}

/// A child process with stdout+stderr going to a log file (never a pipe: a chatty server
/// would block once a pipe fills). Stopping is SIGTERM, then SIGKILL after a grace period.
final class ChildProcess: @unchecked Sendable {
    let name: String
    let process = Process()
    let logURL: URL
    private let lock = NSLock()
    private var stopped = false

    init(name: String, executable: String, arguments: [String], logURL: URL,
         environment: [String: String] = [:], dieWithParent: Bool = true) throws {
        self.name = name
        self.logURL = logURL
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        if dieWithParent, let setpriv = InteropTools.path("setpriv") {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--pdeathsig", "TERM", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "XAUTHORITY")  // our servers run without X authorisation
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try SpawnThread.shared.run(process)
        try? log.close()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    func logTail(_ n: Int = 15) -> String { log.split(separator: "\n").suffix(n).joined(separator: "\n") }

    /// SIGTERM, wait up to `grace` seconds, then SIGKILL and wait for the exit to be reaped.
    func stop(grace: TimeInterval = 3) {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        lock.unlock()
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        if !waitExit(timeout: grace) {
            kill(pid, SIGKILL)
            _ = waitExit(timeout: 5)
        }
    }

    @discardableResult
    func waitExit(timeout: TimeInterval) -> Bool {
        poll(timeout: timeout, interval: 0.02) { !self.process.isRunning }
    }
}

/// Calls `cond` every `interval` seconds until it is true or `timeout` passes.
@discardableResult
func poll(timeout: TimeInterval, interval: TimeInterval = 0.05, _ cond: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if cond() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: interval)
    }
}

/// Runs a short-lived tool to completion; stdout and stderr go to files in `dir`.
@discardableResult
func runTool(_ tool: String, _ args: [String], in dir: URL, stdin: Data? = nil,
             environment: [String: String] = [:], timeout: TimeInterval = 30,
             allowFailure: Bool = false) throws -> (status: Int32, stdout: Data, stderr: String) {
    let exe = try InteropTools.need(tool)
    let tag = UUID().uuidString.prefix(8)
    let base = (tool as NSString).lastPathComponent
    let outURL = dir.appendingPathComponent("\(base)-\(tag).out")
    let errURL = dir.appendingPathComponent("\(base)-\(tag).err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = args
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "XAUTHORITY")
    for (k, v) in environment { env[k] = v }
    p.environment = env
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    p.standardOutput = out
    p.standardError = err
    var inPipe: Pipe?
    if stdin != nil { inPipe = Pipe(); p.standardInput = inPipe } else { p.standardInput = FileHandle.nullDevice }
    try p.run()
    if let stdin, let inPipe {
        inPipe.fileHandleForWriting.write(stdin)
        try? inPipe.fileHandleForWriting.close()
    }
    let finished = poll(timeout: timeout, interval: 0.01) { !p.isRunning }
    if !finished { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
    try? out.close(); try? err.close()
    let stdout = (try? Data(contentsOf: outURL)) ?? Data()
    let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
    if !finished { throw HarnessError("\(tool) \(args.joined(separator: " ")) timed out after \(timeout)s") }
    if p.terminationStatus != 0 && !allowFailure {
        throw HarnessError("\(tool) \(args.joined(separator: " ")) exited \(p.terminationStatus): \(stderr)")
    }
    return (p.terminationStatus, stdout, stderr)
}

// MARK: - Sockets, ports, displays

enum Loopback {
    static let host = "127.0.0.1"

    /// A TCP port that was free on 127.0.0.1 a moment ago (bind to port 0, read it, close).
    /// Another process may take it before the server binds; the callers retry on that.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        defer { close(fd) }
        var addr = loopbackAddress(port: 0)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw HarnessError("bind: errno \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func loopbackAddress(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return addr
    }

    /// Connects to 127.0.0.1:port and reads the 12-byte RFB version banner ("RFB 003.008\n").
    /// nil when the port refuses or says nothing within `timeout`.
    static func rfbBanner(port: Int, timeout: TimeInterval = 2) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = loopbackAddress(port: port)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: 12)
        var got = 0
        while got < 12 {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, 12 - got, 0) }
            if n <= 0 { break }
            got += n
        }
        guard got == 12 else { return nil }
        return String(decoding: buf, as: UTF8.self)
    }

    /// True when something accepts TCP connections on 127.0.0.1:port.
    static func isListening(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = loopbackAddress(port: port)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

enum XDisplays {
    static func socketPath(_ n: Int) -> String { "/tmp/.X11-unix/X\(n)" }
    static func lockPath(_ n: Int) -> String { "/tmp/.X\(n)-lock" }

    /// A random display number in 40...99 with neither a socket nor a lock file. Random, so
    /// parallel runs rarely pick the same one; if they do, the X server refuses and we retry.
    static func freeDisplay(avoiding: Set<Int> = []) throws -> Int {
        let fm = FileManager.default
        for n in (40...99).shuffled() where !avoiding.contains(n) {
            if !fm.fileExists(atPath: socketPath(n)) && !fm.fileExists(atPath: lockPath(n)) { return n }
        }
        throw HarnessError("no free X display number in 40...99")
    }

    /// Once per test process: removes locks in 40...99 whose server is dead (a crashed
    /// run's servers get SIGTERM via pdeathsig but were seen to leave their lock behind)
    /// and work directories of test processes that no longer exist.
    static let sweepStale: Void = {
        for n in 40...99 {
            guard let text = try? String(contentsOfFile: lockPath(n), encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            removeLeftovers(display: n, pid: pid)
        }
        let tmp = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
        where name.hasPrefix("farcast-interop-X") || name.hasPrefix("farcast-interop-x") {
            let parts = name.split(separator: "-")  // farcast-interop-<kind>-<pid>-<tag>
            guard parts.count == 5, let pid = Int32(parts[3]), kill(pid, 0) != 0 && errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: tmp + "/" + name)
        }
    }()

    /// Removes the lock and socket an X server left behind when killed with SIGKILL,
    /// but only if the lock names that server's pid (never another run's display).
    static func removeLeftovers(display n: Int, pid: Int32) {
        let lock = lockPath(n)
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8),
              Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == pid else { return }
        try? FileManager.default.removeItem(atPath: lock)
        try? FileManager.default.removeItem(atPath: socketPath(n))
    }
}

// MARK: - Scene

/// The deterministic scene (scripts/scene.sh): photographs, text in DejaVu fonts at several
/// sizes dark-on-light and light-on-dark, flat colour bars, gradients, a 1-pixel checker,
/// thin lines; optionally an xterm with fixed text in the core 9x15 font.
enum Scene {
    /// Where the xterm sits (with its border), so callers can exclude or crop it.
    static let xtermFrame = (x: 700, y: 380, w: 402, h: 96)

    private static let renderLock = NSLock()

    /// The scene PNG for this size, rendered once per machine and cached in the temp dir
    /// (written under a unique name and renamed, so parallel runs never see half a file).
    static func imageURL(width: Int, height: Int) throws -> URL {
        renderLock.lock(); defer { renderLock.unlock() }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-interop-scene")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let scriptData = (try? Data(contentsOf: URL(fileURLWithPath: InteropTools.sceneScript))) ?? Data()
        // The script's size and a cheap checksum name the cache entry, so editing it re-renders.
        let sum = scriptData.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 }
        let url = dir.appendingPathComponent("scene-\(width)x\(height)-\(String(sum, radix: 16)).png")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let tmp = dir.appendingPathComponent("tmp-\(UUID().uuidString).png")
        try runTool("bash", [InteropTools.sceneScript, "render", tmp.path, "\(width)x\(height)"], in: dir, timeout: 60)
        _ = rename(tmp.path, url.path)
        return url
    }

    static func image(width: Int, height: Int) throws -> RGBImage {
        try PNG.read(path: imageURL(width: width, height: height).path)
    }
}

// MARK: - Servers

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
        let url = workDir.appendingPathComponent("capture-\(UUID().uuidString.prefix(8)).xwd")
        defer { try? FileManager.default.removeItem(at: url) }
        try runTool("xwd", ["-root", "-silent", "-display", displayName, "-out", url.path], in: workDir,
                    timeout: options.timeout)
        return try XWD.parse(Data(contentsOf: url))
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
