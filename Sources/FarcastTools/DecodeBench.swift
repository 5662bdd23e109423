import Foundation
import RFB

/// `viewer bench`: decode a recording through the real engine and decoders as fast as possible.
public struct BenchResult: Sendable, Codable {
    public var file: String
    public var updates = 0, rects = 0, pixels = 0, bytes = 0
    public var cpuSeconds = 0.0, wallSeconds = 0.0
    public var threads = 1
    /// Rects decoded on worker threads (threads above 1).
    public var workerRects = 0
    /// With `split`: seconds inside zlib inflate, TurboJPEG decompress and libavcodec's H.264 decoder.
    public var inflateSeconds: Double?, jpegSeconds: Double?, h264Seconds: Double?
    /// With `split`: seconds to write as many pixels as the rects cover into a framebuffer of the
    /// same size, in whole rows (see `DecodeBench.storeSeconds`).
    public var storeSeconds: Double?
    public var mpixPerCPUSecond: Double { cpuSeconds > 0 ? Double(pixels) / 1e6 / cpuSeconds : 0 }
}

/// Adds up the time spent inside each library, read from the monotonic clock around each call.
public final class LibraryClock: LibraryProbe {
    public private(set) var zlibNanos: UInt64 = 0
    public private(set) var jpegNanos: UInt64 = 0
    public private(set) var avcodecNanos: UInt64 = 0
    public init() {}

    @inline(__always) static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    public func enter(_ library: ProbedLibrary) -> UInt64 { LibraryClock.now() }

    public func leave(_ library: ProbedLibrary, _ token: UInt64) {
        let d = LibraryClock.now() &- token
        switch library {
        case .zlib: zlibNanos &+= d
        case .turboJPEG: jpegNanos &+= d
        case .avcodec: avcodecNanos &+= d
        }
    }
}

public enum DecodeBench {
    /// Decodes `path` `repeats` times; the fastest run's figures and the last framebuffer.
    /// With `split`, the time inside zlib, TurboJPEG and libavcodec is measured too (clock reads per call).
    /// With `threads` above 1, rects also decode on threads-1 workers (DecodeManager) and the fastest run
    /// is the one with the least wall time (CPU time then adds up across threads).
    public static func run(path: String, repeats: Int = 1, split: Bool = false, threads: Int = 1) throws -> (BenchResult, Framebuffer?) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProtocolError("cannot read \(path)")
        }
        let rec = try RecordedStream(fbs: [UInt8](data))
        var settings = ClientSettings()
        settings.password = Array("recorded".utf8)  // the response is discarded; the recorded result follows
        settings.decodeThreads = max(1, threads)
        settings.refusesUnoffered = false   // the recorded session negotiated its encodings
        var best: BenchResult? = nil
        var lastFB: Framebuffer? = nil
        for _ in 0..<max(1, repeats) {
            let clock = split ? LibraryClock() : nil
            let engine = ClientEngine(settings: settings, probe: clock)
            var r = BenchResult(file: (path as NSString).lastPathComponent)
            r.threads = max(1, threads)
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
            if let clock {
                r.inflateSeconds = Double(clock.zlibNanos) / 1e9
                r.jpegSeconds = Double(clock.jpegNanos) / 1e9
                r.h264Seconds = Double(clock.avcodecNanos) / 1e9
                if let fb = engine.framebuffer { r.storeSeconds = storeSeconds(width: fb.width, height: fb.height, pixels: engine.stats.pixels) }
            }
            r.workerRects = engine.rectsOnWorkers
            r.updates = engine.stats.updates; r.rects = engine.stats.rects
            r.pixels = engine.stats.pixels; r.bytes = engine.stats.bytes
            let better = threads > 1 ? r.wallSeconds < (best?.wallSeconds ?? .infinity) : r.cpuSeconds < (best?.cpuSeconds ?? .infinity)
            if better { best = r }
            lastFB = engine.framebuffer
        }
        return (best ?? BenchResult(file: path), lastFB)
    }
}

extension DecodeBench {
    /// CPU seconds to fill `pixels` pixels of a `width` x `height` framebuffer, whole rows at a
    /// time, top to bottom and round again. Every rect's pixels must be written once, so this is
    /// the least a decoder can spend beyond the libraries: a floor for the work that is not
    /// zlib's or TurboJPEG's. Whole rows of one value are the cheapest way to write them, so the
    /// floor is on the low side of what any real update pattern allows.
    static func storeSeconds(width: Int, height: Int, pixels: Int) -> Double {
        let fb = Framebuffer(width: width, height: height)   // written once here: no first-touch faults below
        var left = pixels, y = 0, value: UInt32 = 0x10_2030
        let c0 = processCPUSeconds()
        while left > 0 {
            let rows = min(height - y, max(1, left / width))
            fb.fill(Rect(x: 0, y: y, w: width, h: rows), value)
            left -= rows * width
            y += rows
            if y == height { y = 0; value &+= 0x01_0101 }
        }
        return processCPUSeconds() - c0
    }
}

/// Monotonic seconds (the recorder's default clock).
@usableFromInline func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds used by this process, all threads.
func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
