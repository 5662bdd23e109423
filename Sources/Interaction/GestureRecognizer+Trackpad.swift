import Foundation

/// Trackpad mode: the finger moves a soft cursor relatively, with acceleration.
extension GestureRecognizer {
    /// Relative move with acceleration; one finger point moves the cursor one window point at the
    /// current zoom (times the gain), and the view follows the cursor near its edges.
    mutating func moveCursor(from a: ViewPoint, to b: ViewPoint, dt: Double, _ v: inout Viewport, _ out: inout [GestureAction]) {
        let dx = b.x - a.x, dy = b.y - a.y
        guard dx != 0 || dy != 0, v.framebufferWidth > 0 else { return }
        let speed = dt > 0 ? hypot2(dx, dy) / dt : 0
        let g = GestureRecognizer.gain(speed: speed)
        let c = v.content
        let fx = v.pixelsPerPointX * Double(v.framebufferWidth) / max(1, c.w)
        let fy = v.pixelsPerPointY * Double(v.framebufferHeight) / max(1, c.h)
        let old = cursor.pixel
        cursor.move(dx: dx * fx * g, dy: dy * fy * g, framebufferWidth: v.framebufferWidth, height: v.framebufferHeight)
        cursor.keep(in: v.shownRect)   // on the chosen screen, when the view shows one
        if cursor.follow(&v) { out.append(.viewChanged) }
        let p = cursor.pixel
        if p != old { out.append(.pointer(x: p.x, y: p.y, buttons: buttons)) }
    }

    /// Pointer acceleration gain for a finger speed in points per second.
    public static func gain(speed: Double) -> Double {
        let t = (speed - K.accelLowSpeed) / (K.accelHighSpeed - K.accelLowSpeed)
        return 1 + min(max(t, 0), 1) * (K.accelMaxGain - 1)
    }
}

/// Trackpad mode on its own (a relative soft cursor); a `GestureRecognizer` fixed to `.trackpad`.
public struct TrackpadModeRecognizer: Sendable {
    public var base = GestureRecognizer(mode: .trackpad)
    public init() {}
    public var cursor: SoftCursor { get { base.cursor } set { base.cursor = newValue } }
    public var buttons: UInt16 { base.buttons }
    public var needsPolling: Bool { base.needsPolling }
    public mutating func handle(_ e: TouchEvent, viewport v: inout Viewport) -> [GestureAction] { base.handle(e, viewport: &v) }
    public mutating func poll(now: Double, viewport v: inout Viewport) -> [GestureAction] { base.poll(now: now, viewport: &v) }
    @discardableResult public mutating func reset() -> [GestureAction] { base.reset() }
}
