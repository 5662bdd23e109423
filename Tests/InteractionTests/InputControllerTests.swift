@testable import Interaction
import RFB
import XCTest

/// Plain input events through the input controller; what would go to the server is recorded.
final class InputControllerTests: XCTestCase {
    var sink = RecordingSink()

    override func setUp() {
        Synth.flush()
        sink = RecordingSink()
    }

    /// 1280x800 desktop fitted into a 640x480 window: content 640x400 at y 40 (bars above and below).
    func router(_ mode: ScalingMode = .fit, viewOnly: Bool = false) -> InputController {
        var vp = Viewport(mode: mode)
        vp.resize(framebuffer: 1280, 800, window: 640, 480, output: 640, 480)
        return InputController(sink: sink, viewport: vp, viewOnly: viewOnly)
    }

    func testPointerMotionButtonsAndWheel() {
        let r = router()
        Synth.motion(320, 240)
        Synth.button(.left, down: true, 320, 240)
        Synth.button(.right, down: true, 321, 240)
        Synth.button(.right, down: false, 321, 240)
        Synth.button(.left, down: false, 322, 241)
        Synth.button(.middle, down: true, 0, 40)
        Synth.button(.middle, down: false, 0, 40)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [
            .pointer(x: 640, y: 400, buttons: 0),
            .pointer(x: 640, y: 400, buttons: 1),
            .pointer(x: 642, y: 400, buttons: 5),
            .pointer(x: 642, y: 400, buttons: 1),
            .pointer(x: 644, y: 402, buttons: 0),
            .pointer(x: 0, y: 0, buttons: 2),
            .pointer(x: 0, y: 0, buttons: 0),
        ])
        // wheel: 4/5 vertical, 6/7 horizontal, each pressed and released, per notch
        Synth.wheel(dy: 1, 100, 100)
        Synth.wheel(dy: -2, 100, 100)
        Synth.wheel(dx: -1, 100, 100)
        Synth.wheel(dx: 1, 100, 100)
        Synth.drain(r)
        let p = (x: 200, y: 120)
        XCTAssertEqual(sink.take(), [
            .pointer(x: p.x, y: p.y, buttons: 8), .pointer(x: p.x, y: p.y, buttons: 0),
            .pointer(x: p.x, y: p.y, buttons: 16), .pointer(x: p.x, y: p.y, buttons: 0),
            .pointer(x: p.x, y: p.y, buttons: 16), .pointer(x: p.x, y: p.y, buttons: 0),
            .pointer(x: p.x, y: p.y, buttons: 32), .pointer(x: p.x, y: p.y, buttons: 0),
            .pointer(x: p.x, y: p.y, buttons: 64), .pointer(x: p.x, y: p.y, buttons: 0),
        ])
    }

    /// Back/forward become buttons 8 and 9; the engine decides what the server can take.
    func testExtraButtonsAreButtonsEightAndNine() {
        let r = router()
        Synth.button(.back, down: true, 320, 240)
        Synth.button(.back, down: false, 320, 240)
        Synth.button(.forward, down: true, 320, 240)
        Synth.button(.forward, down: false, 320, 240)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [
            .pointer(x: 640, y: 400, buttons: 1 << 7), .pointer(x: 640, y: 400, buttons: 0),
            .pointer(x: 640, y: 400, buttons: 1 << 8), .pointer(x: 640, y: 400, buttons: 0),
        ])
    }

    func testLetterboxSendsNothing() {
        let r = router()
        Synth.motion(320, 10)
        Synth.button(.left, down: true, 320, 10)
        Synth.button(.left, down: false, 320, 10)
        Synth.wheel(dy: 1, 320, 470)
        Synth.motion(320, 440)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [])
        // pressed on the desktop, released over a bar: the release still goes out, where it was
        Synth.button(.left, down: true, 100, 50)
        Synth.motion(100, 20)
        Synth.button(.left, down: false, 100, 20)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.pointer(x: 200, y: 20, buttons: 1), .pointer(x: 200, y: 20, buttons: 0)])
    }

    func testKeysPressAndReleaseThePairedKeysym() {
        let r = router()
        Synth.tap(Key.a)
        Synth.key(Key.lshift, down: true, mod: .shift)
        Synth.key(Key.b, down: true, mod: .shift)
        Synth.key(Key.lshift, down: false)
        Synth.key(Key.b, down: false)  // released after Shift: still 'B'
        Synth.key(Key.enter, down: true)
        Synth.key(Key.enter, down: true, isRepeat: true)
        Synth.key(Key.enter, down: false)
        Synth.key(Key.c, down: false)  // never pressed here: nothing
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [
            .key(0x61, down: true, xt: nil), .key(0x61, down: false, xt: nil),
            .key(0xffe1, down: true, xt: nil), .key(0x42, down: true, xt: nil),
            .key(0xffe1, down: false, xt: nil), .key(0x42, down: false, xt: nil),
            .key(0xff0d, down: true, xt: nil), .key(0xff0d, down: true, xt: nil), .key(0xff0d, down: false, xt: nil),
        ])
    }

    func testFocusLossReleasesEverything() {
        let r = router()
        Synth.key(Key.lctrl, down: true)
        Synth.button(.left, down: true, 320, 240)
        Synth.focusLost()
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [
            .key(0xffe3, down: true, xt: nil), .pointer(x: 640, y: 400, buttons: 1),
            .key(0xffe3, down: false, xt: nil), .pointer(x: 640, y: 400, buttons: 0),
        ])
    }

    func testF11TogglesFullscreenAndSendsNothing() {
        let r = router()
        Synth.tap(Key.f11)
        XCTAssertEqual(Synth.drain(r), [.toggleFullscreen])
        XCTAssertEqual(sink.take(), [])
    }

    func testMenuByKeyboard() {
        let r = router()
        Synth.key(Key.lctrl, down: true)
        Synth.key(Key.f8, down: true)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw])
        XCTAssertTrue(r.menuOpen)
        // opening the menu released the held Ctrl; the F8 press itself went nowhere
        XCTAssertEqual(sink.take(), [.key(0xffe3, down: true, xt: nil), .key(0xffe3, down: false, xt: nil)])
        // while the menu is open nothing goes to the server
        Synth.key(Key.f8, down: false)
        Synth.key(Key.lctrl, down: false)
        Synth.motion(320, 240)
        Synth.button(.left, down: true, 320, 240)
        Synth.tap(Key.a)
        Synth.wheel(dy: 1, 320, 240)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [])
        // items: Full screen, Fit (checked), 1:1, 200%, touch modes (direct checked), keyboard,
        // Ctrl+Alt+Del, F8, screenshot, recording, connection info, Disconnect
        let titles = r.menu?.items.map(\.title) ?? []
        XCTAssertEqual(titles, ["Full screen", "Scale to fit window", "Scale 1:1", "Scale 200%",
                                "Touch: pointer under the finger", "Touch: trackpad with soft cursor", "On-screen keyboard",
                                "Send Ctrl+Alt+Del", "Send F8", "Take screenshot (Ctrl+Alt+S)", "Record session (Ctrl+Alt+R)",
                                "Connection info (Ctrl+Alt+I)", "Disconnect"])
        XCTAssertEqual(r.menu?.items.map(\.checked), [false, true, false, false, true, false, false, false, false, false, false, false, false])
        XCTAssertEqual(r.menu?.selected, 12)  // the wheel up moved from 0 to the last entry (wraps)
        Synth.tap(Key.home)
        Synth.tap(Key.down)
        Synth.tap(Key.down)
        Synth.drain(r)
        XCTAssertEqual(r.menu?.selected, 2)
        Synth.key(Key.enter, down: true)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw, .setScaling(.zoom(1))])
        XCTAssertFalse(r.menuOpen)
        // the Enter release that follows is not sent either (its press was not)
        Synth.key(Key.enter, down: false)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [])

        // Ctrl+Alt+Del from the menu
        Synth.tap(Key.f8)
        for _ in 0..<6 { Synth.tap(Key.up) }
        Synth.key(Key.enter, down: true)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [
            .key(0xffe3, down: true, xt: 0x1d), .key(0xffe9, down: true, xt: 0x38), .key(0xffff, down: true, xt: 0xe053),
            .key(0xffff, down: false, xt: 0xe053), .key(0xffe9, down: false, xt: 0x38), .key(0xffe3, down: false, xt: 0x1d),
        ])

        // F8 twice sends F8; Esc just closes
        Synth.tap(Key.f8)
        Synth.tap(Key.f8)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw, .menuChanged, .redraw])
        XCTAssertEqual(sink.take(), [.key(0xffc5, down: true, xt: 0x42), .key(0xffc5, down: false, xt: 0x42)])
        Synth.tap(Key.f8)
        Synth.tap(Key.escape)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw, .menuChanged, .redraw])
        XCTAssertFalse(r.menuOpen)
        XCTAssertEqual(sink.take(), [])
        // Disconnect (the last entry)
        Synth.tap(Key.f8)
        Synth.tap(Key.end)
        Synth.tap(Key.enter)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw, .redraw, .menuChanged, .redraw, .disconnect])
    }

    func testMenuByMouse() {
        let r = router()
        Synth.tap(Key.f8)
        Synth.drain(r)
        let rows = (0..<7).map { ViewRect(x: 200, y: 100 + Double($0) * 30, w: 240, h: 30) }
        r.setMenuLayout(frame: ViewRect(x: 190, y: 80, w: 260, h: 260), rows: rows)
        Synth.motion(300, 100 + 3 * 30 + 5)
        XCTAssertEqual(Synth.drain(r), [.redraw])
        XCTAssertEqual(r.menu?.selected, 3)
        Synth.button(.left, down: true, 300, 195)
        Synth.button(.left, down: false, 300, 195)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw, .setScaling(.zoom(2))])
        XCTAssertEqual(sink.take(), [])
        // a click outside the menu closes it and is not sent
        Synth.tap(Key.f8)
        Synth.drain(r)
        r.setMenuLayout(frame: ViewRect(x: 190, y: 80, w: 260, h: 260), rows: rows)
        Synth.button(.left, down: true, 10, 300)
        Synth.button(.left, down: false, 10, 300)
        XCTAssertEqual(Synth.drain(r), [.menuChanged, .redraw])
        XCTAssertEqual(sink.take(), [])
    }

    func testViewOnlySendsNothingAndHidesSendEntries() {
        let r = router(viewOnly: true)
        Synth.motion(320, 240)
        Synth.button(.left, down: true, 320, 240)
        Synth.button(.left, down: false, 320, 240)
        Synth.wheel(dy: 1, 320, 240)
        Synth.tap(Key.a)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [])
        Synth.tap(Key.f8)
        Synth.drain(r)
        XCTAssertEqual(r.menu?.items.map(\.title), ["Full screen", "Scale to fit window", "Scale 1:1", "Scale 200%",
                                                   "Take screenshot (Ctrl+Alt+S)", "Record session (Ctrl+Alt+R)",
                                                   "Connection info (Ctrl+Alt+I)", "Disconnect"])
        Synth.tap(Key.f8)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [])
    }

    func testCtrlAltWheelPansWhenZoomed() {
        let r = router(.zoom(1))
        Synth.key(Key.lctrl, down: true)
        Synth.key(Key.lalt, down: true)
        Synth.wheel(dy: -2, 320, 240)
        XCTAssertEqual(Synth.drain(r), [.redraw])
        XCTAssertEqual(r.viewport.panY, 2 * InputController.panStep)
        Synth.key(Key.lshift, down: true)
        Synth.wheel(dy: -1, 320, 240)
        Synth.drain(r)
        XCTAssertEqual(r.viewport.panX, InputController.panStep)
        Synth.key(Key.lshift, down: false)
        Synth.key(Key.lalt, down: false)
        Synth.key(Key.lctrl, down: false)
        // no wheel buttons went out, only the modifier keys themselves
        Synth.drain(r)
        XCTAssertFalse(sink.take().contains { if case .pointer = $0 { return true }; return false })
        // the pointer now maps through the pan
        Synth.motion(0, 0)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.pointer(x: 64, y: 128, buttons: 0)])
        // in fit mode there is nothing to scroll: the wheel goes to the server
        let f = router(.fit)
        Synth.key(Key.lctrl, down: true)
        Synth.key(Key.lalt, down: true)
        Synth.wheel(dy: 1, 320, 240)
        Synth.drain(f)
        XCTAssertEqual(sink.take().filter { if case .pointer = $0 { return true }; return false }.count, 2)
    }

    /// Text and keymap changes are for the front end's prompt and translator: nothing is sent.
    func testTextAndKeymapChangesSendNothing() {
        let r = router()
        XCTAssertEqual(r.handle(.text("é")), [])
        XCTAssertEqual(r.handle(.keymapChanged(keymap: nil)), [])
        XCTAssertEqual(r.handle(.focusGained), [])
        XCTAssertEqual(sink.take(), [])
    }

    func testAfterTheSessionEndedAKeyCloses() {
        let r = router()
        r.ui.end(message: "Connection lost", offerReconnect: false)
        Synth.motion(320, 240)
        Synth.key(Key.lshift, down: true)
        XCTAssertEqual(Synth.drain(r), [])
        Synth.key(Key.escape, down: true)
        XCTAssertEqual(Synth.drain(r), [.quit])
        XCTAssertEqual(sink.take(), [])
    }
}
