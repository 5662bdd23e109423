import CSDL2
import Interaction

/// The F8 menu (`ViewerMenu`), laid out and drawn in output pixels.
extension Overlay {
    static let menuTitle = "Farcast"
    static let menuHint = "F8 again sends F8 · Esc closes"

    /// `scale`: output pixels per point the menu was laid out at (and is drawn at).
    typealias MenuLayout = (frame: SDL_Rect, rows: [SDL_Rect], titleY: Int, hintY: Int, scale: Double)

    /// Menu geometry in output pixels: panel and one rect per row (centred in the output). A
    /// window too small for the menu at `scale` gets it smaller, down to half size, rather than
    /// cut off (a small window on a HiDPI output: a 1024x768 desktop 1:1 is 512x384 points).
    func layoutMenu(_ menu: ViewerMenu, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> MenuLayout {
        let l = layoutMenuAt(menu, outputWidth: ow, outputHeight: oh, scale: scale)
        let margin = 0.96
        let fit = min(1, Double(ow) * margin / Double(max(1, l.frame.w)), Double(oh) * margin / Double(max(1, l.frame.h)))
        guard fit < 1 else { return l }
        return layoutMenuAt(menu, outputWidth: ow, outputHeight: oh, scale: scale * max(0.5, fit))
    }

    private func layoutMenuAt(_ menu: ViewerMenu, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> MenuLayout {
        let px = max(8, Int(Overlay.menuPoints * scale)), hpx = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(10 * scale), rowH = text.lineHeight(px) + Int(10 * scale), sep = Int(9 * scale)
        let check = Int(26 * scale)
        var w = max(text.size(Overlay.menuTitle, px).w, text.size(Overlay.menuHint, hpx).w)
        for it in menu.items { w = max(w, text.size(it.title, px).w + check) }
        w += 2 * pad + Int(24 * scale)
        let titleH = text.lineHeight(px) + Int(8 * scale)
        let hintH = text.lineHeight(hpx) + Int(6 * scale)
        var h = 2 * pad + titleH + hintH
        for it in menu.items { h += rowH + (it.separatorAbove ? sep : 0) }
        let x = max(0, (ow - w) / 2), y = max(0, (oh - h) / 2)
        var rows: [SDL_Rect] = []
        var ry = y + pad + titleH
        for it in menu.items {
            if it.separatorAbove { ry += sep }
            rows.append(SDL_Rect(x: Int32(x + pad / 2), y: Int32(ry), w: Int32(w - pad), h: Int32(rowH)))
            ry += rowH
        }
        return (SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h)), rows, y + pad, ry + Int(4 * scale), scale)
    }

    func menu(_ menu: ViewerMenu, outputWidth ow: Int, outputHeight oh: Int, scale: Double) {
        self.menu(menu, layoutMenu(menu, outputWidth: ow, outputHeight: oh, scale: scale))
    }

    /// Draws the menu where and at the scale `l` says.
    func menu(_ menu: ViewerMenu, _ l: MenuLayout) {
        let scale = l.scale
        let px = max(8, Int(Overlay.menuPoints * scale)), hpx = max(7, Int(Overlay.hintPoints * scale))
        panel(Int(l.frame.x), Int(l.frame.y), Int(l.frame.w), Int(l.frame.h), radius: Int(10 * scale), color: Overlay.panelColor)
        let pad = Int(10 * scale), check = Int(26 * scale)
        text.draw(Overlay.menuTitle, px, x: Int(l.frame.x) + pad + check / 2, y: l.titleY, color: Overlay.dimTextColor)
        let lh = text.lineHeight(px)
        for (i, it) in menu.items.enumerated() {
            let r = l.rows[i]
            if it.separatorAbove {
                SDL_SetRenderDrawColor(renderer, 255, 255, 255, 40)
                var rule = SDL_Rect(x: r.x + Int32(pad / 2), y: r.y - Int32(5 * scale), w: r.w - Int32(pad), h: Int32(max(1, Int(scale))))
                SDL_RenderFillRect(renderer, &rule)
            }
            if i == menu.selected { panel(Int(r.x), Int(r.y), Int(r.w), Int(r.h), radius: Int(5 * scale), color: Overlay.selectColor) }
            let ty = Int(r.y) + (Int(r.h) - lh) / 2
            if it.checked { text.draw("✓", px, x: Int(r.x) + pad / 2 + Int(4 * scale), y: ty, color: Overlay.textColor) }
            text.draw(it.title, px, x: Int(r.x) + pad / 2 + check, y: ty, color: Overlay.textColor)
        }
        text.draw(Overlay.menuHint, hpx, x: Int(l.frame.x) + pad + check / 2, y: l.hintY, color: Overlay.dimTextColor)
    }
}
