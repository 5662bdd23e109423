import FarcastTools
import CTurboJPEG
import Synchronization
import XCTest
@testable import RFB

/// Rects on worker threads (DecodeManager: Tight, ZRLE, Hextile) must leave exactly the
/// framebuffer the sequential path leaves, at every point between messages, and fail with the
/// same message.
final class ParallelDecodeTests: XCTestCase {
    typealias Rng = RobustnessTests.Rng

    /// `everything`: every rect a worker can take goes to one, however small, an update's last
    /// too (the corpus runs use both this and the viewer's rules).
    func engine(threads: Int, everything: Bool = false, workers: DecodeWorkers? = nil) -> ClientEngine {
        var s = ClientSettings()
        s.password = Array("recorded".utf8)
        s.decodeThreads = threads
        let e = ClientEngine(settings: s, workers: workers)
        if everything { e.jobs?.offloadEverything() }
        return e
    }

    func betweenMessages(_ e: ClientEngine) -> Bool {
        if e.reader.atMessageBoundary { return true }
        return false
    }

    /// Both engines fed the same random chunks; wherever both stand between messages their
    /// framebuffers are byte for byte the same. Returns how many points were compared.
    @discardableResult
    func compare(_ stream: [UInt8], threads: Int, seed: UInt64, file: String, everything: Bool = true) throws -> Int {
        let a = engine(threads: 1), b = engine(threads: threads, everything: everything)
        var rng = Rng(s: seed)
        var off = 0, points = 0
        try stream.withUnsafeBytes { buf in
            guard let base = buf.baseAddress else { return }
            while off < stream.count {
                let n = min(stream.count - off, 1 + rng.int(rng.int(4) == 0 ? 64 : 70000))
                try a.feed(base + off, count: n)
                try b.feed(base + off, count: n)
                off += n
                _ = a.takeOutput(); _ = b.takeOutput()
                let ea = a.takeEvents(), eb = b.takeEvents()
                XCTAssertEqual(ea.count, eb.count, "\(file): events at byte \(off)")
                guard betweenMessages(a), betweenMessages(b), let fa = a.framebuffer, let fb = b.framebuffer else { continue }
                XCTAssertEqual(fa.width, fb.width); XCTAssertEqual(fa.height, fb.height)
                let same = memcmp(fa.pixels, fb.pixels, fa.width * fa.height * 4) == 0
                XCTAssertTrue(same, "\(file): framebuffers differ at byte \(off) with \(threads) threads")
                if !same { return }
                points += 1
            }
        }
        XCTAssertEqual(a.stats.updates, b.stats.updates, file)
        XCTAssertEqual(a.stats.pixels, b.stats.pixels, file)
        // every encoding with workers used them (each decoder is given them when it is made)
        if everything, ["corre", "rre", "hextile", "tight", "zrle"].contains(where: { file.contains("-\($0)-") }) {
            XCTAssertGreaterThan(b.rectsOnWorkers, 0, "\(file): no rect went to the workers")
        }
        return points
    }

    /// Under a sanitizer (scripts/sanitize.sh sets FARCAST_SANITIZER) the decode runs 5-15 times
    /// slower and this test alone took 385 s of ThreadSanitizer's 513 s: there it decodes, for
    /// each encoding that uses the workers, its smallest recording with every rect handed over
    /// (the hand-over, the barriers and the pools are all met in any of them); the plain run
    /// keeps the whole corpus both ways. (A prefix of each will not do: the engines are compared
    /// where both stand between messages with nothing in flight, which a cut stream never
    /// reaches.)
    static let sanitized = ProcessInfo.processInfo.environment["FARCAST_SANITIZER"] != nil

