import CSDL2
import Interaction

extension Overlay {
    /// The PIN pad's geometry in output pixels: the panel, where the dots and the message go,
    /// and each key's rect in `PinPad.keys` order.
    struct PinPadLayout {
        var frame: SDL_Rect
        var titleY: Int
        var dotsY: Int
        var messageY: Int
        var keys: [SDL_Rect]
    }

    /// The PIN keypad, centred: a title, a dot per digit typed, the last message, a 3x4 grid
    /// of keys 72 points square (well over the 48 a finger needs) and Cancel.
    func layoutPinPad(outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> PinPadLayout {
        let px = max(7, Int(Overlay.menuPoints * scale)), big = max(9, Int(Overlay.statusPoints * 1.3 * scale))
        let pad8 = Int(8 * scale), key = Int(72 * scale), gap = Int(10 * scale)
        let gridW = 3 * key + 2 * gap
        let ts = text.size(Overlay.pinTitle, px)
        let w = min(ow, max(gridW, ts.w) + 4 * pad8)
        let line = text.size("0", big).h
        let h = min(oh, 2 * pad8 + ts.h + pad8 + line + pad8 + ts.h + pad8 + 4 * key + 3 * gap + gap + Int(48 * scale) + 2 * pad8)
        let x = (ow - w) / 2, y = (oh - h) / 2
        var cy = y + 2 * pad8
        let titleY = cy
        cy += ts.h + pad8
        let dotsY = cy
        cy += line + pad8
        let messageY = cy
        cy += ts.h + pad8
        var rects: [SDL_Rect] = []
        let gx = x + (w - gridW) / 2
        for (i, k) in PinPad.keys.enumerated() {
            if k == .cancel {
                rects.append(SDL_Rect(x: Int32(gx), y: Int32(cy + 4 * (key + gap)), w: Int32(gridW), h: Int32(48 * scale)))
            } else {
                rects.append(SDL_Rect(x: Int32(gx + (i % 3) * (key + gap)), y: Int32(cy + (i / 3) * (key + gap)), w: Int32(key), h: Int32(key)))
            }
        }
        return PinPadLayout(frame: SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h)),
                            titleY: titleY, dotsY: dotsY, messageY: messageY, keys: rects)
    }

    static let pinTitle = "Enter the PIN to open the menu"

    /// Draws the pad where `l` says.
    func pinPad(_ pad: PinPad, _ l: PinPadLayout, scale: Double) {
        let px = max(7, Int(Overlay.menuPoints * scale)), big = max(9, Int(Overlay.statusPoints * 1.3 * scale))
        let x = Int(l.frame.x), w = Int(l.frame.w)
        panel(x, Int(l.frame.y), w, Int(l.frame.h), radius: Int(12 * scale), color: Overlay.panelColor)
        let ts = text.size(Overlay.pinTitle, px)
        text.draw(Overlay.pinTitle, px, x: x + (w - ts.w) / 2, y: l.titleY, color: Overlay.textColor)
        let dots = pad.entered.isEmpty ? " " : String(repeating: "●", count: pad.entered.count)
        let ds = text.size(dots, big)
        text.draw(dots, big, x: x + (w - ds.w) / 2, y: l.dotsY, color: Overlay.textColor)
        if let m = pad.message {
            let ms = text.size(m, px)
            text.draw(m, px, x: x + (w - ms.w) / 2, y: l.messageY, color: Overlay.recordColor)
        }
        for (k, r) in zip(PinPad.keys, l.keys) {
            panel(Int(r.x), Int(r.y), Int(r.w), Int(r.h), radius: Int(8 * scale),
                  color: k == .ok ? Overlay.selectColor : Overlay.trackColor)
            let label = PinPad.label(k)
            let s = text.size(label, big)
            text.draw(label, big, x: Int(r.x) + (Int(r.w) - s.w) / 2, y: Int(r.y) + (Int(r.h) - s.h) / 2, color: Overlay.textColor)
        }
    }
}
