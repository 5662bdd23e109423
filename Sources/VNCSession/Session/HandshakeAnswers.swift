import Foundation
import RFB

/// Asks the user for credentials the session could not answer itself (a terminal prompt for
/// `snapshot`, tests); `saved` is a saved value the session would not send on its own (the
/// channel does not prove who the server is), to offer. Called on the front end's thread,
/// never inside the engine, so it may block.
public typealias CredentialProvider = @Sendable (CredentialRequest, _ saved: borrowing Credentials?) -> Credentials?
/// Same thread rules as `CredentialProvider`.
public typealias TrustEvaluator = @Sendable (ServerIdentity) -> TrustDecision

/// The session's own answer to a credentials question.
public enum CredentialAnswer: ~Copyable, Sendable {
    /// Send these.
    case use(Credentials)
    /// Ask the user; `prefill` is a saved value to fill in (sent only if the user confirms it).
    case ask(prefill: Credentials?)
}

/// What a session answers on its own, on the session thread, before a question reaches the
/// front end: credentials the user gave (environment, password file) or saved, identities
/// already known. A question none of these answers goes to the front end as an event.
public struct HandshakeAnswers: Sendable {
    /// Credentials without asking the user, or what to fill in when asking.
    public var credentials: @Sendable (CredentialRequest) -> CredentialAnswer
    /// A decision without asking the user; nil: ask.
    public var trust: @Sendable (ServerIdentity) -> TrustDecision?
    /// The user accepted an identity: remember it. Returns the decision (a refusal when it
    /// cannot be remembered).
    public var accepted: @Sendable (ServerIdentity) -> TrustDecision
    /// The user typed these credentials (kept, e.g. for `--save-password`, only when asked).
    public var typed: @Sendable (CredentialRequest, borrowing Credentials) -> Void
    /// The login to `server` (its identity) succeeded with `method` (the session reached
    /// ServerInit), its identity checked as `identity`: remembered as the least this host may
    /// offer next time, and (a certificate an authority verified) as a host whose identity is known.
    public var loggedIn: @Sendable (_ server: String, _ method: SecurityMethod?, _ identity: PeerIdentityCheck) -> Void
    /// The strongest method `server` was reached with before (downgrade protection).
    public var reachedBefore: @Sendable (_ server: String) -> SecurityMethod?

    public init(credentials: @escaping @Sendable (CredentialRequest) -> CredentialAnswer = { _ in .ask(prefill: nil) },
                trust: @escaping @Sendable (ServerIdentity) -> TrustDecision? = { _ in nil },
                accepted: @escaping @Sendable (ServerIdentity) -> TrustDecision = { _ in .accept },
                typed: @escaping @Sendable (CredentialRequest, borrowing Credentials) -> Void = { _, _ in },
                loggedIn: @escaping @Sendable (String, SecurityMethod?, PeerIdentityCheck) -> Void = { _, _, _ in },
                reachedBefore: @escaping @Sendable (String) -> SecurityMethod? = { _ in nil }) {
        self.credentials = credentials; self.trust = trust; self.accepted = accepted
        self.typed = typed; self.loggedIn = loggedIn; self.reachedBefore = reachedBefore
    }

    /// Nothing answered on its own: every question goes to the front end.
    public static let none = HandshakeAnswers()

    /// From what the user gave, the credential store and the known hosts: given or saved
    /// credentials (noted for saving), known identities accepted, changed ones refused, new
    /// ones accepted and remembered when `trustNew` (for a host never reached before),
    /// otherwise asked.
    public static func standard(given: CredentialSources, recorder: CredentialRecorder,
                                knownHosts: KnownHosts, trustNew: Bool) -> HandshakeAnswers {
        HandshakeAnswers(
            credentials: recorder.answer(given: given),
            trust: { id in knownHosts.decision(id, acceptNew: trustNew) },
            accepted: { id in knownHosts.acceptAndRemember(id) },
            typed: { req, c in recorder.noteTyped(req, c) },
            loggedIn: { server, method, identity in
                if let method { knownHosts.rememberSecurity(server: server, method) }
                if case .authority(let fingerprint) = identity { knownHosts.rememberVerified(server: server, fingerprint: fingerprint) }
            },
            reachedBefore: { server in knownHosts.strongestSecurity(server: server) })
    }
}

extension ServerIdentity {
    /// What the user can do about an identity that did not verify, by the reason (OpenSSL's
    /// verify error); names the command-line options that help.
    public var remedy: String {
        guard kind == .x509 else { return "Accept it once with --trust-new-certificate" }
        let e = (verifyError ?? "").lowercased()
        if e.contains("expired") {
            return "The certificate has expired: renew it on the server (--trust-new-certificate would accept and remember this expired one)"
        }
        if e.contains("not yet valid") {
            return "The certificate is not valid yet: check the clocks of this machine and the server"
        }
        if e.contains("hostname mismatch") {
            return "Connect by a name the certificate holds, or accept it once with --trust-new-certificate"
        }
        return "Give its CA with --x509-ca FILE, or accept it once with --trust-new-certificate"
    }

    /// The refusal when nobody could be asked.
    public var unansweredRefusal: String {
        switch kind {
        case .x509:
            return "the certificate of \(server) did not verify (\(verifyError ?? "unknown reason")); SHA-256 fingerprint \(displayFingerprint). \(remedy)"
        case .rsa:
            return "the RSA-AES key of \(server) is not known; fingerprint \(displayFingerprint). \(remedy)"
        }
    }
}

extension CredentialRequest {
    /// The refusal when a saved password was not sent on its own (the channel does not prove
    /// who the server is) and nobody could be asked whether to send it.
    public var savedNotSentRefusal: String {
        "a password is saved for \(server), but \(method) does not prove that this is that server (no certificate or key checked), so it is not sent without asking: run on a terminal to confirm it, or give it with VNC_PASSWORD (or --password-file)"
    }

    /// The refusal when credentials are missing and nobody could be asked.
    public var unansweredRefusal: String {
        needsUsername
            ? "server requires a user name and password (\(method)): set VNC_USERNAME and VNC_PASSWORD (or --password-file), or run on a terminal to be asked"
            : "server requires a VNC password: give --password-file FILE or set VNC_PASSWORD"
    }
}
