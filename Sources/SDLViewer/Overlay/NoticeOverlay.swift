import CSDL2

extension Overlay {
    /// A transient notice: one line in a small panel near the bottom edge; returns its rect.
    @discardableResult
    func notice(_ message: String, outputWidth ow: Int, outputHeight oh: Int, scale: Double, bottomInset: Int = 0) -> SDL_Rect {
        let px = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(10 * scale)
        let wrap = max(100, ow * 9 / 10 - 2 * pad)
        let m = text.wrappedSize(message, px, wrap: wrap)
        let w = min(ow, m.w + 2 * pad), h = min(oh, m.h + 2 * pad)
        let x = (ow - w) / 2, y = max(0, oh - bottomInset - h - Int(24 * scale))
        panel(x, y, w, h, radius: Int(8 * scale), color: Overlay.panelColor)
        text.draw(message, px, x: x + (w - m.w) / 2, y: y + pad, color: Overlay.textColor, wrap: wrap)
        return SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h))
    }
}
