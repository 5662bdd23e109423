// Touch and trackpad gestures as plain logic: timestamped touch points in, RFB pointer events and
// viewport changes out. No SDL types and no timers (the caller polls with the time), so every
// gesture is a unit test over a sequence of points.
//
// Gestures (both modes unless noted):
// - touch mode: tap = left click where the finger is; double tap = double click (the second click
//   goes to the first one's pixel); press and hold still, then move = left drag; a quick one-finger
//   move = pointer move without buttons (hover); a slow still touch = pointer move only.
// - trackpad mode: one-finger move = relative soft-cursor move with acceleration; tap = left click
//   at the cursor (sent once the double-tap interval has passed, so that a double-tap-and-hold
//   is a clean drag and not a click plus a drag); tap then tap = double click; double-tap-and-hold
//   then move = left drag.
// - two-finger tap = right click; three-finger tap = middle click; four-finger tap = reset zoom to
//   fit (a tap with more fingers than any click uses, so it cannot be hit by accident).
// - two-finger drag = pan the zoomed view; what the view cannot pan (at its edge, or not zoomed)
//   scrolls the remote desktop (wheel buttons 4-7), with momentum after the fingers lift.
// - pinch = zoom about the pinch centre, from fit up to `maxZoom`; the centre follows the fingers,
//   so pinching also pans. Pinching in to fit or below snaps back to fit.

import Foundation

/// One touch point as the front end reports it.
public struct TouchEvent: Equatable, Sendable {
    public enum Phase: Equatable, Sendable { case down, move, up }
    /// Identifies the finger from down to up (SDL's finger id).
    public var finger: Int64
    public var phase: Phase
    /// Window points (SDL's normalised coordinates times the window size).
    public var x: Double, y: Double
    /// Seconds, from any fixed origin (SDL's timestamp / 1000).
    public var time: Double
    public init(finger: Int64, _ phase: Phase, x: Double, y: Double, time: Double) {
        self.finger = finger; self.phase = phase; self.x = x; self.y = y; self.time = time
    }
    public var point: ViewPoint { ViewPoint(x: x, y: y) }
}

/// What a gesture does: RFB pointer events in the order they are to be sent, and view changes
/// (already applied to the viewport passed in).
public enum GestureAction: Equatable, Sendable, CustomStringConvertible {
    /// A PointerEvent: framebuffer pixel and button mask (bit 0 = button 1; 8/16 wheel up/down,
    /// 32/64 wheel left/right, each step sent pressed then released).
    case pointer(x: Int, y: Int, buttons: UInt16)
    /// The viewport's zoom or pan changed: draw again.
    case viewChanged
    /// Three fingers swiped in a direction (the front end's shortcut: the screen picker up,
    /// the next/previous screen sideways); nothing is sent for it.
    case threeFingerSwipe(SwipeDirection)

    public var description: String {
        switch self {
        case .pointer(let x, let y, let b): return "(\(x),\(y) b\(b))"
        case .viewChanged: return "view"
        case .threeFingerSwipe(let d): return "swipe3 \(d)"
        }
    }
}

public enum SwipeDirection: Equatable, Sendable { case up, down, left, right }

/// Which gestures apply.
public enum TouchInputMode: Equatable, Sendable {
    /// The remote pointer goes where the finger is.
    case touch
    /// The finger moves a soft cursor relatively, like a laptop touchpad.
    case trackpad
}

