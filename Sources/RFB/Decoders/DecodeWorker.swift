import Foundation

/// One of DecodeOffload's worker threads, with its own queue of jobs.
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
    private var queue: [DecodeOffload.Job] = []
    private var running = false
    private var sleeping = false
    private var stopping = false
    private var started = false

    /// Jobs queued or decoding. Session thread.
    var load: Int {
        cond.lock(); defer { cond.unlock() }
        return queue.count + (running ? 1 : 0)
    }

    /// Queues `job`, waking the worker if it sleeps. The thread starts with the first job (an
    /// engine that never hands a rect over costs no thread). Session thread.
    func enqueue(_ job: DecodeOffload.Job) {
        cond.lock(); defer { cond.unlock() }
        queue.append(job)
        if !started {
            started = true
            let t = Thread { [self] in
                // named from inside: on Linux only that reaches the kernel (top -H, gdb, the
                // kiosk VM test's count of workers); a name set before start() does not
                Thread.current.name = "farcast.decode"
                loop()
            }
            t.start()
        } else if sleeping {
            cond.signal()
        }
    }

    /// Removes `job` if the worker has not started it: the caller decodes it instead. Session
    /// thread.
    func takeBack(_ job: DecodeOffload.Job) -> Bool {
        cond.lock(); defer { cond.unlock() }
        guard let i = queue.firstIndex(where: { $0 === job }) else { return false }
        queue.remove(at: i)
        return true
    }

    /// The thread ends once its queue is empty. From the offload's deinit, on any thread.
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
            var job: DecodeOffload.Job? = queue.removeFirst()
            running = true
            cond.unlock()
            if let j = job { j.owner.execute(j, onWorker: true) }
            // released before the lock is taken again: the last job of a dropped engine ends
            // the offload here, whose deinit stops this worker (taking the lock)
            job = nil
            cond.lock()
            running = false
        }
        cond.unlock()
    }
}
