import CSDL2
import Interaction

extension Overlay {
    static let keyColor = SDL_Color(r: 58, g: 62, b: 72, a: 235)
    static let keyDownColor = SDL_Color(r: 110, g: 150, b: 220, a: 255)

    /// The on-screen keyboard, laid out in window points (`vp` converts to output pixels).
    func keyboard(_ k: OnScreenKeyboard, _ vp: Viewport, outputWidth ow: Int, outputHeight oh: Int) {
        func out(_ r: ViewRect) -> (x: Int, y: Int, w: Int, h: Int) {
            let a = vp.toOutput(ViewPoint(x: r.x, y: r.y)), b = vp.toOutput(ViewPoint(x: r.x + r.w, y: r.y + r.h))
            return (Int(a.x.rounded()), Int(a.y.rounded()), Int((b.x - a.x).rounded()), Int((b.y - a.y).rounded()))
        }
        let f = out(k.frame)
        // an opaque band: the desktop above is not drawn here
        panel(f.x, f.y, max(f.w, ow - f.x), f.h, radius: 0, color: SDL_Color(r: 20, g: 22, b: 27, a: 255))
        let scale = vp.pixelsPerPointY
        for kf in k.keyFrames {
            let key = OnScreenKeyboard.rows[kf.row][kf.index]
            let r = out(kf.rect)
            let down = k.isHeld(key) || k.isLatched(key)
            panel(r.x, r.y, r.w, r.h, radius: Int(5 * scale), color: down ? Overlay.keyDownColor : Overlay.keyColor)
            let label = k.label(key)
            // the label fits the key: about half its height, smaller for long names
            var px = max(7, min(r.h / 2, Int(16 * scale)))
            while px > 7 && text.size(label, px).w > r.w - 4 { px -= 1 }
            let m = text.size(label, px)
            text.draw(label, px, x: r.x + (r.w - m.w) / 2, y: r.y + (r.h - m.h) / 2, color: Overlay.textColor)
        }
    }
}
