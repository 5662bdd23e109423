import Foundation
import RFB

/// The front end's side of the command queue. Each call records a command and wakes the
/// session thread, which alone talks to the engine and writes to the transport: a slow server
/// or a large clipboard text can block only that thread, never the render loop.
extension Session {
    enum Command {
        case pointer(x: Int, y: Int, buttons: UInt16)
        case key(UInt32, down: Bool, xtKeycode: UInt32?)
        case desktopSize(width: Int, height: Int, screens: [Screen]?)
        case updateRequest(incremental: Bool)
        /// `pendingCredentials` holds them (not copyable, so not in this queue).
        case credentials
        /// `known`: the identity is the one remembered (decided by the front end's evaluator).
        case trust(accepted: Bool, known: Bool)
        case cancelLogin(String)
        case relativePointer(dx: Int, dy: Int, buttons: UInt16)
        case power(XvpAction)
        case audio(Bool)
    }

    /// Queues `c` when `allowed` (checked under the lock) and wakes the session thread.
    @discardableResult
    func enqueue(_ c: Command, when allowed: (State) -> Bool = { $0 == .ready }) -> Bool {
        let queued: Bool = lock.withLock {
            guard allowed(_state) else { return false }
            commands.append(c)
            return true
        }
        if queued { signalSessionThread() }
        return queued
    }

    /// Pointer event in framebuffer coordinates (clamped to it). Dropped unless ready: input
    /// made while disconnected is never replayed late.
    public func sendPointer(x: Int, y: Int, buttons: UInt16) {
        enqueue(.pointer(x: x, y: y, buttons: buttons))
    }

    /// Key event; `xtKeycode` is used when the server takes QEMU Extended Key Events. Dropped
    /// unless ready.
    public func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32? = nil) {
        enqueue(.key(keysym, down: down, xtKeycode: xtKeycode))
    }

    /// A relative pointer motion (QEMU's relative mode, pointer captured). Dropped unless ready.
    public func sendRelativePointer(dx: Int, dy: Int, buttons: UInt16) {
        enqueue(.relativePointer(dx: dx, dy: dy, buttons: buttons))
    }

    /// xvp: shut down, reboot or reset the server's machine. Dropped unless ready.
    public func sendPowerAction(_ a: XvpAction) {
        enqueue(.power(a))
    }

    /// QEMU audio on or off. Dropped unless ready.
    public func setAudio(_ on: Bool) {
        enqueue(.audio(on))
    }

    /// Asks for an update of the whole framebuffer (non-incremental: everything again). Dropped
    /// unless ready.
    public func requestUpdate(incremental: Bool) {
        enqueue(.updateRequest(incremental: incremental))
    }

    /// A local clipboard text for the server (returns at once). It is converted and compressed
    /// on a worker (Latin-1 for the classic message, logging what cannot be carried), then the
    /// session thread sends it. Dropped unless ready.
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
            if current { signalSessionThread() }
        }
    }

    /// SetDesktopSize: the answer arrives as `.desktopSizeRequestResult`. Throws
    /// `DesktopSizeRequestError` without sending when not ready, unsupported or invalid.
    public func requestDesktopSize(width: Int, height: Int, screens: [Screen]? = nil) throws {
        let (ready, server) = lock.withLock { (_state == .ready, published.server) }
        guard ready else { throw DesktopSizeRequestError("not connected") }
        let list = try ClientEngine.desktopSizeScreens(width: width, height: height, screens: screens,
                                                       supported: server.supportsSetDesktopSize, current: server.screenLayout)
        enqueue(.desktopSize(width: width, height: height, screens: list))
    }

    // MARK: answers to the engine's questions (after `.credentialsRequired` / `.trustRequired`)

    /// Only while the handshake waits: a late answer to a connection that is gone is dropped.
    private static func handshaking(_ s: State) -> Bool { s == .authenticating }

    /// The credentials the user typed for `.credentialsRequired` (handed over, not copied).
    public func provideCredentials(_ c: consuming Credentials) {
        lock.lock()
        guard Session.handshaking(_state) else { lock.unlock(); return }
        pendingCredentials = consume c
        commands.append(.credentials)
        lock.unlock()
        wake()
    }

    /// A saved value for the question just asked, which the session would not send on its own
    /// (`.ask(prefill:)`): for the front end to fill in. Taken once; nil when there is none.
    public func takeCredentialPrefill() -> Credentials? {
        lock.lock()
        defer { lock.unlock() }
        return credentialPrefill.take()
    }

    /// The user's decision on `.trustRequired` (an accepted identity is remembered).
    public func answerTrust(accepted: Bool) {
        enqueue(.trust(accepted: accepted, known: false), when: Session.handshaking)
    }

    /// An identity the front end's evaluator found to be the one remembered for this server
    /// (`TrustDecision.known`): accepted, and the channel counts as authenticated.
    public func answerTrustKnown() {
        enqueue(.trust(accepted: true, known: true), when: Session.handshaking)
    }

    /// Nobody can answer (the user cancelled, no terminal): the connection fails with `reason`
    /// and is not retried.
    public func cancelLogin(_ reason: String = "authentication cancelled") {
        enqueue(.cancelLogin(reason), when: Session.handshaking)
    }
}
