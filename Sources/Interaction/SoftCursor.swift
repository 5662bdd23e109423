import RFB

// The trackpad mode's soft cursor: a position in framebuffer pixels that the viewer draws itself,
// moved relatively by the finger. Plain values only (no SDL), so clamping and edge-follow are tested.

/// A cursor position in framebuffer coordinates (fractional, so slow finger motion accumulates
/// instead of being lost to rounding), always inside the framebuffer.
public struct SoftCursor: Equatable, Sendable {
    /// Framebuffer coordinates; the pixel sent is `pixel`.
    public private(set) var x: Double, y: Double

    /// Part of the view, per side, in which the cursor pushes a zoomed view along: a tenth keeps
    /// some context ahead of the cursor on any panel size.
    public static let followMargin = 0.1

    public init(x: Double = 0, y: Double = 0) { self.x = x; self.y = y }

    /// The framebuffer pixel the cursor's hotspot is on.
    public var pixel: (x: Int, y: Int) { (Int(x.rounded(.down)), Int(y.rounded(.down))) }

    /// Keeps the cursor on the framebuffer (a resize may shrink it under the cursor).
    public mutating func clamp(framebufferWidth w: Int, height h: Int) {
        // the last pixel's far edge is excluded: `pixel` must stay a valid index
        x = min(max(0, x), w > 0 ? Double(w).nextDown : 0)
        y = min(max(0, y), h > 0 ? Double(h).nextDown : 0)
    }

    /// Keeps the cursor inside a framebuffer rectangle (the screen the view is framed on).
    public mutating func keep(in r: Rect) {
        guard r.w > 0, r.h > 0 else { return }
        x = min(max(Double(r.x), x), Double(r.x + r.w).nextDown)
        y = min(max(Double(r.y), y), Double(r.y + r.h).nextDown)
    }

    /// Moves by framebuffer pixels, clamped to the framebuffer.
    public mutating func move(dx: Double, dy: Double, framebufferWidth w: Int, height h: Int) {
        x += dx; y += dy
        clamp(framebufferWidth: w, height: h)
    }

    /// Puts the cursor on a framebuffer point (clamped).
    public mutating func set(x: Double, y: Double, framebufferWidth w: Int, height h: Int) {
        self.x = x; self.y = y
        clamp(framebufferWidth: w, height: h)
    }

    /// Where the hotspot is in output pixels for this viewport.
    public func outputPoint(in v: Viewport) -> ViewPoint {
        let c = v.content
        let sx = c.w / Double(max(1, v.framebufferWidth)), sy = c.h / Double(max(1, v.framebufferHeight))
        return ViewPoint(x: c.x + x * sx, y: c.y + y * sy)
    }

    /// Where to draw the hotspot, in window points.
    public func windowPoint(in v: Viewport) -> ViewPoint { v.toWindow(output: outputPoint(in: v)) }

    /// Scrolls a zoomed view so the cursor stays out of the margin at its edges (the view follows
    /// the cursor). Returns true when the view moved.
    @discardableResult
    public func follow(_ v: inout Viewport) -> Bool {
        guard v.canScroll else { return false }
        let o = outputPoint(in: v)
        let mx = Double(v.outputWidth) * SoftCursor.followMargin, my = Double(v.outputHeight) * SoftCursor.followMargin
        var dx = 0.0, dy = 0.0
        if o.x < mx { dx = o.x - mx } else if o.x > Double(v.outputWidth) - mx { dx = o.x - (Double(v.outputWidth) - mx) }
        if o.y < my { dy = o.y - my } else if o.y > Double(v.outputHeight) - my { dy = o.y - (Double(v.outputHeight) - my) }
        guard dx != 0 || dy != 0 else { return false }
        return v.scroll(dx: dx, dy: dy)
    }
}
