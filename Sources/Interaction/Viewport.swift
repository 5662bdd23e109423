// The viewport: where the remote framebuffer is drawn in the window and how window points map
// to framebuffer pixels and back. Plain values only (no SDL), so every mapping is unit-tested.

import RFB

/// A point in floating coordinates (window points or output pixels).
public struct ViewPoint: Equatable, Sendable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// A rectangle in floating coordinates.
public struct ViewRect: Equatable, Sendable {
    public var x: Double, y: Double, w: Double, h: Double
    public init(x: Double, y: Double, w: Double, h: Double) { self.x = x; self.y = y; self.w = w; self.h = h }
    public func contains(_ p: ViewPoint) -> Bool { p.x >= x && p.y >= y && p.x < x + w && p.y < y + h }
}

/// Framebuffer placement for one window size, scaling mode and pan.
///
/// Three spaces: window points (mouse events), output pixels (what the renderer draws: points ×
/// the HiDPI factor) and framebuffer pixels. The framebuffer is drawn as `content` (output pixels,
/// integer-sized, may extend past the output when zoomed in); the mapping uses exactly that
/// rectangle, so what is under the pointer is what is sent.
///
/// Scrolling: when the content is larger than the output in a direction, `pan` (output pixels,
/// from the content's top-left) selects the visible part and is clamped to the content; when it
/// is smaller, the content is centred and the rest are bars. The front end scrolls with the mouse
/// wheel while Ctrl+Alt are held (horizontal wheel or Shift for sideways).
///
/// Region (one monitor of a multi-screen server): with `region` set, that framebuffer rectangle
/// takes the framebuffer's place. Fit scales the region to the output; zoom is relative to
/// framebuffer pixels as always; the region is centred when it fits, and the pan is clamped to
/// it (`minPanX...maxPanX`) when it does not. `content` still describes the whole scaled
/// framebuffer (so every existing mapping holds), placed so that the region is what shows;
/// `drawRects` draws the region's pixels only, the rest of the output stays bars. A window point
/// in a bar (outside the region but inside the window) maps to the nearest pixel of the region
/// rather than to nil: the bars border other screens the user chose not to see, and clamping
/// lets a quick pointer move reach the region's edge pixels (panels, hot corners) exactly. With
/// `region` nil (or covering the whole framebuffer) everything is as without it.
public struct Viewport: Equatable, Sendable {
    public private(set) var framebufferWidth = 0, framebufferHeight = 0
    public private(set) var windowWidth = 0, windowHeight = 0
    public private(set) var outputWidth = 0, outputHeight = 0
    public var mode: ScalingMode { didSet { clampPan() } }
    /// Scroll position in output pixels; always clamped.
    public private(set) var panX = 0.0, panY = 0.0
    /// The framebuffer rectangle to show instead of the whole framebuffer (one monitor), or nil.
    /// Clipped to the framebuffer; one that misses it entirely counts as nil (a resize may
    /// remove the screen before the new layout arrives). Changing it keeps the pan's offset
    /// from the region's corner, so switching between equal screens shows the same part.
    public var region: Rect? {
        didSet {
            guard oldValue != region else { return }
            let new = regionSpan, old = Viewport.span(of: Viewport.active(oldValue, framebufferWidth, framebufferHeight),
                                                      framebufferWidth, framebufferHeight, contentWidth, contentHeight)
            panX += new.x0 - old.x0; panY += new.y0 - old.y0
            clampPan()
        }
    }

    public init(mode: ScalingMode = .fit) { self.mode = mode }

    /// Sets the sizes; output is the renderer's size in pixels (equal to the window's without HiDPI).
    public mutating func resize(framebuffer fw: Int, _ fh: Int, window ww: Int, _ wh: Int, output ow: Int, _ oh: Int) {
        framebufferWidth = max(0, fw); framebufferHeight = max(0, fh)
        windowWidth = max(0, ww); windowHeight = max(0, wh)
        outputWidth = max(0, ow); outputHeight = max(0, oh)
        clampPan()
    }

    /// Output pixels per window point (HiDPI), per axis.
    public var pixelsPerPointX: Double { windowWidth > 0 && outputWidth > 0 ? Double(outputWidth) / Double(windowWidth) : 1 }
    public var pixelsPerPointY: Double { windowHeight > 0 && outputHeight > 0 ? Double(outputHeight) / Double(windowHeight) : 1 }

