import Foundation
import RFB

/// When a connection drops (or cannot be made), whether and how soon to try again.
public struct ReconnectPolicy: Sendable, Equatable {
    public enum Mode: Sendable, Equatable { case never, always, times(Int) }
    public var mode: Mode = .never
    /// Backoff: first delay, doubling per attempt up to `maxDelay`, each ± `jitter` (fraction).
    public var initialDelay = 1.0
    public var maxDelay = 30.0
    public var jitter = 0.2

    public init(mode: Mode = .never) { self.mode = mode }

    /// `--reconnect never|always|N`
    public static func parse(_ s: String) throws -> ReconnectPolicy {
        switch s.lowercased() {
        case "never", "no", "0": return ReconnectPolicy(mode: .never)
        case "always", "forever": return ReconnectPolicy(mode: .always)
        default:
            guard let n = Int(s), n > 0 else {
                throw TransportError("--reconnect takes never, always or a number of attempts (got '\(s)')")
            }
            return ReconnectPolicy(mode: .times(n))
        }
    }

    /// Whether attempt number `attempt` (1-based) may happen.
    public func allows(attempt: Int) -> Bool {
        switch mode {
        case .never: return false
        case .always: return true
        case .times(let n): return attempt <= n
        }
    }

    /// Delay before attempt `attempt` (1-based); `unit` is a random number in 0..<1.
    public func delay(attempt: Int, unit: Double) -> Double {
        let base = min(maxDelay, initialDelay * pow(2, Double(max(0, attempt - 1))))
        return max(0.1, base * (1 + jitter * (2 * unit - 1)))
    }
}

/// How a silent connection is checked: after `probeAfter` seconds without a byte from the server
/// a non-incremental 1x1 update request goes out (servers must answer those); no byte within
/// `deadAfter` seconds of it means the link is dead (half-open, server stopped).
public struct LivenessPolicy: Sendable, Equatable {
    public var probeAfter = 5.0
    public var deadAfter = 10.0
    /// From TCP connected to ServerInit.
    public var handshakeTimeout = 30.0
    public init() {}
}

