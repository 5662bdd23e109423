#if canImport(Glibc)
import Glibc
#endif
import CISAL

/// The library that inflates RFB's zlib streams (Zlib, ZRLE, Tight, the extended clipboard).
/// ISA-L's igzip inflates our recordings with 1.2-2.0x less CPU than zlib and the same output
/// (docs/design/inflate-engine.md: what proves it); zlib is what is left where libisal2 is not
/// installed, not built for (no headers), or not trusted (aarch64 before 2.32), and what
/// `FARCAST_INFLATE=zlib` asks for.
public enum InflateEngine: String, Sendable, CaseIterable {
    case zlib
    case isal

    /// What new streams use, chosen once per process: FARCAST_INFLATE=zlib asks for zlib;
    /// otherwise ISA-L where it loads, else zlib. Read here, not handed down by the command line
    /// as other variables are: every process that decodes (the tests run once per engine, the
    /// benchmarks, the fuzz targets) follows it alike.
    public static var current: InflateEngine { chosen.engine }
    /// Why ISA-L is not in use where it was tried (nil otherwise).
    public static var isalUnavailable: String? { chosen.isalUnavailable }

    private static let chosen = choose(asked: getenv("FARCAST_INFLATE").map { String(cString: $0) })

    static func choose(asked: String?) -> (engine: InflateEngine, isalUnavailable: String?) {
        if asked == InflateEngine.zlib.rawValue { return (.zlib, nil) }
        if let why = loadISAL() { return (.zlib, why) }
        return (.isal, nil)
    }

    /// Loads libisal2 (once per process): nil when it is there, else why not.
    public static func loadISAL() -> String? {
        var why = [CChar](repeating: 0, count: 256)
        if cisal_load(&why, why.count) == 0 { return nil }
        return String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A fresh raw deflate stream in this library (nil when it cannot be made).
    func makeInflater() -> RawInflater? {
        switch self {
        case .zlib: return ZlibInflater()
        case .isal: return ISALInflater()
        }
    }
}

/// What one inflate call of a library did.
enum RawInflateStatus {
    /// The input is used up or the output full (possibly neither moved: no progress possible).
    case progress
    /// The stream's last block is done; nothing after it was taken in this call, but `pastEnd`
    /// bytes read ahead by an earlier one (ISA-L reads 8 bytes at a time).
    case end(pastEnd: Int)
    /// Not deflate, in the library's words.
    case corrupt(String)
    /// The library failed for a reason of its own (memory).
    case failed(String)
}

/// One raw deflate stream (no zlib header or trailer) of one library, 32 KiB window.
protocol RawInflater: AnyObject {
    /// At most 4 GiB - 1 of each at a time.
    func inflate(_ input: UnsafePointer<UInt8>, count: UInt32, into output: UnsafeMutablePointer<UInt8>,
                 capacity: UInt32) -> (consumed: Int, produced: Int, status: RawInflateStatus)
    /// Back to the start of a new stream.
    func reset()
    /// Everything taken is decoded and given out and the stream is between blocks, no bit left
    /// over: where a server's sync or full flush leaves it. A message cut elsewhere leaves bits a
    /// library may decode, or find wrong, only with the next one.
    var atFlushPoint: Bool { get }
}
