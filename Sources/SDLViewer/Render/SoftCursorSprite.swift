import CSDL2
import Interaction
import RFB

/// Trackpad mode's soft cursor: the server's cursor shape (Cursor pseudo-encoding) or a default
/// arrow, kept as a texture and drawn with its hot spot on the cursor's pixel. Main thread only.
final class SoftCursorSprite {
    let renderer: OpaquePointer
    private var texture: OpaquePointer?
    private(set) var size = (w: 0, h: 0)
    private(set) var hot = (x: 0, y: 0)

    init(renderer: OpaquePointer) {
        self.renderer = renderer
        setImage(nil)
    }
    deinit { if let texture { SDL_DestroyTexture(texture) } }

    /// A 12×19 arrow, black with a white outline, hot spot at the tip.
    static let arrowPattern = [
        "w           ",
        "ww          ",
        "wbw         ",
        "wbbw        ",
        "wbbbw       ",
        "wbbbbw      ",
        "wbbbbbw     ",
        "wbbbbbbw    ",
        "wbbbbbbbw   ",
        "wbbbbbbbbw  ",
        "wbbbbbbbbbw ",
        "wbbbbbbwwwww",
        "wbbbwbbw    ",
        "wbbwwbbw    ",
        "wbw  wbbw   ",
        "ww   wbbw   ",
        "w     wbbw  ",
        "      wbbw  ",
        "       ww   ",
    ]

    static var arrow: CursorImage {
        let px = arrowPattern.flatMap { row in row.map { ch -> UInt32 in ch == "b" ? 0xff00_0000 : ch == "w" ? 0xffff_ffff : 0 } }
        return CursorImage(width: 12, height: 19, hotX: 0, hotY: 0, argb: px)
    }

    /// The server's shape, or the arrow for nil or an empty (invisible) shape: a soft cursor
    /// that cannot be seen cannot be steered.
    func setImage(_ c: CursorImage?) {
        let img: CursorImage
        if let c, !c.isEmpty, c.argb.count >= c.width * c.height { img = c } else { img = SoftCursorSprite.arrow }
        if let texture { SDL_DestroyTexture(texture) }
        texture = nil
        guard let t = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue, Int32(SDL_TEXTUREACCESS_STATIC.rawValue),
                                        Int32(img.width), Int32(img.height)) else { return }
        img.argb.withUnsafeBytes { b in _ = SDL_UpdateTexture(t, nil, b.baseAddress, Int32(img.width * 4)) }
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND)
        texture = t
        size = (img.width, img.height)
        hot = (img.hotX, img.hotY)
    }

    /// Draws with the hot spot at output point `p`, `scale` output pixels per cursor pixel.
    func draw(at p: ViewPoint, scale: Double) {
        guard let texture else { return }
        let s = max(1, scale)
        var dst = SDL_Rect(x: Int32((p.x - Double(hot.x) * s).rounded()), y: Int32((p.y - Double(hot.y) * s).rounded()),
                           w: Int32((Double(size.w) * s).rounded()), h: Int32((Double(size.h) * s).rounded()))
        SDL_RenderCopy(renderer, texture, nil, &dst)
    }
}

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
