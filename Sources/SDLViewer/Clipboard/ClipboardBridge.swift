import CSDL2
import RFB
import VNCSession

/// The local (SDL) clipboard and the session's cut text. Main thread only (SDL's clipboard
/// calls and events live there).
///
/// With `primary` (`--clipboard-primary`, like TigerVNC's SetPrimary/SendPrimary) the X
/// PRIMARY selection takes part too: the server's text is put on both, and a change of either
/// is sent.
///
/// On X11 the local selections are read by our own `X11SelectionReader` (SDL 2.26 cannot read
/// an INCR transfer, and reports SDL_CLIPBOARDUPDATE only when we lose ownership), on Wayland by
/// our own `WaylandSelections` (SDL 2.26 reads uncapped on the main thread and cuts slow owners
/// short), which also serves what we set there: each reads a selection when another program
/// takes it and hands the text back here through `takeReads`; SDL's reading calls are then never
/// used. Elsewhere (KMSDRM) SDL reads both selections on every update and when the window gains
/// focus (another program may have set one while we did not own it). Setting goes through SDL
/// except on Wayland. The window picks the reader by video driver (`startSelectionReader`).
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

    /// Our own reader (X11 or Wayland), when there is one: it alone reads the local selections.
    var reader: LocalSelections?
    /// SDL's calls unless the window replaces them (Wayland: ours); tests replace them too.
    var getText: (Selection) -> String? = ClipboardBridge.sdlGet
    /// nil when set, else why not.
    var setText: (Selection, String) -> String? = ClipboardBridge.sdlSet
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
    /// announces it: the text is compressed and sent on the session thread when asked. With
    /// our own reader the selections are read on its threads (`takeReads` gets them).
    func localClipboardChanged() {
        guard direction.sends else { return }
        if let reader { reader.request(selections); return }
        for sel in selections {
            if let text = getText(sel) { localText(text, sel) }
        }
    }

    /// A local selection's text (read through SDL or the reader), sent when it changed.
    func localText(_ text: String, _ sel: Selection) {
        guard direction.sends, selections.contains(sel), text != seen[sel] else { return }
        seen[sel] = text
        guard text != lastText else { return }
        lastText = text
        send(text)
    }

    /// Main thread, on the reader's wake-up: its texts go through `localText`; returns the
    /// ones refused for size as `.cutTextNotSent`, for the window's usual notice.
    func takeReads() -> [EngineEvent] {
        guard let reader else { return [] }
        var refused: [EngineEvent] = []
        for (sel, r) in reader.takeResults() {
            switch r {
            case .text(let t):
                session.log("clipboard: read the local \(sel) selection (\(t.utf8.count) bytes)")
                localText(t, sel)
            case .tooLarge(let n): refused.append(.cutTextNotSent(length: n, limit: reader.cap))
            case .failed(let why): session.log("clipboard: the local \(sel) selection was not read: \(why)")
            case .empty, .ours: break
            }
        }
        return refused
    }

    /// `.cutText` from the server: onto the local clipboard (and PRIMARY when asked).
    func serverText(_ text: String) {
        guard direction.receives else { return }
        lastText = text
        for sel in selections {
            seen[sel] = text
            if let why = setText(sel, text) {
                session.log("clipboard: setting the \(sel) selection failed: \(why)")
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
    static func sdlSet(_ sel: Selection, _ text: String) -> String? {
        (sel == .clipboard ? SDL_SetClipboardText(text) : SDL_SetPrimarySelectionText(text)) == 0 ? nil : String(cString: SDL_GetError())
    }
}
