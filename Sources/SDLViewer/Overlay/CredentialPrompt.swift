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

extension Overlay {
    struct PromptLayout {
        var frame: SDL_Rect
        var fields: [CredentialPrompt.Field: SDL_Rect]
        var titleY: Int
        var detailY: [Int]
        var fingerprintY: Int
        var labelY: [CredentialPrompt.Field: Int]
        var hintY: Int
    }

    static let promptButtonColor = SDL_Color(r: 52, g: 56, b: 66, a: 255)
    static let fieldColor = SDL_Color(r: 12, g: 13, b: 16, a: 235)

    /// The prompt's geometry in output pixels (centred).
    func layoutPrompt(_ p: CredentialPrompt, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> PromptLayout {
        let px = max(8, Int(Overlay.statusPoints * scale)), mpx = max(8, Int(Overlay.menuPoints * scale))
        let hpx = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(20 * scale), gap = Int(8 * scale)
        let lh = text.lineHeight(mpx), hlh = text.lineHeight(hpx)
        let fieldH = lh + Int(12 * scale)
        var w = max(Int(380 * scale), text.size(p.title, px).w, text.size(p.hint, hpx).w)
        for d in p.details { w = max(w, text.size(d, hpx).w) }
        if let f = p.fingerprint { w = max(w, text.size(f, hpx).w) }
        w = min(ow, w + 2 * pad)
        var y = pad
        let titleY = y
        y += text.lineHeight(px) + gap
        var detailY: [Int] = []
        for _ in p.details { detailY.append(y); y += hlh }
        var fingerprintY = 0
        if p.fingerprint != nil { fingerprintY = y; y += hlh }
        y += gap
        var fields: [CredentialPrompt.Field: SDL_Rect] = [:]
        var labelY: [CredentialPrompt.Field: Int] = [:]
        if p.isTrust {
            let bw = (w - 2 * pad - gap) / 2
            fields[.accept] = SDL_Rect(x: Int32(pad), y: Int32(y), w: Int32(bw), h: Int32(fieldH))
            fields[.cancel] = SDL_Rect(x: Int32(pad + bw + gap), y: Int32(y), w: Int32(bw), h: Int32(fieldH))
            y += fieldH + gap
        } else {
            for f in p.fields {
                labelY[f] = y
                y += hlh + Int(2 * scale)
                fields[f] = SDL_Rect(x: Int32(pad), y: Int32(y), w: Int32(w - 2 * pad), h: Int32(fieldH))
                y += fieldH + gap
            }
        }
        let hintY = y
        y += hlh + pad
        let h = y
        let x0 = max(0, (ow - w) / 2), y0 = max(0, (oh - h) / 2)
        func shift(_ r: SDL_Rect) -> SDL_Rect { SDL_Rect(x: r.x + Int32(x0), y: r.y + Int32(y0), w: r.w, h: r.h) }
        return PromptLayout(frame: SDL_Rect(x: Int32(x0), y: Int32(y0), w: Int32(w), h: Int32(h)),
                            fields: fields.mapValues(shift), titleY: y0 + titleY, detailY: detailY.map { $0 + y0 },
                            fingerprintY: y0 + fingerprintY, labelY: labelY.mapValues { $0 + y0 }, hintY: y0 + hintY)
    }

    /// Draws the prompt; returns its layout (output pixels).
    @discardableResult
    func prompt(_ p: CredentialPrompt, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> PromptLayout {
        let px = max(8, Int(Overlay.statusPoints * scale)), mpx = max(8, Int(Overlay.menuPoints * scale))
        let hpx = max(7, Int(Overlay.hintPoints * scale))
        let l = layoutPrompt(p, outputWidth: ow, outputHeight: oh, scale: scale)
        let x = Int(l.frame.x), w = Int(l.frame.w), pad = Int(20 * scale)
        panel(x, Int(l.frame.y), w, Int(l.frame.h), radius: Int(10 * scale), color: Overlay.panelColor)
        text.draw(p.title, px, x: x + pad, y: l.titleY, color: Overlay.textColor)
        for (i, d) in p.details.enumerated() { text.draw(d, hpx, x: x + pad, y: l.detailY[i], color: Overlay.dimTextColor) }
        if let f = p.fingerprint { text.draw(f, hpx, x: x + pad, y: l.fingerprintY, color: Overlay.textColor) }
        let lh = text.lineHeight(mpx)
        let ring = max(1, Int(2 * scale))
        for f in p.fields {
            guard let r = l.fields[f] else { continue }
            let focused = p.focus == f
            if focused {
                panel(Int(r.x) - ring, Int(r.y) - ring, Int(r.w) + 2 * ring, Int(r.h) + 2 * ring, radius: Int(6 * scale), color: Overlay.selectColor)
            }
            let ty = Int(r.y) + (Int(r.h) - lh) / 2
            switch f {
            case .accept, .cancel:
                panel(Int(r.x), Int(r.y), Int(r.w), Int(r.h), radius: Int(5 * scale), color: focused ? Overlay.selectColor : Overlay.promptButtonColor)
                let label = f == .accept ? "Accept and remember" : "Cancel"
                let s = text.size(label, mpx)
                text.draw(label, mpx, x: Int(r.x) + (Int(r.w) - s.w) / 2, y: ty, color: Overlay.textColor)
            case .username, .password:
                if let ly = l.labelY[f] {
                    text.draw(f == .username ? "User name" : "Password", hpx, x: Int(r.x), y: ly, color: Overlay.dimTextColor)
                }
                panel(Int(r.x), Int(r.y), Int(r.w), Int(r.h), radius: Int(5 * scale), color: Overlay.fieldColor)
                let shown = f == .username ? p.username : String(repeating: CredentialPrompt.bullet, count: p.passwordCount)
                let tx = Int(r.x) + Int(8 * scale)
                let drawn = text.draw(shown, mpx, x: tx, y: ty, color: Overlay.textColor)
                if focused {
                    // the caret after the text
                    SDL_SetRenderDrawColor(renderer, 236, 239, 244, 255)
                    var caret = SDL_Rect(x: Int32(tx + drawn.w + Int(1 * scale)), y: Int32(ty), w: Int32(max(1, Int(scale))), h: Int32(lh))
                    SDL_RenderFillRect(renderer, &caret)
                }
            }
        }
        let hs = text.size(p.hint, hpx)
        text.draw(p.hint, hpx, x: x + (w - hs.w) / 2, y: l.hintY, color: Overlay.dimTextColor)
        return l
    }
}
