/// One zlib inflate stream that lives as long as the connection (RFB's zlib encodings keep
/// the dictionary across rects, so a stream is never finished between rects).
///
/// The stream is inflated as raw deflate (by `InflateEngine`'s library) after we check its
/// 2-byte zlib header ourselves: servers flush but never finish their streams, so the Adler-32
/// trailer never arrives and a running checksum (7 % of a ZRLE decode) would be computed for
/// nothing.
@_spi(Fuzzing) public final class ZStream {
    private let engine: InflateEngine
    /// Made at the first inflate: a connection makes six streams (Tight's four, Zlib's,
    /// ZRLE's) and a server uses one encoding, so most would never run.
    private var inflater: RawInflater?
    /// zlib header bytes still expected at the start of the (reset) stream, and those seen.
    private var headerLeft = 2
    private var header: UInt16 = 0
    /// A finished stream's 4-byte Adler-32 trailer still to skip; nothing after it is consumed.
    private var trailerLeft = 0
    private var ended = false
    /// Told of each inflate call (benchmarks); nil otherwise.
    private let probe: LibraryProbe?

    @_spi(Fuzzing) public init(probe: LibraryProbe? = nil, engine: InflateEngine = .current) {
        self.probe = probe
        self.engine = engine
    }

    /// Consumes the zlib header (across calls if a payload is shorter), checking it is deflate
    /// with a window raw inflate covers and no preset dictionary. Returns bytes consumed.
    private func takeHeader(_ input: UnsafePointer<UInt8>, count: Int, what: () -> String) throws -> Int {
        var n = 0
        while headerLeft > 0 && n < count {
            header = header << 8 | UInt16(input[n]); n += 1; headerLeft -= 1
        }
        if headerLeft == 0 && n > 0 {
            let cmf = header >> 8, flg = header & 0xff
            guard cmf & 0x0f == 8, cmf >> 4 <= 7, header % 31 == 0 else {
                throw ProtocolError("\(what()): corrupt zlib data (bad zlib header 0x\(String(header, radix: 16)))")
            }
            guard flg & 0x20 == 0 else { throw ProtocolError("\(what()): zlib data asks for a preset dictionary") }
        }
        return n
    }

    /// Whether the stream stands where a server's flush leaves it (`RawInflater`): inflate-diff's
    /// judge of where the two libraries may differ.
    @_spi(Fuzzing) public var atFlushPoint: Bool { ended || (inflater?.atFlushPoint ?? true) }
    /// The server finished the stream (Z_FINISH); only its trailer followed.
    @_spi(Fuzzing) public var isFinished: Bool { ended }

    /// Starts a fresh stream (Tight's reset bits, or a new connection).
    func reset() {
        inflater?.reset()
        headerLeft = 2; header = 0; trailerLeft = 0; ended = false
    }

    /// Inflates from `input` into `output` until the input is used up, the output is full, or the
    /// stream ends. Servers flush each rect, so all of a rect's output is available once its
    /// compressed bytes are in.
    @_spi(Fuzzing) public func inflate(_ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>,
                 capacity: Int, what: @autoclosure () -> String) throws -> (consumed: Int, produced: Int) {
        if inflater == nil { inflater = engine.makeInflater() }
        guard let inflater else { throw ProtocolError("\(what()): \(engine.rawValue) stream could not be initialised") }
        var consumed = headerLeft > 0 ? try takeHeader(input, count: count, what: what) : 0
        var produced = 0
        if ended {
            // after the stream's end only its trailer belongs to it; the caller judges the rest
            let n = min(trailerLeft, count - consumed)
            trailerLeft -= n
            return (consumed + n, 0)
        }
        while true {
            // the libraries count in 32 bits: feed huge buffers in slices
            let inChunk = min(count - consumed, Int(UInt32.max))
            let outChunk = min(capacity - produced, Int(UInt32.max))
            let token = probe?.enter(.zlib)
            let r = inflater.inflate(input + consumed, count: UInt32(inChunk), into: output + produced,
                                     capacity: UInt32(outChunk))
            if let token { probe?.leave(.zlib, token) }
            consumed += r.consumed; produced += r.produced
            switch r.status {
            case .progress:
                // done, or no progress possible: the caller judges what was produced and any
                // input left over
                if consumed == count || produced == capacity || (r.consumed == 0 && r.produced == 0) {
                    return (consumed, produced)
                }
            case .end(let pastEnd):
                // the server finished its stream: skip the Adler-32 trailer raw mode leaves behind
                // (what a library read ahead of it is its start); the caller judges what was
                // produced and anything after it
                ended = true
                trailerLeft = 4 - min(4, pastEnd)
                let n = min(trailerLeft, count - consumed)
                trailerLeft -= n; consumed += n
                return (consumed, produced)
            case .corrupt(let why):
                throw ProtocolError("\(what()): corrupt zlib data (\(why))")
            case .failed(let why):
                throw ProtocolError("\(what()): \(why)")
            }
        }
    }

