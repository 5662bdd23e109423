import CSDL2
import Interaction
import RFB
@testable import SDLViewer
import XCTest

/// A kiosk's locked controls through the router, with synthetic SDL events: wrong PINs count
/// across pads, and the shortcuts ask the same lock as the menu.
final class KioskInputTests: XCTestCase {
    var sink = RecordingSink()

    override func setUpWithError() throws {
        try SDLTest.require()
        Synth.flush()
        sink = RecordingSink()
    }

    func router(_ lock: MenuLock) -> InputRouter {
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 1280, 800, window: 640, 480, output: 640, 480)
        let r = InputRouter(sink: sink, viewport: vp)
        r.menuLock = lock
        return r
    }

    func typePin(_ digits: String) {
        let row: [SDL_Scancode] = [SDL_SCANCODE_0, SDL_SCANCODE_1, SDL_SCANCODE_2, SDL_SCANCODE_3, SDL_SCANCODE_4,
                                   SDL_SCANCODE_5, SDL_SCANCODE_6, SDL_SCANCODE_7, SDL_SCANCODE_8, SDL_SCANCODE_9]
        for c in digits { Synth.tap(row[Int(String(c)) ?? 0]) }
        Synth.tap(SDL_SCANCODE_RETURN)
    }

    /// Four wrong PINs, Esc, F8 again: the fifth wrong one locks the pad (a new pad used to
    /// start counting from zero, so the lock never came).
    func testWrongPinsCountAcrossPads() {
        let r = router(.pin("2468"))
        Synth.tap(SDL_SCANCODE_F8)
        for _ in 0..<4 { typePin("1111") }
        Synth.tap(SDL_SCANCODE_ESCAPE)
        Synth.drain(r)
        XCTAssertNil(r.pinPad, "Esc closes the pad")
        Synth.tap(SDL_SCANCODE_F8)
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
        func shortcuts(_ r: InputRouter) -> [RouterAction] {
            for k in [SDL_SCANCODE_S, SDL_SCANCODE_R, SDL_SCANCODE_I] {
                Synth.key(SDL_SCANCODE_LCTRL, down: true)
                Synth.key(SDL_SCANCODE_LALT, down: true)
                Synth.tap(k)
                Synth.key(SDL_SCANCODE_LALT, down: false)
                Synth.key(SDL_SCANCODE_LCTRL, down: false)
            }
            Synth.tap(SDL_SCANCODE_F11)
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
