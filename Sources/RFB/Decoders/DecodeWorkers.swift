import CSystem
import Foundation

/// The threads a `DecodeManager` runs rect jobs on. An engine with `decodeThreads` above 1 makes
/// its own (they end with it); whoever outlives engines can make one and give it to each (a
/// session across its reconnections, the fuzz harness for its whole process), so threads are
/// not made and ended per connection. Several engines may share one: each job carries its
/// manager. Any thread may make or drop it; `enqueue` is the session thread's.
public final class DecodeWorkers: @unchecked Sendable {
    private let threads: [DecodeWorker]

    /// `count` threads (at least 1), each started with the first job it is given: workers no
    /// engine ever hands a rect cost no thread.
    public init(count: Int) {
        threads = (0..<max(1, count)).map { _ in DecodeWorker() }
    }

    /// Each thread ends once its queue is empty (jobs still queued hold their managers).
    deinit { for w in threads { w.stop() } }

    public var count: Int { threads.count }

    /// Queues `job` on the first worker with room (a manager hands over no more than
    /// `jobsPerWorker` a worker, so there is one unless other engines share the threads), and
    /// returns it. Session thread.
    func enqueue(_ job: DecodeManager.Job) -> DecodeWorker {
        let w = threads.first { $0.load < DecodeManager.jobsPerWorker } ?? threads[0]
        w.enqueue(job)
        return w
    }
}

/// One of the worker threads, with its own queue of jobs.
///
/// Our own threads rather than GCD queues: measured on 2 cores, they took up to 18 % less CPU
/// for the same rects (xvnc-hextile-text 0.109 to 0.090-0.098 s, x11vnc-zrle-text the same) and
/// scaled better (hextile 1.04x to 1.09-1.23x). Spinning briefly before sleeping was measured
/// too: 20 % more CPU (x11vnc-tight-q8-text 0.14 to 0.17 s) for a little wall time, not taken.
/// A sleeping worker is woken when a job is queued; one awake takes the next job without a
/// wake-up. At a barrier the session thread takes back a job the worker has not started and
/// decodes it itself (`takeBack`) rather than wait for it. (Waking only once per two jobs was
/// measured too: no difference.)
final class DecodeWorker: @unchecked Sendable {
    private let cond = NSCondition()
    // guarded by `cond`
    private var queue: [DecodeManager.Job] = []
    private var running = false
    private var sleeping = false
    private var stopping = false
    private var started = false

    /// Jobs queued or decoding. Session thread.
    var load: Int {
        cond.lock(); defer { cond.unlock() }
        return queue.count + (running ? 1 : 0)
    }

    /// Queues `job`, waking the worker if it sleeps. The thread starts with the first job.
    /// Session thread.
    func enqueue(_ job: DecodeManager.Job) {
        cond.lock(); defer { cond.unlock() }
        queue.append(job)
        if !started {
            started = true
            let t = Thread { [self] in
                // named from inside, for the kernel (top -H, gdb, the kiosk VM test's count of
                // workers): Foundation's setter did not always reach it, and a name set before
                // start() never does
                Thread.current.name = "farcast.decode"
                _ = farcast_name_this_thread("farcast.decode")
                loop()
            }
            t.start()
        } else if sleeping {
            cond.signal()
        }
    }

    /// Removes `job` if the worker has not started it: the caller decodes it instead. Session
    /// thread.
    func takeBack(_ job: DecodeManager.Job) -> Bool {
        cond.lock(); defer { cond.unlock() }
        guard let i = queue.firstIndex(where: { $0 === job }) else { return false }
        queue.remove(at: i)
        return true
    }

    /// The thread ends once its queue is empty. From the pool's deinit, on any thread.
    func stop() {
        cond.lock(); defer { cond.unlock() }
        stopping = true
        cond.signal()
    }

    private func loop() {
        cond.lock()
        while true {
            while queue.isEmpty && !stopping {
                sleeping = true
                cond.wait()
                sleeping = false
            }
            if queue.isEmpty { break }   // stopping
            var job: DecodeManager.Job? = queue.removeFirst()
            running = true
            cond.unlock()
            if let j = job { j.owner.execute(j, onWorker: true) }
            // released before the lock is taken again: the last job of a dropped engine may end
            // its manager here (and, when the engine made its threads, their pool)
            job = nil
            cond.lock()
            running = false
        }
        cond.unlock()
    }
}
