import CSDL2
import Interaction
import RFB

extension Overlay {
    static let pickerTitle = "Choose a screen"
    static let pickerHint = "Click or tap a screen · arrows or 1–9 · 0 or A for all · Enter · Esc"

    /// The screen picker: the remote screens to scale with live thumbnails (the framebuffer
    /// texture's part for each screen) and their numbers, the highlighted one outlined, the one
    /// shown marked, and the "All screens" button. Geometry in window points (`vp` converts).
    func picker(_ p: ScreenPicker, _ g: PickerGeometry, _ vp: Viewport, thumbnails frame: FrameRenderer) {
        let scale = vp.pixelsPerPointY
        func out(_ r: ViewRect) -> SDL_Rect {
            let a = vp.toOutput(ViewPoint(x: r.x, y: r.y)), b = vp.toOutput(ViewPoint(x: r.x + r.w, y: r.y + r.h))
            return SDL_Rect(x: Int32(a.x.rounded()), y: Int32(a.y.rounded()), w: Int32((b.x - a.x).rounded()), h: Int32((b.y - a.y).rounded()))
        }
        let box = out(g.box)
        let tpx = max(8, Int(Overlay.statusPoints * scale)), hpx = max(7, Int(Overlay.hintPoints * scale))
        let title = text.size(Overlay.pickerTitle, tpx), hint = text.size(Overlay.pickerHint, hpx)
        // the panel holds the title above the miniature's box and the hint below it; nearly
        // opaque, so the desktop behind does not show through between the tiles
        let pad = Int(10 * scale)
        let top = Int(box.y) - title.h - 2 * pad, bottom = Int(box.y + box.h) + hint.h + 2 * pad
        panel(Int(box.x), top, Int(box.w), bottom - top, radius: Int(12 * scale), color: SDL_Color(r: 24, g: 26, b: 32, a: 248))
        text.draw(Overlay.pickerTitle, tpx, x: Int(box.x) + (Int(box.w) - title.w) / 2, y: top + pad, color: Overlay.textColor)
        text.draw(Overlay.pickerHint, hpx, x: Int(box.x) + (Int(box.w) - hint.w) / 2, y: bottom - pad - hint.h, color: Overlay.dimTextColor)
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        for t in g.tiles {
            var dst = out(t.rect)
            // the screen's live content, scaled down
            if !frame.drawThumbnail(t.screen.rect, into: dst) {
                SDL_SetRenderDrawColor(renderer, 40, 44, 52, 255)
                SDL_RenderFillRect(renderer, &dst)
            }
            let highlighted = p.highlight == t.choice, current = p.current == t.choice
            outline(dst, width: Int(((highlighted ? 4 : 1.5) * scale).rounded()),
                    color: highlighted ? Overlay.selectColor : current ? Overlay.textColor : SDL_Color(r: 150, g: 158, b: 170, a: 255))
            // the number, large, on a dark disc in the middle of the tile
            let npx = max(10, min(Int(dst.h) / 3, Int(40 * scale)))
            let label = "\(t.number)"
            let m = text.size(label, npx)
            let d = max(m.w, m.h) + Int(10 * scale)
            let cx = Int(dst.x) + Int(dst.w) / 2, cy = Int(dst.y) + Int(dst.h) / 2
            panel(cx - d / 2, cy - d / 2, d, d, radius: d / 2, color: highlighted ? Overlay.selectColor : SDL_Color(r: 20, g: 22, b: 27, a: 210))
            text.draw(label, npx, x: cx - m.w / 2, y: cy - m.h / 2, color: Overlay.textColor)
            // size under the number, when the tile has room
            let size = "\(t.screen.width)×\(t.screen.height)\(current ? " · shown" : "")"
            let sm = text.size(size, hpx)
            if sm.w < Int(dst.w) - 8, Int(dst.h) > d + 2 * sm.h + 8 {
                panel(cx - sm.w / 2 - 4, cy + d / 2 + 4, sm.w + 8, sm.h, radius: 4, color: SDL_Color(r: 20, g: 22, b: 27, a: 190))
                text.draw(size, hpx, x: cx - sm.w / 2, y: cy + d / 2 + 4, color: Overlay.textColor)
            }
        }
        let all = out(g.allButton)
        let allHighlighted = p.highlight == .all
        panel(Int(all.x), Int(all.y), Int(all.w), Int(all.h), radius: Int(6 * scale),
              color: allHighlighted ? Overlay.selectColor : SDL_Color(r: 58, g: 62, b: 72, a: 235))
        let allLabel = p.current == .all ? "All screens · shown" : "All screens"
        let am = text.size(allLabel, hpx + 1)
        text.draw(allLabel, hpx + 1, x: Int(all.x) + (Int(all.w) - am.w) / 2, y: Int(all.y) + (Int(all.h) - am.h) / 2, color: Overlay.textColor)
    }

    /// A rectangle's border, `width` output pixels inside it.
    func outline(_ r: SDL_Rect, width: Int, color: SDL_Color) {
        let w = Int32(max(1, width))
        SDL_SetRenderDrawColor(renderer, color.r, color.g, color.b, color.a)
        var edges = [SDL_Rect(x: r.x, y: r.y, w: r.w, h: w), SDL_Rect(x: r.x, y: r.y + r.h - w, w: r.w, h: w),
                     SDL_Rect(x: r.x, y: r.y, w: w, h: r.h), SDL_Rect(x: r.x + r.w - w, y: r.y, w: w, h: r.h)]
        SDL_RenderFillRects(renderer, &edges, 4)
    }
}
