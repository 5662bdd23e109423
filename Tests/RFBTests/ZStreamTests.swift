import XCTest
@_spi(Fuzzing) @testable import RFB

/// ZStream inflates raw deflate after checking the zlib header itself (no Adler-32 work), in
/// zlib or ISA-L: every test runs with each.
final class ZStreamTests: XCTestCase {
    /// Both engines: ISA-L is installed wherever the tests run (scripts/install-deps.sh).
    let engines = InflateEngine.allCases

    func inflate(_ z: ZStream, _ bytes: [UInt8], capacity: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: capacity)
        let r = try bytes.withUnsafeBufferPointer { b in
            try out.withUnsafeMutableBufferPointer { o in
                try z.inflate(b.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: b.count, into: o.baseAddress!, capacity: capacity, what: "test")
            }
        }
        XCTAssertEqual(r.consumed, bytes.count)
        return Array(out.prefix(r.produced))
    }

    func testHeaderSplitAcrossPayloadsAndStreamContinues() throws {
        for engine in engines { try headerSplitAcrossPayloadsAndStreamContinues(engine) }
    }

    func headerSplitAcrossPayloadsAndStreamContinues(_ engine: InflateEngine) throws {
        let d = Deflater()
        let a = d.compress(Array("hello ".utf8)), b = d.compress(Array("world".utf8))
        let z = ZStream(engine: engine)
        XCTAssertEqual(try inflate(z, [a[0]], capacity: 64), [])            // one header byte only
        XCTAssertEqual(try inflate(z, Array(a[1...]), capacity: 64), Array("hello ".utf8))
        XCTAssertEqual(try inflate(z, b, capacity: 64), Array("world".utf8))  // same stream, next rect
        z.reset()
        let c = Deflater().compress(Array("again".utf8))
        XCTAssertEqual(try inflate(z, c, capacity: 64), Array("again".utf8))
    }

    func testBadHeaderAndPresetDictionary() {
        for e in engines {
            XCTAssertThrowsError(try inflate(ZStream(engine: e), [0x78, 0x00, 0x01], capacity: 8)) { XCTAssertTrue("\($0)".contains("bad zlib header")) }
            XCTAssertThrowsError(try inflate(ZStream(engine: e), [0x18, 0x00], capacity: 8)) { XCTAssertTrue("\($0)".contains("bad zlib header")) }
            // FDICT set (0x78 0xBB passes the check bits)
            XCTAssertThrowsError(try inflate(ZStream(engine: e), [0x78, 0xbb, 0, 0, 0, 0], capacity: 8)) { XCTAssertTrue("\($0)".contains("preset dictionary")) }
        }
    }

    /// The output buffer follows what the stream really inflates to, not the size the rect
    /// claims: a short stream claiming 256 MiB fails having reserved 64 KiB.
    func testOutputGrowsWithWhatInflatesNotWithTheClaim() throws {
        for engine in engines { try outputGrowsWithWhatInflatesNotWithTheClaim(engine) }
    }

    func outputGrowsWithWhatInflatesNotWithTheClaim(_ engine: InflateEngine) throws {
        let z = ZStream(engine: engine), scratch = ScratchBuffer()
        let small = Deflater().compress([UInt8](repeating: 7, count: 100))
        XCTAssertThrowsError(try small.withUnsafeBufferPointer { b in
            try z.inflateExactly(b.baseAddress!, count: b.count, into: scratch, size: 256 << 20, what: "test")
        }) { XCTAssertTrue("\($0)".contains("ends after 100 of the 268435456 bytes"), "\($0)") }
        XCTAssertLessThanOrEqual(scratch.capacity, ZStream.firstOutputChunk)

        // a real 3 MiB of output grows the buffer by doubling to exactly what is needed
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 / 4096) }
        let zb = ZStream(engine: engine), sb = ScratchBuffer()
        let packed = Deflater().compress(big)
        try packed.withUnsafeBufferPointer { b in
            try zb.inflateExactly(b.baseAddress!, count: b.count, into: sb, size: big.count, what: "test")
        }
        XCTAssertEqual(Array(UnsafeBufferPointer(start: sb.pointer, count: big.count)), big)
        XCTAssertEqual(sb.capacity, big.count, "never past the size")
    }

    /// What RFB streams do: many small flushed messages, each one's matches reaching into the
    /// ones before (up to 32 KiB back), each inflated into a buffer of its own that is then
    /// reused: ISA-L keeps its window itself, as zlib does.
    func testSmallMessagesReachBackIntoEarlierOnes() throws {
        let words = (0..<300).map { "word\($0 * 7919 % 1000) " }
        let messages: [[UInt8]] = (0..<400).map { i in Array(words[(i * 37) % 250..<((i * 37) % 250 + 40)].joined().utf8) }
        for engine in engines {
            let d = Deflater(), z = ZStream(engine: engine)
            var packed = 0, plain = 0
            for m in messages {
                let c = d.compress(m)
                packed += c.count; plain += m.count
                XCTAssertEqual(try inflate(z, c, capacity: m.count + 64), m, "\(engine)")
            }
            XCTAssertLessThan(packed * 4, plain, "the messages should be mostly matches into earlier ones")
        }
    }

    /// A finished stream: its output, the Adler-32 trailer skipped, nothing after it taken;
    /// ISA-L takes input 8 bytes at a time and hands back what was past the end.
    func testFinishedStreamStopsAfterItsTrailer() throws {
        let body = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let whole = Deflater().compress(body, finish: true)
        for engine in engines {
            let z = ZStream(engine: engine)
            let input = whole + [1, 2, 3, 4, 5, 6, 7, 8, 9]
            var out = [UInt8](repeating: 0, count: 8192)
            let r = try input.withUnsafeBufferPointer { b in
                try out.withUnsafeMutableBufferPointer { o in
                    try z.inflate(b.baseAddress!, count: b.count, into: o.baseAddress!, capacity: o.count, what: "test")
                }
            }
            XCTAssertEqual(r.produced, body.count, "\(engine)")
            XCTAssertEqual(Array(out.prefix(r.produced)), body, "\(engine)")
            XCTAssertEqual(r.consumed, whole.count, "\(engine): stops right after the trailer")

            // output in small pieces: the end is found in a call after the one that read the
            // last bytes (ISA-L reads 8 at a time: what it read past the end is the trailer's)
            let again = ZStream(engine: engine)
            var taken = 0, got: [UInt8] = []
            while true {
                let step = try input.withUnsafeBufferPointer { b in
                    try out.withUnsafeMutableBufferPointer { o in
                        try again.inflate(b.baseAddress! + taken, count: b.count - taken, into: o.baseAddress!, capacity: 1000, what: "test")
                    }
                }
                taken += step.consumed; got += out.prefix(step.produced)
                if step.consumed == 0 && step.produced == 0 { break }
            }
            XCTAssertEqual(got, body, "\(engine)")
            XCTAssertEqual(taken, whole.count, "\(engine): stops right after the trailer")
        }
    }

    /// Corrupt data is refused by both, and the stream stays refused until it is reset (ISA-L
    /// leaves its state undefined after an error; ours does not go on from it).
    func testCorruptDataAndReset() throws {
        // a dynamic block whose code lengths over-subscribe, and a reserved block type (3)
        let corrupt: [[UInt8]] = [[0x78, 0x9c, 0x05, 0xff, 0xff, 0xff, 0xff], [0x78, 0x9c, 0x07, 0x00]]
        for engine in engines {
            for bad in corrupt {
                let z = ZStream(engine: engine)
                XCTAssertThrowsError(try inflate(z, bad, capacity: 64), "\(engine)") {
                    XCTAssertTrue("\($0)".contains("corrupt zlib data"), "\(engine): \($0)")
                }
                let more = Deflater().compress([1, 2, 3])
                XCTAssertThrowsError(try inflate(z, Array(more.dropFirst(2)), capacity: 64), "\(engine): still refused")
                z.reset()
                XCTAssertEqual(try inflate(z, more, capacity: 64), [1, 2, 3], "\(engine): a fresh stream after reset")
            }
        }
    }

    /// FARCAST_INFLATE=zlib asks for zlib; otherwise ISA-L where it loads (here: x86_64, with
    /// libisal2 from scripts/install-deps.sh). The suite runs once with each (scripts/test.sh):
    /// the engine in use is the one asked for.
    func testEngineFollowsTheEnvironment() {
        XCTAssertNil(InflateEngine.loadISAL(), "libisal2 should load here (scripts/install-deps.sh)")
        XCTAssertEqual(InflateEngine.choose(asked: "zlib").engine, .zlib)
        XCTAssertEqual(InflateEngine.choose(asked: nil).engine, .isal)
        XCTAssertEqual(InflateEngine.choose(asked: "isal").engine, .isal)
        let asked = ProcessInfo.processInfo.environment["FARCAST_INFLATE"]
        XCTAssertEqual(InflateEngine.current, asked == "zlib" ? .zlib : .isal)
    }
}