    func testEveryRecordingDecodesTheSameOnWorkers() throws {
        let dir = RobustnessTests.corpus
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path).filter({ $0.hasSuffix(".fbs") }).sorted(),
              !names.isEmpty else { throw XCTSkip("no corpus at \(dir.path)") }
        let onWorkers = ["corre", "rre", "hextile", "tight", "zrle"]
        func size(_ n: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(n).path)[.size] as? Int) ?? 0 }
        let smallest = Set(onWorkers.compactMap { enc in names.filter { $0.contains("-\(enc)-") }.min { size($0) < size($1) } })
        for name in names where !Self.sanitized || smallest.contains(name) {
            guard let d = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) else { continue }
            let rec = try RecordedStream(fbs: [UInt8](d))
            let stream = rec.stream
            for everything in Self.sanitized ? [true] : [true, false] {
                let points = try compare(stream, threads: 2, seed: 7, file: name, everything: everything)
                XCTAssertGreaterThan(points, 0, name)
            }
        }
    }

    func testTheLossyRecordingsOnFourWorkers() throws {
        for name in ["xvnc-tight-q8-desktop-1080p.fbs", "xvnc-tight-q8-text-1080p.fbs"] {
            guard let d = FileManager.default.contents(atPath: RobustnessTests.corpus.appendingPathComponent(name).path) else {
                throw XCTSkip("no \(name)")
            }
            try compare(try RecordedStream(fbs: [UInt8](d)).stream, threads: 4, seed: 11, file: name)
        }
    }

    // MARK: hand-made updates

    func picture(_ w: Int, _ h: Int, _ k: UInt32) -> [UInt32] {
        (0..<(w * h)).map { i in UInt32(truncatingIfNeeded: (i % w) * 0x0301 &+ (i / w) * 0x020100 &+ Int(k) * 0x10305) & 0xffffff }
    }

    func jpegRect(_ x: Int, _ y: Int, _ w: Int, _ h: Int, k: UInt32) -> [UInt8] {
        let j = makeJPEG(picture(w, h, k), w: w, h: h).jpeg
        return S.rect(x, y, w, h, Encoding.tight, [0x90] + TightWire.compact(j.count) + j)
    }

    func fill(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ c: UInt32) -> [UInt8] {
        S.rect(x, y, w, h, Encoding.tight, [0x80] + TightWire.rgb(c))
    }

    /// JPEG rects, then a fill over one of them, a CopyRect out of another, a JPEG over a
    /// JPEG still pending, a cursor between: each ordering barrier once, whole and drip-fed.
    func testOverlapsCopiesAndPseudoRectsKeepTheirOrder() throws {
        let w = 64, h = 48
        var bytes = S.hello(w: w, h: h)
        bytes += S.update([
            jpegRect(0, 0, 32, 24, k: 1), jpegRect(32, 0, 32, 24, k: 2), jpegRect(0, 24, 32, 24, k: 3),
            fill(8, 8, 8, 8, 0x123456),                              // over the first, still pending
            jpegRect(32, 24, 32, 24, k: 4), jpegRect(40, 28, 16, 16, k: 5),   // a JPEG over a pending JPEG
            S.rect(0, 40, 16, 8, Encoding.copyRect, be16(36) + be16(4)),      // out of the second
            S.rect(0, 0, 0, 0, Encoding.cursor),                     // an empty cursor: a pseudo-rect
            jpegRect(16, 16, 32, 16, k: 6),
        ])
        bytes += S.update([jpegRect(0, 0, 64, 48, k: 7), fill(60, 44, 4, 4, 0xabcdef)], count: 0xffff)
            + S.rect(0, 0, 0, 0, Encoding.lastRect)
        // basic rects on streams 0 and 1, the second stream reset in the middle (a new deflater)
        let z0 = Deflater(), z1 = Deflater(), z1b = Deflater()
        func basic(_ x: Int, _ y: Int, k: UInt32, stream: Int, _ z: Deflater, reset: UInt8 = 0) -> [UInt8] {
            let raw = picture(32, 24, k).flatMap(TightWire.rgb)
            return S.rect(x, y, 32, 24, Encoding.tight, [UInt8(stream << 4) | reset] + TightWire.data(raw, z))
        }
        bytes += S.update([basic(0, 0, k: 8, stream: 0, z0), basic(32, 0, k: 9, stream: 1, z1),
                           basic(0, 24, k: 10, stream: 0, z0), basic(32, 24, k: 11, stream: 1, z1b, reset: 0x02),
                           fill(4, 4, 8, 8, 0x654321), basic(0, 0, k: 12, stream: 0, z0)])
        for seed: UInt64 in [1, 2, 3] { try compare(bytes, threads: 2, seed: seed, file: "hand-made") }
        let a = engine(threads: 1), b = engine(threads: 3, everything: true)
        for byte in bytes { try a.feed([byte]); try b.feed([byte]) }
        XCTAssertEqual(a.framebuffer?.snapshotPixels(), b.framebuffer?.snapshotPixels())
    }

    /// A broken JPEG among good ones fails the connection with the sequential path's message.
    func testABrokenJPEGFailsAsItWouldInOrder() throws {
        var bad = makeJPEG(picture(32, 16, 9), w: 32, h: 16).jpeg
        for i in (bad.count / 2)..<(bad.count - 2) { bad[i] = 0xff }   // markers where data should be
        let badRect = S.rect(0, 16, 32, 16, Encoding.tight, [0x90] + TightWire.compact(bad.count) + bad)
        let bytes = S.hello(w: 64, h: 32) + S.update([jpegRect(0, 0, 32, 16, k: 1), badRect, jpegRect(32, 0, 32, 32, k: 2)])
        func failure(_ threads: Int) -> String? {
            let e = engine(threads: threads, everything: true)
            do { try e.feed(bytes) } catch { return "\(error)" }
            return nil
        }
        let one = failure(1), two = failure(2)
        XCTAssertEqual(one, two)
        if one == nil { throw XCTSkip("TurboJPEG took the damaged JPEG as a warning: nothing to compare") }
    }

    /// Many huge JPEG rects: work in flight stays within the manager's job cap, and so its bytes;
    /// a rect finding no room is the caller's to decode.
    func testWorkInFlightIsBounded() throws {
        let o = DecodeManager(workers: DecodeWorkers(count: 2))
        let work = TightDecoder.JPEGWork(handles: ScratchPool(make: { tjInitDecompress() }, destroy: { tjDestroy($0) }))
        o.offloadEverything()
        // 40 rects side by side: the engine never lets rects in flight overlap
        let fb = Framebuffer(width: 1280, height: 512)
        let j = makeJPEG(picture(128, 128, 3), w: 128, h: 128).jpeg
        var handed = 0
        for i in 0..<40 {
            let rect = Rect(x: i % 10 * 128, y: i / 10 * 128, w: 128, h: 128)
            fb.lock.withWriterLock {
                guard o.wants(rect.area, bytes: j.count) else { return }
                let job = o.makeJob(rect: rect, fb: fb, work: work)
                job.buffer.reserve(j.count)
                j.withUnsafeBufferPointer { job.buffer.pointer.update(from: $0.baseAddress!, count: j.count) }
                job.length = j.count
                o.start(job)
                handed += 1
            }
            XCTAssertLessThanOrEqual(o.inFlight.jobs, o.capacity)
            XCTAssertLessThanOrEqual(o.inFlight.bytes, o.capacity * j.count)
        }
        try o.drain()
        XCTAssertEqual(o.inFlight.jobs, 0)
        XCTAssertGreaterThanOrEqual(handed, o.capacity)
        XCTAssertFalse(fb.takeDamage().isEmpty)
    }

    /// The front end reads (and takes damage) while workers write: under its side of the lock it
    /// never meets a worker (ThreadSanitizer checks this run), and the end result is the sequential one.
    func testFrontEndReadsWhileWorkersWrite() throws {
        var rects: [[UInt8]] = []
        for i in 0..<16 { rects.append(jpegRect(i % 4 * 64, i / 4 * 32, 64, 32, k: UInt32(i))) }
        let hello = S.hello(w: 256, h: 128), updates = S.update(rects) + S.update(rects.reversed())
        let a = engine(threads: 1, everything: false), b = engine(threads: 2, everything: true)
        try a.feed(hello + updates)
        try b.feed(hello)
        let fb = try XCTUnwrap(b.framebuffer)
        let stop = Atomic<Bool>(false), reads = Atomic<Int>(0)
        let reader = Thread {
            while !stop.load(ordering: .acquiring) {
                _ = fb.lock.withReaderLock { (fb.takeDamage(), fb.pixels[fb.width * fb.height - 1]) }
                reads.add(1, ordering: .relaxed)
            }
        }
        reader.start()
        // the reader is running before the rects come (a busy machine may start it late)
        while reads.load(ordering: .relaxed) == 0 { usleep(100) }
        for chunk in stride(from: 0, to: updates.count, by: 997) {
            try b.feed(Array(updates[chunk..<min(updates.count, chunk + 997)]))
        }
        stop.store(true, ordering: .releasing)
        while !reader.isFinished { usleep(1000) }
        XCTAssertGreaterThan(reads.load(ordering: .relaxed), 0)
        XCTAssertEqual(a.framebuffer?.snapshotPixels(), b.framebuffer?.snapshotPixels())
    }

    func threadCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }

    /// The decode threads alive now (their ids): counting all of the process's threads mixes in
    /// other tests' threads that end meanwhile.
    func decodeThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) == "farcast.decode\n" })
    }

    /// A rect handed to a worker that had gone to sleep is decoded with no barrier to wait for
    /// it: the worker is woken for it (DecodeWorker).
    func testAQueuedRectIsDecodedWhenTheInputRunsOut() throws {
        let hello = S.hello(w: 128, h: 64)
        let rect = jpegRect(0, 0, 64, 32, k: 3)
        let a = engine(threads: 1), b = engine(threads: 2, everything: true)
        try a.feed(hello + S.update([fill(0, 0, 128, 64, 0x123456)]) + S.update([rect]))
        // a first update starts the worker; it has gone to sleep when the second comes
        try b.feed(hello + S.update([jpegRect(0, 0, 64, 32, k: 9), fill(0, 0, 128, 64, 0x123456)]))
        usleep(200_000)
        let fb = try XCTUnwrap(b.framebuffer)
        _ = fb.lock.withReaderLock { fb.takeDamage() }
        // the update's header and its one rect, not its end: the rect waits on the worker
        try b.feed(Array(S.update([rect, jpegRect(64, 32, 64, 32, k: 4)]).prefix(4 + rect.count)))
        let deadline = Date().addingTimeInterval(10)
        var damaged: [Rect] = []
        while damaged.isEmpty && Date() < deadline {
            damaged = fb.lock.withReaderLock { fb.takeDamage() }
            if damaged.isEmpty { usleep(1000) }
        }
        XCTAssertEqual(damaged, [Rect(x: 0, y: 0, w: 64, h: 32)], "the queued rect was never decoded")
        XCTAssertEqual(a.framebuffer?.snapshotPixels(), fb.snapshotPixels())
    }

    /// In the viewer an update's last rect decodes on the session thread (its end would wait for
    /// it at once), also when LastRect ends the update; a large rect goes to a worker when the
    /// next rect begins, or when the input runs out after it. The pixels are those of one thread.
    func testTheLastRectOfAnUpdateStaysOnTheSessionThread() throws {
        let hello = S.hello(w: 256, h: 136)   // a row below the two rects for a small one
        let a = jpegRect(0, 0, 128, 128, k: 1), b = jpegRect(128, 0, 128, 128, k: 2)
        let cases: [(String, [UInt8], Int)] = [
            ("one rect", S.update([a]), 0),
            ("two rects", S.update([a, b]), 1),
            ("a small rect after", S.update([a, b, fill(0, 128, 8, 8, 0x102030)]), 2),
            ("ended by LastRect", S.update([a, b], count: 0xffff) + S.rect(0, 0, 0, 0, Encoding.lastRect), 1),
            ("a small rect after, then LastRect",
             S.update([a, b, fill(0, 128, 8, 8, 0x102030)], count: 0xffff) + S.rect(0, 0, 0, 0, Encoding.lastRect), 2),
        ]
        for (what, update, handed) in cases {
            let one = engine(threads: 1), two = engine(threads: 2)
            try one.feed(hello + update)
            try two.feed(hello + update)
            XCTAssertEqual(two.rectsOnWorkers, handed, what)
            XCTAssertEqual(two.framebuffer?.snapshotPixels(), one.framebuffer?.snapshotPixels(), what)
        }
        // the input ends after a rect of an update still open: a worker decodes it meanwhile
        let two = engine(threads: 2)
        let open = S.update([a, b], count: 0xffff)
        try two.feed(hello + open)
        XCTAssertEqual(two.rectsOnWorkers, 2)
        let one = engine(threads: 1)
        try one.feed(hello + open)
        let want = one.framebuffer?.snapshotPixels()
        let fb = try XCTUnwrap(two.framebuffer)
        // read as the front end reads: the worker may still be writing
        let shown = { fb.lock.withReaderLock { fb.snapshotPixels() } }
        let deadline = Date().addingTimeInterval(10)
        while shown() != want && Date() < deadline { usleep(1000) }
        XCTAssertEqual(shown(), want, "the rect left when the input ran out was never decoded")
        try two.feed(S.rect(0, 0, 0, 0, Encoding.lastRect))
        XCTAssertEqual(two.stats.updates, 1)
    }

    /// A ZRLE rect goes to a worker only when its tiles, once inflated, are worth it: a large
    /// rect of solid tiles paints on the session thread, one as large of raw tiles does not.
    func testZRLERectsOfSolidTilesStayOnTheSessionThread() throws {
        let z = Deflater()
        func zrle(_ y: Int, raw: Bool) -> [UInt8] {
            var tiles: [UInt8] = []
            for t in 0..<8 {
                if raw {
                    tiles += [0] + (0..<(64 * 64 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7 + t) }
                } else {
                    tiles += [1, UInt8(t * 30), 0x40, 0x80]
                }
            }
            let c = z.compress(tiles)
            return S.rect(0, y, 256, 128, Encoding.zrle, be32(c.count) + c)
        }
        try assertOnlyTheCostlyRectHandedOver(zrle(0, raw: false), zrle(128, raw: true), width: 256, height: 128)
    }

    /// A Tight rect goes to a worker only when its data is worth it: a large two-colour rect (a
    /// bit a pixel, text's usual form) paints on the session thread, a full-colour one does not.
    func testTightRectsOfTwoColoursStayOnTheSessionThread() throws {
        let z0 = Deflater(), z1 = Deflater()
        let w = 256, h = 128
        let bits = (0..<(w / 8 * h)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let mono = S.rect(0, 0, w, h, Encoding.tight,
                          [0x40, 1, 1] + TightWire.rgb(0x102030) + TightWire.rgb(0xe0d0c0) + TightWire.data(bits, z0))
        let full = S.rect(0, h, w, h, Encoding.tight, [0x10] + TightWire.data(picture(w, h, 5).flatMap(TightWire.rgb), z1))
        try assertOnlyTheCostlyRectHandedOver(mono, full, width: w, height: h)
    }

    /// `cheap` (a `width`x`height` rect at the top) and `costly` (one as large below it), then a
    /// small rect, in an update LastRect ends: with two threads only `costly` goes to a worker
    /// (the small one is last), and the pixels are one thread's.
    func assertOnlyTheCostlyRectHandedOver(_ cheap: [UInt8], _ costly: [UInt8], width w: Int, height h: Int,
                                           file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = S.hello(w: w, h: 2 * h + 8)
            + S.update([cheap, costly, fill(0, 2 * h, 8, 8, 0x102030)], count: 0xffff)
            + S.rect(0, 0, 0, 0, Encoding.lastRect)
        let one = engine(threads: 1), two = engine(threads: 2)
        try one.feed(bytes)
        try two.feed(bytes)
        XCTAssertEqual(two.rectsOnWorkers, 1, file: file, line: line)
        XCTAssertEqual(two.framebuffer?.snapshotPixels(), one.framebuffer?.snapshotPixels(), file: file, line: line)
    }

    /// Worker threads start with the first rect handed over and end with their engine, also one
    /// dropped with rects still queued: 40 engines leave no thread behind.
    func testWorkerThreadsEndWithTheirEngine() throws {
        let before = threadCount()
        let hello = S.hello(w: 128, h: 64)
        let update = S.update([jpegRect(0, 0, 64, 32, k: 1), jpegRect(64, 0, 64, 32, k: 2)])
        for i in 0..<40 {
            let e = engine(threads: 3, everything: true)
            // whole updates, or one cut inside its second rect (rects left in flight)
            try e.feed(hello + (i % 2 == 0 ? update : Array(update.prefix(update.count - 9))))
            XCTAssertGreaterThan(e.rectsOnWorkers, 0)
        }
        let deadline = Date().addingTimeInterval(10)
        while threadCount() > before + 1 && Date() < deadline { usleep(10_000) }
        XCTAssertLessThanOrEqual(threadCount(), before + 1, "worker threads outlived their engines")
    }

    /// Worker threads given to engines outlive them: 40 engines, whole updates or cut with rects
    /// in flight, run on the same (at most 2) threads, which end only with the last reference to them
    /// (a session's across its reconnections, the fuzz harness's for the process); the pixels
    /// are those of one thread.
    func testGivenWorkersOutliveTheirEngines() throws {
        let before = decodeThreads()
        let hello = S.hello(w: 128, h: 64)
        let update = S.update([jpegRect(0, 0, 64, 32, k: 1), jpegRect(64, 0, 64, 32, k: 2)])
        let one = engine(threads: 1)
        try one.feed(hello + update)
        var workers: DecodeWorkers? = DecodeWorkers(count: 2)
        for i in 0..<40 {
            let e = engine(threads: 3, everything: true, workers: workers)
            try e.feed(hello + (i % 2 == 0 ? update : Array(update.prefix(update.count - 9))))
            XCTAssertGreaterThan(e.rectsOnWorkers, 0)
            if i % 2 == 0 {
                try e.checkWorkers(wait: true)
                XCTAssertEqual(e.framebuffer?.snapshotPixels(), one.framebuffer?.snapshotPixels())
            }
            XCTAssertLessThanOrEqual(decodeThreads().subtracting(before).count, 2, "engine \(i) made threads of its own")
        }
        // (a thread starts with its first job: the first worker with room takes both rects)
        let ours = decodeThreads().subtracting(before)
        XCTAssertGreaterThan(ours.count, 0, "the given threads ended with an engine")
        workers = nil
        let deadline = Date().addingTimeInterval(10)
        while !decodeThreads().isDisjoint(with: ours) && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(decodeThreads().isDisjoint(with: ours), "the given threads outlived their last reference")
    }

    // MARK: ZRLE and Hextile

    /// Hextile bodies of random tiles: wherever the walk gives a size, the decoder consumes
    /// exactly that many bytes or rejects the rect; where it gives none, the decoder asks for
    /// more or rejects it. A worker never decodes a rect cut at the wrong byte.
    func testHextileWalkAgreesWithTheDecoder() throws {
        var rng = Rng(s: 99)
        let pf = PixelConverter(format: .native)
        var agreed = 0
        for round in 0..<3000 {
            let rect = Rect(x: 0, y: 0, w: 1 + rng.int(40), h: 1 + rng.int(40))
            var body: [UInt8] = []
            for _ in 0..<(((rect.w + 15) >> 4) * ((rect.h + 15) >> 4)) {
                let mask = UInt8(rng.int(round % 5 == 0 ? 256 : 32))
                body.append(mask)
                body += (0..<rng.int(mask & 1 != 0 ? 1100 : 40)).map { _ in UInt8(rng.int(round % 3 == 0 ? 256 : 16)) }
            }
            if rng.int(4) == 0 { body.removeLast(rng.int(body.count)) }
            let size = body.withUnsafeBufferPointer {
                HextileDecoder.bufferedSize(rect: rect, bytes: $0.baseAddress!, count: $0.count, bpp: 4)
            }
            let fb = Framebuffer(width: rect.w, height: rect.h)
            var consumed: Int?, rejected = false
            body.withUnsafeBufferPointer { b in
                var r = ByteReader(base: b.baseAddress!, count: b.count)
                do {
                    try HextileDecoder().decode(rect: rect, reader: &r, fb: fb, pf: pf, resume: false)
                    consumed = r.pos
                } catch is NeedMoreData {
                } catch { rejected = true }
            }
            if let consumed {
                XCTAssertEqual(size, consumed, "round \(round): the walk and the decoder disagree on \(rect)")
                agreed += 1
            } else if !rejected {
                XCTAssertNil(size, "round \(round): the walk sized a rect the decoder still needs bytes for")
            }
        }
        XCTAssertGreaterThan(agreed, 100)
    }

    /// A broken rect among good ones on workers (ZRLE: a palette index past its palette;
    /// Hextile: a subrect outside its tile) fails with the sequential path's message.
    func testBrokenZRLEAndHextileRectsFailAsTheyWouldInOrder() throws {
        let z = Deflater()
        func zrle(_ x: Int, _ tile: [UInt8]) -> [UInt8] {
            let c = z.compress(tile)
            return S.rect(x, 0, 8, 8, Encoding.zrle, be32(c.count) + c)
        }
        let solid: [UInt8] = [1, 0x10, 0x20, 0x30]
        let badRLE: [UInt8] = [130, 1, 2, 3, 4, 5, 6, 0x05]                                       // index 5 of 2
        let zBytes = S.hello(w: 64, h: 8) + S.update([zrle(0, solid), zrle(8, solid), zrle(16, badRLE), zrle(24, solid)])
        let hex = { (x: Int, tile: [UInt8]) in S.rect(x, 0, 16, 16, Encoding.hextile, tile) }
        let good: [UInt8] = [2, 1, 2, 3, 0]
        let bad: [UInt8] = [2 | 8, 1, 2, 3, 0, 1, 0xf0, 0xf0]   // a 16x16 subrect at 15,0
        let hBytes = S.hello(w: 64, h: 16) + S.update([hex(0, good), hex(16, bad), hex(32, good)])
        for bytes in [zBytes, hBytes] {
            func failure(_ threads: Int) -> String? {
                let e = engine(threads: threads, everything: true)
                do { try e.feed(bytes) } catch { return "\(error)" }
                return nil
            }
            let one = failure(1)
            XCTAssertNotNil(one)
            XCTAssertEqual(one, failure(2))
        }
    }
}
