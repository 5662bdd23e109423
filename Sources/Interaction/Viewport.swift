// The viewport: where the remote framebuffer is drawn in the window and how window points map
// to framebuffer pixels and back. Plain values only (no SDL), so every mapping is unit-tested.

/// How the framebuffer is scaled into the window.
public enum ScalingMode: Equatable, Sendable, CustomStringConvertible {
    /// The whole desktop fits the window, aspect kept, centred with bars (the default).
    case fit
    /// A fixed zoom in output pixels per framebuffer pixel: 1.0 is 1:1. Larger than the window
    /// means the view scrolls (see `Viewport.scroll`).
    case zoom(Double)

    /// Zoom limits: below 10% nothing is readable; above 1600% one pixel fills a thumbnail.
    public static let zoomRange = 0.1...16.0

    /// `fit`, `1:1`, `N%` (e.g. `200%`) or a plain factor (`2`, `0.5`), as `--scale` takes them.
    public init?(parsing s: String) {
        let t = String(s.lowercased().filter { $0 != " " })
        if t == "fit" { self = .fit; return }
        if t == "1:1" { self = .zoom(1); return }
        var f: Double?
        if t.hasSuffix("%") { f = Double(t.dropLast()).map { $0 / 100 } } else { f = Double(t) }
        guard let z = f, z.isFinite, ScalingMode.zoomRange.contains(z) else { return nil }
        self = .zoom(z)
    }

    public var description: String {
        switch self {
        case .fit: return "fit"
        case .zoom(let z) where z == 1: return "1:1"
        case .zoom(let z): return "\(Int((z * 100).rounded()))%"
        }
    }
}

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
public struct Viewport: Equatable, Sendable {
    public private(set) var framebufferWidth = 0, framebufferHeight = 0
    public private(set) var windowWidth = 0, windowHeight = 0
    public private(set) var outputWidth = 0, outputHeight = 0
    public var mode: ScalingMode { didSet { clampPan() } }
    /// Scroll position in output pixels; always clamped.
    public private(set) var panX = 0.0, panY = 0.0

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

    /// Output pixels per framebuffer pixel for the current mode (before rounding to whole pixels).
    public var scale: Double {
        guard framebufferWidth > 0, framebufferHeight > 0 else { return 1 }
        switch mode {
        case .fit:
            return min(Double(outputWidth) / Double(framebufferWidth), Double(outputHeight) / Double(framebufferHeight))
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

    /// How far the view can scroll in each direction (0 when the content fits).
    public var maxPanX: Double { Double(max(0, contentWidth - outputWidth)) }
    public var maxPanY: Double { Double(max(0, contentHeight - outputHeight)) }
    public var canScroll: Bool { maxPanX > 0 || maxPanY > 0 }

    /// Where the whole scaled framebuffer lies in output pixels (integer origin and size).
    public var content: ViewRect {
        let cw = contentWidth, ch = contentHeight
        let x = cw <= outputWidth ? Double((outputWidth - cw) / 2) : -panX
        let y = ch <= outputHeight ? Double((outputHeight - ch) / 2) : -panY
        return ViewRect(x: x, y: y, w: Double(cw), h: Double(ch))
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
        panX = min(max(0, panX.rounded()), maxPanX)
        panY = min(max(0, panY.rounded()), maxPanY)
    }

    /// Window point → output pixel.
    public func toOutput(_ p: ViewPoint) -> ViewPoint { ViewPoint(x: p.x * pixelsPerPointX, y: p.y * pixelsPerPointY) }
    /// Output pixel → window point.
    public func toWindow(output p: ViewPoint) -> ViewPoint { ViewPoint(x: p.x / pixelsPerPointX, y: p.y / pixelsPerPointY) }

    /// The framebuffer pixel under a window point, or nil in the bars (or outside the window);
    /// nothing is sent for nil.
    public func framebufferPixel(atWindow p: ViewPoint) -> (x: Int, y: Int)? {
        let c = content
        guard framebufferWidth > 0, framebufferHeight > 0, c.w > 0, c.h > 0 else { return nil }
        let o = toOutput(p)
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
    /// output pixels (fractional at the edges when zoomed). Nil when nothing is visible.
    public func drawRects() -> (source: (x: Int, y: Int, w: Int, h: Int), destination: ViewRect)? {
        let c = content
        guard framebufferWidth > 0, framebufferHeight > 0, c.w > 0, c.h > 0, outputWidth > 0, outputHeight > 0 else { return nil }
        let sx = c.w / Double(framebufferWidth), sy = c.h / Double(framebufferHeight)
        // visible part of the content, in framebuffer pixels, widened to whole pixels
        let vx0 = max(0, c.x), vy0 = max(0, c.y)
        let vx1 = min(Double(outputWidth), c.x + c.w), vy1 = min(Double(outputHeight), c.y + c.h)
        guard vx1 > vx0, vy1 > vy0 else { return nil }
        let fx0 = max(0, Int(((vx0 - c.x) / sx).rounded(.down)))
        let fy0 = max(0, Int(((vy0 - c.y) / sy).rounded(.down)))
        let fx1 = min(framebufferWidth, Int(((vx1 - c.x) / sx).rounded(.up)))
        let fy1 = min(framebufferHeight, Int(((vy1 - c.y) / sy).rounded(.up)))
        guard fx1 > fx0, fy1 > fy0 else { return nil }
        let dst = ViewRect(x: c.x + Double(fx0) * sx, y: c.y + Double(fy0) * sy,
                           w: Double(fx1 - fx0) * sx, h: Double(fy1 - fy0) * sy)
        return ((fx0, fy0, fx1 - fx0, fy1 - fy0), dst)
    }
}
