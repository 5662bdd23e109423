import CXCB
import Foundation

/// Reads the local X selections on a thread of its own, on its own XCB connection, so a large
/// (INCR) or slow selection never blocks the SDL main thread. With XFixes it reads a selection
/// as soon as another program takes it; without, only when asked (focus gained, SDL's update).
/// Results are kept for the main thread, which `notify` wakes (an SDL user event).
///
/// Thread use: `init`, `request`, `takeResults` and `stop` on the main thread; everything
/// on the connection is on the reader's thread (the main thread touches it again only after
/// the thread has ended).
final class X11SelectionReader: LocalSelections, @unchecked Sendable {
    typealias Selection = ClipboardBridge.Selection
    /// Bytes read at most per selection: the engine's clipboard limit (more is refused unread).
    let cap: Int
    /// Whether another program's new selection is seen when it is set (XFixes), not just asked.
    let watching: Bool
    private let connection: X11SelectionConnection
    private let selections: [Selection]
    private let notify: @Sendable () -> Void
    private let wake: (read: Int32, write: Int32)
    private let lock = NSLock()
    // guarded by `lock`
    private var requested: Set<Selection> = []
    private var results: [(Selection, SelectionRead)] = []
    private var stopRequested = false
    /// Signalled when the thread has ended.
    private let ended = DispatchSemaphore(value: 0)
    private var started = false
    // the reader thread's own
    /// Selections read (or found ours) since the last new owner XFixes told of: asking again
    /// reads nothing new.
    private var current: Set<Selection> = []

    /// nil when the display cannot be reached (the caller then keeps SDL's clipboard calls).
    /// `sdlWindow`: the SDL window's X id; a selection owned by SDL's connection is ours.
    init?(display: String?, sdlWindow: UInt32?, selections: [Selection], cap: Int,
          notify: @escaping @Sendable () -> Void) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        guard let conn = X11SelectionConnection(display: display, sdlWindow: sdlWindow, wakeFD: fds[0]) else {
            close(fds[0]); close(fds[1])
            return nil
        }
        connection = conn
        wake = (fds[0], fds[1])
        self.selections = selections
        self.cap = max(0, cap)
        self.notify = notify
        watching = conn.watch(selections)
        connection.stopping = { [unowned self] in lock.withLock { stopRequested } }
    }

    deinit {
        close(wake.read); close(wake.write)
    }

    /// Main thread: starts the reader's thread.
    func start() {
        started = true
        let t = Thread { [self] in
            run()
            ended.signal()
        }
        t.name = "farcast-selection"
        t.start()
    }

    /// Main thread: read these selections, unless nothing new was set since they were read.
    func request(_ sels: [Selection]) {
        lock.withLock { requested.formUnion(sels) }
        signalThread()
    }

    /// Main thread: what was read since the last call, in order.
    func takeResults() -> [(Selection, SelectionRead)] {
        lock.withLock { defer { results.removeAll() }; return results }
    }

    /// Main thread: ends a transfer in progress and joins the thread (at most `timeout`
    /// seconds: a reply the X server never sends). The connection closes when the reader is
    /// released; the thread holds it until it ends, so it is never closed under the thread.
    @discardableResult
    func stop(timeout: Double = 3) -> Bool {
        lock.withLock { stopRequested = true }
        signalThread()
        guard started else { return true }
        started = false
        return ended.wait(timeout: .now() + timeout) == .success
    }

    private func signalThread() {
        var b: UInt8 = 1
        _ = write(wake.write, &b, 1)  // a full pipe: a wake-up is already pending
    }

    private var isStopping: Bool { lock.withLock { stopRequested } }

    private func run() {
        while !isStopping && !connection.broken {
            let asked = lock.withLock { defer { requested.removeAll() }; return requested }
            var todo = asked.subtracting(current)
            for (atom, owner) in connection.ownerChanges {
                guard let sel = selections.first(where: { connection.atom($0) == atom }) else { continue }
                // a new owner: what we read before is out of date, unless SDL set it for us
                current.remove(sel)
                if owner != 0 && !connection.isOurs(owner) { todo.insert(sel) }
            }
            connection.ownerChanges.removeAll()
            if todo.isEmpty {
                if case .event(let e) = connection.next(until: nil) {
                    connection.noteIfOwnerChange(e)
                    free(e)
                }
                continue
            }
            for sel in selections where todo.contains(sel) {
                let r = connection.read(sel, cap: cap)
                if isStopping { return }
                switch r {
                case .failed: current.remove(sel)
                default: if watching { current.insert(sel) }
                }
                lock.withLock { results.append((sel, r)) }
                notify()
            }
        }
    }
}
