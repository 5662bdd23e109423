import CSDL2
import Foundation
import Interaction
import RFB

extension Overlay {
    struct PromptLayout {
        var frame: SDL_Rect
        var fields: [CredentialPrompt.Field: SDL_Rect]
        var titleY: Int
        var detailY: [Int]
        var fingerprintY: Int
        var labelY: [CredentialPrompt.Field: Int]
        var hintY: Int
    }

    static let promptButtonColor = SDL_Color(r: 52, g: 56, b: 66, a: 255)
    static let fieldColor = SDL_Color(r: 12, g: 13, b: 16, a: 235)

    /// The prompt's geometry in output pixels (centred).
    func layoutPrompt(_ p: CredentialPrompt, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> PromptLayout {
        let px = max(8, Int(Overlay.statusPoints * scale)), mpx = max(8, Int(Overlay.menuPoints * scale))
        let hpx = max(7, Int(Overlay.hintPoints * scale))
        let pad = Int(20 * scale), gap = Int(8 * scale)
        let lh = text.lineHeight(mpx), hlh = text.lineHeight(hpx)
        let fieldH = lh + Int(12 * scale)
        var w = max(Int(380 * scale), text.size(p.title, px).w, text.size(p.hint, hpx).w)
        for d in p.details { w = max(w, text.size(d, hpx).w) }
        if let f = p.fingerprint { w = max(w, text.size(f, hpx).w) }
        w = min(ow, w + 2 * pad)
        var y = pad
        let titleY = y
        y += text.lineHeight(px) + gap
        var detailY: [Int] = []
        for _ in p.details { detailY.append(y); y += hlh }
        var fingerprintY = 0
        if p.fingerprint != nil { fingerprintY = y; y += hlh }
        y += gap
        var fields: [CredentialPrompt.Field: SDL_Rect] = [:]
        var labelY: [CredentialPrompt.Field: Int] = [:]
        if p.isTrust {
            let bw = (w - 2 * pad - gap) / 2
            fields[.accept] = SDL_Rect(x: Int32(pad), y: Int32(y), w: Int32(bw), h: Int32(fieldH))
            fields[.cancel] = SDL_Rect(x: Int32(pad + bw + gap), y: Int32(y), w: Int32(bw), h: Int32(fieldH))
            y += fieldH + gap
        } else {
            for f in p.fields {
                labelY[f] = y
                y += hlh + Int(2 * scale)
                fields[f] = SDL_Rect(x: Int32(pad), y: Int32(y), w: Int32(w - 2 * pad), h: Int32(fieldH))
                y += fieldH + gap
            }
        }
        let hintY = y
        y += hlh + pad
        let h = y
        let x0 = max(0, (ow - w) / 2), y0 = max(0, (oh - h) / 2)
        func shift(_ r: SDL_Rect) -> SDL_Rect { SDL_Rect(x: r.x + Int32(x0), y: r.y + Int32(y0), w: r.w, h: r.h) }
        return PromptLayout(frame: SDL_Rect(x: Int32(x0), y: Int32(y0), w: Int32(w), h: Int32(h)),
                            fields: fields.mapValues(shift), titleY: y0 + titleY, detailY: detailY.map { $0 + y0 },
                            fingerprintY: y0 + fingerprintY, labelY: labelY.mapValues { $0 + y0 }, hintY: y0 + hintY)
    }

    /// Lays out and draws the prompt; returns its layout (output pixels).
    @discardableResult
    func prompt(_ p: CredentialPrompt, outputWidth ow: Int, outputHeight oh: Int, scale: Double) -> PromptLayout {
        let l = layoutPrompt(p, outputWidth: ow, outputHeight: oh, scale: scale)
        prompt(p, l, scale: scale)
        return l
    }

    /// Draws the prompt where `l` says.
    func prompt(_ p: CredentialPrompt, _ l: PromptLayout, scale: Double) {
        let px = max(8, Int(Overlay.statusPoints * scale)), mpx = max(8, Int(Overlay.menuPoints * scale))
        let hpx = max(7, Int(Overlay.hintPoints * scale))
        let x = Int(l.frame.x), w = Int(l.frame.w), pad = Int(20 * scale)
        panel(x, Int(l.frame.y), w, Int(l.frame.h), radius: Int(10 * scale), color: Overlay.panelColor)
        text.draw(p.title, px, x: x + pad, y: l.titleY, color: Overlay.textColor)
        for (i, d) in p.details.enumerated() { text.draw(d, hpx, x: x + pad, y: l.detailY[i], color: Overlay.dimTextColor) }
        if let f = p.fingerprint { text.draw(f, hpx, x: x + pad, y: l.fingerprintY, color: Overlay.textColor) }
        let lh = text.lineHeight(mpx)
        let ring = max(1, Int(2 * scale))
        for f in p.fields {
            guard let r = l.fields[f] else { continue }
            let focused = p.focus == f
            if focused {
                panel(Int(r.x) - ring, Int(r.y) - ring, Int(r.w) + 2 * ring, Int(r.h) + 2 * ring, radius: Int(6 * scale), color: Overlay.selectColor)
            }
            let ty = Int(r.y) + (Int(r.h) - lh) / 2
            switch f {
            case .accept, .cancel:
                panel(Int(r.x), Int(r.y), Int(r.w), Int(r.h), radius: Int(5 * scale), color: focused ? Overlay.selectColor : Overlay.promptButtonColor)
                let label = f == .accept ? "Accept and remember" : "Cancel"
                let s = text.size(label, mpx)
                text.draw(label, mpx, x: Int(r.x) + (Int(r.w) - s.w) / 2, y: ty, color: Overlay.textColor)
            case .username, .password:
                if let ly = l.labelY[f] {
                    text.draw(f == .username ? "User name" : "Password", hpx, x: Int(r.x), y: ly, color: Overlay.dimTextColor)
                }
                panel(Int(r.x), Int(r.y), Int(r.w), Int(r.h), radius: Int(5 * scale), color: Overlay.fieldColor)
                let shown = f == .username ? p.username : String(repeating: CredentialPrompt.bullet, count: p.passwordCount)
                let tx = Int(r.x) + Int(8 * scale)
                let drawn = text.draw(shown, mpx, x: tx, y: ty, color: Overlay.textColor)
                if focused {
                    // the caret after the text
                    SDL_SetRenderDrawColor(renderer, 236, 239, 244, 255)
                    var caret = SDL_Rect(x: Int32(tx + drawn.w + Int(1 * scale)), y: Int32(ty), w: Int32(max(1, Int(scale))), h: Int32(lh))
                    SDL_RenderFillRect(renderer, &caret)
                }
            }
        }
        let hs = text.size(p.hint, hpx)
        text.draw(p.hint, hpx, x: x + (w - hs.w) / 2, y: l.hintY, color: Overlay.dimTextColor)
    }
}