    /// Inflates all `count` input bytes to exactly `size` output bytes (Zlib, Tight: the size is
    /// known from the rect). Less output, output left pending, or input left over is an error.
    /// `scratch` grows only as output appears (doubling from 64 KiB), so a few bytes of zlib
    /// that claim a huge rect cost what they really inflate to, not what the header says.
    func inflateExactly(_ input: UnsafePointer<UInt8>, count: Int, into scratch: ScratchBuffer,
                        size: Int, what: @autoclosure () -> String) throws {
        var cap = min(size, max(scratch.capacity, ZStream.firstOutputChunk))
        scratch.reserve(cap)
        var consumed = 0, produced = 0
        while true {
            let r = try inflate(input + consumed, count: count - consumed, into: scratch.pointer + produced,
                                capacity: cap - produced, what: what())
            consumed += r.consumed; produced += r.produced
            if produced < cap || produced == size { break }
            // output buffer full and more expected: there may be more to come
            let next = min(size, cap * 2)
            scratch.reserve(next, keep: produced, limit: size)
            cap = next
        }
        if produced < size {
            throw ProtocolError("\(what()): zlib data ends after \(produced) of the \(size) bytes expected")
        }
        // Output is full: anything more the stream yields is past the expected size. Probe with a
        // one-byte buffer, which also lets zlib consume a trailing flush marker.
        var probe: UInt8 = 0
        var left = count - consumed
        var extra = 0
        repeat {
            let r = try withUnsafeMutablePointer(to: &probe) { p in
                try inflate(input + (count - left), count: left, into: p, capacity: 1, what: what())
            }
            left -= r.consumed; extra += r.produced
            if extra > 0 {
                throw ProtocolError("\(what()): zlib data inflates past the \(size) bytes expected")
            }
            if r.consumed == 0 { break }
        } while left > 0
        if left > 0 {
            throw ProtocolError("\(what()): \(left) bytes of zlib data left after the end of the stream")
        }
    }

    /// The output room a stream gets before it has shown it needs more.
    static let firstOutputChunk = 64 * 1024
}

/// A byte buffer owned by a decoder and reused across rects; grows, never shrinks.
final class ScratchBuffer {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int

    init(capacity: Int = 0) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }
    deinit { pointer.deallocate() }

    /// Makes room for `n` bytes (doubling, but never past `limit`), keeping the first `keep` bytes.
    /// Callers check `n` and `limit` against a named limit first.
    func reserve(_ n: Int, keep: Int = 0, limit: Int = Int.max) {
        if n <= capacity { return }
        let newCap = max(n, min(capacity * 2, limit))
        let np = UnsafeMutablePointer<UInt8>.allocate(capacity: newCap)
        if keep > 0 { np.update(from: pointer, count: min(keep, capacity)) }
        pointer.deallocate()
        pointer = np; capacity = newCap
    }
}