    /// The part of the framebuffer in use: `region` clipped to the framebuffer, nil when there is
    /// no region or it is (or misses) the whole framebuffer.
    public var activeRegion: Rect? { Viewport.active(region, framebufferWidth, framebufferHeight) }

    /// The framebuffer rectangle shown: the active region, else the whole framebuffer.
    public var shownRect: Rect { activeRegion ?? Rect(x: 0, y: 0, w: framebufferWidth, h: framebufferHeight) }

    static func active(_ region: Rect?, _ fw: Int, _ fh: Int) -> Rect? {
        guard let r = region, fw > 0, fh > 0 else { return nil }
        let c = r.intersection(Rect(x: 0, y: 0, w: fw, h: fh))
        if c.isEmpty || (c.w == fw && c.h == fh) { return nil }
        return c
    }

    /// Output pixels per framebuffer pixel for the current mode (before rounding to whole pixels).
    public var scale: Double {
        guard framebufferWidth > 0, framebufferHeight > 0 else { return 1 }
        switch mode {
        case .fit:
            let r = shownRect
            return min(Double(outputWidth) / Double(r.w), Double(outputHeight) / Double(r.h))
        case .zoom(let z):
            return z
        }
    }

    /// True when a framebuffer pixel is exactly one output pixel (nearest filtering is right then).
    public var isOneToOne: Bool {
        contentWidth == framebufferWidth && contentHeight == framebufferHeight
    }

    /// Size of the scaled framebuffer in whole output pixels (at least 1 when there is a framebuffer).
    public var contentWidth: Int { framebufferWidth > 0 ? max(1, Int((Double(framebufferWidth) * scale).rounded())) : 0 }
    public var contentHeight: Int { framebufferHeight > 0 ? max(1, Int((Double(framebufferHeight) * scale).rounded())) : 0 }

    /// How far the view can scroll in each direction (0 when the content fits). With a region,
    /// the pan runs from `minPanX` (the region's left edge) to this.
    public var maxPanX: Double {
        guard activeRegion != nil else { return Double(max(0, contentWidth - outputWidth)) }
        let s = regionSpan
        // a region that is centred does not scroll, even within the fit tolerance
        return regionFits(s.x1 - s.x0, outputWidth) ? minPanX : max(minPanX, (s.x1 - Double(outputWidth)).rounded(.down))
    }
    public var maxPanY: Double {
        guard activeRegion != nil else { return Double(max(0, contentHeight - outputHeight)) }
        let s = regionSpan
        return regionFits(s.y1 - s.y0, outputHeight) ? minPanY : max(minPanY, (s.y1 - Double(outputHeight)).rounded(.down))
    }
    /// The smallest pan: 0, or with a region its top-left in content output pixels (rounded up
    /// to whole pixels, so no sliver of the neighbouring screen shows).
    public var minPanX: Double { activeRegion == nil ? 0 : regionSpan.x0.rounded(.up) }
    public var minPanY: Double { activeRegion == nil ? 0 : regionSpan.y0.rounded(.up) }
    public var canScroll: Bool { maxPanX > minPanX || maxPanY > minPanY }

    /// Where the whole scaled framebuffer lies in output pixels (integer origin and size; with a
    /// region the origin may be fractional: a centred region's top-left is on whole pixels).
    public var content: ViewRect {
        let cw = contentWidth, ch = contentHeight
        guard activeRegion != nil else {
            let x = cw <= outputWidth ? Double((outputWidth - cw) / 2) : -panX
            let y = ch <= outputHeight ? Double((outputHeight - ch) / 2) : -panY
            return ViewRect(x: x, y: y, w: Double(cw), h: Double(ch))
        }
        let p = regionPlacement(regionSpan)
        return ViewRect(x: p.contentX, y: p.contentY, w: Double(cw), h: Double(ch))
    }

    /// Where the shown region lies in output pixels (the same as `content` without a region).
    public var regionContent: ViewRect {
        guard activeRegion != nil else { return content }
        let s = regionSpan, p = regionPlacement(s)
        return ViewRect(x: p.regionX, y: p.regionY, w: s.x1 - s.x0, h: s.y1 - s.y0)
    }

