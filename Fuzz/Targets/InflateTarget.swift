#if canImport(Glibc)
import Glibc
#endif
@_spi(Fuzzing) import RFB

/// inflate-diff: zlib and ISA-L fed the same messages of one stream must give the same bytes
/// and fail at the same message, or neither fail. Input: messages `[length u16][output chunk
/// u16][bytes]`, each inflated as a rect's payload is (the stream goes on across them, the first
/// starts with the zlib header), its output taken in chunks of 1 to 65 536 bytes; at most
/// `inflateDiffOutput` bytes of output a run.
///
/// Where a message ends at a flush point (as every server's do, with a sync or full flush) the
/// two must agree exactly: output, input taken (but for ISA-L's read-ahead past a finished
/// stream's trailer), failure. A message cut elsewhere leaves
/// bits the libraries buffer differently: ISA-L keeps the last symbols until more input comes
/// where zlib has decoded them (its output may lag, the same bytes, fewer), and either may find
/// a bad block header one message before the other: a failure is a finding only where the other
/// library ended the message at a flush point. The bytes both gave must always be the same.
/// Dynamic blocks whose Huffman codes are incomplete are refused by zlib and decoded by ISA-L
/// (it fails only if an unused code comes): that difference ends the run without a finding
/// (docs/design/inflate-engine.md).
let inflateTarget = FuzzTarget(
    name: "inflate-diff",
    summary: "zlib against ISA-L on the same stream: same bytes, or both fail at the same message",
    maxLength: 16384,
    run: { runInflateDiff($0) },
    seeds: { InflateSeeds.synthetic() },
    corpusSeeds: { InflateSeeds.fromCorpus($0) })

/// Output a run may inflate to (a 16 KiB input can claim far more; the bound keeps runs fast).
let inflateDiffOutput = 1 << 20
/// Inflate calls a run may make (1-byte output chunks would otherwise make a call a byte).
let inflateDiffCalls = 4096
/// Most ISA-L may hold back at a message's end: 64 bits of matches of 258 bytes.
let inflateDiffLag = 64 * 258
/// zlib's words for a Huffman code set that is over-subscribed or incomplete.
let incompleteCodeErrors = ["invalid code lengths set", "invalid literal/lengths set", "invalid distances set"]

/// One library's stream and output in a run: written in place, compared in place (no array
/// per message). The buffer is kept across runs (a megabyte each run costs ASan an mmap).
final class InflateDiffSide {
    let engine: InflateEngine
    private(set) var z: ZStream
    let out = UnsafeMutablePointer<UInt8>.allocate(capacity: inflateDiffOutput)
    var produced = 0
    init(_ engine: InflateEngine) { self.engine = engine; z = ZStream(engine: engine) }
    func restart() { z = ZStream(engine: engine); produced = 0 }
}

nonisolated(unsafe) private let diffSides = (InflateDiffSide(.zlib), InflateDiffSide(.isal))

func runInflateDiff(_ data: UnsafeBufferPointer<UInt8>) {
    if let why = InflateEngine.loadISAL() { fatalError("inflate-diff: ISA-L did not load (\(why)); install libisal2") }
    let (zlib, isal) = diffSides
    zlib.restart(); isal.restart()
    var input = FuzzInput(data)
    var message = 0, calls = 0
    func finding(_ what: String) -> Never {
        fatalError("inflate-diff: message \(message): \(what) (zlib gave \(zlib.produced) bytes in all, ISA-L \(isal.produced))")
    }
    while !input.atEnd && max(zlib.produced, isal.produced) < inflateDiffOutput && calls < inflateDiffCalls {
        let n = input.u16(), chunk = input.u16() + 1
        let bytes = input.view(n)
        let zBefore = zlib.produced, iBefore = isal.produced
        let a = inflateMessage(zlib, bytes, chunk: chunk, calls: &calls)
        let b = inflateMessage(isal, bytes, chunk: chunk, calls: &calls)
        switch (a, b) {
        case (.failure, .failure):
            return
        case (.success(let za), .success(let ib)):
            let common = min(zlib.produced, isal.produced)
            if memcmp(zlib.out, isal.out, common) != 0 {
                let at = (0..<common).first { zlib.out[$0] != isal.out[$0] } ?? common
                finding("different bytes from \(at) on")
            }
            if max(zlib.produced, isal.produced) >= inflateDiffOutput || calls >= inflateDiffCalls { return }  // cut by a bound
            if zlib.z.atFlushPoint && isal.z.atFlushPoint {
                if zlib.produced != isal.produced {
                    finding("at a flush point, zlib gave \(zlib.produced - zBefore) bytes and ISA-L \(isal.produced - iBefore)")
                }
                // at a finished stream's end ISA-L may have read up to 8 bytes ahead in a call
                // before the one that found the end: past the 4-byte trailer, up to 4 more taken
                let ahead = zlib.z.isFinished && isal.z.isFinished ? 4 : 0
                if ib < za || ib > za + ahead { finding("at a flush point, zlib took \(za) bytes and ISA-L \(ib)") }
            } else if zlib.produced - isal.produced > inflateDiffLag {
                finding("ISA-L's output is \(zlib.produced - isal.produced) bytes behind zlib's")
            }
        case (.failure(let e), .success):
            if incompleteCodeErrors.contains(where: { e.message.contains($0) }) { return }
            if isal.z.atFlushPoint { finding("zlib failed (\(e)), ISA-L decoded the message to a flush point") }
            return
        case (.success, .failure(let e)):
            if zlib.z.atFlushPoint { finding("ISA-L failed (\(e)), zlib decoded the message to a flush point") }
            return
        }
        message += 1
    }
}