/// A live connection with its lifecycle: a session thread connects (again, per the reconnect
/// policy), reads the socket and decodes into the framebuffer; the front end (main thread)
/// reads the framebuffer and damage under `lock` and sends input.
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

    public let plan: ConnectionPlan
    public let settings: ClientSettings
    public let reconnect: ReconnectPolicy
    public let liveness: LivenessPolicy
    /// Held by the session thread while decoding and by the front end while reading pixels.
    public let lock = NSLock()
    /// Input from the main thread is queued in the engine and this pipe wakes the session
    /// thread, which alone writes to the socket: a slow server or a large clipboard text can
    /// block only that thread, never the render loop.
    private let wakePipe: (read: Int32, write: Int32)
    /// The newest local clipboard text, prepared off every lock, not yet given to the engine;
    /// `cutTextGeneration` lets a newer text supersede an older one still being prepared.
    private var pendingCutText: OutgoingCutText?
    private var cutTextGeneration = 0
    private let wakeup = NSCondition()
    private var engine: ClientEngine
    private var transport: SocketTransport?
    private var events: [EngineEvent] = []
    private var _state: State = .connecting
    private var stopping = false
    private var retryRequested = false
    /// What the server has been told is held, so a new connection can release it.
    private var heldKeys: [UInt32: UInt32?] = [:]
    private var heldButtons: UInt16 = 0
    private var lastPointer = (x: 0, y: 0)
    private var pendingRelease: (keys: [UInt32: UInt32?], at: (x: Int, y: Int), buttons: Bool)?
    /// Called on the session thread whenever there is something new (events, damage, state);
    /// the front end uses it to wake its event loop. Must be thread-safe.
    public var wake: @Sendable () -> Void = {}
    /// Progress lines for --verbose (never secrets).
    public var log: @Sendable (String) -> Void = { _ in }

    public init(plan: ConnectionPlan, settings: ClientSettings,
                reconnect: ReconnectPolicy = ReconnectPolicy(), liveness: LivenessPolicy = LivenessPolicy()) {
        self.plan = plan
        self.settings = settings
        self.reconnect = reconnect
        self.liveness = liveness
        engine = ClientEngine(settings: settings)
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

    deinit {
        if wakePipe.read >= 0 { Glibc.close(wakePipe.read); Glibc.close(wakePipe.write) }
    }

    /// Tells the session thread there is output to send (any thread; never blocks).
    private func signalSessionThread() {
        var b: UInt8 = 1
        _ = Glibc.write(wakePipe.write, &b, 1)   // full pipe: a wake-up is already pending
    }

    private func drainWakePipe() {
        var buf = [UInt8](repeating: 0, count: 64)
        while Glibc.read(wakePipe.read, &buf, buf.count) > 0 {}
    }

    public convenience init(spec: HostSpec, settings: ClientSettings) {
        self.init(plan: ConnectionPlan(target: .tcp(spec)), settings: settings)
    }

    /// What we connect to, for titles and messages.
    public var spec: String { plan.description }

    public var state: State { lock.withLock { _state } }

    /// The framebuffer; read it only while holding `lock`. Between connections it is the last
    /// one the server sent, so the window keeps showing it (dimmed) while reconnecting.
    public var framebuffer: Framebuffer? { engine.framebuffer ?? lastFramebuffer }
    private var lastFramebuffer: Framebuffer?
    public var desktopName: String { lock.withLock { engine.desktopName } }

    /// Events since the last call (main thread).
    public func takeEvents() -> [EngineEvent] { lock.withLock { defer { events.removeAll() }; return events } }

    public func start() {
        let t = Thread { [self] in self.run() }
        t.name = "farcast-session"
        t.start()
    }

    /// Ends the connection and any waiting; the session thread exits on its own.
    public func stop() {
        let t: SocketTransport? = lock.withLock { stopping = true; return transport }
        t?.interrupt()
        wakeup.lock(); wakeup.broadcast(); wakeup.unlock()
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

    /// While waiting to reconnect: try now (a key or tap on the countdown).
    public func retryNow() {
        wakeup.lock(); retryRequested = true; wakeup.broadcast(); wakeup.unlock()
    }

    private func setState(_ s: State) {
        let changed: Bool = lock.withLock { defer { _state = s }; return _state != s }
        if changed {
            switch s {
            case .connecting: log("connecting to \(plan)")
            case .authenticating: log("authenticating")
            case .ready: log("ready")
            case .waiting(let why, let at, let n): log("\(why); retry \(n) in \(String(format: "%.1f", at - monotonicSeconds())) s")
            case .failed(let why): log("failed: \(why)")
            case .closed: log("closed")
            }
        }
        wake()
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    /// Why one connection ended.
    enum Outcome {
        case stopped
        /// `retryable` is false for what retrying cannot fix (authentication, no common security type).
        case lost(String, retryable: Bool, wasReady: Bool)
    }

    private func run() {
        var attempt = 0
        while !isStopping {
            setState(.connecting)
            let outcome = runOnce()
            if isStopping { break }
            guard case .lost(let reason, let retryable, let wasReady) = outcome else { break }
            if wasReady { attempt = 0 }   // backoff starts over after a good connection
            attempt += 1
            guard retryable, reconnect.allows(attempt: attempt) else {
                setState(.failed(reason))
                return
            }
            let retryAt = monotonicSeconds() + reconnect.delay(attempt: attempt, unit: Double.random(in: 0..<1))
            setState(.waiting(reason: reason, retryAt: retryAt, attempt: attempt))
            wakeup.lock()
            retryRequested = false
            while !retryRequested && !isStopping && monotonicSeconds() < retryAt {
                _ = wakeup.wait(until: Date(timeIntervalSinceNow: max(0.01, retryAt - monotonicSeconds())))
            }
            wakeup.unlock()
        }
        setState(.closed)
    }

    /// One connection from open to end.
    private func runOnce() -> Outcome {
        let e = ClientEngine(settings: settings)
        lock.withLock {
            lastFramebuffer = engine.framebuffer ?? lastFramebuffer
            engine = e
            // keys and buttons the previous connection left held are released once this one is ready
            if !heldKeys.isEmpty || heldButtons != 0 {
                pendingRelease = (heldKeys, lastPointer, heldButtons != 0)
            }
            heldKeys = [:]; heldButtons = 0
            pendingCutText = nil   // like other input, not replayed on a later connection
        }
        let t: SocketTransport
        do {
            t = try plan.open(log: log)
        } catch {
            return .lost("\(error)", retryable: true, wasReady: false)
        }
        lock.withLock { transport = t }
        defer {
            lock.withLock { transport = nil }
            t.close()
        }
        if isStopping { return .stopped }
        setState(.authenticating)
        // when the handshake clock started; moved on by time spent inside the engine, which is
        // only long when a credential or trust prompt waits for the user
        var connectedAt = monotonicSeconds()
        var lastByte = connectedAt
        var probeSentAt: Double? = nil
        var ready = false
        var phaseBefore = ClientEngine.Phase.version
        do {
            while true {
                var dropped = 0
                let out: [UInt8] = lock.withLock {
                    if let c = pendingCutText, e.phase == .normal {
                        pendingCutText = nil
                        dropped = e.sendCutText(c)
                    }
                    return e.takeOutput()
                }
                if dropped > 0 { log("clipboard: \(dropped) characters Latin-1 cannot carry were left out of the text sent") }
                if !out.isEmpty { try t.send(out) }
                if isStopping { return .stopped }
                let now = monotonicSeconds()
                if !ready && now - connectedAt > liveness.handshakeTimeout {
                    return .lost("the server did not complete the handshake within \(Int(liveness.handshakeTimeout)) s", retryable: true, wasReady: false)
                }
                if ready {
                    if let sent = probeSentAt, now - sent > liveness.deadAfter {
                        return .lost("no answer from the server for \(Int(now - lastByte)) s (connection dead)", retryable: true, wasReady: true)
                    }
                    if probeSentAt == nil && now - lastByte > liveness.probeAfter {
                        probeSentAt = now
                        lock.withLock { e.requestUpdate(incremental: false, rect: Rect(x: 0, y: 0, w: 1, h: 1)) }
                        continue
                    }
                }
                let (readable, woken) = wakePipe.read >= 0 ? t.waitReadable(timeout: 0.25, orWake: wakePipe.read)
                                                           : (t.waitReadable(timeout: 0.05), true)
                if woken { drainWakePipe() }
                if !readable { continue }
                var newEvents: [EngineEvent] = []
                var release: (keys: [UInt32: UInt32?], at: (x: Int, y: Int), buttons: Bool)? = nil
                let callStart = monotonicSeconds()
                defer { if !ready { connectedAt += monotonicSeconds() - callStart } }
                let got: Int = try lock.withLock {
                    phaseBefore = e.phase
                    let n = try e.receive(atLeast: 65536) { p, cap in try t.recv(into: p, capacity: cap) }
                    newEvents = e.takeEvents()
                    events += newEvents
                    if !ready && e.phase == .normal {
                        ready = true
                        _state = .ready
                        release = pendingRelease
                        pendingRelease = nil
                    }
                    return n
                }
                if got == 0 {
                    return .lost(ready ? "connection closed by the server" : "the server closed the connection during the handshake",
                                 retryable: true, wasReady: ready)
                }
                lastByte = monotonicSeconds()
                probeSentAt = nil
                if let r = release {
                    log("releasing \(r.keys.count) keys held when the last connection dropped")
                    lock.withLock {
                        for (k, code) in r.keys { e.sendKey(k, down: false, xtKeycode: code) }
                        if r.buttons { e.sendPointer(x: r.at.x, y: r.at.y, buttons: 0) }
                    }
                }
                if !newEvents.isEmpty || release != nil { wake() }
            }
        } catch let err as ProtocolError {
            // failures during security negotiation are the server saying no: retrying cannot help
            let during = phaseBefore == .security || phaseBefore == .authenticating
            return .lost(err.message, retryable: !during, wasReady: ready)
        } catch {
            return .lost(isStopping ? "stopped" : "connection lost: \(error)", retryable: true, wasReady: ready)
        }
    }

    /// Input queued in the engine goes out on the session thread.
    private func flushFromInput(_ queued: Bool) {
        if queued { signalSessionThread() }
    }

    /// Pointer event in framebuffer coordinates (main thread). Dropped unless ready: input made
    /// while disconnected is never replayed late.
    public func sendPointer(x: Int, y: Int, buttons: UInt16) {
        let queued: Bool = lock.withLock {
            guard _state == .ready, let fb = engine.framebuffer else { return false }
            let cx = max(0, min(fb.width - 1, x)), cy = max(0, min(fb.height - 1, y))
            engine.sendPointer(x: cx, y: cy, buttons: buttons)
            heldButtons = buttons
            lastPointer = (cx, cy)
            return true
        }
        flushFromInput(queued)
    }

    /// Key event (main thread); `xtKeycode` is used when the server takes QEMU Extended Key Events.
    /// Dropped unless ready.
    public func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32? = nil) {
        let queued: Bool = lock.withLock {
            guard _state == .ready else { return false }
            engine.sendKey(keysym, down: down, xtKeycode: xtKeycode)
            if down { heldKeys[keysym] = xtKeycode } else { heldKeys[keysym] = nil }
            return true
        }
        flushFromInput(queued)
    }

    /// A local clipboard text for the server (main thread; returns at once). It is converted
    /// and compressed on a worker (Latin-1 for the classic message, logging what cannot be
    /// carried), then the session thread sends it. Dropped unless ready.
    public func sendCutText(_ text: String) {
        let generation: Int? = lock.withLock {
            guard _state == .ready else { return nil }
            cutTextGeneration += 1
            return cutTextGeneration
        }
        guard let generation else { return }
        let limit = settings.clipboardByteLimit
        DispatchQueue.global(qos: .utility).async { [self] in
            let prepared = OutgoingCutText(text, limit: limit)
            let current: Bool = lock.withLock {
                guard generation == cutTextGeneration else { return false }
                pendingCutText = prepared
                return true
            }
            flushFromInput(current)
        }
    }

    /// The server's screens from its last ExtendedDesktopSize; nil until it sent one (any thread).
    public var screenLayout: ScreenLayout? { lock.withLock { engine.screenLayout } }
    /// Whether the server takes SetDesktopSize (it has sent ExtendedDesktopSize).
    public var supportsSetDesktopSize: Bool { lock.withLock { engine.supportsSetDesktopSize } }

    /// SetDesktopSize (main thread): the answer arrives as `.desktopSizeRequestResult`. Throws
    /// `DesktopSizeRequestError` without sending when not ready, unsupported or invalid.
    public func requestDesktopSize(width: Int, height: Int, screens: [Screen]? = nil) throws {
        try lock.withLock {
            guard _state == .ready else { throw DesktopSizeRequestError("not connected") }
            try engine.requestDesktopSize(width: width, height: height, screens: screens)
        }
        flushFromInput(true)
    }
}
