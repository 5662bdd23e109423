@testable import Interaction
import RFB
import XCTest

/// Finger events through the input controller (as plain finger events where timing does not
/// matter, as `TouchEvent`s in window points with chosen times where it does); what would go to
/// the server is recorded.
final class TouchInputTests: XCTestCase {
    var sink = RecordingSink()

    override func setUp() {
        Synth.flush()
        sink = RecordingSink()
    }

    /// 1280x800 desktop fitted into a 640x480 window: content 640x400 at y 40, half scale.
    func router(_ mode: TouchInputMode = .touch, viewOnly: Bool = false) -> InputController {
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 1280, 800, window: 640, 480, output: 640, 480)
        let r = InputController(sink: sink, viewport: vp, viewOnly: viewOnly, touchMode: mode)
        r.windowSize = (640, 480)
        r.clampSoftCursor()
        return r
    }

    /// Pointer events with a button or wheel bit down (presses, drags, wheel steps).
    static func withButtons(_ s: RecordingSink.Sent) -> Bool {
        if case .pointer(_, _, let b) = s { return b != 0 }
        return false
    }

    func testTwoAndThreeFingerTapsAreRightAndMiddleClicks() {
        let r = router()
        // coordinates exact in SDL's float fractions of the window
        Synth.finger(.down, 1, 100, 120)
        Synth.finger(.down, 2, 140, 120)
        Synth.finger(.up, 1, 100, 120)
        Synth.finger(.up, 2, 140, 120)
        Synth.drain(r)
        let right = sink.take()
        XCTAssertEqual(right.filter(Self.withButtons),
                       [.pointer(x: 200, y: 160, buttons: 4)], "\(right)")
        Synth.finger(.down, 3, 300, 300)
        Synth.finger(.down, 4, 330, 300)
        Synth.finger(.down, 5, 360, 300)
        for id in [3, 4, 5] as [Int64] { Synth.finger(.up, id, 300, 300) }
        Synth.drain(r)
        let middle = sink.take()
        XCTAssertEqual(middle.filter(Self.withButtons),
                       [.pointer(x: 600, y: 520, buttons: 2)], "\(middle)")
    }

    /// Hold, then move: a left drag from where the finger landed (times chosen, not pushed).
    func testHoldThenMoveDragsInTouchMode() {
        let r = router()
        _ = r.touch(TouchEvent(finger: 1, .down, x: 100, y: 100, time: 10))
        _ = r.touch(TouchEvent(finger: 1, .move, x: 130, y: 100, time: 10.7))
        _ = r.touch(TouchEvent(finger: 1, .move, x: 200, y: 150, time: 10.8))
        _ = r.touch(TouchEvent(finger: 1, .up, x: 200, y: 150, time: 10.9))
        XCTAssertEqual(sink.take(), [.pointer(x: 200, y: 120, buttons: 1), .pointer(x: 260, y: 120, buttons: 1),
                                     .pointer(x: 400, y: 220, buttons: 1), .pointer(x: 400, y: 220, buttons: 0)])
    }

    /// Trackpad: the soft cursor starts in the middle, moves relatively, and a tap clicks where
    /// it is once the double-tap interval has passed (the window polls for that).
    func testTrackpadMovesSoftCursorAndTapClicksThere() {
        let r = router(.trackpad)
        XCTAssertTrue(r.ui.softCursorShown)
        XCTAssertEqual(r.gestures.cursor.pixel.x, 640)
        XCTAssertEqual(r.gestures.cursor.pixel.y, 400)
        // a slow 20-point move right: gain 1 at low speed, 2 framebuffer pixels per point
        _ = r.touch(TouchEvent(finger: 1, .down, x: 500, y: 300, time: 1))
        for i in 1...10 { _ = r.touch(TouchEvent(finger: 1, .move, x: 500 + Double(2 * i), y: 300, time: 1 + 0.05 * Double(i))) }
        _ = r.touch(TouchEvent(finger: 1, .up, x: 520, y: 300, time: 1.6))
        let moved = sink.take()
        XCTAssertEqual(moved.last, .pointer(x: 680, y: 400, buttons: 0), "\(moved)")
        XCTAssertTrue(moved.allSatisfy { if case .pointer(_, 400, 0) = $0 { return true }; return false }, "\(moved)")
        // tap: nothing until the double-tap interval is over
        _ = r.touch(TouchEvent(finger: 2, .down, x: 100, y: 100, time: 3))
        _ = r.touch(TouchEvent(finger: 2, .up, x: 100, y: 100, time: 3.1))
        XCTAssertEqual(sink.take(), [])
        XCTAssertTrue(r.needsPolling)
        _ = r.poll(now: 3.2)
        XCTAssertEqual(sink.take(), [])
        _ = r.poll(now: 3.5)
        XCTAssertEqual(sink.take(), [.pointer(x: 680, y: 400, buttons: 1), .pointer(x: 680, y: 400, buttons: 0)])
        XCTAssertFalse(r.needsPolling)
        // a real mouse takes over: the soft cursor hides and jumps to it
        Synth.motion(100, 140)
        XCTAssertTrue(Synth.drain(r).contains(.redraw))
        XCTAssertFalse(r.ui.softCursorShown)
        XCTAssertEqual(r.gestures.cursor.pixel.x, 200)
        XCTAssertEqual(r.gestures.cursor.pixel.y, 200)
        XCTAssertEqual(sink.take(), [.pointer(x: 200, y: 200, buttons: 0)])
    }

    func testTwoFingerDragScrollsAndPinchZooms() {
        let r = router()
        _ = r.touch(TouchEvent(finger: 1, .down, x: 300, y: 200, time: 1))
        _ = r.touch(TouchEvent(finger: 2, .down, x: 340, y: 200, time: 1.01))
        for i in 1...6 {
            let y = 200 - Double(i) * 10
            _ = r.touch(TouchEvent(finger: 1, .move, x: 300, y: y, time: 1 + 0.02 * Double(i)))
            _ = r.touch(TouchEvent(finger: 2, .move, x: 340, y: y, time: 1 + 0.02 * Double(i) + 0.001))
        }
        _ = r.touch(TouchEvent(finger: 1, .up, x: 300, y: 140, time: 1.2))
        _ = r.touch(TouchEvent(finger: 2, .up, x: 340, y: 140, time: 1.2))
        let wheel = sink.take().filter { if case .pointer(_, _, let b) = $0 { return b & (8 | 16) != 0 }; return false }
        XCTAssertFalse(wheel.isEmpty)
        // fingers moving up scroll the content up: wheel down (button 5), at the gesture's start point
        XCTAssertTrue(wheel.allSatisfy { $0 == .pointer(x: 640, y: 320, buttons: 16) }, "\(wheel)")
        // momentum continues after the lift, through polling
        XCTAssertTrue(r.needsPolling)
        _ = r.poll(now: 1.5)
        XCTAssertFalse(sink.take().isEmpty)
        _ = r.poll(now: 10)
        XCTAssertFalse(r.needsPolling)
        _ = sink.take()

        // pinch out about (320, 240): zoomed, that point stays put, nothing sent to the server
        let before = r.viewport.framebufferPixel(atWindow: ViewPoint(x: 320, y: 240))
        _ = r.touch(TouchEvent(finger: 3, .down, x: 280, y: 240, time: 20))
        _ = r.touch(TouchEvent(finger: 4, .down, x: 360, y: 240, time: 20.01))
        var redraws = 0
        for i in 1...5 {
            redraws += r.touch(TouchEvent(finger: 3, .move, x: 280 - Double(i) * 20, y: 240, time: 20 + 0.02 * Double(i))).filter { $0 == .redraw }.count
            redraws += r.touch(TouchEvent(finger: 4, .move, x: 360 + Double(i) * 20, y: 240, time: 20 + 0.02 * Double(i) + 0.001)).filter { $0 == .redraw }.count
        }
        XCTAssertGreaterThan(redraws, 0)
        XCTAssertNotEqual(r.viewport.mode, .fit)
        XCTAssertGreaterThan(r.viewport.scale, 1.0)
        let after = r.viewport.framebufferPixel(atWindow: ViewPoint(x: 320, y: 240))
        XCTAssertEqual(Double(after?.x ?? 0), Double(before?.x ?? 0), accuracy: 3)
        XCTAssertEqual(Double(after?.y ?? 0), Double(before?.y ?? 0), accuracy: 3)
        _ = r.touch(TouchEvent(finger: 3, .up, x: 180, y: 240, time: 20.2))
        _ = r.touch(TouchEvent(finger: 4, .up, x: 460, y: 240, time: 20.2))
        XCTAssertEqual(sink.take().filter(Self.withButtons), [])
        // the menu offers to reset the zoom, and does
        r.openMenu()
        guard let i = r.menu?.items.firstIndex(where: { $0.action == .resetZoom }) else { return XCTFail("no Reset zoom entry") }
        _ = r.activate(i)
        XCTAssertEqual(r.viewport.mode, .fit)
    }

    /// A swipe down from the top edge opens the menu; a finger then chooses an entry (here the
    /// trackpad mode); a plain tap at the top edge still clicks there.
    func testEdgeSwipeOpensMenuAndFingersUseIt() {
        let r = router()
        Synth.finger(.down, 1, 320, 3)
        Synth.finger(.move, 1, 322, 30)
        Synth.finger(.move, 1, 324, 70)
        Synth.finger(.up, 1, 324, 70)
        let acts = Synth.drain(r)
        XCTAssertTrue(acts.contains(.menuChanged), "\(acts)")
        XCTAssertTrue(r.menuOpen)
        XCTAssertEqual(sink.take(), [])
        // lay the menu out as the overlay would: one row per entry, 30 points each
        let rows = (0..<(r.menu?.items.count ?? 0)).map { ViewRect(x: 200, y: 50 + Double($0) * 30, w: 240, h: 30) }
        r.setMenuLayout(frame: ViewRect(x: 190, y: 40, w: 260, h: Double(rows.count) * 30 + 20), rows: rows)
        guard let i = r.menu?.items.firstIndex(where: { $0.action == .setTouchMode(.trackpad) }) else { return XCTFail("no trackpad entry") }
        Synth.finger(.down, 2, 300, 65 + Double(i) * 30)
        Synth.finger(.up, 2, 300, 65 + Double(i) * 30)
        Synth.drain(r)
        XCTAssertFalse(r.menuOpen)
        XCTAssertEqual(r.touchMode, .trackpad)
        XCTAssertEqual(sink.take(), [])
        // back to touch; a tap right at the top edge is held back, then clicks where it was
        _ = r.setTouchMode(.touch)
        Synth.finger(.down, 3, 320, 60)
        Synth.finger(.up, 3, 320, 60)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.pointer(x: 640, y: 40, buttons: 0), .pointer(x: 640, y: 40, buttons: 1), .pointer(x: 640, y: 40, buttons: 0)])
        _ = r.touch(TouchEvent(finger: 4, .down, x: 320, y: 5, time: 50))
        XCTAssertEqual(sink.take(), [])
        _ = r.touch(TouchEvent(finger: 4, .up, x: 320, y: 5, time: 50.05))
        // y 5 is in the top bar (content starts at 40): a finger there goes to the nearest edge
        // pixel (a finger is too wide to aim at a one-pixel edge)
        XCTAssertEqual(sink.take(), [.pointer(x: 640, y: 0, buttons: 0), .pointer(x: 640, y: 0, buttons: 1), .pointer(x: 640, y: 0, buttons: 0)])
        XCTAssertFalse(r.menuOpen)
    }

    /// A swipe up from the bottom shows the keyboard; its keys send keysyms with latched
    /// modifiers around them; Hide hides it; the desktop gets no pointer events meanwhile.
    func testOnScreenKeyboardByFingerAndMouse() {
        let r = router()
        Synth.finger(.down, 1, 320, 478)
        Synth.finger(.move, 1, 320, 440)
        Synth.finger(.move, 1, 320, 400)
        Synth.finger(.up, 1, 320, 400)
        XCTAssertTrue(Synth.drain(r).contains(.keyboardChanged))
        guard r.keyboard != nil else { return XCTFail("keyboard not shown") }
        r.setKeyboardLayout(ViewRect(x: 0, y: 320, w: 640, h: 160))
        XCTAssertEqual(sink.take(), [])
        func center(_ label: String) -> ViewPoint {
            guard let kb = r.keyboard, let f = kb.keyFrames.first(where: { OnScreenKeyboard.rows[$0.row][$0.index].label == label })
            else { XCTFail("no key \(label)"); return ViewPoint(x: 0, y: 0) }
            return ViewPoint(x: f.rect.x + f.rect.w / 2, y: f.rect.y + f.rect.h / 2)
        }
        func tap(_ label: String, _ id: Int64) {
            let p = center(label)
            Synth.finger(.down, id, p.x, p.y)
            Synth.finger(.up, id, p.x, p.y)
            Synth.drain(r)
        }
        tap("h", 10)
        tap("Shift", 11)
        tap("1", 12)
        tap("Ctrl", 13)
        tap("c", 14)
        XCTAssertEqual(sink.take(), [
            .key(0x68, down: true, xt: nil), .key(0x68, down: false, xt: nil),
            .key(0xffe1, down: true, xt: nil), .key(0x21, down: true, xt: nil), .key(0x21, down: false, xt: nil), .key(0xffe1, down: false, xt: nil),
            .key(0xffe3, down: true, xt: nil), .key(0x63, down: true, xt: nil), .key(0x63, down: false, xt: nil), .key(0xffe3, down: false, xt: nil),
        ])
        // the mouse presses keys too
        let e = center("Enter")
        Synth.button(.left, down: true, Double(Int32(e.x)), Double(Int32(e.y)))
        Synth.button(.left, down: false, Double(Int32(e.x)), Double(Int32(e.y)))
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.key(0xff0d, down: true, xt: nil), .key(0xff0d, down: false, xt: nil)])
        // a key held when focus goes is released
        let a = center("a")
        Synth.finger(.down, 20, a.x, a.y)
        Synth.focusLost()
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.key(0x61, down: true, xt: nil), .key(0x61, down: false, xt: nil)])
        tap("Hide", 21)
        XCTAssertNil(r.keyboard)
    }

    /// A drag under way when the window loses focus is released; view-only sends nothing.
    func testFocusLossReleasesTouchDragAndViewOnlySendsNothing() {
        let r = router()
        _ = r.touch(TouchEvent(finger: 1, .down, x: 100, y: 100, time: 10))
        _ = r.touch(TouchEvent(finger: 1, .move, x: 140, y: 100, time: 10.7))
        XCTAssertEqual(sink.take().last, .pointer(x: 280, y: 120, buttons: 1))
        Synth.focusLost()
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.pointer(x: 280, y: 120, buttons: 0)])
        // the lift after the reset sends nothing
        _ = r.touch(TouchEvent(finger: 1, .up, x: 150, y: 100, time: 11))
        XCTAssertEqual(sink.take(), [])

        let v = router(viewOnly: true)
        Synth.finger(.down, 1, 320, 240)
        Synth.finger(.up, 1, 320, 240)
        Synth.drain(v)
        XCTAssertEqual(sink.take(), [])
    }

    func testTouchReplayScriptParsing() throws {
        let steps = try TouchScript.parse("# a tap\nwait 500\ndown 1 0.5 0.25\nup 1 0.5 0.25 # lift\n\n")
        XCTAssertEqual(steps.count, 3)
        XCTAssertThrowsError(try TouchScript.parse("down 1 1.5 0")) { XCTAssertTrue("\($0)".contains("line 1"), "\($0)") }
        XCTAssertThrowsError(try TouchScript.parse("wait 10\nswipe 1 0 0")) { XCTAssertTrue("\($0)".contains("line 2"), "\($0)") }
    }
}
