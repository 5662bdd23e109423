@testable import Interaction
import RFB
import XCTest

/// A kiosk's locked controls through the input controller, with plain input events: wrong PINs count
/// across pads, and the shortcuts ask the same lock as the menu.
final class KioskInputTests: XCTestCase {
    var sink = RecordingSink()

    override func setUp() {
        Synth.flush()
        sink = RecordingSink()
    }

    func router(_ lock: MenuLock) -> InputController {
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 1280, 800, window: 640, 480, output: 640, 480)
        let r = InputController(sink: sink, viewport: vp)
        r.menuLock = lock
        return r
    }

    func typePin(_ digits: String) {
        for c in digits { Synth.tap(Key.digit(Int(String(c)) ?? 0)) }
        Synth.tap(Key.enter)
    }

    /// Four wrong PINs, Esc, F8 again: the fifth wrong one locks the pad (a new pad used to
    /// start counting from zero, so the lock never came).
    func testWrongPinsCountAcrossPads() {
        let r = router(.pin("2468"))
        Synth.tap(Key.f8)
        for _ in 0..<4 { typePin("1111") }
        Synth.tap(Key.escape)
        Synth.drain(r)
        XCTAssertNil(r.pinPad, "Esc closes the pad")
        Synth.tap(Key.f8)
        typePin("1357")
        Synth.drain(r)
        XCTAssertTrue(r.pinPad?.message?.contains("Too many wrong PINs") == true, r.pinPad?.message ?? "no pad")
        typePin("2468")
        Synth.drain(r)
        XCTAssertFalse(r.menuOpen, "the right PIN waits out the lock")
        XCTAssertEqual(sink.take(), [], "nothing typed on the pad reaches the server")
    }

    /// Ctrl+Alt+S, Ctrl+Alt+R, Ctrl+Alt+I and F11 are what the menu offers: locked with it.
    func testShortcutsAskTheMenuLock() {
        let viewerActions: Set<String> = ["screenshot", "toggleRecording", "toggleInfo", "toggleFullscreen"]
        func shortcuts(_ r: InputController) -> [WindowAction] {
            for k in [Key.s, Key.r, Key.i] {
                Synth.key(Key.lctrl, down: true)
                Synth.key(Key.lalt, down: true)
                Synth.tap(k)
                Synth.key(Key.lalt, down: false)
                Synth.key(Key.lctrl, down: false)
            }
            Synth.tap(Key.f11)
            return Synth.drain(r)
        }
        for lock: MenuLock in [.locked, .pin("2468")] {
            let done = shortcuts(router(lock)).filter { viewerActions.contains("\($0)") }
            XCTAssertEqual(done, [], "\(lock): the shortcuts got past the lock")
        }
        XCTAssertEqual(shortcuts(router(.open)), [.screenshot, .toggleRecording, .toggleInfo, .toggleFullscreen],
                       "an open menu: the shortcuts work")
    }
}
