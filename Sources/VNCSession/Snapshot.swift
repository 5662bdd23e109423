import Foundation
import RFB

/// Monotonic seconds.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds used by this process, all threads.
public func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// `viewer snapshot`: connect, take the whole framebuffer, follow updates until they go quiet.
public struct SnapshotOptions: Sendable {
    public var settings = ClientSettings()
    /// Updates are "quiet" when none arrived for this long after the first full one.
    public var quietSeconds = 0.5
    /// Give up waiting for quiet after this long and take what we have.
    public var maxSeconds = 30.0
    public var connectTimeout = 10.0
    public init() {}
}

public struct SnapshotResult {
    public let framebuffer: Framebuffer
    public let desktopName: String
    public let cursor: CursorImage?
    public let updates: Int
    public let serverClosed: Bool
    public let securityType: UInt8?
}

public enum Snapshot {
    /// Runs on the calling thread; `log` gets progress lines (never secrets).
    public static func capture(_ spec: HostSpec, options: SnapshotOptions,
                               log: (String) -> Void = { _ in }) throws -> SnapshotResult {
        var plan = ConnectionPlan(target: .tcp(spec))
        plan.connectTimeout = options.connectTimeout
        return try capture(plan, options: options, log: log)
    }

    public static func capture(_ plan: ConnectionPlan, options: SnapshotOptions,
                               log: (String) -> Void = { _ in }) throws -> SnapshotResult {
        let t = try plan.open(log: log)
        defer { t.close() }
        log("connected to \(t.peer)")
        return try run(transport: t, options: options, log: log)
    }

    /// Runs the snapshot on a transport that is already connected (e.g. accepted in --listen mode).
    public static func run(transport t: any Transport, options: SnapshotOptions, log: (String) -> Void) throws -> SnapshotResult {
        let engine = ClientEngine(settings: options.settings)
        let start = monotonicSeconds()
        var fullAt: Double? = nil      // when the first full update completed
        var lastUpdate = start
        var cursor: CursorImage? = nil
        var security: UInt8? = nil
        var serverClosed = false
        while true {
            if engine.hasOutput { try t.send(engine.takeOutput()) }
            let now = monotonicSeconds()
            var wait: Double
            if fullAt != nil {
                wait = options.quietSeconds - (now - lastUpdate)
                if wait <= 0 || now - start > options.maxSeconds { break }
            } else {
                wait = options.maxSeconds - (now - start)
                if wait <= 0 {
                    throw ProtocolError("no complete framebuffer within \(Int(options.maxSeconds)) s (phase: \(engine.phase))")
                }
            }
            if !t.waitReadable(timeout: wait) { continue }
            let got: Int
            do {
                got = try engine.receive(atLeast: 65536) { p, cap in try t.recv(into: p, capacity: cap) }
            } catch let e as TransportError {
                throw ProtocolError("connection lost: \(e.description)")
            }
            for ev in engine.takeEvents() {
                switch ev {
                case .securityChosen(let s): security = s; log("security: \(SecurityType.name(s))")
                case .ready(let name, let w, let h): log("desktop '\(name)' \(w)x\(h)")
                case .updateEnded:
                    lastUpdate = monotonicSeconds()
                    if fullAt == nil { fullAt = lastUpdate; log("first full update after \(String(format: "%.3f", lastUpdate - start)) s") }
                case .resized(let w, let h):
                    log("desktop resized to \(w)x\(h)")
                    // the new area must arrive before the snapshot is whole
                    engine.requestUpdate(incremental: false)
                case .cursor(let c): cursor = c
                default: break
                }
            }
            if got == 0 {
                serverClosed = true
                if fullAt == nil {
                    throw ProtocolError(engine.phase == .normal
                        ? "server closed the connection before sending the whole desktop"
                        : "server closed the connection during the handshake (phase: \(engine.phase))")
                }
                log("server closed the connection")
                break
            }
        }
        guard let fb = engine.framebuffer else { throw ProtocolError("no framebuffer") }
        return SnapshotResult(framebuffer: fb, desktopName: engine.desktopName, cursor: cursor,
                              updates: engine.stats.updates, serverClosed: serverClosed, securityType: security)
    }
}

/// `viewer bench`: decode a recording through the real engine and decoders as fast as possible.
public struct BenchResult: Sendable {
    public var file: String
    public var updates = 0, rects = 0, pixels = 0, bytes = 0
    public var cpuSeconds = 0.0, wallSeconds = 0.0
    /// With `split`: seconds inside zlib inflate and TurboJPEG decompress.
    public var inflateSeconds = 0.0, jpegSeconds = 0.0
    public var mpixPerCPUSecond: Double { cpuSeconds > 0 ? Double(pixels) / 1e6 / cpuSeconds : 0 }
}

public enum Bench {
    public static func run(path: String, repeats: Int = 1, split: Bool = false) throws -> (BenchResult, Framebuffer?) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProtocolError("cannot read \(path)")
        }
        let rec = try FBSRecording(bytes: [UInt8](data))
        var settings = ClientSettings()
        settings.password = Array("recorded".utf8)  // the response is discarded; the recorded result follows
        var best: BenchResult? = nil
        var lastFB: Framebuffer? = nil
        for _ in 0..<max(1, repeats) {
            let engine = ClientEngine(settings: settings)
            var r = BenchResult(file: (path as NSString).lastPathComponent)
            LibraryTiming.enabled = split
            LibraryTiming.reset()
            defer { LibraryTiming.enabled = false }
            let c0 = processCPUSeconds(), w0 = monotonicSeconds()
            try rec.stream.withUnsafeBytes { buf in
                guard let base = buf.baseAddress else { return }
                var prev = 0
                for end in rec.blockEnds {
                    try engine.feed(base + prev, count: end - prev)
                    prev = end
                    _ = engine.takeOutput()
                    _ = engine.takeEvents()
                }
            }
            r.cpuSeconds = processCPUSeconds() - c0
            r.wallSeconds = monotonicSeconds() - w0
            r.inflateSeconds = Double(LibraryTiming.inflateNanos) / 1e9
            r.jpegSeconds = Double(LibraryTiming.jpegNanos) / 1e9
            r.updates = engine.stats.updates; r.rects = engine.stats.rects
            r.pixels = engine.stats.pixels; r.bytes = engine.stats.bytes
            if r.cpuSeconds < (best?.cpuSeconds ?? .infinity) { best = r }
            lastFB = engine.framebuffer
        }
        return (best ?? BenchResult(file: path), lastFB)
    }
}
