import CXKBCommon
import XCTest
@testable import Interaction

/// A keymap from text, as a Wayland compositor hands it (wl_keyboard.keymap): the compositor's
/// layouts, an on-screen keyboard's generated keymap (wtype's format), modifiers that arrive
/// only as wl_keyboard.modifiers, and keymap changes mid-session.
final class KeymapTextTests: XCTestCase {
    /// xkbcommon's full text of the keymap these names build (what sway sends for them).
    static func keymapText(_ layout: String) throws -> String {
        let ctx = try XCTUnwrap(xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES))
        defer { xkb_context_unref(ctx) }
        // The names' C strings must outlive the call: a Swift string passed straight into
        // xkb_rule_names's initialiser is a pointer valid only during that initialiser.
        let built: OpaquePointer? = "evdev".withCString { r in
            "pc105".withCString { m in
                layout.withCString { l in
                    var names = xkb_rule_names(rules: r, model: m, layout: l, variant: nil, options: nil)
                    return xkb_keymap_new_from_names(ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                }
            }
        }
        let km = try XCTUnwrap(built)
        defer { xkb_keymap_unref(km) }
        let s = try XCTUnwrap(xkb_keymap_get_as_string(km, XKB_KEYMAP_FORMAT_TEXT_V1))
        defer { free(s) }
        return String(cString: s)
    }

    /// A keymap as wtype makes them (one key per character from keycode 9, one level, no
    /// layout name) for "aü", plus a two-level key as an on-screen keyboard's may have.
    static let virtualKeymap = """
        xkb_keymap {
        xkb_keycodes "(unnamed)" {
        minimum = 8;
        maximum = 11;
        <K1> = 9;
        <K2> = 10;
        <K3> = 11;
        };
        xkb_types "(unnamed)" { include "complete" };
        xkb_compatibility "(unnamed)" { include "complete" };
        xkb_symbols "(unnamed)" {
        key <K1> {[a]};
        key <K2> {[udiaeresis]};
        key <K3> {[x, X]};
        };
        };
        """

    static let evdevY = 21, evdevZ = 44, evdevC = 46

