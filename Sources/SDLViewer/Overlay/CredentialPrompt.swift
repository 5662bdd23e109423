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
    /// The longest password taken (the terminal's bound too).
    static let maxPassword = 4096
    /// UTF-8 bytes typed so far, in storage of their own that never moves (appending leaves no
    /// old copy behind) and is zeroed when the prompt goes; `passwordLengths` has each
    /// character's byte count (Backspace).
    private(set) var password = Secret(capacity: CredentialPrompt.maxPassword)
    private var passwordLengths: [Int] = []
    /// The password shown was filled in from the saved one (the session would not send it on
    /// its own: the channel does not prove who the server is).
    private(set) var filledFromSaved = false
    private(set) var focus: Field
    /// Where the fields and buttons are, in window points (set by the window after layout).
    var hitRects: [Field: ViewRect] = [:]

    init(_ request: PromptRequest, prefill: consuming Credentials? = nil) {
        self.request = request
        switch request {
        case .credentials(let req, let user):
            username = user ?? ""
            focus = req.needsUsername && username.isEmpty ? .username : .password
        case .trust:
            username = ""
            focus = .cancel   // accepting takes a deliberate choice
        }
        if case .credentials(let req, _) = request, let saved = prefill {
            if req.needsUsername && !saved.username.isEmpty { username = saved.username }
            saved.password.withBytes { b in
                guard password.append(b) else { return }
                // one bullet per character: a new one at each byte that does not continue one
                for byte in b { if byte & 0xc0 != 0x80 || passwordLengths.isEmpty { passwordLengths.append(1) } else { passwordLengths[passwordLengths.count - 1] += 1 } }
            }
            filledFromSaved = !password.isEmpty
            // the saved password is there: Enter sends it (after the user name, when one is missing)
            focus = req.needsUsername && username.isEmpty ? .username : .password
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
                var one = String(ch)   // one character: held inline, no heap copy
                let n = one.withUTF8 { u in password.append(UnsafeRawBufferPointer(u)) ? u.count : 0 }
                if n > 0 { passwordLengths.append(n) }
            default: break
            }
        }
    }

    func backspace() {
        switch focus {
        case .username: if !username.isEmpty { username.removeLast() }
        case .password:
            guard let n = passwordLengths.popLast() else { return }
            password.removeLast(n)
        default: break
        }
    }

    func moveFocus(_ by: Int) {
        let f = fields
        guard let i = f.firstIndex(of: focus) else { focus = f[0]; return }
        focus = f[(i + by + f.count) % f.count]
    }

    /// The credentials typed, handed over; the prompt's own bytes are zeroed.
    func takeCredentials() -> Credentials {
        let c = Credentials(username: needsUsername ? username : "", password: password.duplicate())
        wipe()
        return c
    }

    /// Zeroes the password (its storage is the only copy the prompt has).
    func wipe() {
        password.wipe()
        passwordLengths.removeAll()
        filledFromSaved = false
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
            guard filledFromSaved else { return ["Security: \(r.method)"] }
            return ["Security: \(r.method)", "The saved password is filled in: \(r.method) does not prove who the server is."]
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
