import Foundation
import RFB

/// `viewer snapshot`: connect, take the whole framebuffer, follow updates until they go quiet.
public struct SnapshotOptions: Sendable {
    public var settings = ClientSettings()
    /// Updates are "quiet" when none arrived for this long after the first full one.
    public var quietSeconds = 0.5
    /// Give up waiting for quiet after this long and take what we have.
    public var maxSeconds = 30.0
    public var connectTimeout = 10.0
    /// Answered by the session itself (given or saved credentials, known hosts).
    public var answers = HandshakeAnswers.none
    /// Asks the user for what `answers` left open (a terminal prompt), on the calling thread;
    /// nil, or nil returned: the connection fails saying what to give.
    public var askCredentials: CredentialProvider?
    /// Decides an identity `answers` left open, on the calling thread; nil: refused with advice.
    public var trust: TrustEvaluator?
    public init() {}
}

public struct SnapshotResult {
    /// A copy of the framebuffer when updates went quiet.
    public let framebuffer: Framebuffer
    public let desktopName: String
    public let cursor: CursorImage?
    public let updates: Int
    public let serverClosed: Bool
    public let securityType: UInt8?
}

public enum Snapshot {
    /// Runs on the calling thread (the session has its own); `log` gets progress lines (never secrets).
    public static func capture(_ spec: HostSpec, options: SnapshotOptions,
                               log: @escaping @Sendable (String) -> Void = { _ in }) throws -> SnapshotResult {
        var plan = ConnectionPlan(target: .tcp(spec))
        plan.connectTimeout = options.connectTimeout
        return try capture(plan, options: options, log: log)
    }

    public static func capture(_ plan: ConnectionPlan, options: SnapshotOptions,
                               log: @escaping @Sendable (String) -> Void = { _ in }) throws -> SnapshotResult {
        try run(Session(plan: plan, settings: options.settings, liveness: liveness(options)), options: options, log: log)
    }

    /// The snapshot over a transport that is already connected (e.g. accepted in --listen mode).
    public static func run(transport t: any Transport, options: SnapshotOptions,
                           log: @escaping @Sendable (String) -> Void) throws -> SnapshotResult {
        let once = OneShot(t)
        let s = Session(spec: t.peer, settings: options.settings, liveness: liveness(options)) { _ in
            guard let t = once.take() else { throw TransportError("the connection can be used once") }
            return t
        }
        return try run(s, options: options, log: log)
    }

    private static func liveness(_ o: SnapshotOptions) -> LivenessPolicy {
        var l = LivenessPolicy()
        l.handshakeTimeout = o.maxSeconds
        return l
    }

    private static func run(_ session: Session, options: SnapshotOptions,
                            log: @escaping @Sendable (String) -> Void) throws -> SnapshotResult {
        let bell = EventBell()
        session.answers = options.answers
        session.log = log
        session.wake = { bell.ring() }
        session.start()
        defer { session.stop(); session.waitUntilStopped(timeout: 2) }
        let start = monotonicSeconds()
        var fullAt: Double? = nil      // when the server's rects had painted the whole framebuffer
        var lastUpdate = start
        var cursor: CursorImage? = nil
        var security: UInt8? = nil
        var updates = 0
        var serverClosed = false
        loop: while true {
            for ev in session.takeEvents() {
                switch ev {
                case .securityChosen(let s): security = s; log("security: \(SecurityType.name(s))")
                case .ready(let name, let w, let h): log("desktop '\(name)' \(w)x\(h)")
                case .updateEnded:
                    updates += 1
                    lastUpdate = monotonicSeconds()
                case .resized(let w, let h):
                    log("desktop resized to \(w)x\(h)")
                    // the new area must arrive before the snapshot is whole
                    fullAt = nil
                    session.requestUpdate(incremental: false)
                case .cursor(let c): cursor = c
                default: answer(ev, session, options)
                }
            }
            // whole once every pixel was painted: an update of pseudo-rects alone is not the picture
            if fullAt == nil, session.withFramebuffer({ fb in fb.map { $0.paintedArea >= $0.width * $0.height } ?? false }) {
                lastUpdate = monotonicSeconds()
                fullAt = lastUpdate
                log("first full update after \(Figures.fixed(lastUpdate - start, 3)) s")
            }
            switch session.state {
            case .failed(let why):
                guard fullAt != nil || updates > 0 else { throw ProtocolError(why) }
                serverClosed = true
                log("server closed the connection")
                break loop
            case .closed:
                throw ProtocolError("stopped")
            default: break
            }
            let now = monotonicSeconds()
            let wait: Double
            if fullAt != nil {
                wait = options.quietSeconds - (now - lastUpdate)
                if wait <= 0 || now - start > options.maxSeconds { break }
            } else {
                wait = options.maxSeconds - (now - start)
                if wait <= 0 {
                    guard updates > 0 else {
                        throw ProtocolError("no complete framebuffer within \(Int(options.maxSeconds)) s (\(session.state))")
                    }
                    // a server that never paints part of its screen: what it did paint
                    let painted = session.withFramebuffer { fb in fb.map { "\($0.paintedArea) of \($0.width * $0.height)" } ?? "none" }
                    log("after \(Int(options.maxSeconds)) s the server had painted \(painted) pixels: taking what there is")
                    break
                }
            }
            bell.wait(seconds: wait)
        }
        let copy: (Framebuffer, String)? = session.withFramebuffer { fb in
            guard let fb else { return nil }
            let c = Framebuffer(width: fb.width, height: fb.height)
            c.pixels.update(from: fb.pixels, count: fb.width * fb.height)
            return (c, session.desktopName)
        }
        guard let (fb, name) = copy else { throw ProtocolError("no framebuffer") }
        return SnapshotResult(framebuffer: fb, desktopName: name, cursor: cursor,
                              updates: updates, serverClosed: serverClosed, securityType: security)
    }
}

extension Snapshot {
    /// A question the session could not answer itself, put to the caller's prompts (headless
    /// commands: a terminal, or a refusal that says what to give).
    static func answer(_ ev: EngineEvent, _ session: Session, _ options: SnapshotOptions) {
        switch ev {
        case .credentialsRequired(let req):
            let saved = session.takeCredentialPrefill()
            let hasSaved = saved != nil
            if let ask = options.askCredentials, let c = ask(req, saved) { session.provideCredentials(c) }
            else { session.cancelLogin(hasSaved ? req.savedNotSentRefusal : req.unansweredRefusal) }
        case .trustRequired(let id):
            switch options.trust?(id) ?? .reject(id.unansweredRefusal) {
            case .accept: session.answerTrust(accepted: true)
            case .known: session.answerTrustKnown()
            case .reject(let why): session.cancelLogin(why)
            }
        default: break
        }
    }
}

/// A wake-up a thread can sleep on: rung from any thread, remembered until waited for.
final class EventBell: @unchecked Sendable {
    private let cond = NSCondition()
    private var rung = false

    func ring() { cond.lock(); rung = true; cond.signal(); cond.unlock() }

    /// Returns when rung (or already rung since the last wait), or after `seconds`.
    func wait(seconds: Double) {
        cond.lock()
        defer { rung = false; cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        while !rung { if !cond.wait(until: deadline) { return } }
    }
}

/// Hands a value out once (a connected transport to the session's connector).
final class OneShot<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    init(_ v: T) { value = v }
    func take() -> T? { lock.withLock { defer { value = nil }; return value } }
}
