import Foundation
import RFB

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
}

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
