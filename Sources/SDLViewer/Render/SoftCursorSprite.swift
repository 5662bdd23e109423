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
