#if canImport(Glibc)
import Glibc
#endif
import CTurboJPEG
import Dispatch

/// Tight rects decoded on worker threads: the first step of parallel decoding
/// (docs/design/parallel-decoding.md). JPEG rects are self-delimiting and share no zlib
/// stream: any worker takes them. Basic rects (copy, palette, gradient) inflate on one of four
/// connection-long zlib streams: each stream has a lane, a serial queue that keeps its rects and
/// resets in stream order, while the lanes and the JPEG workers run side by side and the session
/// thread parses on.
///
/// Every rect decodes into a buffer of its own. The results reach the framebuffer in arrival
/// order, on the session thread under the writer lock, at the next barrier: a rect overlapping
/// one still pending, a CopyRect, a pseudo-encoding, the last rect of the update
/// (`ClientEngine`). So at every update end the pixels, damage and events are those of the
/// sequential path; a rect's damage is added with its pixels.
///
/// Threads: `pending` and its counters belong to the session thread. A job's output is written
/// by one worker before `done.signal()` and read after `done.wait()`.
final class TightOffload: @unchecked Sendable {
    /// Jobs in flight at most, per worker (TigerVNC keeps 2 buffers per decoding thread).
    static let jobsPerWorker = 2
    /// Decoded pixels (4 bytes each) plus compressed bytes in flight at most: a stream of huge
    /// rects waits for the workers instead of growing memory.
    static let maxPendingBytes = 64 << 20

    final class Job: @unchecked Sendable {
        let rect: Rect
        let data: UnsafeMutablePointer<UInt8>
        let length: Int
        /// The rect's pixels, decoded at (0, 0).
        let out: Framebuffer
        var cost: Int { rect.area * 4 + length }
        /// Set by the worker: the decoder's message when the rect could not be decoded.
        var failure: String?
        let done = DispatchSemaphore(value: 0)

        init(rect: Rect, data: UnsafePointer<UInt8>, length: Int) {
            self.rect = rect
            self.length = length
            self.data = .allocate(capacity: max(1, length))
            self.data.update(from: data, count: length)
            out = Framebuffer(scratchWidth: rect.w, height: rect.h)
        }
        deinit { data.deallocate() }
        var local: Rect { Rect(x: 0, y: 0, w: rect.w, h: rect.h) }
    }

    let workers: Int
    /// Rects smaller than this decode on the session thread (a basic one when its stream's lane
    /// is idle): below it a job's hand-over (copies, a buffer, a wake-up, ~20 µs) costs more
    /// than decoding (3-20 ns a pixel). Tests set 0 to send every rect to the workers.
    var minPixels = 16384
    private let queue = DispatchQueue(label: "farcast.tight.jpeg", attributes: .concurrent)
    /// Guarded by `idleLock`, a pthread mutex as FramebufferLock's: ThreadSanitizer sees it
    /// (Synchronization's Mutex waits on futexes it does not know of).
    private var idle: [UnsafeMutableRawPointer] = []
    private let idleLock: UnsafeMutablePointer<pthread_mutex_t>
    private var pending: [Job] = []
    private var pendingBytes = 0

    init(workers: Int) {
        self.workers = max(1, workers)
        idleLock = .allocate(capacity: 1)
        idleLock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(idleLock, nil)
    }

    deinit {
        // a running JPEG job keeps the offload alive (its closure holds self): none runs now
        for h in idle { tjDestroy(h) }
        pthread_mutex_destroy(idleLock)
        idleLock.deallocate()
    }

    var hasPending: Bool { !pending.isEmpty }
    /// Jobs and bytes queued or decoding (tests check the caps).
    var inFlight: (jobs: Int, bytes: Int) { (pending.count, pendingBytes) }

    func overlapsPending(_ r: Rect) -> Bool {
        pending.contains { !$0.rect.intersection(r).isEmpty }
    }

