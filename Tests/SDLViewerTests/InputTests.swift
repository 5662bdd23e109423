import CSDL2
import Foundation
import Interaction
import RFB
@testable import SDLViewer
import XCTest

/// SDL events → the input controller's plain values (`SDLInput`): what the SDL side still does
/// with input. What the values then do is tested without SDL in InteractionTests.
final class InputTests: XCTestCase {
    var sink = RecordingSink()

    override func setUpWithError() throws {
        try SDLTest.require()
        Synth.flush()
        sink = RecordingSink()
    }

    func testSDLEventsBecomePlainValues() {
        Synth.motion(320, 240)
        Synth.button(SDL_BUTTON_LEFT, down: true, 320, 240)
        Synth.button(SDL_BUTTON_X2, down: false, 10, 20)
        Synth.wheel(dy: -2, 100, 120)
        Synth.key(SDL_SCANCODE_B, down: true, mod: KMOD_LSHIFT, isRepeat: true)
        Synth.key(SDL_SCANCODE_F8, down: false, mod: SDL_Keymod(KMOD_LCTRL.rawValue | KMOD_RALT.rawValue | KMOD_CAPS.rawValue))
        Synth.focusLost()
        var f = SDL_Event()
        f.type = SDL_FINGERDOWN.rawValue
        f.tfinger.fingerId = 7
        f.tfinger.x = 0.5; f.tfinger.y = 0.25
        Synth.push(f)
        let got = Synth.translated()
        XCTAssertEqual(got.dropLast(), [
            .pointerMotion(at: ViewPoint(x: 320, y: 240), dx: 0, dy: 0),
            .pointerButton(.left, down: true, at: ViewPoint(x: 320, y: 240)),
            .pointerButton(.forward, down: false, at: ViewPoint(x: 10, y: 20)),
            .wheel(WheelInput(dx: 0, dy: -2, preciseX: 0, preciseY: 0, at: ViewPoint(x: 100, y: 120))),
            .key(KeyInput(scancode: HIDUsage.a + 1, sym: Int32(UInt8(ascii: "b")), modifiers: .shift, down: true, isRepeat: true)),
            .key(KeyInput(scancode: HIDUsage.f8, sym: Int32(SDLK_F8.rawValue), modifiers: [.control, .alt, .capsLock], down: false)),
            .focusLost,
        ])
        // fractions of the window as SDL gives them; the time is SDL's stamp in seconds
        guard case .finger(7, .down, 0.5, 0.25, let t)? = got.last else { return XCTFail("\(got.last.map { "\($0)" } ?? "nothing")") }
        XCTAssertEqual(t, Double(SDL_GetTicks()) / 1000, accuracy: 1)

        var text = SDL_Event()
        text.type = SDL_TEXTINPUT.rawValue
        withUnsafeMutableBytes(of: &text.text.text) { b in for (i, c) in "é".utf8.enumerated() { b[i] = c } }
        Synth.push(text)
        var keymap = SDL_Event()
        keymap.type = SDL_KEYMAPCHANGED.rawValue
        Synth.push(keymap)
        XCTAssertEqual(Synth.translated(), [.text("é"), .keymapChanged(keymap: nil)])
    }

