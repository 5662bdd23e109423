import Dispatch
import Synchronization

/// What a worker does with one rect (TigerVNC's DecodeManager queue entry, made by the decoder
/// rather than the manager): self-contained, so the manager runs it without knowing its
/// encoding. Its bytes are in the job's buffer (copied or inflated there, in stream order, by
/// the decoder on the session thread); its pixel format and any scratch it needs are its own or
/// come from a pool its decoder shares with it.
protocol RectWork: Sendable {
    /// How a failure names the rect, e.g. "Tight rect".
    var what: String { get }
    /// Draws `rect` from the job's `length` bytes at `data` into `fb`. On a worker thread (or the
    /// session thread, taken back at a barrier), under the decoders' side of the framebuffer
    /// lock, for a rect inside the framebuffer.
    func draw(_ rect: Rect, into fb: Framebuffer, from data: UnsafeMutablePointer<UInt8>, length: Int) throws
}

/// Schedules rects on worker threads (docs/design/parallel-decoding.md), TigerVNC's
/// DecodeManager without its decoders: a decoder hands over a self-contained job (`RectWork`),
/// the manager keeps jobs in flight within their caps, runs them on the `DecodeWorkers` it was
/// given, waits for them at barriers and reports the first failure in stream order. It knows
/// no encoding.
///
/// The session thread keeps every zlib stream to itself: it parses, resets and inflates in
/// stream order as the sequential path does, and hands over only the work after that. It hands a
/// rect over only while a worker has room; otherwise it decodes the rect itself, so the two
/// sides share the load with no waiting (on 2 cores: the session thread and one worker).
///
/// Workers write straight into the framebuffer, under the decoders' shared side of its lock,
/// and add the rect's damage after its pixels. The engine keeps rects in flight apart: a rect
/// overlapping one, a CopyRect touching one, a pseudo-encoding or any other message waits for
/// them (`drain`), and so does the end of each update: the front end, told an update ended,
/// finds it whole.
///
/// Threads: everything but `execute` belongs to the session thread, which never waits for a job
/// while it holds the framebuffer lock. A job's `failure` is written by its worker before
/// `finished` is set (release) and `done` signalled, and read after either.
final class DecodeManager: @unchecked Sendable {
    /// Jobs in flight at most, per worker: one running, one queued behind it.
    static let jobsPerWorker = 2
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

    final class Job: @unchecked Sendable {
        /// Kept alive by its jobs: a worker runs a job through it.
        let owner: DecodeManager
        /// The worker it was queued on (set by `start`).
        var worker: DecodeWorker?
        let rect: Rect
        let fb: Framebuffer
        let work: any RectWork
        /// The rect's bytes as the work reads them (copied or inflated by the decoder).
        let buffer: ScratchBuffer
        var length = 0
        /// Set by the worker: the work's message when the rect could not be decoded.
        var failure: String?
        let finished = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)

