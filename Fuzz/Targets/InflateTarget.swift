@_spi(Fuzzing) import RFB

/// inflate-diff: zlib and ISA-L fed the same messages of one stream must give the same bytes,
/// take the same input, and fail at the same message (or neither). Input: messages
/// `[length u16][output chunk u16][bytes]`, each inflated as a rect's payload is (the stream
/// goes on across them, the first starts with the zlib header), its output taken in chunks of
/// 1 to 65 536 bytes; at most `inflateDiffOutput` bytes of output a run.
let inflateTarget = FuzzTarget(
    name: "inflate-diff",
    summary: "zlib against ISA-L on the same stream: same bytes, or both fail at the same message",
    maxLength: 16384,
    run: { runInflateDiff($0) },
    seeds: { InflateSeeds.synthetic() },
    corpusSeeds: { InflateSeeds.fromCorpus($0) })

/// Output a run may inflate to (a 16 KiB input can claim far more; the bound keeps runs fast).
let inflateDiffOutput = 4 << 20

func runInflateDiff(_ data: UnsafeBufferPointer<UInt8>) {
    guard InflateEngine.current == .isal else {
        fatalError("inflate-diff: ISA-L did not load (\(InflateEngine.isalUnavailable ?? "?")); install libisal2")
    }
    var input = FuzzInput(data)
    let zlib = ZStream(engine: .zlib), isal = ZStream(engine: .isal)
    var total = 0
    var message = 0
    while !input.atEnd && total < inflateDiffOutput {
        let n = input.u16(), chunk = input.u16() + 1
        let bytes = input.view(n)
        let a = inflateMessage(zlib, bytes, chunk: chunk, limit: inflateDiffOutput - total)
        let b = inflateMessage(isal, bytes, chunk: chunk, limit: inflateDiffOutput - total)
        switch (a, b) {
        case (.failure, .failure):
            return
        case (.success(let za), .success(let ib)):
            if za.consumed != ib.consumed || za.output != ib.output {
                let at = zip(za.output, ib.output).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(za.output.count, ib.output.count)
                fatalError("inflate-diff: message \(message): zlib took \(za.consumed) bytes and gave \(za.output.count), ISA-L took \(ib.consumed) and gave \(ib.output.count); first difference at \(at)")
            }
            total += za.output.count
        case (.failure(let e), .success(let r)):
            fatalError("inflate-diff: message \(message): zlib failed (\(e)), ISA-L gave \(r.output.count) bytes")
        case (.success(let r), .failure(let e)):
            fatalError("inflate-diff: message \(message): ISA-L failed (\(e)), zlib gave \(r.output.count) bytes")
        }
        message += 1
    }
}

struct Inflated { var consumed = 0; var output: [UInt8] = [] }

/// One message through a stream as the decoders take a rect's: chunks of output until the input
/// is used up, the stream makes no progress, or `limit` bytes came out.
func inflateMessage(_ z: ZStream, _ bytes: UnsafeBufferPointer<UInt8>, chunk: Int, limit: Int) -> Result<Inflated, ProtocolError> {
    var r = Inflated()
    var out = [UInt8](repeating: 0, count: chunk)
    let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
    do {
        while r.output.count < limit {
            let step = try out.withUnsafeMutableBufferPointer { o in
                try z.inflate(base + r.consumed, count: bytes.count - r.consumed, into: o.baseAddress!,
                              capacity: min(chunk, limit - r.output.count), what: "inflate-diff")
            }
            r.consumed += step.consumed
            r.output += out[0..<step.produced]
            if step.consumed == 0 && step.produced == 0 { break }
            if r.consumed == bytes.count && step.produced < chunk { break }
        }
        return .success(r)
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
