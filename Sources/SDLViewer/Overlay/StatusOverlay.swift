import CSDL2

extension Overlay {
    /// A centred panel with a message and an optional hint line below it; returns its rect.
    @discardableResult
    func status(_ message: String, hint: String?, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> SDL_Rect {
        let px = max(8, Int(Overlay.statusPoints * scale)), hpx = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(18 * scale), gap = Int(8 * scale)
        let wrap = max(100, ow * 8 / 10 - 2 * pad)
        let m = text.wrappedSize(message, px, wrap: wrap)
        let hs: (w: Int, h: Int) = hint.map { text.size($0, hpx) } ?? (w: 0, h: 0)
        let w = min(ow, max(m.w, hs.w, Int(240 * scale)) + 2 * pad)
        let h = m.h + (hint != nil ? gap + hs.h : 0) + 2 * pad
        let x = (ow - w) / 2, y = (oh - h) / 2
        panel(x, y, w, h, radius: Int(10 * scale), color: Overlay.panelColor)
        text.draw(message, px, x: x + (w - m.w) / 2, y: y + pad, color: Overlay.textColor, wrap: wrap)
        if let hint { text.draw(hint, hpx, x: x + (w - hs.w) / 2, y: y + pad + m.h + gap, color: Overlay.dimTextColor) }
        return SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h))
    }
}
