import Foundation

/// Two-finger scrolling with momentum, pinch zoom, and the finger geometry both use.
extension GestureRecognizer {
    // MARK: scrolling

    /// Two-finger travel (window points, finger direction): pans the zoomed view first; what the
    /// view cannot take scrolls the remote, one wheel step per `scrollStep`.
    mutating func scroll(dx: Double, dy: Double, _ v: inout Viewport, _ out: inout [GestureAction]) {
        let old = v
        // the content follows the fingers, so the pan moves against them
        let desiredX = v.panX + carryX - dx * v.pixelsPerPointX
        let desiredY = v.panY + carryY - dy * v.pixelsPerPointY
        let cx = min(max(desiredX, v.minPanX), v.maxPanX), cy = min(max(desiredY, v.minPanY), v.maxPanY)
        v.setPan(x: cx, y: cy)
        // the viewport keeps whole pixels; the fraction carries over so slow drags still pan
        carryX = cx - v.panX; carryY = cy - v.panY
        if v != old { out.append(.viewChanged) }
        wheelX += -(desiredX - cx) / v.pixelsPerPointX
        wheelY += -(desiredY - cy) / v.pixelsPerPointY
        let p = scrollAt
        // fingers up = content up = wheel down (button 5); fingers left = wheel right (button 7)
        while wheelY <= -K.scrollStep { wheelY += K.scrollStep; wheelStep(16, p, &out) }
        while wheelY >= K.scrollStep { wheelY -= K.scrollStep; wheelStep(8, p, &out) }
        while wheelX <= -K.scrollStep { wheelX += K.scrollStep; wheelStep(64, p, &out) }
        while wheelX >= K.scrollStep { wheelX -= K.scrollStep; wheelStep(32, p, &out) }
    }

    func wheelStep(_ bit: UInt16, _ p: (x: Int, y: Int), _ out: inout [GestureAction]) {
        out.append(.pointer(x: p.x, y: p.y, buttons: buttons | bit))
        out.append(.pointer(x: p.x, y: p.y, buttons: buttons))
    }

    mutating func startMomentum(at t: Double) {
        guard let first = history.first(where: { t - $0.t <= K.velocityWindow }), let last = history.last,
              last.t > first.t else { return }
        let vx = (last.p.x - first.p.x) / (last.t - first.t), vy = (last.p.y - first.p.y) / (last.t - first.t)
        guard hypot2(vx, vy) >= K.momentumMinSpeed else { return }
        momentum = (vx, vy, t, 0)
    }

    // MARK: pinch

    /// Zooms so the framebuffer point first under the pinch centre stays under it.
    mutating func pinch(_ v: inout Viewport, _ out: inout [GestureAction]) {
        guard v.framebufferWidth > 0, v.framebufferHeight > 0, twoStartDistance > 0 else { return }
        let old = v
        var fit = v; fit.mode = .fit
        let fitScale = fit.scale
        let s = min(max(pinchStartScale * distance() / twoStartDistance, fitScale), max(K.maxZoom, fitScale))
        v.mode = s <= fitScale * (1 + 1e-9) ? .fit : .zoom(s)
        let c = v.toOutput(centroid())
        let sx = Double(v.contentWidth) / Double(v.framebufferWidth), sy = Double(v.contentHeight) / Double(v.framebufferHeight)
        v.setPan(x: pinchAnchor.x * sx - c.x, y: pinchAnchor.y * sy - c.y)
        if v != old { out.append(.viewChanged) }
    }

    // MARK: geometry

    func centroid() -> ViewPoint {
        let pts = order.compactMap { fingers[$0]?.last }
        guard !pts.isEmpty else { return ViewPoint(x: 0, y: 0) }
        return ViewPoint(x: pts.map(\.x).reduce(0, +) / Double(pts.count), y: pts.map(\.y).reduce(0, +) / Double(pts.count))
    }

    func distance() -> Double {
        let pts = order.compactMap { fingers[$0]?.last }
        return pts.count >= 2 ? dist(pts[0], pts[1]) : 0
    }

    /// The framebuffer pixel under a window point, clamped to what the view shows (the whole
    /// framebuffer, or the chosen screen): a touch in the bars goes to the nearest edge pixel,
    /// on a touch screen the bar is the closest one can get.
    func pixel(_ p: ViewPoint, _ v: Viewport) -> (x: Int, y: Int) {
        let f = framebufferPoint(atWindow: p, v)
        let r = v.shownRect
        return (min(max(r.x, Int(f.x.rounded(.down))), max(r.x, r.x + r.w - 1)),
                min(max(r.y, Int(f.y.rounded(.down))), max(r.y, r.y + r.h - 1)))
    }

    /// Fractional framebuffer coordinates of a window point (unclamped).
    func framebufferPoint(atWindow p: ViewPoint, _ v: Viewport) -> ViewPoint {
        let c = v.content, o = v.toOutput(p)
        return ViewPoint(x: (o.x - c.x) * Double(v.framebufferWidth) / max(1, c.w),
                         y: (o.y - c.y) * Double(v.framebufferHeight) / max(1, c.h))
    }
}

func dist(_ a: ViewPoint, _ b: ViewPoint) -> Double { hypot2(a.x - b.x, a.y - b.y) }
func hypot2(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }
