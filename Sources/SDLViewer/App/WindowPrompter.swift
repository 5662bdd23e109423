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
/// engine on its own thread. Nothing blocks and no lock changes hands.
public final class WindowPrompter {
    public enum Answer: Equatable { case credentials(Credentials?), trust(Bool) }

    private var pending: PromptRequest?
    private var shown = false
    private let deliver: (Answer) -> Void
    private var closed = false
    /// True when the user cancelled the last credential prompt (the window then says
    /// "authentication cancelled").
    public private(set) var cancelledAuthentication = false

    public init(deliver: @escaping (Answer) -> Void) { self.deliver = deliver }

    /// A question arrived; a newer one replaces one not answered yet.
    func post(_ r: PromptRequest) {
        guard !closed else { return }
        pending = r
        shown = false
        if case .credentials = r { cancelledAuthentication = false }
    }

    /// A request not shown yet (each is handed out once).
    func takeRequest() -> PromptRequest? {
        guard let p = pending, !shown else { return nil }
        shown = true
        return p
    }

    func respond(_ a: Answer) {
        guard pending != nil, !closed else { return }
        pending = nil
        if case .credentials(nil) = a { cancelledAuthentication = true }
        deliver(a)
    }

    /// The window is going away: a question still open is cancelled, later ones are dropped.
    func detach() {
        if let p = pending {
            switch p {
            case .credentials: respond(.credentials(nil))
            case .trust: respond(.trust(false))
            }
        }
        closed = true
    }
}

extension Credentials: Equatable {
    public static func == (a: Credentials, b: Credentials) -> Bool { a.username == b.username && a.password == b.password }
}
