import Foundation

/// One of DecodeOffload's worker threads, with its own queue of jobs.
///
/// Waking a sleeping thread costs about 5 µs of CPU on each side here (a futex, and in a VM an
/// interrupt to the other core): about what painting a 16 K-pixel rect on the worker saves. So
/// a worker is not woken for every job. It is woken when its queue is full (`wakeAt` jobs),
/// when the session thread is done with its input for now (`kick`), or not at all: at a barrier
/// the session thread takes back a job the worker has not started and decodes it itself
/// (`takeBack`). A worker that is awake takes the next job without being woken.
/// Waking for every job made 2 threads cost 13-19 % more CPU than one on text recordings.
final class DecodeWorker: @unchecked Sendable {
    private let cond = NSCondition()
    // guarded by `cond`
    private var queue: [DecodeOffload.Job] = []
    private var running = false
    private var sleeping = false
    private var stopping = false
    private var started = false

    /// Jobs queued or decoding.
    var load: Int {
        cond.lock(); defer { cond.unlock() }
        return queue.count + (running ? 1 : 0)
    }

    /// Queues `job`; a sleeping worker is woken once `wakeAt` jobs wait. The thread starts with
    /// the first job (an engine that never hands a rect over costs no thread).
    func enqueue(_ job: DecodeOffload.Job, wakeAt: Int) {
        cond.lock(); defer { cond.unlock() }
        queue.append(job)
        if !started {
            started = true
            let t = Thread { [self] in loop() }
            t.name = "farcast.decode"
            t.start()
        } else if sleeping && queue.count >= wakeAt {
            cond.signal()
        }
    }

    /// Wakes the worker if it sleeps with jobs queued.
    func kick() {
        cond.lock(); defer { cond.unlock() }
        if sleeping && !queue.isEmpty { cond.signal() }
    }

    /// Removes `job` if the worker has not started it: the caller decodes it instead.
    func takeBack(_ job: DecodeOffload.Job) -> Bool {
        cond.lock(); defer { cond.unlock() }
        guard let i = queue.firstIndex(where: { $0 === job }) else { return false }
        queue.remove(at: i)
        return true
    }

    /// The thread ends once its queue is empty.
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