/// Thresholds shared by both modes.
public enum GestureConstants {
    /// A tap is quicker than this; a deliberate press lasts longer (taps measure 50-200 ms).
    public static let tapMaxDuration = 0.25
    /// Window points a finger may wander and still tap: fingertip jitter stays within a few points.
    public static let tapSlop = 10.0
    /// A second tap within this of the first makes a double click: inside the desktops' double-click
    /// time (GTK 400 ms, X toolkits 500 ms) with room for the trip to the server.
    public static let doubleTapInterval = 0.3
    /// A fingertip never lands twice on the same point; within this it counts as the same place.
    public static let doubleTapSlop = 30.0
    /// Still this long before moving makes a drag (Android's long press is 0.5 s as well).
    public static let holdTime = 0.5
    /// Change in finger distance (points) before two fingers pinch rather than scroll: larger than
    /// the distance change of two fingers dragged together.
    public static let pinchSlop = 24.0
    /// Points of two-finger travel per wheel step: a few steps per short swipe, like a touchpad.
    public static let scrollStep = 20.0
    /// Largest pinch zoom (output pixels per framebuffer pixel): past 8x a pixel fills a fingertip.
    public static let maxZoom = 8.0
    /// Momentum decays as exp(-t / this): a fling coasts about a second (iOS scroll views feel alike).
    public static let momentumTimeConstant = 0.35
    /// Lift-off speed (points/s) below which there is no momentum: fingers that stopped before
    /// lifting mean "stop here".
    public static let momentumMinSpeed = 300.0
    /// Momentum ends below this speed (points/s): slower than this no one sees it move.
    public static let momentumStopSpeed = 20.0
    /// Lift-off speed is measured over the last this many seconds: earlier motion is stale.
    public static let velocityWindow = 0.1
    /// Trackpad acceleration: gain 1 up to `accelLowSpeed` points/s, rising linearly to
    /// `accelMaxGain` at `accelHighSpeed`, so slow moves are precise and fast ones cross the screen.
    public static let accelLowSpeed = 150.0
    public static let accelHighSpeed = 1200.0
    public static let accelMaxGain = 3.0
}

/// Recognises gestures for either mode (switchable at run time with `setMode`). The front end
/// feeds every finger event to `handle`, calls `poll` while `needsPolling` (momentum, a pending
/// trackpad click) with the current time, and sends the pointer events in order. Main thread only.
public struct GestureRecognizer: Sendable {
    public typealias K = GestureConstants
    public private(set) var mode: TouchInputMode
    /// Trackpad mode's cursor (framebuffer pixels); the front end draws it.
    public var cursor = SoftCursor()
    /// The button mask this recogniser has sent last (a drag in progress holds button 1).
    public private(set) var buttons: UInt16 = 0

    struct Finger: Sendable { var start: ViewPoint; var last: ViewPoint }

    enum Kind: Sendable {
        /// Fingers down, none moved past the slop yet: could still be a tap.
        case undecided
        /// Touch mode: the pointer follows the finger without buttons.
        case hover
        /// Trackpad mode: the cursor follows the finger.
        case cursor
        /// Button 1 is held and follows the finger.
        case drag
        case scroll
        case pinch
        /// Nothing more from this sequence (left-over fingers, a swipe with three fingers).
        case ignored
    }

    var isUndecided: Bool { if case .undecided = kind { return true } else { return false } }

    var fingers: [Int64: Finger] = [:]
    /// Fingers in order of arrival (the first one's position is where touch-mode clicks go).
    var order: [Int64] = []
    var kind = Kind.undecided
    var seqStart = 0.0
    /// Where the sequence's first finger landed (touch-mode clicks go there).
    var firstStart = ViewPoint(x: 0, y: 0)
    /// Touch mode: the pixel a drag last sent (a reset releases the button there).
    var lastPixel: (x: Int, y: Int) = (0, 0)
    var maxFingers = 0
    /// Touch mode: the last tap (time of lift, window point, pixel clicked) for double taps.
    var lastTap: (time: Double, at: ViewPoint, pixel: (x: Int, y: Int))?
    /// Trackpad mode: a tap whose click waits for the double-tap interval (time of lift).
    var pendingClick: Double?
    /// Trackpad mode: this sequence began within the double-tap interval of a tap.
    var secondTap = false
    /// Two-finger state: centroid and distance when the gesture started (or when the pinch did).
    var twoStartCentroid = ViewPoint(x: 0, y: 0), twoStartDistance = 0.0, lastCentroid = ViewPoint(x: 0, y: 0)
    var pinchAnchor = ViewPoint(x: 0, y: 0), pinchStartScale = 1.0
    var scrollAt: (x: Int, y: Int) = (0, 0)
    var carryX = 0.0, carryY = 0.0, wheelX = 0.0, wheelY = 0.0
    var history: [(t: Double, p: ViewPoint)] = []
    var lastMoveTime = 0.0
    /// Momentum after a two-finger scroll: start velocity (points/s), start time, time applied so far.
    var momentum: (vx: Double, vy: Double, t0: Double, applied: Double)?