    private func sym(_ name: String) -> UInt32 { xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS) }

    private func press(_ t: KeyboardTranslator, _ evdev: Int) -> UInt32? {
        let down = t.key(evdevCode: evdev, down: true)
        _ = t.key(evdevCode: evdev, down: false)
        return down.first?.keysym
    }

    func testTheCompositorsKeymapDecides() throws {
        let t = try KeyboardTranslator(keymapText: try Self.keymapText("de"))
        XCTAssertEqual(t.spec.layout, "German")
        XCTAssertEqual(press(t, Self.evdevY), sym("z"), "German: Z where US has Y")
        XCTAssertEqual(press(t, Self.evdevZ), sym("y"))
    }

    func testAKeymapChangeMidSession() throws {
        let t = try KeyboardTranslator(keymapText: try Self.keymapText("de"))
        XCTAssertEqual(press(t, Self.evdevY), sym("z"))
        XCTAssertEqual(try t.setKeymap(text: try Self.keymapText("us")), [])
        XCTAssertEqual(press(t, Self.evdevY), sym("y"))
        XCTAssertEqual(t.spec.layout, "English (US)")
    }

    func testAKeymapThatDoesNotCompileIsRefusedAndTheOldOneStays() throws {
        let t = try KeyboardTranslator(keymapText: try Self.keymapText("de"))
        XCTAssertThrowsError(try t.setKeymap(text: "xkb_keymap { this is not a keymap")) { e in
            guard case KeyboardError.keymapTextFailed = e else { return XCTFail("\(e)") }
        }
        XCTAssertEqual(press(t, Self.evdevY), sym("z"))
        XCTAssertThrowsError(try KeyboardTranslator(keymapText: ""))
    }

    func testAVirtualKeyboardsKeymapIncludingANonASCIIKey() throws {
        let t = try KeyboardTranslator(keymapText: Self.virtualKeymap)
        XCTAssertEqual(press(t, 1), sym("a"))
        XCTAssertEqual(press(t, 2), sym("udiaeresis"))
        // Shift held without a key (wtype -M shift): pressed on the server; the keymap decides
        // what a key means under it (a one-level key stays itself, as for a native client)
        let shift: UInt32 = 1   // Shift is modifier 0 in every xkbcommon keymap
        XCTAssertEqual(t.setModifiers(depressed: shift, latched: 0, locked: 0, layout: 0),
                       [KeyOutput(keysym: sym("Shift_L"), down: true, xtKeycode: 0x2a)], "a modifier held without a key is pressed")
        XCTAssertEqual(press(t, 1), sym("a"))
        XCTAssertEqual(press(t, 3), sym("X"))
        XCTAssertEqual(t.setModifiers(depressed: 0, latched: 0, locked: 0, layout: 0),
                       [KeyOutput(keysym: sym("Shift_L"), down: false, xtKeycode: 0x2a)])
    }

    /// sway sends a virtual keyboard's keymap again after its modifiers: Shift stays held.
    func testModifiersCarryOverANewKeymap() throws {
        let t = try KeyboardTranslator(keymapText: Self.virtualKeymap)
        XCTAssertEqual(t.setModifiers(depressed: 1, latched: 0, locked: 0, layout: 0).count, 1)
        XCTAssertEqual(try t.setKeymap(text: Self.virtualKeymap), [], "Shift_L stays down on the server")
        XCTAssertEqual(press(t, 3), sym("X"))
        XCTAssertEqual(t.setModifiers(depressed: 0, latched: 0, locked: 0, layout: 0).map(\.down), [false])
    }

    func testModifiersFromARealShiftKeyAreNotPressedTwice() throws {
        let t = try KeyboardTranslator(keymapText: try Self.keymapText("us"))
        let shiftL = 42
        XCTAssertEqual(t.key(evdevCode: shiftL, down: true).map(\.keysym), [sym("Shift_L")])
        XCTAssertEqual(t.setModifiers(depressed: 1, latched: 0, locked: 0, layout: 0), [], "the key gives it")
        XCTAssertEqual(press(t, Self.evdevC), sym("C"))
        XCTAssertEqual(t.key(evdevCode: shiftL, down: false).map(\.keysym), [sym("Shift_L")])
        XCTAssertEqual(t.setModifiers(depressed: 0, latched: 0, locked: 0, layout: 0), [])
        XCTAssertEqual(press(t, Self.evdevC), sym("c"))
    }

    func testTheLayoutGroupFromTheCompositor() throws {
        let t = try KeyboardTranslator(keymapText: try Self.keymapText("us,de"))
        XCTAssertEqual(press(t, Self.evdevY), sym("y"))
        _ = t.setModifiers(depressed: 0, latched: 0, locked: 0, layout: 1)
        XCTAssertEqual(press(t, Self.evdevY), sym("z"), "the second layout")
    }

    /// A virtual keyboard's F11 (wtype -k F11: keycode 9, Escape's position) is F11 to the UI;
    /// a named layout's keys are their positions.
    func testTheUIKeyOfAVirtualKeyboardsKeyIsItsKeysym() throws {
        let vk = Self.virtualKeymap.replacingOccurrences(of: "key <K1> {[a]};", with: "key <K1> {[F11]};")
        let t = try KeyboardTranslator(keymapText: vk)
        XCTAssertEqual(t.uiScancode(forEvdev: 1), Int(HIDUsage.f11))
        XCTAssertEqual(t.uiScancode(forEvdev: 3), 0x1b, "x")
        let de = try KeyboardTranslator(keymapText: try Self.keymapText("de"))
        XCTAssertEqual(de.uiScancode(forEvdev: 21), 0x1c, "German Z on the Y position: the position")
        XCTAssertEqual(de.uiScancode(forEvdev: 87), Int(HIDUsage.f11))
    }

    func testEvdevToHIDForTheViewersOwnShortcuts() {
        XCTAssertEqual(KeyboardTranslator.scancode(forEvdev: 66), Int(HIDUsage.f8))
        XCTAssertEqual(KeyboardTranslator.scancode(forEvdev: 30), Int(HIDUsage.a))
        XCTAssertNil(KeyboardTranslator.scancode(forEvdev: 0))
        XCTAssertNil(KeyboardTranslator.scancode(forEvdev: 100_000))
    }

    // MARK: through the input controller

    func testTheControllerTakesTheCompositorsKeymapAndModifiers() throws {
        let sink = RecordingSink()
        let r = InputController(sink: sink, keyTranslator: KeyMapTranslator())
        let de = try Self.keymapText("de")
        guard case .log(let line)? = r.handle(.keymapChanged(keymap: de)).first else { return XCTFail("no log line") }
        XCTAssertTrue(line.contains("layout German"), line)
        func key(_ evdev: Int32, _ down: Bool) -> InputEvent {
            .key(KeyInput(scancode: Int32(KeyboardTranslator.scancode(forEvdev: Int(evdev)) ?? 0), sym: 0, down: down, evdevCode: evdev))
        }
        _ = r.handle(key(21, true)); _ = r.handle(key(21, false))
        XCTAssertEqual(sink.take(), [.key(sym("z"), down: true, xt: 0x15), .key(sym("z"), down: false, xt: 0x15)])
        // a key held across a keymap change is released on the server first
        _ = r.handle(key(21, true))
        _ = sink.take()
        let refused = r.handle(.keymapChanged(keymap: "nonsense"))
        XCTAssertEqual(sink.take(), [.key(sym("z"), down: false, xt: 0x15)])
        guard case .log(let no)? = refused.first else { return XCTFail("no log line") }
        XCTAssertTrue(no.contains("refused"), no)
        _ = r.handle(key(21, true)); _ = r.handle(key(21, false))
        XCTAssertEqual(sink.take().first, .key(sym("z"), down: true, xt: 0x15), "the old keymap stays")
        // Shift held by an on-screen keyboard without a key
        _ = r.handle(.keyboardModifiers(ModifierMasks(depressed: 1)))
        _ = r.handle(key(46, true)); _ = r.handle(key(46, false))
        _ = r.handle(.keyboardModifiers(ModifierMasks()))
        XCTAssertEqual(sink.take(), [.key(sym("Shift_L"), down: true, xt: 0x2a), .key(sym("C"), down: true, xt: 0x2e),
                                     .key(sym("C"), down: false, xt: 0x2e), .key(sym("Shift_L"), down: false, xt: 0x2a)])
    }

    /// The same keymap again (XWayland passes one on for every new keyboard, sway for each
    /// virtual keyboard's turn): nothing is released, a Shift held gives a capital after it.
    func testTheSameKeymapAgainKeepsHeldKeys() throws {
        let sink = RecordingSink()
        let r = InputController(sink: sink, keyTranslator: KeyMapTranslator())
        let us = try Self.keymapText("us")
        XCTAssertFalse(r.handle(.keymapChanged(keymap: us)).isEmpty, "the first keymap is taken (and logged)")
        func key(_ evdev: Int32, _ down: Bool) -> InputEvent {
            .key(KeyInput(scancode: Int32(KeyboardTranslator.scancode(forEvdev: Int(evdev)) ?? 0), sym: 0, down: down, evdevCode: evdev))
        }
        _ = r.handle(key(42, true))   // left Shift
        XCTAssertTrue(r.handle(.keymapChanged(keymap: us)).isEmpty, "the same keymap: nothing to do")
        _ = r.handle(key(35, true)); _ = r.handle(key(35, false)); _ = r.handle(key(42, false))
        XCTAssertEqual(sink.take(), [.key(sym("Shift_L"), down: true, xt: 0x2a), .key(sym("H"), down: true, xt: 0x23),
                                     .key(sym("H"), down: false, xt: 0x23), .key(sym("Shift_L"), down: false, xt: 0x2a)])
        // another keymap still releases what is held
        _ = r.handle(key(42, true)); _ = sink.take()
        _ = r.handle(.keymapChanged(keymap: try Self.keymapText("de")))
        XCTAssertEqual(sink.take(), [.key(sym("Shift_L"), down: false, xt: 0x2a)])
    }

    /// `wtype -k F11`: F11 in the keymap's first slot (Escape's position) toggles full screen
    /// and nothing reaches the server.
    func testAVirtualKeyboardsF11IsTheViewersShortcut() throws {
        let sink = RecordingSink()
        let r = InputController(sink: sink, keyTranslator: KeyMapTranslator())
        let vk = Self.virtualKeymap.replacingOccurrences(of: "key <K1> {[a]};", with: "key <K1> {[F11]};")
        _ = r.handle(.keymapChanged(keymap: vk))
        let down = r.handle(.key(KeyInput(scancode: Int32(KeyboardTranslator.scancode(forEvdev: 1) ?? 0), sym: 0, down: true, evdevCode: 1)))
        _ = r.handle(.key(KeyInput(scancode: Int32(KeyboardTranslator.scancode(forEvdev: 1) ?? 0), sym: 0, down: false, evdevCode: 1)))
        XCTAssertTrue(down.contains(.toggleFullscreen), "\(down)")
        XCTAssertEqual(sink.take(), [])
    }

    func testFocusLossReleasesAHeldOnScreenModifier() throws {
        let sink = RecordingSink()
        let r = InputController(sink: sink, keyTranslator: XKBKeyTranslator(try KeyboardTranslator(keymapText: Self.virtualKeymap)))
        _ = r.handle(.keyboardModifiers(ModifierMasks(depressed: 1 << 2)))   // Control is modifier 2
        XCTAssertEqual(sink.take(), [.key(sym("Control_L"), down: true, xt: 0x1d)])
        _ = r.handle(.focusLost)
        XCTAssertEqual(sink.take(), [.key(sym("Control_L"), down: false, xt: 0x1d)])
    }
}
