import XCTest
@testable import Interaction

/// Trackpad mode: a relative soft cursor. The driver's cursor starts at 500,400 (the middle);
/// at fit one window point is two framebuffer pixels.
final class GestureTrackpadModeTests: XCTestCase {
    func testTapClicksAtTheCursorOnceTheDoubleTapIntervalHasPassed() {
        var d = GestureDriver(.trackpad)
        XCTAssertEqual(d.down(1, 100, 100, 0) + d.up(1, 101, 100, 0.1), [])
        XCTAssertTrue(d.r.needsPolling)
        XCTAssertEqual(d.poll(0.1 + GestureConstants.doubleTapInterval - 0.01), [])
        XCTAssertEqual(d.poll(0.1 + GestureConstants.doubleTapInterval + 0.01), [P(500, 400, 1), P(500, 400, 0)])
        XCTAssertFalse(d.r.needsPolling)
        XCTAssertEqual(d.poll(5), [])
    }

    func testSlowTapIsNoClick() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0)
        XCTAssertEqual(d.up(1, 100, 100, GestureConstants.tapMaxDuration + 0.05), [])
        XCTAssertFalse(d.r.needsPolling)
        XCTAssertEqual(d.poll(2), [])
    }

    func testOneFingerMovesTheCursorRelativelyWithAcceleration() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0)
        XCTAssertEqual(d.move(1, 105, 100, 0.1), [])  // inside the slop
        // 20 points in 0.2 s (100 points/s): gain 1, 2 pixels per point
        XCTAssertEqual(d.move(1, 120, 100, 0.2), [P(540, 400, 0)])
        // 13.5 points in 20 ms (675 points/s): gain 2
        XCTAssertEqual(d.move(1, 120, 113.5, 0.22), [P(540, 454, 0)])
        // fast to the right (2000 points/s, gain 3): clamped at the last column
        XCTAssertEqual(d.move(1, 220, 113.5, 0.27), [P(999, 454, 0)])
        XCTAssertEqual(d.move(1, 230, 113.5, 0.37), [])  // still at the edge: nothing to send
        XCTAssertEqual(d.up(1, 230, 113.5, 0.4), [])
        XCTAssertEqual(d.poll(2), [])  // moved, so no tap
        XCTAssertEqual(d.r.cursor.pixel.x, 999)
    }

    func testGain() {
        XCTAssertEqual(GestureRecognizer.gain(speed: 0), 1)
        XCTAssertEqual(GestureRecognizer.gain(speed: GestureConstants.accelLowSpeed), 1)
        XCTAssertEqual(GestureRecognizer.gain(speed: 675), 2, accuracy: 1e-12)
        XCTAssertEqual(GestureRecognizer.gain(speed: GestureConstants.accelHighSpeed), 3)
        XCTAssertEqual(GestureRecognizer.gain(speed: 1e6), 3)
    }

    func testMoveScalesWithZoom() {
        // at 2x one point (one output pixel here) is half a framebuffer pixel
        var d = GestureDriver(.trackpad, scaling: .zoom(2))
        d.v.setPan(x: 750, y: 600)  // the cursor (500,400) is in the middle of the view
        d.down(1, 100, 100, 0)
        XCTAssertEqual(d.move(1, 130, 100, 1), [P(515, 400, 0)])
    }

    func testDoubleTapIsDoubleClick() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.up(1, 100, 100, 0.08)
        XCTAssertEqual(d.down(2, 104, 100, 0.2), [])
        XCTAssertEqual(d.up(2, 104, 100, 0.26), [P(500, 400, 1), P(500, 400, 0), P(500, 400, 1), P(500, 400, 0)])
        XCTAssertFalse(d.r.needsPolling)
        XCTAssertEqual(d.poll(3), [])
    }

    func testDoubleTapAndHoldThenMoveDrags() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.up(1, 100, 100, 0.08)
        d.down(2, 100, 100, 0.2)
        XCTAssertEqual(d.move(2, 102, 100, 0.5), [])
        // the first tap's click is dropped: a clean press, then the drag
        XCTAssertEqual(d.move(2, 120, 100, 0.6), [P(500, 400, 1), P(540, 400, 1)])
        XCTAssertEqual(d.move(2, 130, 110, 0.7), [P(560, 420, 1)])
        XCTAssertEqual(d.r.buttons, 1)
        XCTAssertEqual(d.up(2, 130, 110, 0.8), [P(560, 420, 0)])
        XCTAssertEqual(d.poll(3), [])
        // the next touch only moves
        d.down(3, 100, 100, 4)
        XCTAssertEqual(d.move(3, 120, 100, 4.2), [P(600, 420, 0)])
    }

    func testDoubleTapAndHoldWithoutMovingIsOneClick() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.up(1, 100, 100, 0.08)
        d.down(2, 100, 100, 0.2)
        XCTAssertEqual(d.up(2, 100, 100, 1.2), [P(500, 400, 1), P(500, 400, 0)])
        XCTAssertEqual(d.poll(3), [])
    }

    func testSecondTouchAfterTheIntervalIsNoDrag() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.up(1, 100, 100, 0.08)
        // no poll in between: the touch itself sends the waiting click first
        XCTAssertEqual(d.down(2, 100, 100, 0.08 + GestureConstants.doubleTapInterval + 0.1), [P(500, 400, 1), P(500, 400, 0)])
        XCTAssertEqual(d.move(2, 120, 100, 0.7), [P(540, 400, 0)])
        XCTAssertEqual(d.up(2, 120, 100, 0.8), [])
    }

    func testTwoFingerTapIsRightClickAtTheCursor() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.down(2, 140, 100, 0.02)
        d.up(1, 100, 100, 0.1)
        XCTAssertEqual(d.up(2, 140, 100, 0.11), [P(500, 400, 4), P(500, 400, 0)])
        XCTAssertFalse(d.r.needsPolling)
    }

    func testThreeFingerTapIsMiddleClickAtTheCursor() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.down(2, 140, 100, 0.01); d.down(3, 180, 100, 0.02)
        d.up(1, 100, 100, 0.1); d.up(2, 140, 100, 0.1)
        XCTAssertEqual(d.up(3, 180, 100, 0.1), [P(500, 400, 2), P(500, 400, 0)])
    }

    func testTapThenTwoFingerTapClicksInOrder() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.up(1, 100, 100, 0.08)
        XCTAssertEqual(d.down(2, 100, 100, 0.15), [])
        XCTAssertEqual(d.down(3, 140, 100, 0.16), [P(500, 400, 1), P(500, 400, 0)])
        XCTAssertEqual(d.up(2, 100, 100, 0.22) + d.up(3, 140, 100, 0.22), [P(500, 400, 4), P(500, 400, 0)])
        XCTAssertEqual(d.poll(3), [])
    }

    func testTwoFingerScrollAtTheCursorWithMomentum() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 300, 0); d.down(2, 150, 300, 0)
        XCTAssertEqual(d.move(1, 100, 280, 0.02), [])  // centroid 10: inside the slop
        // centroid 20 up: one step of wheel down at the cursor, no pointer move first
        XCTAssertEqual(d.move(2, 150, 280, 0.03), [P(500, 400, 16), P(500, 400, 0)])
        var out: [GestureAction] = []
        for i in 1...5 { out += d.move(1, 100, 280 - Double(i) * 20, 0.03 + Double(i) * 0.01) + d.move(2, 150, 280 - Double(i) * 20, 0.03 + Double(i) * 0.01) }
        XCTAssertEqual(wheelPresses(out, 16), 5)
        d.up(1, 100, 180, 0.09); d.up(2, 150, 180, 0.09)
        XCTAssertTrue(d.r.hasMomentum)
        let coast = d.coast(from: 0.09).out
        XCTAssertGreaterThan(wheelPresses(coast, 16), 10)
        for (i, a) in coast.enumerated() { XCTAssertEqual(a, P(500, 400, i % 2 == 0 ? 16 : 0)) }
        XCTAssertEqual(d.r.cursor.pixel.x, 500)
    }

    func testPinchZoomsAndLeavesTheCursor() {
        var d = GestureDriver(.trackpad)
        d.down(1, 200, 200, 0); d.down(2, 300, 200, 0)
        d.move(1, 150, 200, 0.02)  // 150 apart: a pinch about 225,200 = fb 450,400
        var out = d.move(2, 400, 200, 0.04)  // 250 apart
        out += d.up(1, 150, 200, 0.1) + d.up(2, 400, 200, 0.1)
        XCTAssertEqual(out, [.viewChanged])
        XCTAssertEqual(d.v.mode, .zoom(0.5 * 250 / 150))
        let f = d.framebufferPoint(275, 200)
        XCTAssertEqual(f.x, 450, accuracy: 1)
        XCTAssertEqual(f.y, 400, accuracy: 1)
        XCTAssertEqual(d.r.cursor.pixel.x, 500)
        XCTAssertFalse(d.r.needsPolling)
    }

    func testViewFollowsTheCursorNearAnEdge() {
        var d = GestureDriver(.trackpad, scaling: .zoom(2))  // 2000x1600 in 500x400; margin 50x40
        d.r.cursor.set(x: 100, y: 100, framebufferWidth: 1000, height: 800)  // output 200,200
        d.down(1, 100, 100, 0)
        XCTAssertEqual(d.move(1, 200, 100, 1), [P(150, 100, 0)])  // output 300: no follow
        XCTAssertEqual(d.move(1, 400, 100, 3), [.viewChanged, P(250, 100, 0)])  // output 500 → pan 50
        XCTAssertEqual(d.v.panX, 50)
        XCTAssertEqual(d.r.cursor.windowPoint(in: d.v).x, 450)
        XCTAssertEqual(d.move(1, 0, 100, 7), [P(50, 100, 0)])  // output 50: on the margin
        XCTAssertEqual(d.move(1, -40, 100, 8), [.viewChanged, P(30, 100, 0)])  // output 10 → pan 10
        XCTAssertEqual(d.v.panX, 10)
        XCTAssertEqual(d.v.panY, 0)
    }

    func testSwitchingModeReleasesADrag() {
        var d = GestureDriver(.trackpad)
        d.down(1, 100, 100, 0); d.up(1, 100, 100, 0.08)
        d.down(2, 100, 100, 0.2); d.move(2, 120, 100, 0.5)  // 67 points/s: gain 1
        XCTAssertEqual(d.r.buttons, 1)
        XCTAssertEqual(d.r.setMode(.touch), [P(540, 400, 0)])
        XCTAssertEqual(d.r.mode, .touch)
        XCTAssertEqual(d.up(2, 120, 100, 0.6), [])
        XCTAssertEqual(d.r.setMode(.touch), [])
    }

    func testFixedModeWrappers() {
        var v = Viewport()
        v.resize(framebuffer: 1000, 800, window: 500, 400, output: 500, 400)
        var t = TouchModeRecognizer()
        _ = t.handle(TouchEvent(finger: 1, .down, x: 10, y: 10, time: 0), viewport: &v)
        XCTAssertEqual(t.handle(TouchEvent(finger: 1, .up, x: 10, y: 10, time: 0.05), viewport: &v), [P(20, 20, 0), P(20, 20, 1), P(20, 20, 0)])
        var p = TrackpadModeRecognizer()
        p.cursor.set(x: 7, y: 9, framebufferWidth: 1000, height: 800)
        _ = p.handle(TouchEvent(finger: 1, .down, x: 10, y: 10, time: 0), viewport: &v)
        _ = p.handle(TouchEvent(finger: 1, .up, x: 10, y: 10, time: 0.05), viewport: &v)
        XCTAssertTrue(p.needsPolling)
        XCTAssertEqual(p.poll(now: 1, viewport: &v), [P(7, 9, 1), P(7, 9, 0)])
    }
}