        init(owner: DecodeManager, rect: Rect, fb: Framebuffer, work: any RectWork, buffer: ScratchBuffer) {
            self.owner = owner
            self.buffer = buffer
            self.rect = rect
            self.fb = fb
            self.work = work
        }
    }

    /// The threads jobs run on: the engine's own, or ones given to it that outlive it.
    let workers: DecodeWorkers
    /// Rects smaller than this decode on the session thread: below it a job's hand-over (an
    /// allocation, a wake-up, a few µs) costs about what decoding saves (3-20 ns a pixel).
    var minPixels = 16384
    /// Whether the newest job waits before it is handed over (the viewer's way): it goes to a
    /// worker when the next rect of its update begins or the input runs out (`release`). If its
    /// update ends first, the end would wait for it at once, so the session thread decodes it
    /// itself (`drain`): an update's last rect never costs a wake-up and a wait (scheduling was
    /// 16 % of the window's CPU on the paced replay, docs/design/parallel-decoding.md §9), and
    /// it decodes beside the rects before it, which the worker finishes meanwhile. Tests and the
    /// fuzz targets turn it off (`offloadEverything`) to meet the worker threads more often.
    var holdsNewest = true
    /// The newest job, not handed over yet (also in `pending`).
    private var held: Job?
    /// A job whose cost shows only in its bytes (ZRLE's inflated tiles, Tight's basic rects) goes
    /// to a worker only if its decode is worth more than this (`worthHanding`): a large rect of
    /// solid tiles paints in a few µs, less than the hand-over costs (about 6 µs of CPU a rect
    /// measured on the paced 1440p replay, whose rects were all slower with a worker).
    var minWork = 64 * 1024
    /// `maxBytesInFlight`; tests set less.
    var budgetBytes = DecodeManager.maxBytesInFlight
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

    init(workers: DecodeWorkers) {
        self.workers = workers
    }

    /// Every rect a worker can take goes to one at once, however small, an update's last too
    /// (tests and the fuzz targets: the hand-over and the barriers met as often as they can be).
    func offloadEverything() {
        minPixels = 0
        minWork = 0
        holdsNewest = false
    }

    /// Whether a job of `bytes` bytes painting `area` pixels is worth a worker: decoding costs
    /// about a nanosecond a byte read and an eighth of one a pixel filled.
    func worthHanding(area: Int, bytes: Int) -> Bool { bytes + area / 8 >= minWork }

    /// A job made but found not worth a worker: its decoder draws it itself, from its buffer,
    /// and gives the buffer back for the next job.
    func giveBack(_ job: Job) { recycle(job.buffer) }

    var hasPending: Bool { !pending.isEmpty }
    var capacity: Int { workers.count * DecodeManager.jobsPerWorker }
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
    /// sets its length, then `start`s it. Only after `wants`.
    func makeJob(rect: Rect, fb: Framebuffer, work: any RectWork) -> Job {
        let b: ScratchBuffer
        if let kept = freeBuffers.popLast() { keptBytes -= kept.capacity; b = kept } else { b = ScratchBuffer(capacity: 64 * 1024) }
        return Job(owner: self, rect: rect, fb: fb, work: work, buffer: b)
    }

    /// Hands over a rect buffered whole (`size` bytes at `reader`) as a copy of its bytes, and
    /// consumes it. Only after `wants`.
    func startCopy(of size: Int, from reader: inout ByteReader, rect: Rect, fb: Framebuffer, work: any RectWork) {
        let job = makeJob(rect: rect, fb: fb, work: work)
        job.buffer.reserve(size)
        job.buffer.pointer.update(from: reader.current, count: size)
        job.length = size
        reader.pos += size
        start(job)
    }

    /// A finished job's buffer serves the next one (no allocation, no regrowth while inflating),
    /// unless it grew past `maxKeptBuffer` or the kept ones would pass `maxKeptBytes`.
    private func recycle(_ b: ScratchBuffer) {
        guard b.capacity <= DecodeManager.maxKeptBuffer, freeBuffers.count < capacity,
              keptBytes + b.capacity <= DecodeManager.maxKeptBytes else { return }
        freeBuffers.append(b)
        keptBytes += b.capacity
    }

    func start(_ job: Job) {
        pending.append(job)
        pendingBytes += job.length
        peakBytes = max(peakBytes, pendingBytes)
        if holdsNewest {
            release()
            held = job
        } else {
            hand(job)
        }
    }

    /// The held job goes to a worker: more of its update follows, or the input ran out.
    func release() {
        guard let job = held else { return }
        held = nil
        hand(job)
    }

    private func hand(_ job: Job) {
        started += 1
        job.worker = workers.enqueue(job)
    }

    /// The engine is gone: jobs not started are dropped, running ones end on their own, and
    /// the manager, no longer held by its jobs, ends with them. Session thread (the engine's
    /// deinit).
    func abandon() {
        for j in pending { _ = j.worker?.takeBack(j) }
        held = nil
        pending.removeAll()
        pendingBytes = 0
    }

    /// Runs `job`, on its worker or, taken back, on the session thread: its work under the
    /// decoders' side of the framebuffer lock, for a rect inside the framebuffer, then its
    /// damage; a failure becomes the job's message.
    func execute(_ job: Job, onWorker: Bool) {
        let r = job.rect, fb = job.fb, work = job.work
        do {
            try fb.lock.withWriterLock {
                guard fb.contains(r) else { throw ProtocolError("internal: \(work.what) \(r) outside the framebuffer") }
                try work.draw(r, into: fb, from: job.buffer.pointer, length: job.length)
                fb.addDamage(r)
            }
        } catch is NeedMoreData {
            job.failure = "internal: \(work.what) \(r) measured \(job.length) bytes, too few to decode"
        } catch let e as ProtocolError {
            job.failure = e.message
        } catch {
            job.failure = "\(work.what) \(r): \(error)"
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
        // held, or not started yet: decoded here rather than waking its worker and waiting
        if job === held {
            held = nil
            execute(job, onWorker: false)
        } else if job.worker?.takeBack(job) == true {
            execute(job, onWorker: false)
        }
        job.done.wait()
        recycle(job.buffer)
        if let why = job.failure {
            // the rest come after the failure: dropped if held or not started, else waited
            // for, so nothing runs once the engine fails
            for j in pending where j !== held && j.worker?.takeBack(j) != true { j.done.wait() }
            held = nil
            pending.removeAll()
            pendingBytes = 0
            throw ProtocolError(why)
        }
    }
}

/// A rect buffered whole, decoded on a worker by a fresh decoder its work makes (Hextile's and
/// (Co)RRE's state is per rect), from a copy of its bytes (`DecodeManager.startCopy`).
struct WholeRectWork: RectWork {
    let what = "rect"
    let pf: PixelConverter
    let makeDecoder: @Sendable () -> RectDecoder

    func draw(_ rect: Rect, into fb: Framebuffer, from data: UnsafeMutablePointer<UInt8>, length: Int) throws {
        var reader = ByteReader(base: data, count: length)
        try makeDecoder().decode(rect: rect, reader: &reader, fb: fb, pf: pf, resume: false)
        guard reader.remaining == 0 else {
            throw ProtocolError("internal: rect \(rect) measured \(length) bytes, decoded \(reader.pos)")
        }
    }
}

// Read by workers while rects are in flight; changed only between updates, after a drain.
extension PixelConverter: @unchecked Sendable {}