    /// Queues the JPEG `data` of `rect` (header already checked against the rect). Caller
    /// holds the framebuffer's writer lock: making room may copy finished rects into `fb`.
    func submitJPEG(rect: Rect, data: UnsafePointer<UInt8>, length: Int, fb: Framebuffer) throws {
        let job = try enqueue(rect: rect, data: data, length: length, fb: fb)
        queue.async { [self] in decompress(job) }
    }

    /// Queues a job that `work` decodes on `lane` (a serial queue: a zlib stream's order).
    func submit(rect: Rect, data: UnsafePointer<UInt8>, length: Int, fb: Framebuffer, lane: DispatchQueue,
                work: @escaping @Sendable (Job) -> Void) throws {
        let job = try enqueue(rect: rect, data: data, length: length, fb: fb)
        lane.async {
            work(job)
            job.done.signal()
        }
    }

    private func enqueue(rect: Rect, data: UnsafePointer<UInt8>, length: Int, fb: Framebuffer) throws -> Job {
        let cost = rect.area * 4 + length
        while !pending.isEmpty
                && (pending.count >= workers * TightOffload.jobsPerWorker || pendingBytes + cost > TightOffload.maxPendingBytes) {
            try retireOldest(fb)
        }
        let job = Job(rect: rect, data: data, length: length)
        pending.append(job)
        pendingBytes += cost
        return job
    }

    /// Copies every finished rect into `fb` in arrival order; the first failure is thrown and
    /// the jobs after it are dropped. Caller holds the framebuffer's writer lock.
    func drain(_ fb: Framebuffer) throws {
        while !pending.isEmpty { try retireOldest(fb) }
    }

    private func retireOldest(_ fb: Framebuffer) throws {
        let job = pending.removeFirst()
        pendingBytes -= job.cost
        job.done.wait()
        if let why = job.failure {
            // the rest come after the failure (their workers finish on their own buffers)
            pending.removeAll()
            pendingBytes = 0
            throw ProtocolError(why)
        }
        let r = job.rect
        guard fb.contains(r) else { throw ProtocolError("internal: Tight rect \(r) outside the framebuffer") }
        for row in 0..<r.h { (fb.row(r.y + row) + r.x).update(from: job.out.row(row), count: r.w) }
        fb.addDamage(r)
    }

    private func withIdle<T>(_ body: (inout [UnsafeMutableRawPointer]) -> T) -> T {
        pthread_mutex_lock(idleLock)
        defer { pthread_mutex_unlock(idleLock) }
        return body(&idle)
    }

    /// On a worker.
    private func decompress(_ job: Job) {
        defer { job.done.signal() }
        guard let h = withIdle({ $0.popLast() }) ?? tjInitDecompress() else {
            job.failure = "Tight rect \(job.rect): could not start the JPEG decompressor"
            return
        }
        defer { withIdle { $0.append(h) } }
        let r = job.rect
        let dst = UnsafeMutableRawPointer(job.out.pixels).assumingMemoryBound(to: UInt8.self)
        let rc = tjDecompress2(h, job.data, UInt(job.length), dst, Int32(r.w), Int32(r.w * 4), Int32(r.h),
                               Int32(TJPF_BGRX.rawValue), 0)
        // warnings (e.g. a truncated scan) still leave an image, as on the sequential path
        if rc != 0 && tjGetErrorCode(h) != Int32(TJERR_WARNING.rawValue) {
            let why = tjGetErrorStr2(h).map { String(cString: $0) } ?? "unknown error"
            job.failure = "Tight rect \(r): JPEG decoding failed (\(why))"
            return
        }
        // TurboJPEG fills the X byte with 0xff; the framebuffer's pixels keep it zero
        let p = job.out.pixels
        for i in 0..<r.area { p[i] &= 0x00ff_ffff }
    }
}

// Captured by lane work: each is used on one lane (a serial queue) at a time, or read only
// while rects are in flight (the pixel converter changes between updates, after a drain).
extension ZStream: @unchecked Sendable {}
extension TightDecoder: @unchecked Sendable {}
extension PixelConverter: @unchecked Sendable {}