    public init(mode: TouchInputMode) { self.mode = mode }

    /// True while `poll` has something to do (momentum coasting or a trackpad click waiting).
    public var needsPolling: Bool { momentum != nil || pendingClick != nil }
    public var hasMomentum: Bool { momentum != nil }

    /// Forgets every gesture in progress (mode switch, focus lost). Returns the release of a
    /// held button, if any.
    @discardableResult
    public mutating func reset() -> [GestureAction] {
        var out: [GestureAction] = []
        if buttons != 0 {
            buttons = 0
            let p = mode == .touch ? lastPixel : cursor.pixel
            out.append(.pointer(x: p.x, y: p.y, buttons: 0))
        }
        fingers.removeAll(); order.removeAll(); kind = .undecided; maxFingers = 0
        lastTap = nil; pendingClick = nil; secondTap = false; momentum = nil
        return out
    }

    /// Switches mode (at run time, from the menu): whatever was under way ends, a held button is
    /// released (the returned event).
    public mutating func setMode(_ m: TouchInputMode) -> [GestureAction] {
        guard m != mode else { return [] }
        let out = reset()
        mode = m
        return out
    }

    /// Resets the zoom to fit; the menu entry does the same as the four-finger tap.
    public mutating func resetZoom(_ v: inout Viewport) -> [GestureAction] {
        let old = v
        v.mode = .fit
        return v == old ? [] : [.viewChanged]
    }

    // MARK: events

    public mutating func handle(_ e: TouchEvent, viewport v: inout Viewport) -> [GestureAction] {
        var out: [GestureAction] = []
        switch e.phase {
        case .down: down(e, &v, &out)
        case .move: move(e, &v, &out)
        case .up: up(e, &v, &out)
        }
        return out
    }

    /// Advances what depends on time alone: momentum and a trackpad click waiting for a possible
    /// second tap. Call while `needsPolling`, e.g. once per frame.
    public mutating func poll(now: Double, viewport v: inout Viewport) -> [GestureAction] {
        var out: [GestureAction] = []
        flushPendingClick(now: now, &out)
        if let m = momentum {
            let tau = K.momentumTimeConstant
            let e = max(m.applied, now - m.t0)
            let f = { (t: Double) in tau * (1 - exp(-t / tau)) }
            let d = f(e) - f(m.applied)
            momentum?.applied = e
            scroll(dx: m.vx * d, dy: m.vy * d, &v, &out)
            if hypot2(m.vx, m.vy) * exp(-e / tau) < K.momentumStopSpeed { momentum = nil }
        }
        return out
    }

    mutating func flushPendingClick(now: Double, _ out: inout [GestureAction]) {
        guard let t = pendingClick, now - t > K.doubleTapInterval, fingers.isEmpty else { return }
        pendingClick = nil
        click(at: cursor.pixel, mask: 1, moveFirst: false, &out)
    }

    mutating func down(_ e: TouchEvent, _ v: inout Viewport, _ out: inout [GestureAction]) {
        momentum = nil  // a touch stops a fling, as on any touch screen
        if fingers.isEmpty {
            if mode == .trackpad {
                flushPendingClick(now: e.time, &out)
                secondTap = pendingClick != nil
            }
            kind = .undecided; seqStart = e.time; maxFingers = 0; order.removeAll(); firstStart = e.point
        } else if !isUndecided {
            return  // a finger added to a gesture already under way does not change it
        }
        if secondTap && !fingers.isEmpty {
            // tap, then two fingers: the first tap was a click after all, and comes first
            secondTap = false
            pendingClick = nil
            click(at: cursor.pixel, mask: 1, moveFirst: false, &out)
        }
        fingers[e.finger] = Finger(start: e.point, last: e.point)
        order.append(e.finger)
        maxFingers = max(maxFingers, fingers.count)
        if fingers.count == 2, case .undecided = kind {
            twoStartCentroid = centroid(); lastCentroid = twoStartCentroid
            twoStartDistance = distance()
        }
        lastMoveTime = e.time
    }

