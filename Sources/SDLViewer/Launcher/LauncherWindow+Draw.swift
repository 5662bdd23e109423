import CSDL2
import Foundation
import Interaction
import VNCSession

/// Drawing the launcher: the layout is in window points, drawn at the renderer's pixels per
/// point (HiDPI), with the overlays' panels and text.
extension LauncherWindow {
    static let background = SDL_Color(r: 30, g: 32, b: 39, a: 255)
    static let rowColor = SDL_Color(r: 42, g: 45, b: 54, a: 255)
    static let errorColor = SDL_Color(r: 255, g: 150, b: 140, a: 255)
    static let tagColors: [String: SDL_Color] = [
        "red": SDL_Color(r: 224, g: 82, b: 82, a: 255), "orange": SDL_Color(r: 236, g: 145, b: 60, a: 255),
        "yellow": SDL_Color(r: 230, g: 200, b: 70, a: 255), "green": SDL_Color(r: 90, g: 180, b: 100, a: 255),
        "blue": SDL_Color(r: 80, g: 140, b: 230, a: 255), "purple": SDL_Color(r: 160, g: 105, b: 210, a: 255),
        "grey": SDL_Color(r: 140, g: 140, b: 150, a: 255),
    ]

    func draw() {
        guard let renderer, let overlay, let window else { return }
        var ww: Int32 = 0, wh: Int32 = 0, ow: Int32 = 0, oh: Int32 = 0
        SDL_GetWindowSize(window, &ww, &wh)
        SDL_GetRendererOutputSize(renderer, &ow, &oh)
        guard ww > 0, wh > 0 else { return }
        let s = Double(ow) / Double(ww)
        let kh = keyboardShown ? OnScreenKeyboard.preferredHeight(windowWidth: Double(ww), windowHeight: Double(wh)) : 0
        state.layout(width: Double(ww), height: Double(wh), touch: touchInput, keyboardHeight: kh)
        let c = LauncherWindow.background
        SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, 255)
        SDL_RenderClear(renderer)
        let d = Drawer(o: overlay, s: s, touch: touchInput)
        switch state.mode {
        case .list, .confirmDelete: drawList(d)
        case .form(let f): drawForm(f, d)
        }
        if case .confirmDelete(let it) = state.mode { drawConfirm(it, d, Int(ow), Int(oh)) }
        if let note = state.notice, state.mode == .list {
            let px = d.px(13), lh = overlay.text.lineHeight(px)
            let wrap = Int(ow) - d.i(48)
            let h = overlay.text.wrappedSize(note, px, wrap: wrap).h + lh / 2
            let y = Int(oh) - d.i(kh) - h - d.i(12)
            overlay.panel(d.i(16), y, Int(ow) - d.i(32), h, radius: d.i(8), color: Overlay.panelColor)
            overlay.text.draw(note, px, x: d.i(24), y: y + lh / 4, color: Overlay.textColor, wrap: wrap)
        }
        if keyboardShown, let k = state.layout.keyboard { drawKeyboard(k, d) }
        SDL_RenderPresent(renderer)
    }

    /// Points → pixels and font sizes for one frame.
    struct Drawer {
        let o: Overlay
        let s: Double
        let touch: Bool
        func i(_ v: Double) -> Int { Int((v * s).rounded()) }
        func px(_ pt: Double) -> Int { max(7, Int(pt * (touch ? 1.2 : 1) * s)) }
        func rect(_ r: ViewRect) -> (x: Int, y: Int, w: Int, h: Int) { (i(r.x), i(r.y), i(r.w), i(r.h)) }
        func panel(_ r: ViewRect, _ c: SDL_Color, radius: Double = 8) {
            let p = rect(r)
            o.panel(p.x, p.y, p.w, p.h, radius: i(radius), color: c)
        }
        /// Text vertically centred in `r`, from `dx` points in, kept inside `r` (`dx` from its
        /// right edge too): a text wider than that is cut there, or, with `showEnd` (a field
        /// being typed in), shows its end.
        func label(_ t: String, _ pt: Double, in r: ViewRect, dx: Double = 12, color: SDL_Color = Overlay.textColor,
                   showEnd: Bool = false) {
            let p = px(pt), h = o.text.lineHeight(p), box = rect(r)
            let room = box.w - 2 * i(dx)
            guard room > 0 else { return }
            var x = box.x + i(dx)
            if showEnd { x -= max(0, o.text.size(t, p).w - room) }
            clipped(SDL_Rect(x: Int32(box.x + i(dx)), y: Int32(box.y), w: Int32(room), h: Int32(box.h))) {
                o.text.draw(t, p, x: x, y: box.y + (box.h - h) / 2, color: color)
            }
        }

        /// Draws with the renderer clipped to `r` within any clip already set, then puts that back.
        func clipped(_ r: SDL_Rect, _ body: () -> Void) {
            var outer = SDL_Rect(), inner = r, wanted = r
            let had = SDL_RenderIsClipEnabled(o.renderer) == SDL_TRUE
            if had {
                SDL_RenderGetClipRect(o.renderer, &outer)
                var both = SDL_Rect()
                if SDL_IntersectRect(&outer, &wanted, &both) == SDL_FALSE { return }
                inner = both
            }
            SDL_RenderSetClipRect(o.renderer, &inner)
            body()
            if had { SDL_RenderSetClipRect(o.renderer, &outer) } else { SDL_RenderSetClipRect(o.renderer, nil) }
        }
        func centred(_ t: String, _ pt: Double, in r: ViewRect, color: SDL_Color = Overlay.textColor) {
            let p = px(pt), m = o.text.size(t, p)
            let h = o.text.lineHeight(p)
            o.text.draw(t, p, x: i(r.x) + (i(r.w) - m.w) / 2, y: i(r.y) + (i(r.h) - h) / 2, color: color)
        }
    }

    func drawList(_ d: Drawer) {
        let l = state.layout
        d.panel(l.queryField, Overlay.fieldColor)
        if state.query.isEmpty {
            d.label("Connect to… host:display, vnc://host — or type to filter", 15, in: l.queryField, dx: 14, color: Overlay.dimTextColor)
        } else {
            d.label(state.query + "▏", 15, in: l.queryField, dx: 14, showEnd: true)
        }
        d.panel(l.newButton, Overlay.selectColor)
        d.centred("+ New", 15, in: l.newButton)
        guard let renderer else { return }
        var clip = SDL_Rect(x: 0, y: Int32(d.i(l.listArea.y)), w: Int32(d.i(l.listArea.w)), h: Int32(d.i(l.listArea.h)))
        SDL_RenderSetClipRect(renderer, &clip)
        defer { SDL_RenderSetClipRect(renderer, nil) }
        if state.rows.isEmpty {
            let box = ViewRect(x: l.listArea.x + 32, y: l.listArea.y + 40, w: l.listArea.w - 64, h: 120)
            let p = d.px(16)
            d.o.text.draw("No saved connections yet.\nType an address above and press Enter to connect, or Ctrl+N (+ New) to save one.\nDrop a .tigervnc or .remmina file here to import it.",
                          p, x: d.i(box.x), y: d.i(box.y), color: Overlay.dimTextColor, wrap: d.i(box.w))
            return
        }
        for h in l.headers where h.frame.y + h.frame.h > l.listArea.y && h.frame.y < l.listArea.y + l.listArea.h {
            d.label(h.title.uppercased(), 12, in: h.frame, dx: 4, color: Overlay.dimTextColor)
        }
        for (i, row) in state.rows.enumerated() {
            guard let r = l.rowFrames[safe: i], r.y + r.h > l.listArea.y, r.y < l.listArea.y + l.listArea.h else { continue }
            d.panel(r, i == state.selected ? Overlay.selectColor : LauncherWindow.rowColor)
            switch row {
            case .quickConnect(let a):
                d.label("Connect to \(a)", 17, in: r, dx: 20)
            case .item(let it):
                drawItem(it, r, d, editButton: l.editButtons[safe: i])
            }
        }
    }

    func drawItem(_ it: LauncherItem, _ r: ViewRect, _ d: Drawer, editButton: ViewRect?) {
        if let tag = LauncherWindow.tagColors[it.colour] {
            d.panel(ViewRect(x: r.x, y: r.y, w: 8, h: r.h), tag, radius: 4)
        }
        // the last session's screen, 16:10, or an empty frame
        let th = r.h - 16, tw = th * 1.6
        let tr = ViewRect(x: r.x + 18, y: r.y + 8, w: tw, h: th)
        d.panel(tr, Overlay.fieldColor, radius: 4)
        if let renderer, let t = thumbnail(it.address) {
            let f = min(tr.w / Double(t.w), tr.h / Double(t.h))
            let w = Double(t.w) * f, h = Double(t.h) * f
            var dst = SDL_Rect(x: Int32(d.i(tr.x + (tr.w - w) / 2)), y: Int32(d.i(tr.y + (tr.h - h) / 2)), w: Int32(d.i(w)), h: Int32(d.i(h)))
            SDL_RenderCopy(renderer, t.tex, nil, &dst)
        }
        let tx = tr.x + tr.w + 16
        let p1 = d.px(17), p2 = d.px(13)
        let h1 = d.o.text.lineHeight(p1), h2 = d.o.text.lineHeight(p2)
        let top = d.i(r.y) + (d.i(r.h) - h1 - h2) / 2
        d.o.text.draw(it.title, p1, x: d.i(tx), y: top, color: Overlay.textColor)
        let sub = it.title == it.address ? it.detail : "\(it.address) · \(it.detail)"
        d.o.text.draw(sub, p2, x: d.i(tx), y: top + h1, color: Overlay.dimTextColor)
        if let b = editButton {
            d.panel(b, Overlay.promptButtonColor)
            d.centred(it.kind == .saved ? "Edit" : "Save", 14, in: b)
        }
    }

    func thumbnail(_ address: String) -> (tex: OpaquePointer, w: Int, h: Int)? {
        if let t = thumbnails[address] { return t }
        let t = renderer.flatMap { SessionThumbnail.texture($0, path: SessionThumbnails.path(for: address, in: thumbnailDirectory)) }
        thumbnails[address] = t
        return t
    }

    func drawForm(_ f: LauncherForm, _ d: Drawer) {
        let l = state.layout
        d.o.text.draw(f.title, d.px(20), x: d.i(16), y: d.i(14), color: Overlay.textColor)
        if let e = f.error { d.o.text.draw(e, d.px(14), x: d.i(16), y: d.i(50), color: LauncherWindow.errorColor) }
        guard let renderer else { return }
        var clip = SDL_Rect(x: 0, y: Int32(d.i(l.formArea.y)), w: Int32(d.i(l.formArea.w)), h: Int32(d.i(l.formArea.h)))
        SDL_RenderSetClipRect(renderer, &clip)
        for (i, field) in f.fields.enumerated() {
            guard let r = l.fieldFrames[safe: i] else { continue }
            let labelW = min(200.0, r.w * 0.4)
            d.label(field.label, 15, in: ViewRect(x: r.x, y: r.y, w: labelW, h: r.h), dx: 0, color: Overlay.dimTextColor)
            let box = ViewRect(x: r.x + labelW, y: r.y, w: r.w - labelW, h: r.h)
            if i == f.focus { d.panel(ViewRect(x: box.x - 2, y: box.y - 2, w: box.w + 4, h: box.h + 4), Overlay.selectColor, radius: 9) }
            d.panel(box, Overlay.fieldColor)
            switch field.kind {
            case .text:
                d.label(field.value + (i == f.focus ? "▏" : ""), 15, in: box, showEnd: i == f.focus)
            case .choice:
                d.label("‹  \(LauncherForm.display(field))  ›", 15, in: box)
            case .toggle:
                let on = field.value == "yes"
                let pill = ViewRect(x: box.x + 10, y: box.y + (box.h - 28) / 2, w: 52, h: 28)
                d.panel(pill, on ? Overlay.selectColor : Overlay.promptButtonColor, radius: 14)
                d.panel(ViewRect(x: pill.x + (on ? 27 : 3), y: pill.y + 3, w: 22, h: 22), Overlay.textColor, radius: 11)
                d.label(on ? "On" : "Off", 15, in: ViewRect(x: pill.x + pill.w, y: box.y, w: 80, h: box.h))
            }
        }
        SDL_RenderSetClipRect(renderer, nil)
        for (j, b) in f.buttons.enumerated() {
            guard let r = l.buttonFrames[safe: j] else { continue }
            let focused = f.focus == f.fields.count + j
            d.panel(r, focused || (b == .save && f.focus < f.fields.count) ? Overlay.selectColor : Overlay.promptButtonColor)
            d.centred(b.rawValue, 15, in: r)
        }
        let hint = "Tab / ↑↓ move · ←→ change · Enter saves · Esc cancels"
        // in the gap above the buttons, so four buttons on a narrow window never cover it; left
        // out where the fields reach down to the buttons (the on-screen keyboard is up)
        let hintY = (l.buttonFrames.first?.y ?? 0) - 26
        if hintY >= l.formArea.y + l.formArea.h {
            d.o.text.draw(hint, d.px(12), x: d.i(16), y: d.i(hintY), color: Overlay.dimTextColor)
        }
    }

    func drawConfirm(_ it: LauncherItem, _ d: Drawer, _ ow: Int, _ oh: Int) {
        d.o.dim(ow, oh)
        let l = state.layout
        d.panel(l.confirmFrame, Overlay.panelColor, radius: 12)
        d.label("Delete “\(it.title)”?", 18, in: ViewRect(x: l.confirmFrame.x, y: l.confirmFrame.y + 12, w: l.confirmFrame.w, h: 40), dx: 20)
        d.label("The saved settings go; a saved password stays in its store.", 13,
                in: ViewRect(x: l.confirmFrame.x, y: l.confirmFrame.y + 48, w: l.confirmFrame.w, h: 24), dx: 20, color: Overlay.dimTextColor)
        d.panel(l.confirmYes, SDL_Color(r: 190, g: 70, b: 70, a: 255))
        d.centred("Delete", 15, in: l.confirmYes)
        d.panel(l.confirmNo, Overlay.promptButtonColor)
        d.centred("Keep", 15, in: l.confirmNo)
    }

    func drawKeyboard(_ frame: ViewRect, _ d: Drawer) {
        keyboard.layout(in: frame)
        d.panel(frame, SDL_Color(r: 20, g: 22, b: 27, a: 255), radius: 0)
        for kf in keyboard.keyFrames {
            let key = OnScreenKeyboard.rows[kf.row][kf.index]
            let down = keyboard.isHeld(key) || keyboard.isLatched(key)
            d.panel(kf.rect, down ? Overlay.keyDownColor : Overlay.keyColor, radius: 5)
            d.centred(keyboard.label(key), 15, in: kf.rect)
        }
    }
}

private extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
