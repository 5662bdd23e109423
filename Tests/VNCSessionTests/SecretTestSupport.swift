import RFB
@testable import VNCSession

/// Tests compare passwords as arrays (a test may copy a secret; the viewer never does).
extension Credentials {
    var passwordBytes: [UInt8] { password.withBytes { Array($0) } }
}

extension CredentialAnswer {
    /// The password sent on its own, or nil when the user is asked.
    consuming func used() -> (username: String, password: [UInt8])? {
        switch consume self {
        case .use(let c): return (c.username, c.passwordBytes)
        case .ask: return nil
        }
    }

    /// What the user is asked with: nil when sent on its own; .some(nil) when asked with nothing filled in.
    consuming func asked() -> [UInt8]?? {
        switch consume self {
        case .use: return nil
        case .ask(let prefill):
            guard let p = prefill else { return .some(nil) }
            return .some(p.passwordBytes)
        }
    }
}