    /// What SDL delivers for one tap on real hardware: the finger events and their mouse copies
    /// (which = SDL_TOUCH_MOUSEID); the copies are dropped, so the tap is one click.
    func testTapIsOneClickEvenWithSDLsMouseCopies() {
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 1280, 800, window: 640, 480, output: 640, 480)
        let r = InputController(sink: sink, viewport: vp)
        r.windowSize = (640, 480)
        func finger(_ type: SDL_EventType) {
            var e = SDL_Event()
            e.type = type.rawValue
            e.tfinger.touchId = 1
            e.tfinger.fingerId = 7
            e.tfinger.x = 0.5; e.tfinger.y = 0.5
            Synth.push(e)
        }
        func touchMouse(down: Bool?) {
            var e = SDL_Event()
            if let down {
                e.type = down ? SDL_MOUSEBUTTONDOWN.rawValue : SDL_MOUSEBUTTONUP.rawValue
                e.button.which = UInt32(bitPattern: -1)
                e.button.button = UInt8(SDL_BUTTON_LEFT)
                e.button.x = 320; e.button.y = 240
            } else {
                e.type = SDL_MOUSEMOTION.rawValue
                e.motion.which = UInt32(bitPattern: -1)
                e.motion.x = 320; e.motion.y = 240
            }
            Synth.push(e)
        }
        finger(SDL_FINGERDOWN)
        touchMouse(down: nil)
        touchMouse(down: true)
        finger(SDL_FINGERUP)
        touchMouse(down: false)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [.pointer(x: 640, y: 400, buttons: 0), .pointer(x: 640, y: 400, buttons: 1),
                                     .pointer(x: 640, y: 400, buttons: 0)])
    }

    /// The built-in translator's table (Interaction, no SDL) is in SDL's key code convention.
    func testKeyMapTranslatorAgreesWithSDLsKeyCodes() {
        let t = KeyMapTranslator()
        func sym(_ k: SDL_KeyCode, shift: Bool = false) -> UInt32? {
            t.translate(KeyInput(scancode: 0, sym: Int32(k.rawValue), modifiers: shift ? .shift : [], down: true))?.keysym
        }
        let expected: [(SDL_KeyCode, UInt32)] = [
            (SDLK_BACKSPACE, 0xff08), (SDLK_TAB, 0xff09), (SDLK_RETURN, 0xff0d), (SDLK_ESCAPE, 0xff1b), (SDLK_DELETE, 0xffff),
            (SDLK_HOME, 0xff50), (SDLK_LEFT, 0xff51), (SDLK_UP, 0xff52), (SDLK_RIGHT, 0xff53), (SDLK_DOWN, 0xff54),
            (SDLK_PAGEUP, 0xff55), (SDLK_PAGEDOWN, 0xff56), (SDLK_END, 0xff57), (SDLK_INSERT, 0xff63), (SDLK_KP_ENTER, 0xff8d),
            (SDLK_LSHIFT, 0xffe1), (SDLK_RSHIFT, 0xffe2), (SDLK_LCTRL, 0xffe3), (SDLK_RCTRL, 0xffe4), (SDLK_CAPSLOCK, 0xffe5),
            (SDLK_LALT, 0xffe9), (SDLK_RALT, 0xffea), (SDLK_LGUI, 0xffeb), (SDLK_RGUI, 0xffec), (SDLK_MENU, 0xff67),
            (SDLK_PRINTSCREEN, 0xff61), (SDLK_PAUSE, 0xff13), (SDLK_SCROLLLOCK, 0xff14), (SDLK_NUMLOCKCLEAR, 0xff7f),
            (SDLK_F1, 0xffbe), (SDLK_F12, 0xffc9), (SDLK_a, 0x61), (SDLK_1, 0x31),
        ]
        for (k, ks) in expected { XCTAssertEqual(sym(k), ks, "\(k)") }
        XCTAssertEqual(sym(SDLK_a, shift: true), 0x41)
        XCTAssertEqual(sym(SDLK_2, shift: true), 0x40)
        XCTAssertNil(sym(SDLK_F13))
        // the UI's keys are the scancodes SDL reports
        XCTAssertEqual(HIDUsage.uiKey(Int32(SDL_SCANCODE_F8.rawValue)), .f8)
        XCTAssertEqual(HIDUsage.uiKey(Int32(SDL_SCANCODE_KP_0.rawValue)), .digit(0))
        XCTAssertEqual(HIDUsage.uiKey(Int32(SDL_SCANCODE_PAGEDOWN.rawValue)), .pageDown)
        XCTAssertEqual(HIDUsage.uiKey(Int32(SDL_SCANCODE_RGUI.rawValue)), .modifier)
    }

    func testWakeSignalCoalesces() throws {
        let type = SDL_RegisterEvents(1)
        let w = WakeSignal(eventType: type)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<1000 { w.signal() }
            done.signal()
        }
        done.wait()
        XCTAssertEqual(SDL_PeepEvents(nil, 100, SDL_PEEKEVENT, type, type), 1)
        var e = SDL_Event()
        XCTAssertEqual(SDL_PollEvent(&e), 1)
        XCTAssertEqual(e.type, type)
        w.acknowledge()
        w.signal(); w.signal()
        XCTAssertEqual(SDL_PeepEvents(nil, 100, SDL_PEEKEVENT, type, type), 1)
        Synth.flush()
    }
}