/// One message through a side's stream as the decoders take a rect's: chunks of output until
/// the input is used up, the stream makes no progress, or a bound is met. The input it took.
func inflateMessage(_ side: InflateDiffSide, _ bytes: UnsafeBufferPointer<UInt8>, chunk: Int, calls: inout Int) -> Result<Int, ProtocolError> {
    var consumed = 0
    let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
    do {
        while side.produced < inflateDiffOutput && calls < inflateDiffCalls {
            let room = min(chunk, inflateDiffOutput - side.produced)
            let step = try side.z.inflate(base + consumed, count: bytes.count - consumed, into: side.out + side.produced,
                                          capacity: room, what: "inflate-diff")
            calls += 1
            consumed += step.consumed
            side.produced += step.produced
            if step.consumed == 0 && step.produced == 0 { break }
            if consumed == bytes.count && step.produced < room { break }
        }
        return .success(consumed)
    } catch let e as ProtocolError {
        return .failure(e)
    } catch {
        return .failure(ProtocolError("\(error)"))
    }
}

/// `[length u16][chunk u16][bytes]` messages.
func inflateInput(_ messages: [[UInt8]], chunk: Int = 65536) -> [UInt8] {
    messages.flatMap { be16($0.count) + be16(chunk - 1) + $0 }
}

enum InflateSeeds {
    /// Streams of text, runs and noise, flushed per message as servers do, with small and big
    /// output chunks; one finished (its trailer and bytes after it).
    static func synthetic() -> [[UInt8]] {
        let text = Array("the quick brown fox jumps over the lazy dog; ".utf8)
        let pieces: [[UInt8]] = [
            Array((0..<40).flatMap { _ in text }),
            [UInt8](repeating: 7, count: 3000),
            (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) },
            Array((0..<20).flatMap { _ in text }),
        ]
        let z = Deflater()
        let header: [UInt8] = [0x78, 0x9c]
        var streamed = pieces.map { z.compress($0) }
        streamed[0] = header + streamed[0]
        return [inflateInput(streamed), inflateInput(streamed, chunk: 17), inflateInput(streamed, chunk: 1),
                inflateInput([header] + streamed.dropFirst().map { $0 })]
    }

    /// The Zlib and ZRLE payloads of each recording from its first rect, as messages (their
    /// length words dropped), up to the input size.
    static func fromCorpus(_ corpus: CorpusRecordings) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (_, messages) in corpus.recordings {
            for encoding in [Encoding.zlib, Encoding.zrle] {
                var payloads: [[UInt8]] = [], size = 0
                // the stream's payloads in order from its start, none left out
                filling: for case .update(let rects) in messages {
                    for r in rects where r.encoding == encoding && r.body.count > 4 {
                        let p = Array(r.body.dropFirst(4))
                        if size + p.count + 4 > inflateTarget.maxLength { break filling }
                        payloads.append(p); size += p.count + 4
                    }
                }
                if !payloads.isEmpty { out.append(inflateInput(payloads)) }
            }
        }
        return out
    }
}
