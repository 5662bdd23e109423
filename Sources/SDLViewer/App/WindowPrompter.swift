import CSDL2
import Foundation
import Interaction
import RFB

/// What the session thread asks the window.
public enum PromptRequest: Sendable {
    /// User name (when the security type needs one) and password; `username` pre-fills the field.
    case credentials(CredentialRequest, username: String?)
    /// An identity no authority vouches for: accept (and remember) or cancel.
    case trust(ServerIdentity)
}

/// The bridge between the engine's credential provider / trust evaluator (called on the session
/// thread, allowed to block) and the window (main thread): `credentials(_:username:)` and
/// `trust(_:)` post the request, wake the SDL loop and wait until the window answers or closes.
public final class WindowPrompter: @unchecked Sendable {
    enum Answer { case credentials(Credentials?), trust(Bool) }

    private let cond = NSCondition()
    private var pending: PromptRequest?
    private var shown = false
    private var answer: Answer?
    private var closed = false
    private var notify: (@Sendable () -> Void)?
    private var _cancelled = false

    /// A lock the asking thread holds while the engine runs (the session's `lock`: the engine
    /// calls the provider inside `Session`'s locked receive). It is released while waiting for
    /// the user so the main thread, which takes it to read state and pixels, keeps running;
    /// taken again before returning. Set before the session starts; nil when nothing is held.
    public var unlockWhileWaiting: NSLock?

    public init() {}

    /// True when the user cancelled the last credential prompt (the session then fails with
    /// the engine's "no credentials" error; the window says "authentication cancelled").
    public var cancelledAuthentication: Bool { cond.withLock { _cancelled } }

    // MARK: session thread

    /// Blocks until the user logs in (credentials) or cancels (nil).
    public func credentials(_ req: CredentialRequest, username: String?) -> Credentials? {
        guard case .credentials(let c)? = ask(.credentials(req, username: username)) else { return nil }
        return c
    }

    /// Blocks until the user accepts (true) or cancels (false).
    public func trust(_ id: ServerIdentity) -> Bool {
        guard case .trust(let ok)? = ask(.trust(id)) else { return false }
        return ok
    }

    private func ask(_ r: PromptRequest) -> Answer? {
        cond.lock()
        guard !closed, let notify else { cond.unlock(); return nil }
        pending = r; shown = false; answer = nil; _cancelled = false
        cond.unlock()
        let held = unlockWhileWaiting
        held?.unlock()
        defer { held?.lock() }
        notify()
        cond.lock()
        defer { cond.unlock() }
        while answer == nil && !closed { cond.wait() }
        let a = answer
        answer = nil; pending = nil; shown = false
        return a
    }

    // MARK: main thread

    /// The window is up: `notify` wakes its loop (any thread).
    func attach(notify: @escaping @Sendable () -> Void) {
        cond.withLock { self.notify = notify; closed = false }
    }

    /// The window is going away: a waiting request ends as cancelled, later ones fail at once.
    func detach() {
        cond.withLock { closed = true; notify = nil; cond.broadcast() }
    }

    /// A request not shown yet (each is handed out once).
    func takeRequest() -> PromptRequest? {
        cond.withLock {
            guard let p = pending, !shown, answer == nil else { return nil }
            shown = true
            return p
        }
    }

    func respond(_ a: Answer) {
        cond.withLock {
            guard pending != nil, answer == nil else { return }
            if case .credentials(nil) = a { _cancelled = true }
            answer = a
            cond.broadcast()
        }
    }
}
