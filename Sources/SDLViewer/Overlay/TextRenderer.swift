import CSDL2
import CTTF
import Foundation
import Interaction

/// Real text with SDL2_ttf, opened at the first text drawn (CTTF: a window that never shows text
/// never maps it and the font libraries behind it). The font is looked up at run time; without
/// one, or without the library, the overlays still draw their panels and a line is logged once
/// (failing soft). Main thread only.
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
    /// SDL2_ttf was opened and started, or that failed (once).
    private var ttfTried = false
    /// Rendered strings kept as textures; the status and menu need a few dozen at most.
    static let cacheLimit = 128

    init(renderer: OpaquePointer, candidates: [String] = TextRenderer.fontCandidates) {
        self.renderer = renderer
        path = candidates.first { FileManager.default.isReadableFile(atPath: $0) }
        if path == nil {
            FileHandle.standardError.write(Data("viewer: no font found (install fonts-dejavu-core); on-screen text is off\n".utf8))
        }
    }

    deinit {
        for (_, c) in cache { SDL_DestroyTexture(c.tex) }
        for (_, f) in fonts { cttf_TTF_CloseFont(f) }
        if ttfStarted { cttf_TTF_Quit() }
    }

    /// Whether text can be drawn (SDL2_ttf is opened to find out, if it was not yet).
    var available: Bool {
        if path != nil && !ttfTried { startTTF() }
        return ttfStarted
    }

    /// Opens and starts SDL2_ttf the first time a font is needed.
    private func startTTF() {
        ttfTried = true
        var why = [CChar](repeating: 0, count: 256)
        if cttf_load(&why, why.count) != 0 {
            let message = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            FileHandle.standardError.write(Data("viewer: SDL2_ttf could not be opened (\(message)); on-screen text is off\n".utf8))
        } else if cttf_TTF_Init() == 0 {
            ttfStarted = true
        } else {
            FileHandle.standardError.write(Data("viewer: TTF_Init failed: \(String(cString: SDL_GetError())); on-screen text is off\n".utf8))
        }
    }

    func font(_ px: Int) -> OpaquePointer? {
        guard let path else { return nil }
        if !ttfTried { startTTF() }
        guard ttfStarted else { return nil }
        if let f = fonts[px] { return f }
        guard let f = cttf_TTF_OpenFont(path, Int32(px)) else { return nil }
        // wrapped lines (long error messages) centred under each other
        cttf_TTF_SetFontWrappedAlign(f, Int32(TTF_WRAPPED_ALIGN_CENTER))
        fonts[px] = f
        return f
    }

    /// Line height in pixels for a font size (an estimate without a font).
    func lineHeight(_ px: Int) -> Int { font(px).map { Int(cttf_TTF_FontLineSkip($0)) } ?? px * 5 / 4 }

    func size(_ s: String, _ px: Int) -> (w: Int, h: Int) {
        guard let f = font(px), !s.isEmpty else { return (0, lineHeight(px)) }
        var w: Int32 = 0, h: Int32 = 0
        cttf_TTF_SizeUTF8(f, s, &w, &h)
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
        let surf = wrap > 0 ? cttf_TTF_RenderUTF8_Blended_Wrapped(f, s, c, UInt32(wrap)) : cttf_TTF_RenderUTF8_Blended(f, s, c)
        guard let surf else { return nil }
        defer { SDL_FreeSurface(surf) }
        guard let tex = SDL_CreateTextureFromSurface(renderer, surf) else { return nil }
        SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND)
        let t = (tex, surf.pointee.w, surf.pointee.h)
        cache[key] = t
        return t
    }
}
