import CSDL2
import Foundation
import Interaction
import RFB

/// The prompt on screen (main thread): a login form with a masked password, or the question
/// whether to trust an unknown certificate or RSA-AES key. Keys and clicks go here and never
/// to the server while it is up.
final class CredentialPrompt {
    enum Field: Hashable { case username, password, accept, cancel }
    enum Outcome: Equatable { case ignored, redraw, submit, cancel }

    let request: PromptRequest
    private(set) var username: String
    /// UTF-8 bytes typed so far; `passwordLengths` has each character's byte count (Backspace).
    private(set) var password: [UInt8] = []
    private var passwordLengths: [Int] = []
    private(set) var focus: Field
    /// Where the fields and buttons are, in window points (set by the window after layout).
    var hitRects: [Field: ViewRect] = [:]

    init(_ request: PromptRequest) {
        self.request = request
        switch request {
        case .credentials(let req, let user):
            username = user ?? ""
            focus = req.needsUsername && username.isEmpty ? .username : .password
        case .trust:
            username = ""
            focus = .cancel   // accepting takes a deliberate choice
        }
    }

    deinit { wipe() }

    var isTrust: Bool { if case .trust = request { return true } else { return false } }
    var needsUsername: Bool { if case .credentials(let r, _) = request { return r.needsUsername } else { return false } }
    var passwordCount: Int { passwordLengths.count }

    /// The fields Tab goes through, in order.
    var fields: [Field] { isTrust ? [.accept, .cancel] : (needsUsername ? [.username, .password] : [.password]) }

    /// One SDL event; `.submit` and `.cancel` end the prompt.
    func handle(_ e: SDL_Event) -> Outcome {
        switch e.type {
        case SDL_TEXTINPUT.rawValue:
            guard !isTrust else { return .ignored }
            let s = withUnsafeBytes(of: e.text.text) { raw -> String in
                let b = raw.bindMemory(to: UInt8.self)
                return String(decoding: b.prefix { $0 != 0 }, as: UTF8.self)
            }
            insert(s)
            return .redraw
        case SDL_KEYDOWN.rawValue:
            let sym = e.key.keysym.sym
            let shift = (UInt32(e.key.keysym.mod) & KMOD_SHIFT.rawValue) != 0
            switch sym {
            case Int32(SDLK_ESCAPE.rawValue):
                return .cancel
            case Int32(SDLK_TAB.rawValue):
                moveFocus(shift ? -1 : 1); return .redraw
            case Int32(SDLK_LEFT.rawValue), Int32(SDLK_RIGHT.rawValue), Int32(SDLK_UP.rawValue), Int32(SDLK_DOWN.rawValue):
                guard isTrust else { return .ignored }
                moveFocus(1); return .redraw
            case Int32(SDLK_RETURN.rawValue), Int32(SDLK_KP_ENTER.rawValue):
                if isTrust { return focus == .accept ? .submit : .cancel }
                if focus == .username { focus = .password; return .redraw }
                if needsUsername && username.isEmpty { focus = .username; return .redraw }
                return .submit
            case Int32(SDLK_BACKSPACE.rawValue):
                backspace(); return .redraw
            default:
                return .ignored
            }
        case SDL_MOUSEBUTTONDOWN.rawValue:
            let p = ViewPoint(x: Double(e.button.x), y: Double(e.button.y))
            guard let hit = hitRects.first(where: { $0.value.contains(p) })?.key else { return .ignored }
            switch hit {
            case .accept: return .submit
            case .cancel: return .cancel
            case .username, .password: focus = hit; return .redraw
            }
        default:
            return .ignored
        }
    }

    func insert(_ s: String) {
        for ch in s where !ch.isNewline && ch != "\t" {
            switch focus {
            case .username: username.append(ch)
            case .password:
                let b = Array(String(ch).utf8)
                password += b
                passwordLengths.append(b.count)
            default: break
            }
        }
    }

    func backspace() {
        switch focus {
        case .username: if !username.isEmpty { username.removeLast() }
        case .password:
            guard let n = passwordLengths.popLast() else { return }
            for i in (password.count - n)..<password.count { password[i] = 0 }
            password.removeLast(n)
        default: break
        }
    }

    func moveFocus(_ by: Int) {
        let f = fields
        guard let i = f.firstIndex(of: focus) else { focus = f[0]; return }
        focus = f[(i + by + f.count) % f.count]
    }

    /// The credentials typed; the prompt's own copy of the password is zeroed.
    func takeCredentials() -> Credentials {
        let c = Credentials(username: needsUsername ? username : "", password: password)
        wipe()
        return c
    }

    /// Overwrites the password bytes (Swift may have copied them elsewhere; this is the copy we own).
    func wipe() {
        password.withUnsafeMutableBufferPointer { b in
            for i in b.indices { b[i] = 0 }
        }
        password.removeAll()
        passwordLengths.removeAll()
    }

    // MARK: text shown

    var title: String {
        switch request {
        case .credentials(let r, _):
            return r.needsUsername ? "Log in to \(r.server)" : "Password for \(r.server)"
        case .trust(let id):
            return id.kind == .x509 ? "Unknown certificate from \(id.server)" : "Unknown RSA-AES key of \(id.server)"
        }
    }

    /// Lines under the title (dimmer).
    var details: [String] {
        switch request {
        case .credentials(let r, _):
            return ["Security: \(r.method)"]
        case .trust(let id):
            var l: [String] = []
            if let e = id.verifyError { l.append("Not verified: \(e)") } else { l.append("No authority vouches for this key.") }
            if let s = id.subject { l.append("Subject: \(s)") }
            l.append(id.kind == .x509 ? "SHA-256 fingerprint:" : "Fingerprint:")
            return l
        }
    }

    var fingerprint: String? { if case .trust(let id) = request { return id.displayFingerprint } else { return nil } }

    var hint: String {
        isTrust ? "Compare the fingerprint with the server's · Tab switches · Enter chooses · Esc cancels"
                : "Tab next field · Enter logs in · Esc cancels"
    }

    static let bullet = "•"
}