    /// The content's and the region's top-left in output pixels: a region that fits is centred
    /// on whole pixels, else the pan places the content (whole pixels). Each is computed
    /// directly, not from the other, so the whole-pixel one stays exact.
    private func regionPlacement(_ s: (x0: Double, y0: Double, x1: Double, y1: Double))
        -> (contentX: Double, contentY: Double, regionX: Double, regionY: Double) {
        let cx: Double, rx: Double, cy: Double, ry: Double
        if regionFits(s.x1 - s.x0, outputWidth) {
            rx = (Double(outputWidth) - (s.x1 - s.x0)).clampedHalf; cx = rx - s.x0
        } else {
            cx = -panX; rx = s.x0 - panX
        }
        if regionFits(s.y1 - s.y0, outputHeight) {
            ry = (Double(outputHeight) - (s.y1 - s.y0)).clampedHalf; cy = ry - s.y0
        } else {
            cy = -panY; ry = s.y0 - panY
        }
        return (cx, cy, rx, ry)
    }

    /// A region fits when its scaled size is within the output; in fit mode, one output pixel
    /// of rounding (the content size is whole pixels, the region's share of it is not) still
    /// counts as fitting, so a fitted region never scrolls by a pixel.
    private func regionFits(_ size: Double, _ output: Int) -> Bool {
        size <= Double(output) + (mode == .fit ? 1 : 0)
    }

    /// The shown rectangle's edges in output pixels from the content's top-left. Without a region
    /// exactly (0, 0, contentWidth, contentHeight).
    var regionSpan: (x0: Double, y0: Double, x1: Double, y1: Double) {
        Viewport.span(of: activeRegion, framebufferWidth, framebufferHeight, contentWidth, contentHeight)
    }

