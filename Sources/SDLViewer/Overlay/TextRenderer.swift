import CSDL2
import CSDL2TTF
import Foundation
import Interaction

/// Real text with SDL2_ttf. The font is looked up at run time; without one the overlays still
/// draw their panels and a line is logged once (failing soft). Main thread only.
final class TextRenderer {
    /// DejaVu Sans comes with Debian's fonts-dejavu-core; the rest cover other distributions.
    static let fontCandidates = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    ]

    let renderer: OpaquePointer
    let path: String?
    private var fonts: [Int: OpaquePointer] = [:]
    private var cache: [String: (tex: OpaquePointer, w: Int32, h: Int32)] = [:]
    private var ttfStarted = false
    /// Rendered strings kept as textures; the status and menu need a few dozen at most.
    static let cacheLimit = 128

    init(renderer: OpaquePointer, candidates: [String]? = nil) {
        self.renderer = renderer
        let env = ProcessInfo.processInfo.environment["FARCAST_FONT"].map { [$0] } ?? []
        path = (candidates ?? (env + TextRenderer.fontCandidates)).first { FileManager.default.isReadableFile(atPath: $0) }
        if path == nil {
            FileHandle.standardError.write(Data("viewer: no font found (install fonts-dejavu-core); on-screen text is off\n".utf8))
        } else if TTF_Init() == 0 {
            ttfStarted = true
        } else {
            FileHandle.standardError.write(Data("viewer: TTF_Init failed: \(String(cString: SDL_GetError())); on-screen text is off\n".utf8))
        }
    }

    deinit {
        for (_, c) in cache { SDL_DestroyTexture(c.tex) }
        for (_, f) in fonts { TTF_CloseFont(f) }
        if ttfStarted { TTF_Quit() }
    }

    var available: Bool { ttfStarted }

    func font(_ px: Int) -> OpaquePointer? {
        guard ttfStarted, let path else { return nil }
        if let f = fonts[px] { return f }
        guard let f = TTF_OpenFont(path, Int32(px)) else { return nil }
        // wrapped lines (long error messages) centred under each other
        TTF_SetFontWrappedAlign(f, Int32(TTF_WRAPPED_ALIGN_CENTER))
        fonts[px] = f
        return f
    }

    /// Line height in pixels for a font size (an estimate without a font).
    func lineHeight(_ px: Int) -> Int { font(px).map { Int(TTF_FontLineSkip($0)) } ?? px * 5 / 4 }

    func size(_ s: String, _ px: Int) -> (w: Int, h: Int) {
        guard let f = font(px), !s.isEmpty else { return (0, lineHeight(px)) }
        var w: Int32 = 0, h: Int32 = 0
        TTF_SizeUTF8(f, s, &w, &h)
        return (Int(w), Int(h))
    }

    /// Draws `s` with its top-left at x, y (output pixels); wraps at `wrap` pixels when given.
    /// Returns the drawn size.
    @discardableResult
    func draw(_ s: String, _ px: Int, x: Int, y: Int, color: SDL_Color, wrap: Int = 0) -> (w: Int, h: Int) {
        guard !s.isEmpty, let t = texture(s, px, color, wrap) else { return (0, 0) }
        var dst = SDL_Rect(x: Int32(x), y: Int32(y), w: t.w, h: t.h)
        SDL_RenderCopy(renderer, t.tex, nil, &dst)
        return (Int(t.w), Int(t.h))
    }

    /// Size of `s` as `draw` would draw it with wrapping.
    func wrappedSize(_ s: String, _ px: Int, wrap: Int) -> (w: Int, h: Int) {
        guard let t = texture(s, px, Overlay.textColor, wrap) else { return (0, lineHeight(px)) }
        return (Int(t.w), Int(t.h))
    }

    private func texture(_ s: String, _ px: Int, _ c: SDL_Color, _ wrap: Int) -> (tex: OpaquePointer, w: Int32, h: Int32)? {
        guard let f = font(px) else { return nil }
        let key = "\(px)/\(c.r),\(c.g),\(c.b),\(c.a)/\(wrap)/\(s)"
        if let t = cache[key] { return t }
        if cache.count >= TextRenderer.cacheLimit {
            for (_, t) in cache { SDL_DestroyTexture(t.tex) }
            cache.removeAll()
        }
        let surf = wrap > 0 ? TTF_RenderUTF8_Blended_Wrapped(f, s, c, UInt32(wrap)) : TTF_RenderUTF8_Blended(f, s, c)
        guard let surf else { return nil }
        defer { SDL_FreeSurface(surf) }
        guard let tex = SDL_CreateTextureFromSurface(renderer, surf) else { return nil }
        SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND)
        let t = (tex, surf.pointee.w, surf.pointee.h)
        cache[key] = t
        return t
    }
}

