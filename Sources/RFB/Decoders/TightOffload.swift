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
/// Workers write straight into the framebuffer, under the decoders' shared side of its lock,
/// and add the rect's damage after its pixels. The engine keeps rects in flight apart: a rect
/// overlapping one, a CopyRect touching one, a pseudo-encoding or any other message waits for
/// them (`drain`), and so does the end of each parse call, so whoever reads the framebuffer
/// after a feed sees every update parsed so far complete.
///
/// Threads: `pending` and its counters belong to the session thread, which never waits for a
/// job while it holds the framebuffer lock (`makeRoom` comes before the rect). A job's
/// `failure` is written by one worker before `done.signal()` and read after `done.wait()`.
final class TightOffload: @unchecked Sendable {
    /// Jobs in flight at most, per worker (TigerVNC keeps 2 buffers per decoding thread). With
    /// each job's bytes under Tight's compressed-length limit, this also bounds memory.
    static let jobsPerWorker = 2

    final class Job: @unchecked Sendable {
        let rect: Rect
        let data: UnsafeMutablePointer<UInt8>
        let length: Int
        let fb: Framebuffer
        /// Set by the worker: the decoder's message when the rect could not be decoded.
        var failure: String?
        let done = DispatchSemaphore(value: 0)

        init(rect: Rect, data: UnsafePointer<UInt8>, length: Int, fb: Framebuffer) {
            self.rect = rect
            self.length = length
            self.fb = fb
            self.data = .allocate(capacity: max(1, length))
            self.data.update(from: data, count: length)
        }
        deinit { data.deallocate() }
    }

    let workers: Int
    /// Rects smaller than this decode on the session thread (a basic one when its stream's lane
    /// is idle): below it a job's hand-over (a copy of its bytes, a wake-up, a few µs) costs
    /// more than decoding (3-20 ns a pixel). Tests set 0 to send every rect to the workers.
    var minPixels = 16384
    private let queue = DispatchQueue(label: "farcast.tight.jpeg", attributes: .concurrent)
    /// TurboJPEG handles not in use, guarded by `idleLock`.
    private var idle: [UnsafeMutableRawPointer] = []
    private let idleLock = PthreadMutex()
    private var pending: [Job] = []
    private var pendingBytes = 0
    private(set) var peakBytes = 0

    init(workers: Int) {
        self.workers = max(1, workers)
    }

    deinit {
        // a running JPEG job keeps the offload alive (its closure holds self): none runs now
        for h in idle { tjDestroy(h) }
    }

    var hasPending: Bool { !pending.isEmpty }
    var capacity: Int { workers * TightOffload.jobsPerWorker }
    /// Jobs and bytes queued or decoding (tests check the caps).
    var inFlight: (jobs: Int, bytes: Int) { (pending.count, pendingBytes) }

    func overlapsPending(_ r: Rect) -> Bool {
        pending.contains { !$0.rect.intersection(r).isEmpty }
    }

    /// Before a rect, outside the framebuffer lock: a slot for one more job.
    func makeRoom() throws {
        while pending.count >= capacity { try retireOldest() }
    }

    /// Queues the JPEG `data` of `rect` (header already checked against the rect).
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
        // makeRoom ran before this rect: waiting here, under the lock, could deadlock
        guard pending.count < capacity else { throw ProtocolError("internal: Tight job queued without room") }
        let job = Job(rect: rect, data: data, length: length, fb: fb)
        pending.append(job)
        pendingBytes += length
        peakBytes = max(peakBytes, pendingBytes)
        return job
    }

    /// Waits for every rect in flight; the first failure is thrown and the jobs after it are
    /// dropped. Never called under the framebuffer lock (workers take it).
    func drain() throws {
        while !pending.isEmpty { try retireOldest() }
    }

    private func retireOldest() throws {
        let job = pending.removeFirst()
        pendingBytes -= job.length
        job.done.wait()
        if let why = job.failure {
            // the rest come after the failure: waited for, so nothing runs once the engine fails
            for j in pending { j.done.wait() }
            pending.removeAll()
            pendingBytes = 0
            throw ProtocolError(why)
        }
    }

    /// On a worker.
    private func decompress(_ job: Job) {
        defer { job.done.signal() }
        guard let h = idleLock.locked({ idle.popLast() }) ?? tjInitDecompress() else {
            job.failure = "Tight rect \(job.rect): could not start the JPEG decompressor"
            return
        }
        defer { idleLock.locked { idle.append(h) } }
        let r = job.rect, fb = job.fb
        job.failure = fb.lock.withWriterLock { () -> String? in
            guard fb.contains(r) else { return "internal: Tight rect \(r) outside the framebuffer" }
            // straight into the framebuffer: BGRX in memory is its 0x00RRGGBB layout
            let dst = UnsafeMutableRawPointer(fb.row(r.y) + r.x).assumingMemoryBound(to: UInt8.self)
            let rc = tjDecompress2(h, job.data, UInt(job.length), dst, Int32(r.w), Int32(fb.width * 4), Int32(r.h),
                                   Int32(TJPF_BGRX.rawValue), 0)
            // warnings (e.g. a truncated scan) still leave an image, as on the sequential path
            if rc != 0 && tjGetErrorCode(h) != Int32(TJERR_WARNING.rawValue) {
                let why = tjGetErrorStr2(h).map { String(cString: $0) } ?? "unknown error"
                return "Tight rect \(r): JPEG decoding failed (\(why))"
            }
            // TurboJPEG fills the X byte with 0xff; the framebuffer's pixels keep it zero
            for y in r.y..<r.maxY {
                let p = fb.row(y) + r.x
                for i in 0..<r.w { p[i] &= 0x00ff_ffff }
            }
            fb.addDamage(r)
            return nil
        }
    }
}

// Captured by lane work: each is used on one lane (a serial queue) at a time, or read only
// while rects are in flight (the pixel converter changes between updates, after a drain).
extension ZStream: @unchecked Sendable {}
extension TightDecoder: @unchecked Sendable {}
extension PixelConverter: @unchecked Sendable {}
