import CSDL2
import Interaction

extension ViewRect {
    /// An overlay's SDL rect (output pixels) as a ViewRect, for `Viewport.toWindow(output:)`.
    init(_ r: SDL_Rect) { self.init(x: Double(r.x), y: Double(r.y), w: Double(r.w), h: Double(r.h)) }
}

/// What is drawn over the desktop (status, notices, menu, picker, keyboard, prompt), in output
/// pixels; each kind has its own file. Main thread only.
final class Overlay {
    let renderer: OpaquePointer
    let text: TextRenderer

    static let panelColor = SDL_Color(r: 24, g: 26, b: 32, a: 215)
    static let textColor = SDL_Color(r: 236, g: 239, b: 244, a: 255)
    static let dimTextColor = SDL_Color(r: 160, g: 168, b: 182, a: 255)
    static let selectColor = SDL_Color(r: 70, g: 110, b: 190, a: 255)
    /// Font sizes in points (scaled to output pixels for HiDPI).
    static let statusPoints = 17.0, menuPoints = 15.0, hintPoints = 13.0

    /// `fontCandidates`: the font files to try, first found wins (`FARCAST_FONT` first when set).
    init(renderer: OpaquePointer, fontCandidates: [String] = TextRenderer.fontCandidates) {
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
}
