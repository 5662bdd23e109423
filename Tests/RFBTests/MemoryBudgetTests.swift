import XCTest
@testable import RFB

/// What a server can make the engine hold or do for a few bytes, each within its named budget:
/// resizes (made once per run, counted as work), cursors (counted as work), QEMU audio (refused
/// unasked, skipped once turned off), Extended Clipboard formats we do not use (never
/// inflated), worker copies of (Co)RRE rects (sized by area, all jobs within a byte budget),
/// and the input buffer (given back after one huge unit).
final class MemoryBudgetTests: XCTestCase {
    typealias EC = ExtendedClipboard

    func resized(_ ev: [EngineEvent]) -> [EngineEvent] { ev.filter { if case .resized = $0 { return true }; return false } }

    // MARK: resizes

    /// 400 DesktopSize rects in one update, then a pixel: one resize is made, to the last
    /// size, and the pixel lands in it; every rect still says so (events in stream order).
    func testARunOfResizesInOneUpdateMakesOnlyTheLast() throws {
        var rects: [[UInt8]] = []
        for i in 0..<400 { rects.append(S.rect(0, 0, 2048, i % 2 == 0 ? 2048 : 2047, Encoding.desktopSize)) }
        rects.append(S.rect(2047, 2046, 1, 1, Encoding.raw, px(0xabcdef)))
        let e = ClientEngine(settings: ClientSettings())
        let t0 = Date()
        try e.feed(S.hello(w: 8, h: 4) + S.update(rects))
        let took = Date().timeIntervalSince(t0)
        XCTAssertEqual(e.stats.resizes, 1, "resizes made")
        XCTAssertEqual(e.framebuffer?.width, 2048); XCTAssertEqual(e.framebuffer?.height, 2047)
        XCTAssertEqual(e.framebuffer?.pixels[2046 * 2048 + 2047], 0xabcdef)
        XCTAssertEqual(resized(e.takeEvents()).count, 400)
        XCTAssertLessThan(took, 2, "400 resize rects took \(took) s")
    }

    /// Back to back: 500 updates of one DesktopSize each, fed at once, make one resize; fed one
    /// update at a time, each is made before the engine returns (the front end then reads a
    /// framebuffer of the size the server last set), with the same events.
    func testResizesBackToBackMakeOnlyTheLast() throws {
        var updates: [[UInt8]] = []
        for i in 0..<500 { updates.append(S.update([S.rect(0, 0, 1000 + i, 700, Encoding.desktopSize)])) }
        let whole = ClientEngine(settings: ClientSettings())
        try whole.feed(S.hello(w: 8, h: 4) + updates.flatMap { $0 })
        XCTAssertEqual(whole.stats.resizes, 1)
        XCTAssertEqual(whole.framebuffer?.width, 1499)
        let apart = ClientEngine(settings: ClientSettings())
        try apart.feed(S.hello(w: 8, h: 4))
        var ev = apart.takeEvents()
        for u in updates.prefix(3) {
            try apart.feed(u)
            ev += apart.takeEvents()
            XCTAssertEqual(apart.framebuffer?.width, ev.compactMap { if case .resized(let w, _) = $0 { return w }; return nil }.last)
        }
        XCTAssertEqual(apart.stats.resizes, 3)
        XCTAssertEqual(resized(ev), resized(ClientEngine.eventsOf(S.hello(w: 8, h: 4) + updates.prefix(3).flatMap { $0 })))
    }

    /// A resize made is work: a stream of 12-byte resizes between pixels stops the parse on
    /// the work budget, so the session thread looks at its commands and at stop() between them.
    func testResizesCountAsWork() throws {
        var rects: [[UInt8]] = []
        for i in 0..<8 {
            rects.append(S.rect(0, 0, 2048, 2048 - i, Encoding.desktopSize))
            rects.append(S.rect(0, 0, 1, 1, Encoding.raw, px(1)))
        }
        let e = ClientEngine(settings: ClientSettings())
        e.workBudgetPixels = 1 << 20
        try e.feed(S.hello(w: 8, h: 4) + S.update(rects))
        XCTAssertTrue(e.hasDeferredWork, "the first resize (4 Mpixel) spent the budget")
        XCTAssertLessThan(e.stats.rects, 4)
        var resumes = 0
        while e.hasDeferredWork { try e.resume(); resumes += 1 }
        XCTAssertEqual(resumes, 8)   // each stop comes as the rect after a resize begins
        XCTAssertEqual(e.framebuffer?.height, 2041)
    }

