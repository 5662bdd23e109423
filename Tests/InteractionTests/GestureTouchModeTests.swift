import XCTest
@testable import Interaction

/// Touch mode: the pointer goes where the finger is.
final class GestureTouchModeTests: XCTestCase {
    func testTapClicksWhereTheFingerIs() {
        var d = GestureDriver(.touch)
        XCTAssertEqual(d.down(1, 100, 50, 10.0), [])
        XCTAssertEqual(d.move(1, 104, 53, 10.05), [])  // jitter inside the slop
        XCTAssertEqual(d.up(1, 104, 53, 10.1), [P(200, 100, 0), P(200, 100, 1), P(200, 100, 0)])
        XCTAssertFalse(d.r.needsPolling)  // touch mode clicks at once
    }

    func testSlowTapOnlyMovesThePointer() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0)
        XCTAssertEqual(d.up(1, 100, 50, GestureConstants.tapMaxDuration + 0.05), [P(200, 100, 0)])
    }

    func testTapThatMovedTooFarIsAPointerMove() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0)
        XCTAssertEqual(d.move(1, 115, 50, 0.05), [P(230, 100, 0)])
        XCTAssertEqual(d.move(1, 120, 60, 0.08), [P(240, 120, 0)])
        XCTAssertEqual(d.up(1, 120, 60, 0.1), [])
    }

    func testDoubleTapClicksTwiceOnTheSamePixel() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.up(1, 100, 50, 0.08)
        d.down(2, 110, 55, 0.25)
        // the second tap landed 11 points away; both clicks go to the first pixel
        XCTAssertEqual(d.up(2, 110, 55, 0.3), [P(200, 100, 0), P(200, 100, 1), P(200, 100, 0)])
    }

    func testTapsTooFarApartInTimeOrSpaceAreSingleClicks() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.up(1, 100, 50, 0.08)
        d.down(2, 110, 55, 0.08 + GestureConstants.doubleTapInterval + 0.05)
        XCTAssertEqual(d.up(2, 110, 55, 0.5), [P(220, 110, 0), P(220, 110, 1), P(220, 110, 0)])
        d.down(3, 200, 55, 0.6)  // quick, but 90 points away
        XCTAssertEqual(d.up(3, 200, 55, 0.65), [P(400, 110, 0), P(400, 110, 1), P(400, 110, 0)])
    }

    func testATapAfterASwipeIsNoDoubleClick() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.up(1, 100, 50, 0.05)
        d.down(2, 100, 50, 0.1); d.move(2, 100, 70, 0.12); d.up(2, 100, 70, 0.15)
        d.down(3, 110, 55, 0.2)
        XCTAssertEqual(d.up(3, 110, 55, 0.25), [P(220, 110, 0), P(220, 110, 1), P(220, 110, 0)])
    }

    func testTwoFingerTapIsRightClickAtTheFirstFinger() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.down(2, 140, 52, 0.02)
        XCTAssertEqual(d.up(2, 140, 52, 0.1), [])
        XCTAssertEqual(d.up(1, 100, 50, 0.12), [P(200, 100, 0), P(200, 100, 4), P(200, 100, 0)])
    }

    func testSlowTwoFingerTapDoesNothing() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.down(2, 140, 52, 0.02)
        d.up(2, 140, 52, 0.4)
        XCTAssertEqual(d.up(1, 100, 50, 0.4), [])
    }

    func testThreeFingerTapIsMiddleClick() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.down(2, 140, 52, 0.01); d.down(3, 180, 50, 0.02)
        d.up(3, 180, 50, 0.1); d.up(1, 100, 50, 0.11)
        XCTAssertEqual(d.up(2, 140, 52, 0.12), [P(200, 100, 0), P(200, 100, 2), P(200, 100, 0)])
    }

    /// A three-finger swipe sends nothing to the server: it is reported once, with its
    /// direction, for the front end's shortcuts.
    func testThreeFingerSwipeIsReportedOnceAndSendsNothing() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0); d.down(2, 140, 52, 0.01); d.down(3, 180, 50, 0.02)
        var out = d.move(1, 100, 90, 0.05) + d.move(2, 140, 92, 0.05) + d.move(3, 180, 90, 0.05)
        out += d.move(1, 100, 130, 0.08)
        out += d.up(1, 100, 90, 0.1) + d.up(2, 140, 92, 0.1) + d.up(3, 180, 90, 0.1)
        XCTAssertEqual(out, [.threeFingerSwipe(.down)])
        var l = GestureDriver(.trackpad)
        l.down(1, 300, 50, 0); l.down(2, 340, 52, 0.01); l.down(3, 380, 50, 0.02)
        XCTAssertEqual(l.move(2, 300, 55, 0.05), [.threeFingerSwipe(.left)])
    }

    func testPressAndHoldThenMoveDrags() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0)
        XCTAssertEqual(d.move(1, 102, 50, 0.3), [])
        // held past the hold time inside the slop, then moved: press where it landed, then follow
        XCTAssertEqual(d.move(1, 120, 50, 0.6), [P(200, 100, 1), P(240, 100, 1)])
        XCTAssertEqual(d.move(1, 150, 60, 0.7), [P(300, 120, 1)])
        XCTAssertEqual(d.r.buttons, 1)
        XCTAssertEqual(d.up(1, 150, 60, 0.8), [P(300, 120, 0)])
        XCTAssertEqual(d.r.buttons, 0)
    }

    func testMovingBeforeTheHoldTimeIsNoDrag() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0)
        XCTAssertEqual(d.move(1, 120, 50, GestureConstants.holdTime - 0.1), [P(240, 100, 0)])
        XCTAssertEqual(d.move(1, 150, 60, 0.7), [P(300, 120, 0)])  // still a hover after the hold time
        XCTAssertEqual(d.up(1, 150, 60, 0.8), [])
    }

    func testResetReleasesADrag() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 50, 0)
        d.move(1, 120, 50, 0.6)
        XCTAssertEqual(d.r.reset(), [P(240, 100, 0)])
        XCTAssertEqual(d.up(1, 120, 50, 0.7), [])
    }

    func testTwoFingerDragScrollsWithWheelSteps() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 100, 0); d.down(2, 150, 100, 0.01)
        // fingers up together: the centroid passes the slop, the distance barely changes
        XCTAssertEqual(d.move(1, 100, 85, 0.03), [])  // centroid moved 7.5: undecided
        // centroid 15 up: scroll, the pointer goes to where the fingers started; 15 < one step
        XCTAssertEqual(d.move(2, 150, 85, 0.04), [P(250, 200, 0)])
        // centroid 22.5 up: one step of wheel down (content follows the fingers up), 2.5 kept
        XCTAssertEqual(d.move(1, 100, 70, 0.05), [P(250, 200, 16), P(250, 200, 0)])
        XCTAssertEqual(d.move(2, 150, 70, 0.06), [])  // 10 towards the next
        // sideways: fingers right = content right = wheel left (button 6)
        d.move(1, 130, 70, 0.07)
        XCTAssertEqual(d.move(2, 180, 70, 0.08), [P(250, 200, 32), P(250, 200, 0)])
        // and 40 back down: the 10 owed first, then one step of wheel up, 10 towards the next
        XCTAssertEqual(d.move(1, 130, 110, 0.2), [])
        XCTAssertEqual(d.move(2, 180, 110, 0.3), [P(250, 200, 8), P(250, 200, 0)])
        // slow lift (stopped 0.2 s before): no momentum
        d.up(1, 130, 110, 0.5); d.up(2, 180, 110, 0.5)
        XCTAssertFalse(d.r.hasMomentum)
        XCTAssertEqual(d.poll(0.6), [])
    }

    func testScrollMomentumDecaysAndStops() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 300, 0); d.down(2, 150, 300, 0)
        var t = 0.0, y = 300.0, out: [GestureAction] = []
        // a fling: 30 points per 10 ms (3000 points/s) upwards
        for _ in 0..<8 {
            t += 0.01; y -= 30
            out += d.move(1, 100, y, t) + d.move(2, 150, y, t)
        }
        XCTAssertEqual(wheelPresses(out, 16), 12)  // 240 points / 20
        d.up(1, 100, y, t + 0.005)
        XCTAssertTrue(d.r.hasMomentum)
        XCTAssertTrue(d.r.needsPolling)
        XCTAssertEqual(d.up(2, 150, y, t + 0.01), [])  // the second finger adds nothing
        // momentum: v0 * tau points in all, minus what is left below the stop speed; v0 is the
        // centroid's speed over the last 0.1 s: from 285 (one finger moved at 0.01) to 60 at 0.08
        let (coast, end) = d.coast(from: t + 0.005)
        let tau = GestureConstants.momentumTimeConstant, v0 = 225 / 0.07
        let stopAfter = tau * log(v0 / GestureConstants.momentumStopSpeed)
        XCTAssertEqual(end - (t + 0.005), stopAfter, accuracy: 1.0 / 60 + 1e-9)
        let travel = v0 * tau * (1 - exp(-(end - t - 0.005) / tau))
        XCTAssertEqual(wheelPresses(coast, 16), Int(travel / GestureConstants.scrollStep))
        XCTAssertEqual(wheelPresses(coast, 8 | 32 | 64), 0)
        // every step at the scroll position, pressed then released
        for (i, a) in coast.enumerated() { XCTAssertEqual(a, P(250, 600, i % 2 == 0 ? 16 : 0)) }
        XCTAssertFalse(d.r.needsPolling)
        XCTAssertEqual(d.poll(end + 1), [])
    }

    func testMomentumSlowsDown() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 300, 0); d.down(2, 150, 300, 0)
        d.move(1, 100, 270, 0.01); d.move(2, 150, 270, 0.01)
        d.move(1, 100, 240, 0.02); d.move(2, 150, 240, 0.02)
        d.up(1, 100, 240, 0.02); d.up(2, 150, 240, 0.02)
        let first = wheelPresses(d.poll(0.12), 16)
        _ = d.poll(0.5)
        let later = wheelPresses(d.poll(0.6), 16)
        XCTAssertGreaterThan(first, later)
        XCTAssertGreaterThan(later, 0)
    }

    func testATouchStopsMomentum() {
        var d = GestureDriver(.touch)
        d.down(1, 100, 300, 0); d.down(2, 150, 300, 0)
        d.move(1, 100, 270, 0.01); d.move(2, 150, 270, 0.01)
        d.move(1, 100, 240, 0.02); d.move(2, 150, 240, 0.02)
        d.up(1, 100, 240, 0.02); d.up(2, 150, 240, 0.02)
        XCTAssertTrue(d.r.hasMomentum)
        d.down(3, 10, 10, 0.05)
        XCTAssertFalse(d.r.hasMomentum)
        XCTAssertEqual(d.poll(0.2), [])
    }

    func testTwoFingerDragPansAZoomedViewThenScrollsAtItsEdge() {
        var d = GestureDriver(.touch, scaling: .zoom(1))  // content 1000x800 in 500x400: pans 500x400
        d.v.setPan(x: 100, y: 370)
        d.down(1, 100, 200, 0); d.down(2, 150, 200, 0)
        d.move(1, 100, 188, 0.02)
        // 12 up: the view scrolls 12 down; the pointer went to the start centroid (pan 100,370)
        XCTAssertEqual(d.move(2, 150, 188, 0.02), [P(225, 570, 0), .viewChanged])
        XCTAssertEqual(d.v.panY, 382)
        // 40 more up: 18 pan to the edge (400), 22 left over: one wheel step down
        XCTAssertEqual(d.move(1, 100, 148, 0.04) + d.move(2, 150, 148, 0.04),
                       [.viewChanged, P(225, 570, 16), P(225, 570, 0)])
        XCTAssertEqual(d.v.panY, 400)
        XCTAssertEqual(d.v.panX, 100)
        // back down 10: the view pans back before any wheel up (the 2 owed to the wheel stay)
        XCTAssertEqual(d.move(1, 100, 158, 0.3) + d.move(2, 150, 158, 0.3), [.viewChanged, .viewChanged])
        XCTAssertEqual(d.v.panY, 390)
    }

    func testMomentumPansAZoomedViewToItsEdgeThenScrolls() {
        var d = GestureDriver(.touch, scaling: .zoom(1))  // pans 0...400 vertically
        d.down(1, 100, 300, 0); d.down(2, 150, 300, 0)
        var t = 0.0, y = 300.0, out: [GestureAction] = []
        for _ in 0..<8 { t += 0.01; y -= 30; out += d.move(1, 100, y, t) + d.move(2, 150, y, t) }
        XCTAssertEqual(d.v.panY, 240)  // all of the drag went to the view
        XCTAssertEqual(wheelPresses(out, 8 | 16 | 32 | 64), 0)
        d.up(1, 100, y, t); d.up(2, 150, y, t)
        let coast = d.coast(from: t).out
        XCTAssertEqual(coast.first, .viewChanged)
        XCTAssertEqual(d.v.panY, 400)
        // about 1120 points of coasting: 160 to the edge, the rest as wheel steps down
        XCTAssertEqual(wheelPresses(coast, 16), 47)
    }

    func testTapWithHiDPIAndZoom() {
        // 2x display: 500x400 points, 1000x800 pixels; at 1:1 a point is two framebuffer pixels
        var d = GestureDriver(.touch, scaling: .zoom(1))
        d.v.resize(framebuffer: 2000, 1600, window: 500, 400, output: 1000, 800)
        d.v.setPan(x: 300, y: 100)
        d.down(1, 10.2, 20.7, 0)
        XCTAssertEqual(d.up(1, 10.2, 20.7, 0.05), [P(320, 141, 0), P(320, 141, 1), P(320, 141, 0)])
    }

    func testSlowPanAccumulatesFractions() {
        var d = GestureDriver(.touch, scaling: .zoom(1))
        d.v.setPan(x: 200, y: 200)
        d.down(1, 100, 200, 0); d.down(2, 150, 200, 0)
        d.move(1, 112, 200, 0.01); d.move(2, 162, 200, 0.01)  // decided: 12 left pan
        XCTAssertEqual(d.v.panX, 188)
        var t = 0.01, x = 12.0
        for _ in 0..<20 { t += 0.05; x += 0.4; d.move(1, 100 + x, 200, t); d.move(2, 150 + x, 200, t) }
        XCTAssertEqual(d.v.panX, 180)  // 8 points in 0.2 steps, not lost to rounding
    }

    func testPinchZoomsAboutItsCentre() {
        var d = GestureDriver(.touch)
        d.down(1, 200, 200, 0); d.down(2, 300, 200, 0)
        XCTAssertEqual(d.move(1, 210, 200, 0.02), [])  // 10 closer: inside the pinch slop
        // 50 apart more: a pinch, anchored where the centre is now (window 225,200 = fb 450,400)
        XCTAssertEqual(d.move(1, 150, 200, 0.04), [])  // at the start zoom nothing changes yet
        XCTAssertEqual(d.v.mode, .fit)
        XCTAssertEqual(d.move(2, 350, 200, 0.06), [.viewChanged])  // 200 apart: 0.5 * 200/150
        guard case .zoom(let z) = d.v.mode else { return XCTFail("\(d.v.mode)") }
        XCTAssertEqual(z, 0.5 * 200 / 150, accuracy: 1e-9)
        // content smaller than the window is centred (the centre cannot stay fixed then); zoom on
        d.move(1, 50, 200, 0.08)
        XCTAssertEqual(d.move(2, 450, 200, 0.1), [.viewChanged])  // 400 apart: 4/3, centre 250,200
        guard case .zoom(let z2) = d.v.mode else { return XCTFail() }
        XCTAssertEqual(z2, 0.5 * 400 / 150, accuracy: 1e-9)
        let f = d.framebufferPoint(250, 200)
        XCTAssertEqual(f.x, 450, accuracy: 1 / z2)
        XCTAssertEqual(f.y, 400, accuracy: 1 / z2)
        // the centre moves: the view goes with it (pan while pinching)
        d.move(1, 20, 150, 0.12)
        d.move(2, 420, 150, 0.14)
        let g = d.framebufferPoint(220, 150)
        XCTAssertEqual(g.x, 450, accuracy: 1 / z2)
        XCTAssertEqual(g.y, 400, accuracy: 1 / z2)
        // lifting ends it: no momentum, no pointer events ever
        XCTAssertEqual(d.up(1, 20, 150, 0.2) + d.up(2, 420, 150, 0.2), [])
        XCTAssertFalse(d.r.needsPolling)
    }

    func testPinchCentreFixedAtHighZoomOffCentre() {
        var d = GestureDriver(.touch, scaling: .zoom(2))
        d.v.setPan(x: 700, y: 500)
        // the pinch starts when the first finger has moved: 70 apart, centre 85,80
        let before = d.framebufferPoint(85, 80)
        d.down(1, 80, 80, 0); d.down(2, 120, 80, 0)
        d.move(1, 50, 80, 0.02); d.move(2, 150, 80, 0.04)  // 100 apart, centre 100,80
        d.move(1, 0, 80, 0.06); d.move(2, 200, 80, 0.08)   // 200 apart
        XCTAssertEqual(d.v.mode, .zoom(2 * 200 / 70.0))
        let after = d.framebufferPoint(100, 80)
        XCTAssertEqual(after.x, before.x, accuracy: 0.5)
        XCTAssertEqual(after.y, before.y, accuracy: 0.5)
    }

    func testPinchLimits() {
        var d = GestureDriver(.touch)
        d.down(1, 240, 200, 0); d.down(2, 260, 200, 0)
        d.move(1, 200, 200, 0.02); d.move(2, 300, 200, 0.04)  // 100 apart at fit (0.5)
        d.move(1, -5000, 200, 0.06); d.move(2, 5000, 200, 0.08)  // 10000 apart: way past 8x
        XCTAssertEqual(d.v.mode, .zoom(GestureConstants.maxZoom))
        d.move(1, 249, 200, 0.1); d.move(2, 251, 200, 0.12)  // 2 apart: below fit
        XCTAssertEqual(d.v.mode, .fit)
        XCTAssertFalse(d.v.canScroll)
    }

    func testFourFingerTapResetsZoom() {
        var d = GestureDriver(.touch, scaling: .zoom(3))
        d.v.setPan(x: 300, y: 300)
        for i in 1...4 { d.down(Int64(i), Double(i) * 40, 100, Double(i) * 0.01) }
        var out: [GestureAction] = []
        for i in 1...4 { out += d.up(Int64(i), Double(i) * 40, 100, 0.1 + Double(i) * 0.01) }
        XCTAssertEqual(out, [.viewChanged])
        XCTAssertEqual(d.v.mode, .fit)
        XCTAssertEqual(d.r.resetZoom(&d.v), [])  // already fit
    }

    func testTouchInTheBarsGoesToTheNearestEdge() {
        var d = GestureDriver(.touch, window: (600, 400))  // fit 0.5: bars 50 wide left and right
        d.down(1, 20, 100, 0)
        XCTAssertEqual(d.up(1, 20, 100, 0.05), [P(0, 200, 0), P(0, 200, 1), P(0, 200, 0)])
    }
}
