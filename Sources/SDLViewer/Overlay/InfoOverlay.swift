import CSDL2
import VNCSession

extension Overlay {
    /// The connection-info panel: a title and lines of figures in the top-left corner.
    func info(_ lines: [String], outputWidth ow: Int, scale: Double) {
        guard let title = lines.first else { return }
        let px = max(7, Int(Overlay.hintPoints * scale)), tpx = max(8, Int(Overlay.menuPoints * scale))
        let pad = Int(12 * scale), gap = Int(4 * scale)
        let sizes = lines.dropFirst().map { text.size($0, px) }
        let ts = text.size(title, tpx)
        let w = min(ow - 2 * pad, max(ts.w, sizes.map(\.w).max() ?? 0) + 2 * pad)
        let h = ts.h + sizes.reduce(0) { $0 + $1.h + gap } + 2 * pad
        let x = pad, y = pad
        panel(x, y, w, h, radius: Int(8 * scale), color: Overlay.panelColor)
        text.draw(title, tpx, x: x + pad, y: y + pad, color: Overlay.textColor)
        var ly = y + pad + ts.h + gap
        for (line, s) in zip(lines.dropFirst(), sizes) {
            text.draw(line, px, x: x + pad, y: ly, color: Overlay.textColor)
            ly += s.h + gap
        }
    }

    /// The panel's lines (title first) from the session's link summary.
    static func infoLines(_ l: LinkSummary, spec: String) -> [String] {
        [
            "Connection — \(spec)",
            "Encoding: " + (l.encoding.isEmpty ? "no update yet" : l.encoding),
            "Quality: \(l.quality)" + (l.adaptive ? " (adaptive)" : " (fixed)"),
            "Round trip: " + (l.roundTrip.map { LinkSummary.ms($0) } ?? "not measured yet")
                + (l.fences ? " (fences)" : " (requests)"),
            "Bandwidth: \(LinkSummary.rate(l.throughput)) used" + (l.linkRate.map { ", link \(LinkSummary.rate($0))" } ?? ""),
            String(format: "Updates: %.0f/s", l.updatesPerSecond) + (l.continuousUpdates ? ", pushed (continuous updates)" : ", on request"),
            "Decode: " + (l.decodePerUpdate.map { LinkSummary.ms($0) + " per update" } ?? "-"),
        ]
    }
}