    static func span(of r: Rect?, _ fw: Int, _ fh: Int, _ cw: Int, _ ch: Int) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        guard let r = r, fw > 0, fh > 0 else { return (0, 0, Double(cw), Double(ch)) }
        // the same per-pixel factor as every mapping (content size over framebuffer size)
        let sx = Double(cw) / Double(fw), sy = Double(ch) / Double(fh)
        return (Double(r.x) * sx, Double(r.y) * sy, Double(r.maxX) * sx, Double(r.maxY) * sy)
    }

    /// Scrolls by output pixels; returns true when the view moved.
    @discardableResult
    public mutating func scroll(dx: Double, dy: Double) -> Bool {
        let old = (panX, panY)
        panX += dx; panY += dy
        clampPan()
        return old != (panX, panY)
    }

    /// Scrolls so that output pixel `x, y` of the content is at the top-left (clamped).
    public mutating func setPan(x: Double, y: Double) { panX = x; panY = y; clampPan() }

    private mutating func clampPan() {
        // whole output pixels: keeps texture sampling aligned at 1:1
        panX = min(max(minPanX, panX.rounded()), maxPanX)
        panY = min(max(minPanY, panY.rounded()), maxPanY)
    }

    /// Changes the scaling mode keeping the framebuffer point under window point `p` where it is
    /// (as far as whole-pixel pans allow; clamped to the framebuffer or region).
    public mutating func setMode(_ m: ScalingMode, keepingWindowPoint p: ViewPoint) {
        guard framebufferWidth > 0, framebufferHeight > 0 else { mode = m; return }
        let c = content, o = toOutput(p)
        let fx = (o.x - c.x) * Double(framebufferWidth) / max(1, c.w)
        let fy = (o.y - c.y) * Double(framebufferHeight) / max(1, c.h)
        mode = m
        let sx = Double(contentWidth) / Double(framebufferWidth), sy = Double(contentHeight) / Double(framebufferHeight)
        setPan(x: fx * sx - o.x, y: fy * sy - o.y)
    }

    /// Window point → output pixel.
    public func toOutput(_ p: ViewPoint) -> ViewPoint { ViewPoint(x: p.x * pixelsPerPointX, y: p.y * pixelsPerPointY) }
    /// Output pixel → window point.
    public func toWindow(output p: ViewPoint) -> ViewPoint { ViewPoint(x: p.x / pixelsPerPointX, y: p.y / pixelsPerPointY) }
    /// Output rect → window rect: where an overlay drawn in output pixels is hit in points.
    public func toWindow(output r: ViewRect) -> ViewRect {
        let a = toWindow(output: ViewPoint(x: r.x, y: r.y))
        let b = toWindow(output: ViewPoint(x: r.x + r.w, y: r.y + r.h))
        return ViewRect(x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y)
    }

    /// The framebuffer pixel under a window point, or nil in the bars (or outside the window);
    /// nothing is sent for nil. With a region, a point in the window but outside the region maps
    /// to the region's nearest pixel instead (see the type's comment).
    public func framebufferPixel(atWindow p: ViewPoint) -> (x: Int, y: Int)? {
        let c = content
        guard framebufferWidth > 0, framebufferHeight > 0, c.w > 0, c.h > 0 else { return nil }
        let o = toOutput(p)
        if let r = activeRegion {
            guard o.x >= 0, o.y >= 0, o.x < Double(outputWidth), o.y < Double(outputHeight) else { return nil }
            let fx = ((o.x - c.x) * Double(framebufferWidth) / c.w).rounded(.down)
            let fy = ((o.y - c.y) * Double(framebufferHeight) / c.h).rounded(.down)
            // clamped as doubles first: Int() of a huge value would trap
            return (Int(min(max(fx, Double(r.x)), Double(r.maxX - 1))), Int(min(max(fy, Double(r.y)), Double(r.maxY - 1))))
        }
        guard o.x >= 0, o.y >= 0, o.x < Double(outputWidth), o.y < Double(outputHeight), c.contains(o) else { return nil }
        let fx = Int(((o.x - c.x) * Double(framebufferWidth) / c.w).rounded(.down))
        let fy = Int(((o.y - c.y) * Double(framebufferHeight) / c.h).rounded(.down))
        // float edge cases at the far side map onto the last pixel
        return (min(fx, framebufferWidth - 1), min(fy, framebufferHeight - 1))
    }

    /// The window-point rectangle covered by framebuffer pixel `x, y` (may be off-window when scrolled).
    public func windowRect(ofPixel x: Int, _ y: Int) -> ViewRect {
        let c = content
        let sx = c.w / Double(max(1, framebufferWidth)), sy = c.h / Double(max(1, framebufferHeight))
        let o0 = toWindow(output: ViewPoint(x: c.x + Double(x) * sx, y: c.y + Double(y) * sy))
        let o1 = toWindow(output: ViewPoint(x: c.x + Double(x + 1) * sx, y: c.y + Double(y + 1) * sy))
        return ViewRect(x: o0.x, y: o0.y, w: o1.x - o0.x, h: o1.y - o0.y)
    }

    /// The window point at the centre of framebuffer pixel `x, y`: maps back to that pixel.
    public func windowPoint(ofPixel x: Int, _ y: Int) -> ViewPoint {
        let r = windowRect(ofPixel: x, y)
        return ViewPoint(x: r.x + r.w / 2, y: r.y + r.h / 2)
    }

    /// What to draw: the framebuffer pixels that are visible (whole pixels) and where they go in
    /// output pixels (fractional at the edges when zoomed). Nil when nothing is visible. With a
    /// region, only the region's pixels.
    public func drawRects() -> (source: (x: Int, y: Int, w: Int, h: Int), destination: ViewRect)? {
        let c = content
        guard framebufferWidth > 0, framebufferHeight > 0, c.w > 0, c.h > 0, outputWidth > 0, outputHeight > 0 else { return nil }
        let sx = c.w / Double(framebufferWidth), sy = c.h / Double(framebufferHeight)
        // without a region: r is the whole framebuffer and s is (0, 0, c.w, c.h), as before
        let r = shownRect, s = regionSpan
        // visible part of the shown rectangle, in framebuffer pixels, widened to whole pixels
        let vx0 = max(0, c.x + s.x0), vy0 = max(0, c.y + s.y0)
        let vx1 = min(Double(outputWidth), c.x + s.x1), vy1 = min(Double(outputHeight), c.y + s.y1)
        guard vx1 > vx0, vy1 > vy0 else { return nil }
        let fx0 = max(r.x, Int(((vx0 - c.x) / sx).rounded(.down)))
        let fy0 = max(r.y, Int(((vy0 - c.y) / sy).rounded(.down)))
        let fx1 = min(r.maxX, Int(((vx1 - c.x) / sx).rounded(.up)))
        let fy1 = min(r.maxY, Int(((vy1 - c.y) / sy).rounded(.up)))
        guard fx1 > fx0, fy1 > fy0 else { return nil }
        let dst = ViewRect(x: c.x + Double(fx0) * sx, y: c.y + Double(fy0) * sy,
                           w: Double(fx1 - fx0) * sx, h: Double(fy1 - fy0) * sy)
        return ((fx0, fy0, fx1 - fx0, fy1 - fy0), dst)
    }
}

private extension Double {
    /// Half of a leftover size, whole pixels, never negative (a region within the fit tolerance
    /// sits at the edge rather than a pixel outside it).
    var clampedHalf: Double { Swift.max(0, (self / 2).rounded(.down)) }
}
