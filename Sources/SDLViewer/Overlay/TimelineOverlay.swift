import CSDL2
import Interaction

/// What the playback bar shows.
struct TimelineModel {
    var positionMs: Double
    var durationMs: Double
    var paused: Bool
    var speed: Double
    var loop: Bool

    static func clock(_ ms: Double) -> String {
        let t = max(0, ms) / 1000
        let m = Int(t) / 60, s = t - Double(m * 60)
        return String(format: "%d:%04.1f", m, s)
    }

    var label: String {
        let sp = speed == speed.rounded() ? String(format: "%.0fx", speed) : String(format: "%gx", speed)
        return "\(paused ? "Paused" : "Playing")  \(TimelineModel.clock(positionMs)) / \(TimelineModel.clock(durationMs))  \(sp)\(loop ? "  loop" : "")"
    }
}

extension Overlay {
    static let trackColor = SDL_Color(r: 90, g: 96, b: 110, a: 255)
    static let recordColor = SDL_Color(r: 220, g: 40, b: 40, a: 255)

    /// The playback bar's geometry in output pixels: the bar, its track as drawn, and the
    /// track's hit area (taller than drawn, for fingers).
    struct TimelineLayout {
        var bar: SDL_Rect
        var track: SDL_Rect
        var hit: SDL_Rect
    }

    /// The playback bar along the bottom of an `ow`x`oh` output.
    static func layoutTimeline(outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> TimelineLayout {
        let pad = Int(12 * scale)
        let h = Int(64 * scale)
        let y = max(0, oh - h)
        let tx = pad, tw = max(1, ow - 2 * pad), ty = y + h - pad - Int(8 * scale)
        let th = max(2, Int(4 * scale))
        let hit = Int(44 * scale)
        return TimelineLayout(bar: SDL_Rect(x: 0, y: Int32(y), w: Int32(ow), h: Int32(h)),
                              track: SDL_Rect(x: Int32(tx), y: Int32(ty), w: Int32(tw), h: Int32(th)),
                              hit: SDL_Rect(x: Int32(tx), y: Int32(ty + th / 2 - hit / 2), w: Int32(tw), h: Int32(hit)))
    }

    /// The bar where `l` says: state, time, speed, and the track with the position.
    func timeline(_ m: TimelineModel, _ l: TimelineLayout, scale: Double) {
        let px = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(12 * scale)
        let ow = Int(l.bar.w), y = Int(l.bar.y)
        panel(0, y, ow, Int(l.bar.h), radius: 0, color: Overlay.panelColor)
        text.draw(m.label, px, x: pad, y: y + pad / 2, color: Overlay.textColor)
        let hint = "Space pause · ←/→ 5 s · ↑/↓ speed · L loop"
        let hs = text.size(hint, px)
        if hs.w + 2 * pad < ow / 2 { text.draw(hint, px, x: ow - pad - hs.w, y: y + pad / 2, color: Overlay.dimTextColor) }
        // the track: a thin bar, the played part filled, a knob at the position
        let tx = Int(l.track.x), tw = Int(l.track.w), ty = Int(l.track.y), th = Int(l.track.h)
        let frac = m.durationMs > 0 ? min(1, max(0, m.positionMs / m.durationMs)) : 0
        let played = Int(Double(tw) * frac)
        fill(tx, ty, tw, th, Overlay.trackColor)
        fill(tx, ty, played, th, Overlay.selectColor)
        let k = max(6, Int(12 * scale))
        panel(tx + played - k / 2, ty + th / 2 - k / 2, k, k, radius: k / 2, color: Overlay.textColor)
    }

    /// The recording indicator: a red dot and "REC" in the top-right corner.
    func recordingBadge(outputWidth ow: Int, scale: Double) {
        let px = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(8 * scale), d = Int(12 * scale)
        let ts = text.size("REC", px)
        let w = pad * 3 + d + ts.w, h = max(d, ts.h) + 2 * pad
        let x = ow - w - pad, y = pad
        panel(x, y, w, h, radius: Int(6 * scale), color: Overlay.panelColor)
        panel(x + pad, y + (h - d) / 2, d, d, radius: d / 2, color: Overlay.recordColor)
        text.draw("REC", px, x: x + 2 * pad + d, y: y + (h - ts.h) / 2, color: Overlay.textColor)
    }

    private func fill(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ c: SDL_Color) {
        guard w > 0, h > 0 else { return }
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a)
        var r = SDL_Rect(x: Int32(x), y: Int32(y), w: Int32(w), h: Int32(h))
        SDL_RenderFillRect(renderer, &r)
    }
}
