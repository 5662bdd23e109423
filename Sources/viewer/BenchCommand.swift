import ArgumentParser
import FarcastTools
import Foundation
import RFB
import VNCSession

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Decode recorded sessions (FBS files) as fast as possible and report the speed.")

    @Argument(help: "FBS 001.000 recordings.")
    var files: [String]

    @Flag(help: "One JSON object per file.")
    var json = false

    @Option(help: "Write the final framebuffer (without cursor) of the last file as PNG.")
    var finalFrame: String?

    @Option(help: "Decode each file this many times and report the fastest.", transform: Parse.positive("a count from 1"))
    var repeats: Int = 1

    @Option(help: "Decoding threads: above 1, Tight, ZRLE, Hextile and (Co)RRE rects also decode on threads-1 workers.", transform: Parse.positive("a count from 1"))
    var threads: Int = 1

    @Flag(help: "Also time zlib inflate, TurboJPEG decompress and H.264 decoding inside the decode (adds clock reads), and filling as many pixels as the rects cover, in whole rows.")
    var split = false

    /// The JSON line per file (field names as the benchmark scripts read them).
    struct Line: Encodable {
        let file: String
        let updates, rects, pixels, bytes: Int
        let threads, worker_rects: Int
        /// the library inflating zlib streams (InflateEngine: FARCAST_INFLATE)
        let inflate: String
        let cpu_s, wall_s, mpix_per_cpu_s: Double
        let inflate_s, jpeg_s, h264_s, store_s: Double?

        init(_ r: BenchResult) {
            func r4(_ v: Double) -> Double { (v * 1e4).rounded() / 1e4 }
            inflate = InflateEngine.current.rawValue
            file = r.file; threads = r.threads; worker_rects = r.workerRects; updates = r.updates; rects = r.rects; pixels = r.pixels; bytes = r.bytes
            cpu_s = r4(r.cpuSeconds); wall_s = r4(r.wallSeconds)
            mpix_per_cpu_s = (r.mpixPerCPUSecond * 10).rounded() / 10
            inflate_s = r.inflateSeconds.map(r4); jpeg_s = r.jpegSeconds.map(r4); h264_s = r.h264Seconds.map(r4)
            store_s = r.storeSeconds.map(r4)
        }
    }

    func validate() throws {
        // the library clock is the decoding thread's: workers would race on it
        if split && threads > 1 { throw ValidationError("--split measures one decoding thread: leave out --threads, or give --threads 1") }
    }

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for f in files {
            do {
                let (r, fb) = try DecodeBench.run(path: f, repeats: repeats, split: split, threads: threads)
                if json {
                    print(String(decoding: try encoder.encode(Line(r)), as: UTF8.self))
                } else {
                    var line = "\(r.file) (inflated by \(InflateEngine.current.rawValue)): \(r.updates) updates, \(r.rects) rects, \(String(format: "%.1f", Double(r.pixels) / 1e6)) Mpixels, \(String(format: "%.3f", r.cpuSeconds)) CPU s, \(String(format: "%.1f", r.mpixPerCPUSecond)) Mpixel/s"
                    if let i = r.inflateSeconds, let j = r.jpegSeconds, let h = r.h264Seconds {
                        line += String(format: " (inflate %.3f s, jpeg %.3f s, h264 %.3f s", i, j, h)
                        if let st = r.storeSeconds {
                            line += String(format: "; the pixels' stores alone %.3f s; %.2fx of libraries + stores", st, r.cpuSeconds / max(1e-9, i + j + h + st))
                        }
                        line += ")"
                    }
                    print(line)
                }
                if let out = finalFrame, let fb {
                    try PrivateFile.replace(out, with: PNGWriter.encode(fb), makeDirectory: false, onlyRegularFile: true)
                }
            } catch {
                die("\(f): \(error)")
            }
        }
    }
}
