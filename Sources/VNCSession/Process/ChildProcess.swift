import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// The one way a program is found and run as a child: `ssh -W` for `--via` (kept running as the
/// transport), the Secret Service's tools, the keyboard detection's `setxkbmap`/`xprop`, and the
/// launcher's sessions (`viewer view`). The search path is given by the caller (the command line
/// reads PATH); nothing here reads the environment.
public enum ChildProcess {
    /// What a child's standard stream is connected to.
    public enum Stream {
        /// Ours (the terminal, the journal).
        case inherit
        /// /dev/null.
        case null
        case handle(FileHandle)
        case pipe(Pipe)
    }

    /// How a run ended.
    public struct Outcome: Equatable, Sendable {
        /// The exit status (the signal's number when a signal ended it); nil when it timed out.
        public var status: Int32?
        /// More output than asked for came: only the first `maxOutput` bytes were handed over.
        public var truncated: Bool
        public var timedOut: Bool { status == nil }
    }

    /// PATH's value when the environment has none (glibc's own default leaves out `.`).
    public static let defaultSearchPath = "/usr/bin:/bin"

    /// The first executable `dir/tool` for the dirs of the colon-separated `searchPath`; nil
    /// when there is none.
    public static func find(_ tool: String, searchPath: String) -> String? {
        for dir in searchPath.split(separator: ":") {
            let p = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Starts `executable` (a path) and returns at once: the caller owns the process (waits for
    /// it, or terminates it). `environment` nil: ours.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                             stdin: Stream = .inherit, stdout: Stream = .inherit, stderr: Stream = .inherit) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let s = stream(stdin, reading: true) { p.standardInput = s }
        if let s = stream(stdout, reading: false) { p.standardOutput = s }
        if let s = stream(stderr, reading: false) { p.standardError = s }
        try p.run()
        return p
    }

    private static func stream(_ s: Stream, reading: Bool) -> Any? {
        switch s {
        case .inherit: return nil
        case .null: return FileHandle.nullDevice
        case .handle(let h): return h
        case .pipe(let p): return p
        }
    }

    /// Runs `executable` to its end: `input` (when given) on its stdin, then closed; its stdout
    /// handed to `output` in chunks, at most `maxOutput` bytes in all (the rest is read and
    /// dropped, so the child never blocks on a full pipe); its stderr discarded. With a
    /// `timeout` (seconds) a child still running then is killed (SIGKILL: it is ours, and
    /// stuck) and the outcome says it timed out. nil when it cannot start.
    /// The chunks are a reused buffer, wiped after the run: `output` copies what it keeps
    /// (a secret straight into a `Secret`).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           input: UnsafeRawBufferPointer? = nil, timeout: TimeInterval? = nil, maxOutput: Int,
                           output: (UnsafeRawBufferPointer) -> Void) -> Outcome? {
        let out = Pipe()
        let inp: Pipe? = input == nil ? nil : Pipe()
        let p: Process
        do {
            p = try start(executable, arguments, environment: environment,
                          stdin: inp.map { .pipe($0) } ?? .null, stdout: .pipe(out), stderr: .null)
        } catch { return nil }
        if let input, let inp {
            _ = PrivateFile.writeAll(inp.fileHandleForWriting.fileDescriptor, input)
            try? inp.fileHandleForWriting.close()
        }
        // our copy of the write end, so the read ends when the child (and its children) close theirs
        try? out.fileHandleForWriting.close()
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        let fd = out.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { Secret.wipe(&chunk) }
        var taken = 0
        var truncated = false
        var timedOut = false
        while true {
            if let deadline {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { timedOut = true; break }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let r = poll(&pfd, 1, Int32(min(left * 1000 + 1, 60_000)))
                if r < 0 && errno == EINTR { continue }
                if r == 0 { continue }
            }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            let keep = min(n, maxOutput - taken)
            if keep < n { truncated = true }
            if keep > 0 { chunk.withUnsafeBytes { output(UnsafeRawBufferPointer(rebasing: $0[0..<keep])) } }
            taken += keep
        }
        if !timedOut, let deadline {
            // output ended: the child is exiting, or closed its stdout and goes on
            while p.isRunning && Date() < deadline { usleep(10_000) }
            timedOut = p.isRunning
        }
        if timedOut {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            return Outcome(status: nil, truncated: truncated)
        }
        p.waitUntilExit()
        return Outcome(status: p.terminationStatus, truncated: truncated)
    }

    /// `run` with the output as bytes (for output that holds no secret).
    public static func output(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                              timeout: TimeInterval? = nil, maxOutput: Int) -> (outcome: Outcome, bytes: [UInt8])? {
        var bytes: [UInt8] = []
        guard let o = run(executable, arguments, environment: environment, timeout: timeout, maxOutput: maxOutput,
                          output: { bytes.append(contentsOf: $0) }) else { return nil }
        return (o, bytes)
    }
}
