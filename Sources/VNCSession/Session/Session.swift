import Foundation
import RFB

/// A live connection with its lifecycle: the one connection loop every front end uses (the
/// window, `snapshot`). A session thread connects (again, per the reconnect policy), reads
/// the transport and drives the engine; the engine is touched by that thread only.
///
/// The boundary with the front end:
/// - input and answers go in through a command queue (`sendPointer`, `sendKey`,
///   `provideCredentials`, ...), any thread, never blocking;
/// - what happened comes out as events (`takeEvents`, announced by `wake`) and `state`;
/// - pixels are read through `withFramebuffer`, which holds the framebuffer's own lock: the
///   engine takes it one rect at a time, so a flood of huge rects never stalls the reader;
/// - `stop()` returns at once; the session thread notices between rects.
public final class Session: @unchecked Sendable {
    public enum State: Equatable, Sendable {
        case connecting
        case authenticating
        case ready
        /// Dropped or not reachable; the next attempt starts at `retryAt` (monotonicSeconds()).
        case waiting(reason: String, retryAt: Double, attempt: Int)
        case failed(String)
        case closed
    }

    /// Opens one connection (session thread); `log` gets progress lines.
    public typealias Connector = @Sendable (_ log: @escaping @Sendable (String) -> Void) throws -> any Transport

    /// What we connect to, for titles and messages.
    public let spec: String
    public let settings: ClientSettings
    public let reconnect: ReconnectPolicy
    public let liveness: LivenessPolicy
    let connector: Connector
    /// Questions the session answers itself before asking the front end. Set before `start()`.
    public var answers = HandshakeAnswers.none
    /// A reverse connection: each peer is its own identity (known hosts, saved credentials),
    /// so nothing saved for one peer is handed to another. Set before `start()`.
    public var identityFromPeer = false
    /// Called on the session thread whenever there is something new (events, damage, state);
    /// the front end uses it to wake its event loop. Must be thread-safe. Replaced under the
    /// lock: the front end clears it before tearing down what it calls.
    public var wake: @Sendable () -> Void {
        get { lock.withLock { _wake } }
        set { lock.withLock { _wake = newValue } }
    }
    private var _wake: @Sendable () -> Void = {}
    /// Progress lines for --verbose (never secrets). Set before `start()`.
    public var log: @Sendable (String) -> Void = { _ in }
    /// Rect pixels the engine decodes before the session thread looks at its commands again.
    static let workBudgetPixels = 4 << 20

    /// Guards everything below it; never held while decoding or doing I/O.
    let lock = NSLock()
    var _state: State = .connecting
    var stopping = false
    var retryRequested = false
    /// `reconnectNow()`: end this connection and open the next at once (a playback seek).
    var reconnectRequested = false
    /// Where server messages are recorded (`startRecording`), nil when not recording.
    var recorder: (any RecordingObserver)?
    /// Events for the front end, bounded however slowly it reads (EventQueue.swift).
    var events = EventQueue()
    var commands: [Command] = []
    /// What `provideCredentials` handed over, for the `.credentials` command.
    var pendingCredentials: Credentials?
    /// A saved value to fill in for the question waiting (`takeCredentialPrefill`).
    var credentialPrefill: Credentials?
    /// The newest local clipboard text, prepared off every lock, not yet given to the engine;
    /// `cutTextGeneration` lets a newer text supersede an older one still being prepared.
    var pendingCutText: OutgoingCutText?
    var cutTextGeneration = 0
    var transport: (any Transport)?
    /// The connection's engine's: `stop()` cuts a long decode short with it.
    var decodeCancellation: DecodeCancellation?
    /// The framebuffer the front end reads: the engine's, or between connections the last one
    /// (the window keeps showing it, dimmed, while reconnecting).
    var current: Framebuffer?
    /// What other threads read of the connection (`snapshot`), replaced whole after each
    /// engine call and each link measurement.
    var published = SessionSnapshot()
    /// Adaptive quality (SessionLink.swift): nil leaves the settings as they are. Set before `start()`.
    public var adaptiveQuality: AdaptiveQuality.Pins?
    /// Without fences, measure the round trip with a 1x1 full request each second: the window
    /// turns it on while the connection-info panel shows (or with -v), so otherwise a quiet
    /// screen stays quiet and a replayed recording sees no extra requests. Any thread.
    public var probeWithRequests: Bool {
        get { lock.withLock { _probeWithRequests } }
        set { lock.withLock { _probeWithRequests = newValue } }
    }
    private var _probeWithRequests = false
    /// The threads each connection's engine decodes rects on beside the session thread
    /// (`settings.decodeThreads` above 1): kept across reconnections, ended with the session.
    let decodeWorkers: DecodeWorkers?
    /// Wakes the retry wait; `finished` is signalled when the session thread exits.
    let wakeup = NSCondition()
    var threadRunning = false
    /// The session thread polls this pipe with the transport: a command wakes it at once.
    let wakePipe: (read: Int32, write: Int32)

