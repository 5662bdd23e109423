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
