#if canImport(Glibc)
import Glibc
#endif
@_spi(Fuzzing) import RFB

/// Caps for every target, far below what a real server may ask, so no input can make a run
/// allocate much or spend long legitimately (libFuzzer's -malloc_limit_mb catches the rest).
enum FuzzLimits {
    /// 256 KiB of framebuffer: 1920x34 holds the corpus's Tight strips (at most 65536 pixels),
    /// and a run allocates, clears and compares it in microseconds.
    static let framebufferPixels = 1 << 16
    static let clipboard = 1 << 16
    /// Rect pixels per parse call, and parse calls per feed: a few bytes of RRE can ask for
    /// many whole-framebuffer fills, and a run stops after this much work.
    static let workPerParse = 1 << 20
    static let resumesPerFeed = 8
    /// A drip-fed run is cut into at most this many pieces: byte by byte, a 16 KiB input cost a
    /// thousand whole feeds and held the decoders near 500 runs/s; the cut points still move
    /// as the fuzzer mutates lengths, so every boundary gets its turn over many runs.
    static let piecesPerFeed = 256
    /// FARCAST_FUZZ_VERBOSE=1: a line per run (for looking at seeds with the replay tool).
    static let verbose = environment("FARCAST_FUZZ_VERBOSE") != nil
}

let fuzzPassword = Array("secret".utf8)
let fuzzUser = "user"

/// Settings every target starts from: all our encodings, every security method, small caps.
func fuzzSettings(pixelFormat: PixelFormat = .native, methods: [SecurityMethod] = SecurityMethod.all) -> ClientSettings {
    var s = ClientSettings()
    s.pixelFormat = pixelFormat
    s.securityMethods = methods
    s.maxFramebufferPixels = FuzzLimits.framebufferPixels
    s.clipboardLimit = FuzzLimits.clipboard
    s.password = fuzzPassword
    s.username = fuzzUser
    return s
}

/// The worker threads every engine of the process decodes on (the worker targets ask for 3
/// decoding threads: 2 workers). An engine making its own would start threads each run and
/// free their memory after the run returned, so libFuzzer, counting mallocs and frees that do
/// not match, would scan for leaks after every run (two thirds of the time, under perf).
let fuzzDecodeWorkers = DecodeWorkers(count: 2)

func makeEngine(_ s: ClientSettings) -> ClientEngine {
    let e = ClientEngine(settings: s, workers: s.decodeThreads > 1 ? fuzzDecodeWorkers : nil, pixels: ReusedPixels.shared)
    e.fixedKeys = FuzzKeys.fixed
    e.workBudgetPixels = FuzzLimits.workPerParse
    return e
}

/// The pixel formats a target can ask for (two bits of its flags), and big-endian (one more).
func pixelFormat(_ choice: UInt8, bigEndian: Bool) -> PixelFormat {
    var pf = [PixelFormat.native, .rgb565, .bgr233, .colourMap8][Int(choice & 3)]
    if pf.bitsPerPixel > 8 { pf.bigEndian = bigEndian }
    return pf
}

/// Chunk sizes a target can feed with (three bits of its flags): half the choices feed whole,
/// the others drip-feed or split units at odd places, and are checked against a whole feed
/// (which doubles their cost: half keeps the execution rate up).
func chunkSize(_ choice: UInt8) -> Int { [Int.max, 1, Int.max, 7, Int.max, 509, Int.max, 3][Int(choice & 7)] }

/// What a run did, to compare two feedings of the same bytes.
struct Outcome: Equatable {
    // Compared with memcmp: element by element, the fuzzer's comparison tracing costs more
    // than the run.
    static func == (a: Outcome, b: Outcome) -> Bool {
        a.error == b.error && a.cut == b.cut && a.events == b.events && same(a.output, b.output)
            && samePixels(a.framebuffer, b.framebuffer)
    }

    var error: String?
    var events: [EngineEvent] = []
    var output: [UInt8] = []
    var framebuffer: Framebuffer?
    /// The run stopped early (work cap, or a security channel began): not comparable.
    var cut = false
}

/// Feeds `bytes` to `e` in `chunk`-byte pieces, answering its questions (our credentials; trust
/// for any identity) and resuming deferred work up to the caps. A ProtocolError ends the run;
/// any other error is a bug (the engine promises ProtocolError only) and traps. With
/// `stopAtChannel` the run ends where a security channel starts: later bytes would be ciphertext.
@discardableResult
func drive(_ e: ClientEngine, _ bytes: [UInt8], chunk: Int, record: Bool = false, stopAtChannel: Bool = false) -> Outcome {
    var o = Outcome()
    let chunk = chunk == Int.max ? chunk : max(chunk, bytes.count / FuzzLimits.piecesPerFeed)
    do {
        var off = 0
        feeding: while off < bytes.count {
            let n = min(chunk, bytes.count - off)
            try bytes.withUnsafeBytes { try e.feed($0.baseAddress! + off, count: n) }
            off += n
            try answer(e)
            var resumes = 0
            while e.hasDeferredWork {
                if resumes == FuzzLimits.resumesPerFeed { o.cut = true; break feeding }
                try e.resume()
                try answer(e)
                resumes += 1
            }
            if record { o.events += e.takeEvents(); o.output += e.takeOutput() } else { _ = e.takeOutput(); _ = e.takeEvents() }
            if stopAtChannel && e.hasSecureChannel { o.cut = true; break }
        }
        // rects of an unfinished update may still be on workers (`decodeThreads` above 1)
        if !o.cut { try e.checkWorkers(wait: true) }
    } catch let err as ProtocolError {
        o.error = err.message
    } catch {
        fatalError("the engine threw \(type(of: error)), not a ProtocolError: \(error)")
    }
    if record {
        o.events += e.takeEvents()
        o.output += e.takeOutput()
        o.framebuffer = e.framebuffer
    }
    if FuzzLimits.verbose { print("  fed \(bytes.count) bytes in \(chunk == Int.max ? "one piece" : "\(chunk)-byte pieces"): \(o.error ?? "no error"), \(e.stats.rects) rects, \(e.stats.updates) updates\(o.cut ? ", cut short" : "")") }
    return o
}