    mutating func move(_ e: TouchEvent, _ v: inout Viewport, _ out: inout [GestureAction]) {
        guard var f = fingers[e.finger] else { return }
        let prev = f.last
        f.last = e.point
        fingers[e.finger] = f
        let dt = e.time - lastMoveTime
        lastMoveTime = e.time
        switch kind {
        case .undecided:
            decide(e, &v, &out)
        case .hover, .cursor, .drag:
            guard e.finger == order.first else { return }
            if mode == .touch {
                lastPixel = pixel(e.point, v)
                out.append(.pointer(x: lastPixel.x, y: lastPixel.y, buttons: buttons))
            } else {
                moveCursor(from: prev, to: e.point, dt: dt, &v, &out)
            }
        case .scroll:
            let c = centroid()
            history.append((e.time, c))
            history.removeAll { e.time - $0.t > K.velocityWindow }
            scroll(dx: c.x - lastCentroid.x, dy: c.y - lastCentroid.y, &v, &out)
            lastCentroid = c
        case .pinch:
            pinch(&v, &out)
        case .ignored:
            break
        }
    }

    /// The first movement past the slop decides what an undecided sequence is.
    mutating func decide(_ e: TouchEvent, _ v: inout Viewport, _ out: inout [GestureAction]) {
        guard let f = fingers[e.finger], dist(f.start, f.last) > K.tapSlop || fingers.count == 2 else { return }
        lastTap = nil  // something else came between: the next tap is a first tap
        if maxFingers >= 3 || fingers.count != maxFingers {
            // a three-finger swipe is a shortcut for the front end, reported once; more fingers,
            // or a finger left over from a multi-finger tap: nothing
            if dist(f.start, f.last) > K.tapSlop {
                kind = .ignored
                if maxFingers == 3 && fingers.count == 3 {
                    let dx = f.last.x - f.start.x, dy = f.last.y - f.start.y
                    out.append(.threeFingerSwipe(abs(dx) > abs(dy) ? (dx > 0 ? .right : .left) : (dy > 0 ? .down : .up)))
                }
            }
            return
        }
        if fingers.count == 2 {
            let c = centroid(), d = distance()
            if abs(d - twoStartDistance) > K.pinchSlop {
                kind = .pinch
                pinchAnchor = framebufferPoint(atWindow: c, v)
                pinchStartScale = Double(v.contentWidth) / Double(max(1, v.framebufferWidth))
                twoStartDistance = d
                pinch(&v, &out)
            } else if dist(c, twoStartCentroid) > K.tapSlop {
                kind = .scroll
                carryX = 0; carryY = 0; wheelX = 0; wheelY = 0
                history = [(e.time, c)]
                if mode == .touch {
                    scrollAt = pixel(twoStartCentroid, v)
                    out.append(.pointer(x: scrollAt.x, y: scrollAt.y, buttons: buttons))
                } else {
                    scrollAt = cursor.pixel
                }
                scroll(dx: c.x - twoStartCentroid.x, dy: c.y - twoStartCentroid.y, &v, &out)
                lastCentroid = c
            }
            return
        }
        // one finger past the slop
        switch mode {
        case .touch:
            let p = pixel(f.last, v)
            lastPixel = p
            if e.time - seqStart >= K.holdTime {
                kind = .drag
                let s = pixel(f.start, v)
                buttons |= 1
                out.append(.pointer(x: s.x, y: s.y, buttons: buttons))
            } else {
                kind = .hover
            }
            out.append(.pointer(x: p.x, y: p.y, buttons: buttons))
        case .trackpad:
            if secondTap {
                // double-tap-and-hold: the first tap's click is dropped, the drag replaces it
                pendingClick = nil; secondTap = false
                kind = .drag
                buttons |= 1
                out.append(.pointer(x: cursor.pixel.x, y: cursor.pixel.y, buttons: buttons))
            } else {
                kind = .cursor
            }
            moveCursor(from: f.start, to: f.last, dt: max(e.time - seqStart, 0), &v, &out)
        }
    }

