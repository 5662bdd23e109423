import Foundation
import RFB

/// What the session asks the window (from its `.credentialsRequired` / `.trustRequired` events).
public enum PromptRequest: Sendable {
    /// User name (when the security type needs one) and password; `username` pre-fills the field.
    case credentials(CredentialRequest, username: String?)
    /// An identity no authority vouches for: accept (and remember) or cancel.
    case trust(ServerIdentity)
}

/// The questions waiting for the window and where the answers go (main thread only). The
/// session's events post them; the prompt on screen answers them; `deliver` hands the answer
/// to the session (`provideCredentials`, `answerTrust`, `cancelLogin`), which passes it to the
/// engine on its own thread. Nothing blocks and no lock changes hands. Credentials are handed
/// over, never copied: a saved value to fill in (`post(_:prefill:)`) goes to the prompt, and
/// what the prompt gives back goes to `deliver`.
public final class WindowPrompter {
    public enum Answer: ~Copyable { case credentials(Credentials?), trust(Bool) }

    private var pending: PromptRequest?
    private var prefill: Credentials?
    private var shown = false
    private let deliver: (consuming Answer) -> Void
    private var closed = false
    /// True when the user cancelled the last credential prompt (the window then says
    /// "authentication cancelled").
    public private(set) var cancelledAuthentication = false

    public init(deliver: @escaping (consuming Answer) -> Void) { self.deliver = deliver }

    /// A question arrived; a newer one replaces one not answered yet. `prefill`: a saved value
    /// the session would not send on its own, to fill in.
    func post(_ r: PromptRequest, prefill: consuming Credentials? = nil) {
        guard !closed else { return }
        pending = r
        self.prefill = prefill
        shown = false
        if case .credentials = r { cancelledAuthentication = false }
    }

    /// A request not shown yet (each is handed out once).
    func takeRequest() -> PromptRequest? {
        guard let p = pending, !shown else { return nil }
        shown = true
        return p
    }

    /// The saved value to fill in for the request just taken (once).
    func takePrefill() -> Credentials? { prefill.take() }

    func respond(credentials c: consuming Credentials?) {
        guard pending != nil, !closed else { return }
        pending = nil
        prefill = nil
        if c == nil { cancelledAuthentication = true }
        deliver(.credentials(c))
    }

    func respond(trust accepted: Bool) {
        guard pending != nil, !closed else { return }
        pending = nil
        deliver(.trust(accepted))
    }

    /// The window is going away: a question still open is cancelled, later ones are dropped.
    func detach() {
        if let p = pending {
            switch p {
            case .credentials: respond(credentials: nil)
            case .trust: respond(trust: false)
            }
        }
        prefill = nil
        closed = true
    }
}