    /// Update requests cover the size the server last set, made or not.
    func testRequestsCoverTheLastSizeSet() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello(w: 8, h: 4))
        _ = e.takeOutput()
        // the second update's header asks for the next one: 16x9 although nothing drew yet
        try e.feed(S.update([S.rect(0, 0, 16, 9, Encoding.desktopSize)]) + [0, 0] + be16(1))
        XCTAssertEqual(Array(e.takeOutput().suffix(10)), [3, 1, 0, 0, 0, 0, 0, 16, 0, 9])
    }

    // MARK: cursors

    /// Each cursor image is work: 10 XCursors of 128x128 (2 KiB each on the wire, 64 KiB each
    /// decoded) are not all decoded in one parse call under a 64-Kpixel budget.
    func testCursorsCountAsWork() throws {
        let row = 16, body = [255, 0, 0, 0, 0, 255] + [UInt8](repeating: 0xaa, count: row * 128) + [UInt8](repeating: 0xff, count: row * 128)
        let e = ClientEngine(settings: ClientSettings())
        e.workBudgetPixels = 1 << 16
        try e.feed(S.hello(w: 8, h: 4) + S.update((0..<10).map { _ in S.rect(0, 0, 128, 128, Encoding.xCursor, body) }))
        let first = e.takeEvents().filter { if case .cursor = $0 { return true }; return false }.count
        XCTAssertTrue(e.hasDeferredWork)
        XCTAssertEqual(first, 4)
        while e.hasDeferredWork { try e.resume() }
        XCTAssertEqual(e.takeEvents().filter { if case .cursor = $0 { return true }; return false }.count, 6)
    }

    // MARK: QEMU audio

    /// QEMU sends sound only once asked: from a server never asked it ends the connection,
    /// saying why.
    func testAudioNeverAskedForIsRefused() {
        var s = ClientSettings()
        s.wantAudio = true   // offered (as the window does), never turned on
        let e = ClientEngine(settings: s)
        XCTAssertThrowsError(try e.feed(S.hello() + [255, 1, 0, 2] + be32(4) + [1, 2, 3, 4])) {
            XCTAssertTrue("\($0)".contains("never asked for sound"), "\($0)")
        }
        XCTAssertEqual(e.phase, .failed)
    }

    /// Turned off: what the server had already sent is skipped as it arrives (nothing buffered
    /// whole, no event), and what follows parses as usual.
    func testAudioAfterTurningItOffIsSkipped() throws {
        let chunk = [UInt8](repeating: 7, count: 100_000)
        let audio: [UInt8] = [255, 1, 0, 2] + be32(chunk.count) + chunk + [255, 1, 0, 0]
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings())
            try e.feed(S.hello())
            e.setAudio(enabled: true)
            e.setAudio(enabled: false)
            _ = e.takeEvents()
            if drip {
                for i in stride(from: 0, to: audio.count, by: 4096) { try e.feed(Array(audio[i..<min(audio.count, i + 4096)])) }
            } else {
                try e.feed(audio)
            }
            try e.feed([2])
            XCTAssertEqual(e.takeEvents(), [.bell], drip ? "drip-fed" : "whole")
        }
    }

    // MARK: Extended Clipboard

    /// Only text is used: a Provide's other formats are never inflated. One whose data is
    /// missing, or far over the cap, no longer costs the text (or the connection).
    func testProvideInflatesOnlyText() throws {
        let caps = EC.serverMessage(.caps(formats: [.text, .html, .dib], actions: [.request, .peek, .notify, .provide],
                                          sizes: [1 << 20, 1 << 20, 1 << 20]))
        func deliver(_ payload: [UInt8]) throws -> [EngineEvent] {
            let e = ClientEngine(settings: ClientSettings())
            try e.feed(S.hello() + caps)
            _ = e.takeEvents()
            try e.feed([3, 0, 0, 0] + be32(Int(UInt32(bitPattern: -Int32(payload.count)))) + payload)
            return e.takeEvents()
        }
        let text = EC.wireText("hello")
        // text and html announced, the zlib data stops after the text
        let truncated = be32(0x1000_0005) + EC.deflate(be32(text.count) + text)
        XCTAssertEqual(try deliver(truncated), [.cutText("hello")])
        // an image of 64 MiB claimed after the text, far over the 10 MiB cap
        let huge = be32(0x1000_0009) + EC.deflate(be32(text.count) + text + be32(64 << 20) + [1, 2, 3])
        XCTAssertEqual(try deliver(huge), [.cutText("hello")])
        // parsed for text alone, the other formats are not in the message
        let both = EC.payload(.provide([.init(format: .text, data: text), .init(format: .html, data: [UInt8](repeating: 1, count: 5000))]))
        XCTAssertEqual(try EC.parse(both, wanted: .text), .provide([.init(format: .text, data: text)]))
        // a format before the one wanted is read through, not kept
        XCTAssertEqual(try EC.parse(both, wanted: .html), .provide([.init(format: .html, data: [UInt8](repeating: 1, count: 5000))]))
    }

    // MARK: worker jobs

    func threaded(_ threads: Int = 2) -> ClientEngine {
        var s = ClientSettings()
        s.decodeThreads = threads
        let e = ClientEngine(settings: s)
        e.jobs?.offloadEverything()
        return e
    }

    /// An RRE rect of `n` subrects of 1x1 over a `w`x`h` rect at (x, 0).
    func rre(_ x: Int, _ w: Int, _ h: Int, subrects n: Int, compact: Bool = false) -> [UInt8] {
        var b = be32(n) + px(0x101010)
        b.reserveCapacity(b.count + n * 12)
        for i in 0..<n {
            b += px(UInt32(i) &* 0x010307 & 0xffffff)
            b += compact ? [UInt8(i % w), UInt8(i / w % h), 1, 1] : be16(i % w) + be16(i / w % h) + be16(1) + be16(1)
        }
        return S.rect(x, 0, w, h, compact ? Encoding.coRRE : Encoding.rre, b)
    }

    /// A (Co)RRE rect with more subrects than pixels is not copied for a worker (its copy would
    /// be sized by the count): it streams on the session thread, with the same pixels; one with
    /// a subrect a pixel still goes to a worker.
    func testRREJobsAreSizedByAreaNotSubrectCount() throws {
        for compact in [false, true] {
            let over = S.hello(w: 64, h: 16) + S.update([rre(0, 16, 16, subrects: 4000, compact: compact)])
            let e = threaded(), seq = ClientEngine(settings: ClientSettings())
            try e.feed(over); try seq.feed(over)
            XCTAssertEqual(e.rectsOnWorkers, 0, compact ? "CoRRE" : "RRE")
            XCTAssertEqual(e.framebuffer?.snapshotPixels(), seq.framebuffer?.snapshotPixels())
            let within = S.hello(w: 64, h: 16) + S.update([rre(0, 16, 16, subrects: 256, compact: compact)])
            let f = threaded()
            try f.feed(within)
            try f.checkWorkers(wait: true)
            XCTAssertEqual(f.rectsOnWorkers, 1)
        }
    }

    /// Jobs in flight hold at most the manager's byte budget: rects past it decode on the
    /// session thread, with the same pixels.
    func testJobsInFlightStayWithinTheByteBudget() throws {
        let e = threaded(5)   // 4 workers: 8 jobs could be in flight
        let budget = 100_000
        e.jobs?.budgetBytes = budget
        // 8 rects of 96x96, 6,000 subrects each (72 KB): two would pass the budget
        let bytes = S.hello(w: 768, h: 96) + S.update((0..<8).map { rre($0 * 96, 96, 96, subrects: 6000) })
        try e.feed(bytes)
        try e.checkWorkers(wait: true)
        let o = try XCTUnwrap(e.jobs)
        XCTAssertGreaterThan(e.rectsOnWorkers, 0)
        XCTAssertLessThanOrEqual(o.peakBytes, budget)
        let seq = ClientEngine(settings: ClientSettings())
        try seq.feed(bytes)
        XCTAssertEqual(e.framebuffer?.snapshotPixels(), seq.framebuffer?.snapshotPixels())
    }

    // MARK: input buffer

    /// One huge unit grows the buffer; once parsed, the memory goes back (to the kept size);
    /// units up to the kept size never reallocate it.
    func testInputBufferGivesBackAHugeUnit() {
        let b = InputBuffer()
        let chunk = [UInt8](repeating: 1, count: 1 << 20)
        for _ in 0..<40 { chunk.withUnsafeBytes { b.append($0.baseAddress!, $0.count) } }
        XCTAssertGreaterThanOrEqual(b.capacity, 40 << 20)
        b.consume(39 << 20)          // the huge unit parsed, the start of the next one left
        XCTAssertEqual(b.capacity, InputBuffer.keptCapacity)
        XCTAssertEqual(b.count, 1 << 20)
        XCTAssertEqual(b.storage[b.start], 1)
        b.consume(b.count)
        // steady units of 6 MiB: the same storage throughout
        let storage = b.storage
        for _ in 0..<5 {
            for _ in 0..<6 { chunk.withUnsafeBytes { b.append($0.baseAddress!, $0.count) } }
            b.consume(b.count)
        }
        XCTAssertEqual(b.storage, storage)
        XCTAssertEqual(b.capacity, InputBuffer.keptCapacity)
    }

    /// A big unit still arriving keeps its buffer (only what is parsed is given back).
    func testInputBufferKeepsAUnitStillArriving() {
        let b = InputBuffer()
        let chunk = [UInt8](repeating: 2, count: 1 << 20)
        for _ in 0..<20 { chunk.withUnsafeBytes { b.append($0.baseAddress!, $0.count) } }
        let cap = b.capacity
        b.consume(1 << 20)
        XCTAssertEqual(b.capacity, cap)
        XCTAssertEqual(b.count, 19 << 20)
    }
}

extension ClientEngine {
    /// The events of `bytes` fed whole to a fresh engine (tests).
    static func eventsOf(_ bytes: [UInt8]) -> [EngineEvent] {
        let e = ClientEngine(settings: ClientSettings())
        try? e.feed(bytes)
        return e.takeEvents()
    }
}