    mutating func up(_ e: TouchEvent, _ v: inout Viewport, _ out: inout [GestureAction]) {
        guard let f = fingers.removeValue(forKey: e.finger) else { return }
        let wasFirst = e.finger == order.first
        switch kind {
        case .undecided:
            if fingers.isEmpty { endUndecided(e, f, &v, &out) }
            return
        case .drag:
            if wasFirst {
                buttons &= ~1
                let p = mode == .touch ? pixel(f.last, v) : cursor.pixel
                out.append(.pointer(x: p.x, y: p.y, buttons: buttons))
                kind = .ignored
            }
        case .hover, .cursor:
            if wasFirst { kind = .ignored }
        case .scroll:
            startMomentum(at: e.time)
            kind = .ignored
        case .pinch:
            kind = .ignored
        case .ignored:
            break
        }
        if fingers.isEmpty { kind = .undecided; secondTap = false }
    }

    /// All fingers lifted without moving: a tap with as many fingers as were down, or (too slow)
    /// nothing but a pointer move.
    mutating func endUndecided(_ e: TouchEvent, _ f: Finger, _ v: inout Viewport, _ out: inout [GestureAction]) {
        let quick = e.time - seqStart <= K.tapMaxDuration
        let previousTap = lastTap
        lastTap = nil  // only a tap right after a tap makes a double click
        defer { kind = .undecided; secondTap = false }
        switch (maxFingers, mode) {
        case (1, .touch):
            var p = pixel(firstStart, v)
            guard quick else { out.append(.pointer(x: p.x, y: p.y, buttons: buttons)); return }
            if let t = previousTap, seqStart - t.time <= K.doubleTapInterval, dist(t.at, firstStart) <= K.doubleTapSlop {
                p = t.pixel  // the second click lands on the first one's pixel, or it is no double click
            }
            click(at: p, mask: 1, moveFirst: true, &out)
            lastTap = (e.time, firstStart, p)
        case (1, .trackpad):
            if secondTap {
                pendingClick = nil
                // tap, tap: a double click; tap, then a held touch that never moved: a drag
                // without motion, i.e. the one click
                click(at: cursor.pixel, mask: 1, moveFirst: false, &out)
                if quick { click(at: cursor.pixel, mask: 1, moveFirst: false, &out) }
            } else if quick {
                pendingClick = e.time
            }
        case (2, _) where quick, (3, _) where quick:
            let mask: UInt16 = maxFingers == 2 ? 4 : 2
            if mode == .touch {
                click(at: pixel(firstStart, v), mask: mask, moveFirst: true, &out)
            } else {
                click(at: cursor.pixel, mask: mask, moveFirst: false, &out)
            }
        case (4, _) where quick:
            out += resetZoom(&v)
        default:
            break
        }
    }

    mutating func click(at p: (x: Int, y: Int), mask: UInt16, moveFirst: Bool, _ out: inout [GestureAction]) {
        if moveFirst { out.append(.pointer(x: p.x, y: p.y, buttons: buttons)) }
        out.append(.pointer(x: p.x, y: p.y, buttons: buttons | mask))
        out.append(.pointer(x: p.x, y: p.y, buttons: buttons))
    }

    // MARK: trackpad cursor

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

private func dist(_ a: ViewPoint, _ b: ViewPoint) -> Double { hypot2(a.x - b.x, a.y - b.y) }
private func hypot2(_ x: Double, _ y: Double) -> Double { (x * x + y * y).squareRoot() }

/// Touch mode on its own (the pointer goes where the finger is); a `GestureRecognizer` fixed to
/// `.touch`, for callers that never switch.
public struct TouchModeRecognizer: Sendable {
    public var base = GestureRecognizer(mode: .touch)
    public init() {}
    public var buttons: UInt16 { base.buttons }
    public var needsPolling: Bool { base.needsPolling }
    public mutating func handle(_ e: TouchEvent, viewport v: inout Viewport) -> [GestureAction] { base.handle(e, viewport: &v) }
    public mutating func poll(now: Double, viewport v: inout Viewport) -> [GestureAction] { base.poll(now: now, viewport: &v) }
    @discardableResult public mutating func reset() -> [GestureAction] { base.reset() }
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