/// Answers the question the engine waits on, if any.
func answer(_ e: ClientEngine) throws {
    while let q = e.lastQuestion {
        switch q {
        case .credentialsRequired(let req):
            try e.provideCredentials(Credentials(username: req.needsUsername ? fuzzUser : "", password: fuzzPassword))
        case .trustRequired:
            try e.answerTrust(.accept)
        default:
            return
        }
    }
}

/// Runs `bytes` whole and in `chunk`-byte pieces; unless either was cut short, both must
/// agree (events, error, pixels, and the bytes sent when they are deterministic). The engine
/// parses resumably, so where the bytes split must never matter.
func runBothWays(_ settings: ClientSettings, _ bytes: [UInt8], chunk: Int, compareOutput: Bool = true,
                 stopAtChannel: Bool = false) {
    if chunk == Int.max {
        drive(makeEngine(settings), bytes, chunk: chunk, stopAtChannel: stopAtChannel)
        return
    }
    let a = makeEngine(settings), b = makeEngine(settings)
    var pieces = drive(a, bytes, chunk: chunk, record: true, stopAtChannel: stopAtChannel)
    var whole = drive(b, bytes, chunk: Int.max, record: true, stopAtChannel: stopAtChannel)
    if pieces.cut || whole.cut || a.hasSecureChannel || b.hasSecureChannel { return }
    if !compareOutput { pieces.output = []; whole.output = [] }
    if pieces != whole {
        fatalError("fed in \(chunk)-byte pieces the engine did otherwise than fed whole:\n  pieces: \(describe(pieces))\n  whole:  \(describe(whole))")
    }
}

func same<T>(_ a: [T], _ b: [T]) -> Bool {
    a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}

func samePixels(_ a: Framebuffer?, _ b: Framebuffer?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a.width == b.width && a.height == b.height && memcmp(a.pixels, b.pixels, a.width * a.height * 4) == 0
}

func describe(_ o: Outcome) -> String {
    let px = o.framebuffer.map { fb in
        "\(fb.width)x\(fb.height), pixel hash \(fb.snapshotPixels().reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })"
    } ?? "no framebuffer"
    return "error \(o.error ?? "none"); \(o.events.count) events \(o.events.prefix(12)); \(o.output.count) bytes out; \(px)"
}

/// Server bytes the targets share.
enum Server {
    static let banner38 = Array("RFB 003.008\n".utf8)
    static func serverInit(w: Int, h: Int, name: String = "fuzz") -> [UInt8] {
        be16(w) + be16(h) + PixelFormat.native.wireBytes + be32(name.utf8.count) + Array(name.utf8)
    }
    /// RFB 3.8, security None, ServerInit: the engine is then in its normal phase.
    static func hello(w: Int, h: Int) -> [UInt8] { banner38 + [1, 1] + be32(0) + serverInit(w: w, h: h) }
    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ enc: Int32) -> [UInt8] {
        be16(x) + be16(y) + be16(w) + be16(h) + be32(Int(UInt32(bitPattern: enc)))
    }
    /// `update` appended in place: the decoder targets build one per rect in every run, and
    /// the arrays of the `+` chain were a tenth of their allocations.
    static func appendUpdate(_ out: inout [UInt8], _ x: Int, _ y: Int, _ w: Int, _ h: Int, _ enc: Int32,
                             _ body: UnsafeBufferPointer<UInt8>) {
        out.append(0); out.append(0); out.append(0); out.append(1)
        func u16(_ v: Int) { out.append(UInt8(v >> 8 & 0xff)); out.append(UInt8(v & 0xff)) }
        u16(x); u16(y); u16(w); u16(h)
        let e = UInt32(bitPattern: enc)
        out.append(UInt8(e >> 24)); out.append(UInt8(e >> 16 & 0xff)); out.append(UInt8(e >> 8 & 0xff)); out.append(UInt8(e & 0xff))
        out.append(contentsOf: body)
    }

    /// A FramebufferUpdate with one rect (`body` follows its header).
    static func update(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ enc: Int32, _ body: some Sequence<UInt8>) -> [UInt8] {
        [0, 0, 0, 1] + rect(x, y, w, h, enc) + Array(body)
    }
    /// SetColourMapEntries for all 256 entries (the colour-map pixel format needs them).
    static let colourMap: [UInt8] = {
        var b: [UInt8] = [1, 0, 0, 0, 1, 0]
        for i in 0..<256 {
            let r = i * 257, g = (255 - i) * 257, bl = (i * 7 & 255) * 257
            b += be16(r); b += be16(g); b += be16(bl)
        }
        return b
    }()

    /// The framebuffer size a target asked for, within the fuzz cap (height gives way).
    static func fitted(_ w: Int, _ h: Int) -> (Int, Int) {
        let w = max(1, w), h = max(1, h)
        return (w, min(h, max(1, FuzzLimits.framebufferPixels / w)))
    }
}
