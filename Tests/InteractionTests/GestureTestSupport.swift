import XCTest
@testable import Interaction
import RFB

/// Drives a recogniser with timestamped touch points and records what it sends.
/// The default scene: a 1000x800 desktop fitted into a 500x400 window (half size, no bars), so
/// window point (x, y) is framebuffer pixel (2x, 2y).
struct GestureDriver {
    var r: GestureRecognizer
    var v: Viewport

    init(_ mode: TouchInputMode, fb: (Int, Int) = (1000, 800), window: (Int, Int) = (500, 400), scaling: ScalingMode = .fit) {
        r = GestureRecognizer(mode: mode)
        v = Viewport(mode: scaling)
        v.resize(framebuffer: fb.0, fb.1, window: window.0, window.1, output: window.0, window.1)
        r.cursor.set(x: Double(fb.0) / 2, y: Double(fb.1) / 2, framebufferWidth: fb.0, height: fb.1)
    }

    @discardableResult
    mutating func down(_ f: Int64, _ x: Double, _ y: Double, _ t: Double) -> [GestureAction] {
        r.handle(TouchEvent(finger: f, .down, x: x, y: y, time: t), viewport: &v)
    }
    @discardableResult
    mutating func move(_ f: Int64, _ x: Double, _ y: Double, _ t: Double) -> [GestureAction] {
        r.handle(TouchEvent(finger: f, .move, x: x, y: y, time: t), viewport: &v)
    }
    @discardableResult
    mutating func up(_ f: Int64, _ x: Double, _ y: Double, _ t: Double) -> [GestureAction] {
        r.handle(TouchEvent(finger: f, .up, x: x, y: y, time: t), viewport: &v)
    }
    @discardableResult
    mutating func poll(_ t: Double) -> [GestureAction] { r.poll(now: t, viewport: &v) }

    /// Polls every frame (60 Hz) from `t0` until momentum ends (or `limit` seconds); all output.
    mutating func coast(from t0: Double, limit: Double = 5) -> (out: [GestureAction], end: Double) {
        var out: [GestureAction] = [], t = t0
        while r.hasMomentum && t < t0 + limit { t += 1.0 / 60; out += poll(t) }
        return (out, t)
    }

    /// Fractional framebuffer coordinates under a window point (to check pinch centres).
    func framebufferPoint(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let c = v.content
        return ((x - c.x) * Double(v.framebufferWidth) / c.w, (y - c.y) * Double(v.framebufferHeight) / c.h)
    }
}

func P(_ x: Int, _ y: Int, _ b: UInt16) -> GestureAction { .pointer(x: x, y: y, buttons: b) }

/// Only the pointer events (wheel steps) of an output, for counting.
func wheelPresses(_ out: [GestureAction], _ bit: UInt16) -> Int {
    out.filter { if case .pointer(_, _, let b) = $0 { return b & bit != 0 }; return false }.count
}