/// Status panel and F8 menu, drawn over the desktop in output pixels. Main thread only.
final class Overlay {
    let renderer: OpaquePointer
    let text: TextRenderer

    static let panelColor = SDL_Color(r: 24, g: 26, b: 32, a: 215)
    static let textColor = SDL_Color(r: 236, g: 239, b: 244, a: 255)
    static let dimTextColor = SDL_Color(r: 160, g: 168, b: 182, a: 255)
    static let selectColor = SDL_Color(r: 70, g: 110, b: 190, a: 255)
    /// Font sizes in points (scaled to output pixels for HiDPI).
    static let statusPoints = 17.0, menuPoints = 15.0, hintPoints = 13.0

    init(renderer: OpaquePointer, fontCandidates: [String]? = nil) {
        self.renderer = renderer
        text = TextRenderer(renderer: renderer, candidates: fontCandidates)
    }

    /// A translucent panel with rounded corners: one row per scanline in the corners so that no
    /// pixel is blended twice.
    func panel(_ x: Int, _ y: Int, _ w: Int, _ h: Int, radius: Int, color: SDL_Color) {
        guard w > 0, h > 0 else { return }
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        SDL_SetRenderDrawColor(renderer, color.r, color.g, color.b, color.a)
        let r = max(0, min(radius, min(w, h) / 2))
        var body = SDL_Rect(x: Int32(x), y: Int32(y + r), w: Int32(w), h: Int32(h - 2 * r))
        SDL_RenderFillRect(renderer, &body)
        for i in 0..<r {
            // inset of row i in a quarter circle of radius r
            let dy = Double(r) - Double(i) - 0.5
            let inset = Int((Double(r) - (Double(r * r) - dy * dy).squareRoot()).rounded())
            var top = SDL_Rect(x: Int32(x + inset), y: Int32(y + i), w: Int32(w - 2 * inset), h: 1)
            var bottom = SDL_Rect(x: Int32(x + inset), y: Int32(y + h - 1 - i), w: Int32(w - 2 * inset), h: 1)
            SDL_RenderFillRect(renderer, &top)
            SDL_RenderFillRect(renderer, &bottom)
        }
    }

    /// Darkens the whole output (the last frame after the connection ended).
    func dim(_ ow: Int, _ oh: Int) {
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 150)
        var all = SDL_Rect(x: 0, y: 0, w: Int32(ow), h: Int32(oh))
        SDL_RenderFillRect(renderer, &all)
    }

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

    /// A transient notice: one line in a small panel near the bottom edge; returns its rect.
    @discardableResult
    func notice(_ message: String, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> SDL_Rect {
        let px = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(10 * scale)
        let wrap = max(100, ow * 9 / 10 - 2 * pad)
        let m = text.wrappedSize(message, px, wrap: wrap)
        let w = min(ow, m.w + 2 * pad), h = min(oh, m.h + 2 * pad)
        let x = (ow - w) / 2, y = max(0, oh - h - Int(24 * scale))
        panel(x, y, w, h, radius: Int(8 * scale), color: Overlay.panelColor)
        text.draw(message, px, x: x + (w - m.w) / 2, y: y + pad, color: Overlay.textColor, wrap: wrap)
        return SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h))
    }

    static let menuTitle = "Farcast"
    static let menuHint = "F8 again sends F8 · Esc closes"

    /// Menu geometry in output pixels: panel and one rect per row (centred in the output).
    func layoutMenu(_ menu: ViewerMenu, outputWidth ow: Int, outputHeight oh: Int, scale: Double)
        -> (frame: SDL_Rect, rows: [SDL_Rect], titleY: Int, hintY: Int) {
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
        return (SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h)), rows, y + pad, ry + Int(4 * scale))
    }

    func menu(_ menu: ViewerMenu, outputWidth ow: Int, outputHeight oh: Int, scale: Double) {
        let px = max(8, Int(Overlay.menuPoints * scale)), hpx = max(7, Int(Overlay.hintPoints * scale))
        let l = layoutMenu(menu, outputWidth: ow, outputHeight: oh, scale: scale)
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
