#if canImport(Glibc)
import Glibc
#endif
import CTurboJPEG
import Dispatch
import Synchronization

/// Rects decoded on worker threads (docs/design/parallel-decoding.md).
///
/// The session thread keeps every zlib stream to itself: it parses, resets and inflates in
/// stream order as the sequential path does. What it hands over is the work after that: a Tight
/// JPEG rect's decompression; a Tight basic rect's painting (palette, gradient or copy filter)
/// and a ZRLE rect's tiles, from the bytes it inflated into the job's own buffer; a Hextile,
/// RRE or CoRRE rect already buffered whole, from a copy of its bytes. It hands a rect over
/// only while a worker has room; otherwise it decodes the rect itself, so the two sides share
/// the load with no waiting (on 2 cores: the session thread and one worker).
///
/// Workers write straight into the framebuffer, under the decoders' shared side of its lock,
/// and add the rect's damage after its pixels. The engine keeps rects in flight apart: a rect
/// overlapping one, a CopyRect touching one, a pseudo-encoding or any other message waits for
/// them (`drain`), and so does the end of each update: the front end, told an update ended,
/// finds it whole.
///
/// Threads: `pending` belongs to the session thread, which never waits for a job while it holds
/// the framebuffer lock. A job's `failure` is written by its worker before `finished` is set
/// (release) and `done` signalled, and read after either.
final class DecodeOffload: @unchecked Sendable {
    /// Jobs in flight at most, per worker: one running, one queued behind it.
    static let jobsPerWorker = 2
    /// A JPEG rect counts as this many times its pixels against `minPixels` (TurboJPEG costs
    /// about 10 ns a pixel here, painting a palette or tiles 2-3).
    static let jpegWeight = 4
    /// Job buffers kept for reuse are at most this large (a full-HD rect's inflated pixels).
    static let maxKeptBuffer = 8 << 20
    /// All job buffers kept for reuse together: what a burst of big rects leaves behind is
    /// given back rather than held for the connection's life.
    static let maxKeptBytes = 32 << 20
    /// Bytes the jobs in flight may hold (rect copies, inflated data), all workers together:
    /// several full-HD rects' worth. A rect that would pass it decodes on the session thread,
    /// which streams what it can (RRE, Hextile) instead of copying it.
    static let maxBytesInFlight = 64 << 20
    /// A rect buffered whole is copied for a worker only up to this many bytes a pixel: one
    /// RRE subrect (a 4-byte pixel and four u16) for each pixel of the rect. A server may send
    /// far more subrects than pixels (they only draw over each other); such a rect streams on
    /// the session thread, where its size costs nothing but the time to draw it.
    static let maxBufferedBytesPerPixel = 12

    enum Work: Sendable {
        case jpeg
        case basic(BasicPaint)
        case zrle(PixelConverter)
        /// A rect's bytes as sent, whole, for a fresh decoder of the encoding (Hextile, RRE, CoRRE).
        case buffered(Int32, PixelConverter)
    }

    /// A basic rect's painting: its inflated data is the job's buffer.
    struct BasicPaint: Sendable {
        let filter: Int
        /// The palette's TPIXELs as sent (empty without the palette filter).
        let colours: [UInt8]
        let count: Int
        let rowSize: Int
        let pf: PixelConverter
    }

    final class Job: @unchecked Sendable {
        /// Kept alive by its jobs: a worker runs a job through it.
        let owner: DecodeOffload
        /// The worker it was queued on (set by `start`).
        var worker: DecodeWorker?
        let rect: Rect
        let fb: Framebuffer
        let work: Work
        /// JPEG and buffered rects: the rect's bytes; basic and ZRLE: the inflated data.
        let buffer: ScratchBuffer
        var length = 0
        /// Set by the worker: the decoder's message when the rect could not be decoded.
        var failure: String?
        let finished = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)

