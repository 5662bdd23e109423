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
/// No echo: the text last taken from or given to the server is remembered, and a local
/// clipboard update carrying that same text (SDL reports our own SDL_SetClipboardText too)
/// is not sent back.
final class ClipboardBridge {
    let session: Session
    let direction: ClipboardDirection
    /// The text the server and we last agreed on.
    private(set) var lastText: String?

    init(session: Session, direction: ClipboardDirection) {
        self.session = session
        self.direction = direction
    }

    /// SDL_CLIPBOARDUPDATE: the local clipboard changed; its text goes to the server unless it
    /// is what the server just gave us. With the Extended Clipboard this only announces it: the
    /// text is compressed and sent on the session thread when the server asks.
    func localClipboardChanged() {
        guard direction.sends, SDL_HasClipboardText() == SDL_TRUE, let p = SDL_GetClipboardText() else { return }
        defer { SDL_free(p) }
        let text = String(cString: p)
        guard text != lastText else { return }
        lastText = text
        session.sendCutText(text)
    }

    /// `.cutText` from the server: onto the local clipboard.
    func serverText(_ text: String) {
        guard direction.receives else { return }
        lastText = text
        // a C string ends at the first NUL: the text SDL can carry
        if SDL_SetClipboardText(text) != 0 {
            session.log("clipboard: SDL_SetClipboardText failed: \(String(cString: SDL_GetError()))")
        }
    }
}
