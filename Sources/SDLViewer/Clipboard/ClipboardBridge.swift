import CSDL2
import RFB
import VNCSession

/// Which way clipboard text flows (`--clipboard both|send|receive|off`).
public enum ClipboardDirection: String, Sendable, CaseIterable {
    case both, send, receive, off
    var sends: Bool { self == .both || self == .send }
    var receives: Bool { self == .both || self == .receive }
}

/// The local (SDL) clipboard and the session's cut text. Main thread only (SDL's clipboard
/// calls and events live there).
///
/// With `primary` (`--clipboard-primary`, like TigerVNC's SetPrimary/SendPrimary) the X
/// PRIMARY selection takes part too: the server's text is put on both, and a change of either
/// is sent. SDL 2.26 has no XFixes selection tracking: it reports SDL_CLIPBOARDUPDATE only
/// when we lose ownership of CLIPBOARD or PRIMARY (SelectionClear), and the event does not
/// say which, so both are read on every update and when the window gains focus (another
/// program may have set one while we did not own it).
///
/// No echo: what each local selection held when last looked at (or set by us) is remembered,
/// so only a selection whose text really changed is considered; and a text equal to the one
/// last exchanged with the server is not sent back.
final class ClipboardBridge {
    enum Selection: CaseIterable { case clipboard, primary }

    let session: Session
    let direction: ClipboardDirection
    let primary: Bool
    /// The text the server and we last agreed on.
    private(set) var lastText: String?
    /// Each local selection's text when last read or set by us.
    private var seen: [Selection: String] = [:]

    /// Tests replace SDL's calls.
    var getText: (Selection) -> String? = ClipboardBridge.sdlGet
    var setText: (Selection, String) -> Bool = ClipboardBridge.sdlSet
    var send: (String) -> Void

    init(session: Session, direction: ClipboardDirection, primary: Bool = false) {
        self.session = session
        self.direction = direction
        self.primary = primary
        send = { [session] text in session.sendCutText(text) }
    }

    var selections: [Selection] { primary ? [.clipboard, .primary] : [.clipboard] }

    /// SDL_CLIPBOARDUPDATE or focus gained: a local selection that changed goes to the server
    /// unless it is what the server just gave us. With the Extended Clipboard this only
    /// announces it: the text is compressed and sent on the session thread when asked.
    func localClipboardChanged() {
        guard direction.sends else { return }
        for sel in selections {
            guard let text = getText(sel), text != seen[sel] else { continue }
            seen[sel] = text
            guard text != lastText else { continue }
            lastText = text
            send(text)
        }
    }

    /// `.cutText` from the server: onto the local clipboard (and PRIMARY when asked).
    func serverText(_ text: String) {
        guard direction.receives else { return }
        lastText = text
        for sel in selections {
            seen[sel] = text
            if !setText(sel, text) {
                session.log("clipboard: setting the \(sel) selection failed: \(String(cString: SDL_GetError()))")
            }
        }
    }

    static func sdlGet(_ sel: Selection) -> String? {
        let has = sel == .clipboard ? SDL_HasClipboardText() : SDL_HasPrimarySelectionText()
        guard has == SDL_TRUE, let p = sel == .clipboard ? SDL_GetClipboardText() : SDL_GetPrimarySelectionText()
        else { return nil }
        defer { SDL_free(p) }
        return String(cString: p)
    }

    /// A C string ends at the first NUL: the text SDL can carry.
    static func sdlSet(_ sel: Selection, _ text: String) -> Bool {
        (sel == .clipboard ? SDL_SetClipboardText(text) : SDL_SetPrimarySelectionText(text)) == 0
    }
}