        init(owner: DecodeOffload, rect: Rect, fb: Framebuffer, work: Work, buffer: ScratchBuffer) {
            self.owner = owner
            self.buffer = buffer
            self.rect = rect
            self.fb = fb
            self.work = work
        }
    }

    let workers: Int
    /// Rects smaller than this decode on the session thread: below it a job's hand-over (an
    /// allocation, a wake-up, a few µs) costs about what decoding saves (3-20 ns a pixel).
    /// Tests set 0 to send every rect they can to the workers.
    var minPixels = 16384
    /// `maxBytesInFlight`; tests set less.
    var budgetBytes = DecodeOffload.maxBytesInFlight
    private let pool: [DecodeWorker]
    /// TurboJPEG handles and painting decoders not in use, guarded by `idleLock`.
    private var idleJPEG: [UnsafeMutableRawPointer] = []
    private var idlePainters: [TightDecoder] = []
    fileprivate var idleZRLE: [ZRLEDecoder] = []
    fileprivate let idleLock = PthreadMutex()
    private var pending: [Job] = []
    /// Buffers of retired jobs (session thread only).
    private var freeBuffers: [ScratchBuffer] = []
    /// Their capacity together (at most `maxKeptBytes`).
    private var keptBytes = 0
    private var pendingBytes = 0
    private(set) var peakBytes = 0
    /// Set by a worker whose rect failed (the engine reports it without waiting for a barrier).
    let anyFailed = Atomic<Bool>(false)
    /// Called on the worker when its rect failed: the session thread is woken to report it.
    /// Set before the first job.
    var onFailure: (@Sendable () -> Void)?
    /// Rects handed to workers so far.
    private(set) var started = 0

    /// `workers` threads beside the session thread.
    init(workers: Int) {
        self.workers = max(1, workers)
        pool = (0..<self.workers).map { _ in DecodeWorker() }
    }

    deinit {
        // a queued or running job keeps the offload alive (`Job.owner`): none is left now
        for w in pool { w.stop() }
        for h in idleJPEG { tjDestroy(h) }
    }

    var hasPending: Bool { !pending.isEmpty }
    var capacity: Int { workers * DecodeOffload.jobsPerWorker }
    /// Jobs and bytes queued or decoding (tests check the caps).
    var inFlight: (jobs: Int, bytes: Int) { (pending.count, pendingBytes) }

    func overlapsPending(_ r: Rect) -> Bool {
        pending.contains { !$0.rect.intersection(r).isEmpty }
    }

    /// Whether a rect of `area` pixels whose job will hold up to `bytes` bytes goes to a worker:
    /// large enough, a worker has room, and so has the byte budget (finished jobs are retired
    /// first, without waiting).
    /// Called under the framebuffer lock, so it never waits: a failed job stays for `drain`.
    func wants(_ area: Int, bytes: Int) -> Bool {
        guard area >= minPixels, bytes <= budgetBytes else { return false }
        while let first = pending.first, first.finished.load(ordering: .acquiring), first.failure == nil {
            pending.removeFirst()
            pendingBytes -= first.length
            recycle(first.buffer)
        }
        return pending.count < capacity && pendingBytes + bytes <= budgetBytes
    }

    /// A job for `rect`; the caller fills its buffer (at most the bytes `wants` was told of),
    /// then `start`s it. Only after `wants`.
    func makeJob(rect: Rect, fb: Framebuffer, work: Work) -> Job {
        let b: ScratchBuffer
        if let kept = freeBuffers.popLast() { keptBytes -= kept.capacity; b = kept } else { b = ScratchBuffer(capacity: 64 * 1024) }
        return Job(owner: self, rect: rect, fb: fb, work: work, buffer: b)
    }

    /// A finished job's buffer serves the next one (no allocation, no regrowth while inflating),
    /// unless it grew past `maxKeptBuffer` or the kept ones would pass `maxKeptBytes`.
    private func recycle(_ b: ScratchBuffer) {
        guard b.capacity <= DecodeOffload.maxKeptBuffer, freeBuffers.count < capacity,
              keptBytes + b.capacity <= DecodeOffload.maxKeptBytes else { return }
        freeBuffers.append(b)
        keptBytes += b.capacity
    }

    func start(_ job: Job) {
        started += 1
        pending.append(job)
        pendingBytes += job.length
        peakBytes = max(peakBytes, pendingBytes)
        // the first worker with room (there is one: `wants` counted the jobs in flight)
        let w = pool.first { $0.load < DecodeOffload.jobsPerWorker } ?? pool[0]
        job.worker = w
        w.enqueue(job)
    }

    /// The engine is gone: jobs not started are dropped, running ones end on their own, and
    /// the offload, no longer held by its jobs, ends with them (and stops its threads).
    /// Session thread (the engine's deinit).
    func abandon() {
        for j in pending { _ = j.worker?.takeBack(j) }
        pending.removeAll()
        pendingBytes = 0
    }

    /// Decodes `job`, on its worker or, taken back, on the session thread.
    func execute(_ job: Job, onWorker: Bool) {
        switch job.work {
        case .jpeg: decompress(job)
        case .basic(let paint): self.paint(job, paint)
        case .zrle(let pf): tiles(job, pf)
        case .buffered(let enc, let pf): buffered(job, enc, pf)
        }
        job.finished.store(true, ordering: .releasing)
        job.done.signal()
        if job.failure != nil {
            anyFailed.store(true, ordering: .releasing)
            if onWorker { onFailure?() }
        }
    }

    /// Waits for every rect in flight; the first failure is thrown and the jobs after it are
    /// dropped. Never called under the framebuffer lock (workers take it).
    func drain() throws {
        while !pending.isEmpty { try retire(pending.removeFirst()) }
    }

    private func retire(_ job: Job) throws {
        pendingBytes -= job.length
        // not started yet: decoded here rather than waking its worker and waiting
        if job.worker?.takeBack(job) == true { execute(job, onWorker: false) }
        job.done.wait()
        recycle(job.buffer)
        if let why = job.failure {
            // the rest come after the failure: dropped if not started, else waited for, so
            // nothing runs once the engine fails
            for j in pending where j.worker?.takeBack(j) != true { j.done.wait() }
            pending.removeAll()
            pendingBytes = 0
            throw ProtocolError(why)
        }
    }

    /// On a worker: `draw` under the decoders' side of the framebuffer lock, for a rect inside
    /// the framebuffer, then its damage; a failure becomes the job's message.
    private func draw(_ job: Job, _ what: String, _ body: (Rect, Framebuffer) throws -> Void) {
        let r = job.rect, fb = job.fb
        do {
            try fb.lock.withWriterLock {
                guard fb.contains(r) else { throw ProtocolError("internal: \(what) \(r) outside the framebuffer") }
                try body(r, fb)
                fb.addDamage(r)
            }
        } catch is NeedMoreData {
            job.failure = "internal: \(what) \(r) measured \(job.length) bytes, too few to decode"
        } catch let e as ProtocolError {
            job.failure = e.message
        } catch {
            job.failure = "\(what) \(r): \(error)"
        }
    }

    /// On a worker: a Tight JPEG rect, straight into the framebuffer.
    private func decompress(_ job: Job) {
        guard let h = idleLock.locked({ idleJPEG.popLast() }) ?? tjInitDecompress() else {
            job.failure = "Tight rect \(job.rect): could not start the JPEG decompressor"
            return
        }
        defer { idleLock.locked { idleJPEG.append(h) } }
        draw(job, "Tight rect") { r, fb in
            // BGRX in memory is the framebuffer's 0x00RRGGBB layout
            let dst = UnsafeMutableRawPointer(fb.row(r.y) + r.x).assumingMemoryBound(to: UInt8.self)
            let rc = tjDecompress2(h, job.buffer.pointer, UInt(job.length), dst, Int32(r.w), Int32(fb.width * 4),
                                   Int32(r.h), Int32(TJPF_BGRX.rawValue), 0)
            // warnings (e.g. a truncated scan) still leave an image, as on the sequential path
            if rc != 0 && tjGetErrorCode(h) != Int32(TJERR_WARNING.rawValue) {
                let why = tjGetErrorStr2(h).map { String(cString: $0) } ?? "unknown error"
                throw ProtocolError("Tight rect \(r): JPEG decoding failed (\(why))")
            }
            // TurboJPEG fills the X byte with 0xff; the framebuffer's pixels keep it zero
            for y in r.y..<r.maxY {
                let p = fb.row(y) + r.x
                for i in 0..<r.w { p[i] &= 0x00ff_ffff }
            }
        }
    }

    /// On a worker: a basic rect drawn from its inflated data by a decoder of the worker's own
    /// (the palette table and gradient row are per decoder).
    private func paint(_ job: Job, _ p: BasicPaint) {
        let painter = idleLock.locked { idlePainters.popLast() } ?? TightDecoder(streams: [])
        defer { idleLock.locked { idlePainters.append(painter) } }
        let data = UnsafePointer(job.buffer.pointer)
        draw(job, "Tight rect") { r, fb in
            if p.filter == TightDecoder.filterPalette {
                try p.colours.withUnsafeBufferPointer { c in
                    guard let base = c.baseAddress else { throw ProtocolError("Tight rect \(r): empty palette") }
                    try painter.drawPalette(rect: r, fb: fb, pf: p.pf, colours: base, count: p.count, data: data,
                                            rowSize: p.rowSize)
                }
            } else if p.filter == TightDecoder.filterGradient {
                painter.drawGradient(rect: r, fb: fb, pf: p.pf, data: data)
            } else {
                painter.drawCopy(rect: r, fb: fb, pf: p.pf, data: data, rowSize: p.rowSize)
            }
        }
    }

    /// On a worker: a ZRLE rect's tiles from its inflated data, by a decoder of the worker's own
    /// (the tile palette is per decoder).
    fileprivate func tiles(_ job: Job, _ pf: PixelConverter) {
        let painter = idleLock.locked { idleZRLE.popLast() } ?? ZRLEDecoder(streamless: ())
        defer { idleLock.locked { idleZRLE.append(painter) } }
        draw(job, "ZRLE rect") { r, fb in
            try painter.decodeTiles(rect: r, data: job.buffer.pointer, count: job.length, fb: fb, pf: pf)
        }
    }

    /// On a worker: a whole rect, by a decoder made for it (Hextile's and RRE's state is per rect).
    fileprivate func buffered(_ job: Job, _ enc: Int32, _ pf: PixelConverter) {
        let decoder: RectDecoder = enc == Encoding.hextile ? HextileDecoder() : RREDecoder(compact: enc == Encoding.coRRE)
        draw(job, "rect") { r, fb in
            var reader = ByteReader(base: job.buffer.pointer, count: job.length)
            try decoder.decode(rect: r, reader: &reader, fb: fb, pf: pf, resume: false)
            guard reader.remaining == 0 else {
                throw ProtocolError("internal: rect \(r) measured \(job.length) bytes, decoded \(reader.pos)")
            }
        }
    }
}

extension DecodeOffload {
    /// Hands a rect buffered whole (`size` bytes at `reader`) to a worker and consumes it.
    func startBuffered(_ enc: Int32, rect: Rect, size: Int, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter) {
        let job = makeJob(rect: rect, fb: fb, work: .buffered(enc, pf))
        job.buffer.reserve(size)
        job.buffer.pointer.update(from: reader.current, count: size)
        job.length = size
        reader.pos += size
        start(job)
    }
}

// Read by workers while rects are in flight; changed only between updates, after a drain.
extension PixelConverter: @unchecked Sendable {}