    /// Where each connection's framebuffer takes its pixels (shared memory the X server can read,
    /// for the viewer on X11).
    let pixels: any PixelAllocator

    public init(spec: String, settings: ClientSettings, reconnect: ReconnectPolicy = ReconnectPolicy(),
                liveness: LivenessPolicy = LivenessPolicy(), pixels: any PixelAllocator = HeapPixels(),
                connector: @escaping Connector) {
        self.spec = spec
        self.pixels = pixels
        self.settings = settings
        self.reconnect = reconnect
        self.liveness = liveness
        self.connector = connector
        // each thread starts with the first rect handed to it: none for a session that never does
        decodeWorkers = settings.decodeThreads > 1 ? DecodeWorkers(count: settings.decodeThreads - 1) : nil
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            fds = [-1, -1]
        }
        wakePipe = (fds[0], fds[1])
    }

    /// A session over `plan` (TCP, unix socket, ssh gateway or listening).
    public convenience init(plan: ConnectionPlan, settings: ClientSettings, reconnect: ReconnectPolicy = ReconnectPolicy(),
                            liveness: LivenessPolicy = LivenessPolicy(), pixels: any PixelAllocator = HeapPixels()) {
        self.init(spec: plan.description, settings: settings, reconnect: reconnect, liveness: liveness, pixels: pixels) { log in
            try plan.open(log: log)
        }
        identityFromPeer = plan.listenPort != nil
    }

    public convenience init(spec: HostSpec, settings: ClientSettings) {
        self.init(plan: ConnectionPlan(target: .tcp(spec)), settings: settings)
    }

    deinit {
        if wakePipe.read >= 0 { Glibc.close(wakePipe.read); Glibc.close(wakePipe.write) }
    }

    // MARK: reading (any thread)

    public var state: State { lock.withLock { _state } }
    /// What the server told the connection and how the link looks, as one value taken under
    /// the session's lock (any thread; the window reads it once per frame).
    public var snapshot: SessionSnapshot { lock.withLock { published } }
    /// `snapshot.server.name` (thin accessor until the window reads `snapshot`).
    public var desktopName: String { snapshot.server.name }
    /// `snapshot.server.screenLayout` (thin accessor until the window reads `snapshot`).
    public var screenLayout: ScreenLayout? { snapshot.server.screenLayout }
    /// `snapshot.server.supportsSetDesktopSize` (thin accessor until the window reads `snapshot`).
    public var supportsSetDesktopSize: Bool { snapshot.server.supportsSetDesktopSize }

    /// Events since the last call, in order (the front end's thread).
    public func takeEvents() -> [EngineEvent] { lock.withLock { events.take() } }

    /// Runs `body` with the framebuffer (nil before the first ServerInit) under its lock, which
    /// the session thread takes for one rect at a time: keep `body` short (copy, upload).
    public func withFramebuffer<T>(_ body: (Framebuffer?) throws -> T) rethrows -> T {
        guard let fb = lock.withLock({ current }) else { return try body(nil) }
        return try fb.lock.withReaderLock { try body(fb) }
    }

    /// As `withFramebuffer`, but nil at once when the session thread is inside a rect (a
    /// present that answers input does not wait for pixels).
    public func withFramebufferIfFree<T>(_ body: (Framebuffer?) throws -> T) rethrows -> T? {
        guard let fb = lock.withLock({ current }) else { return try body(nil) }
        return try fb.lock.withReaderLockIfFree { try body(fb) }
    }

    // MARK: lifecycle (front end)

    public func start() {
        lock.withLock { threadRunning = true }
        let t = Thread { [self] in
            Thread.current.name = "farcast-session"   // from inside: see DecodeWorker
            self.run()
            wakeup.lock(); lock.withLock { threadRunning = false }; wakeup.broadcast(); wakeup.unlock()
        }
        t.start()
    }

    /// Ends the connection and any waiting, and returns at once; the session thread exits on
    /// its own (after the rect it is decoding, if any, or the H.264 picture).
    public func stop() {
        let (t, decoding): ((any Transport)?, DecodeCancellation?) = lock.withLock { stopping = true; return (transport, decodeCancellation) }
        decoding?.cancel()
        // Reads only, so the thread can still say goodbye (TLS close_notify); a thread blocked
        // sending to a server that does not read is woken by the full interrupt a moment later.
        t?.interruptReads()
        signalSessionThread()
        wakeup.lock(); wakeup.broadcast(); wakeup.unlock()
        guard t != nil else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Session.goodbyeGrace) { [weak self] in
            guard let self else { return }
            let still: (any Transport)? = self.lock.withLock { self.threadRunning ? self.transport : nil }
            still?.interrupt()
        }
    }

    /// How long `stop()` lets the session thread end the connection in order.
    static let goodbyeGrace = 0.5

    /// Waits until the session thread has exited (after `stop()`); false on timeout.
    @discardableResult
    public func waitUntilStopped(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        wakeup.lock()
        defer { wakeup.unlock() }
        while lock.withLock({ threadRunning }) {
            if !wakeup.wait(until: deadline) { return !lock.withLock { threadRunning } }
        }
        return true
    }

    /// After the session failed or closed: connect again (a new session thread).
    public func restart() {
        let canRestart: Bool = lock.withLock {
            switch _state {
            case .failed, .closed: stopping = false; _state = .connecting; return true
            default: return false
            }
        }
        if canRestart { start() }
    }

    /// Ends the current connection and opens the next at once, with no backoff and no
    /// failure state in between (a playback seek reopens its recording this way).
    public func reconnectNow() {
        let t: (any Transport)? = lock.withLock { reconnectRequested = true; return transport }
        t?.interruptReads()
        signalSessionThread()
        wakeup.lock(); wakeup.broadcast(); wakeup.unlock()
    }

    /// Gives the server's messages to `r` from the next message boundary (a full update is
    /// asked for, so the recording starts with a whole picture), across reconnections too. The
    /// session thread calls `r`; whoever made it closes it after `stopRecording`.
    public func startRecording(_ r: any RecordingObserver) {
        lock.withLock { recorder = r }
        signalSessionThread()
    }

    /// Stops recording: the session thread takes the observer off at once (any thread).
    public func stopRecording() {
        lock.withLock { recorder = nil }
        signalSessionThread()
    }

    public var isRecording: Bool { lock.withLock { recorder != nil } }

    /// While waiting to reconnect: try now (a key or tap on the countdown).
    public func retryNow() {
        wakeup.lock(); retryRequested = true; wakeup.broadcast(); wakeup.unlock()
    }

    var isStopping: Bool { lock.withLock { stopping } }

    /// Tells the session thread there is work (any thread; never blocks).
    func signalSessionThread() {
        var b: UInt8 = 1
        _ = Glibc.write(wakePipe.write, &b, 1)   // full pipe: a wake-up is already pending
    }

    func drainWakePipe() {
        var buf = [UInt8](repeating: 0, count: 64)
        while Glibc.read(wakePipe.read, &buf, buf.count) > 0 {}
    }

    func setState(_ s: State) {
        let changed: Bool = lock.withLock { defer { _state = s }; return _state != s }
        if changed {
            switch s {
            case .connecting: log("connecting to \(spec)")
            case .authenticating: log("authenticating")
            case .ready: log("ready")
            case .waiting(let why, let at, let n): log("\(why); retry \(n) in \(Figures.fixed(at - monotonicSeconds(), 1)) s")
            case .failed(let why): log("failed: \(why)")
            case .closed: log("closed")
            }
        }
        wake()
    }
}
