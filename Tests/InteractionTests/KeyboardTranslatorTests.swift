import CXKBCommon
import XCTest
@testable import Interaction

/// USB HID usage ids (= SDL2 SDL_Scancode values) used below.
private enum HID {
    static let a = 4, b = 5, e = 8, m = 16, q = 20, w = 26, y = 28, z = 29
    static let d1 = 30, d2 = 31, d3 = 32, d7 = 36, d0 = 39
    static let enter = 40, escape = 41, tab = 43, space = 44, minus = 45, leftBracket = 47
    static let nonUSHash = 50, semicolon = 51, apostrophe = 52, grave = 53
    static let capsLock = 57, f1 = 58, f12 = 69, delete = 76, right = 79, up = 82
    static let numLock = 83, kpEnter = 88, kp1 = 89, kpPeriod = 99
    static let nonUSBackslash = 100, application = 101
    static let lctrl = 224, lshift = 225, lalt = 226, lgui = 227
    static let rctrl = 228, rshift = 229, ralt = 230, rgui = 231
}

private func sym(_ name: String) -> UInt32 {
    let s = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
    XCTAssertNotEqual(s, 0, "no keysym named \(name)")
    return s
}

private func translator(_ layout: String, variant: String = "",
                        map: [ModifierRole: ModifierRole] = [:]) throws -> KeyboardTranslator {
    try KeyboardTranslator(spec: KeyboardLayoutSpec(layout: layout, variant: variant), modifierMap: map)
}

extension KeyboardTranslator {
    /// Keysym of a tap (press + release) of `key` with `modifiers` held; nil if no single press.
    fileprivate func tap(_ key: Int, with modifiers: [Int] = []) -> UInt32? {
        for m in modifiers { _ = self.key(scancode: m, down: true) }
        let down = self.key(scancode: key, down: true)
        _ = self.key(scancode: key, down: false)
        for m in modifiers.reversed() { _ = self.key(scancode: m, down: false) }
        guard down.count == 1, down[0].down else { return nil }
        return down[0].keysym
    }
}

final class KeyboardTranslatorTests: XCTestCase {

    // MARK: layouts

    func testUSLayout() throws {
        let t = try translator("us")
        XCTAssertEqual(t.tap(HID.a), sym("a"))
        XCTAssertEqual(t.tap(HID.a, with: [HID.lshift]), sym("A"))
        XCTAssertEqual(t.tap(HID.z), sym("z"))
        XCTAssertEqual(t.tap(HID.d1), sym("1"))
        XCTAssertEqual(t.tap(HID.d1, with: [HID.lshift]), sym("exclam"))
        XCTAssertEqual(t.tap(HID.d2, with: [HID.rshift]), sym("at"))
        XCTAssertEqual(t.tap(HID.grave), sym("grave"))
        XCTAssertEqual(t.tap(HID.grave, with: [HID.lshift]), sym("asciitilde"))
        XCTAssertEqual(t.tap(HID.apostrophe, with: [HID.lshift]), sym("quotedbl"))
        XCTAssertEqual(t.tap(HID.enter), sym("Return"))
        XCTAssertEqual(t.tap(HID.escape), sym("Escape"))
        XCTAssertEqual(t.tap(HID.tab), sym("Tab"))
        XCTAssertEqual(t.tap(HID.space), sym("space"))
        XCTAssertEqual(t.tap(HID.f1), sym("F1"))
        XCTAssertEqual(t.tap(HID.up), sym("Up"))
        XCTAssertEqual(t.tap(HID.delete), sym("Delete"))
        XCTAssertEqual(t.tap(HID.kpEnter), sym("KP_Enter"))
        // Ctrl+letter stays the letter (the server applies Control).
        XCTAssertEqual(t.tap(HID.a, with: [HID.lctrl]), sym("a"))
    }

    func testGermanLayout() throws {
        let t = try translator("de")
        XCTAssertEqual(t.tap(HID.y), sym("z"), "Z and Y are swapped")
        XCTAssertEqual(t.tap(HID.z), sym("y"))
        XCTAssertEqual(t.tap(HID.y, with: [HID.lshift]), sym("Z"))
        XCTAssertEqual(t.tap(HID.q, with: [HID.ralt]), sym("at"), "AltGr+Q")
        XCTAssertEqual(t.tap(HID.e, with: [HID.ralt]), sym("EuroSign"), "AltGr+E")
        XCTAssertEqual(t.tap(HID.d7, with: [HID.ralt]), sym("braceleft"))
        XCTAssertEqual(t.tap(HID.grave), sym("dead_circumflex"), "key left of 1")
        XCTAssertEqual(t.tap(HID.grave, with: [HID.lshift]), sym("degree"))
        XCTAssertEqual(t.tap(HID.minus), sym("ssharp"))
        XCTAssertEqual(t.tap(HID.d2, with: [HID.lshift]), sym("quotedbl"))
        XCTAssertEqual(t.tap(HID.d3, with: [HID.lshift]), sym("section"))
        XCTAssertEqual(t.tap(HID.semicolon), sym("odiaeresis"))
        XCTAssertEqual(t.tap(HID.nonUSBackslash), sym("less"))
        XCTAssertEqual(t.key(scancode: HID.ralt, down: true).map(\.keysym), [sym("ISO_Level3_Shift")])
        _ = t.releaseAll()
    }

    func testFrenchLayout() throws {
        let t = try translator("fr")
        XCTAssertEqual(t.tap(HID.q), sym("a"), "AZERTY")
        XCTAssertEqual(t.tap(HID.a), sym("q"))
        XCTAssertEqual(t.tap(HID.w), sym("z"))
        XCTAssertEqual(t.tap(HID.z), sym("w"))
        XCTAssertEqual(t.tap(HID.semicolon), sym("m"))
        XCTAssertEqual(t.tap(HID.m), sym("comma"))
        XCTAssertEqual(t.tap(HID.d1), sym("ampersand"), "digits need Shift")
        XCTAssertEqual(t.tap(HID.d1, with: [HID.lshift]), sym("1"))
        XCTAssertEqual(t.tap(HID.d2), sym("eacute"))
        XCTAssertEqual(t.tap(HID.d2, with: [HID.lshift]), sym("2"))
        XCTAssertEqual(t.tap(HID.d0, with: [HID.ralt]), sym("at"))
        XCTAssertEqual(t.tap(HID.e, with: [HID.ralt]), sym("EuroSign"))
        XCTAssertEqual(t.tap(HID.leftBracket), sym("dead_circumflex"))
        XCTAssertEqual(t.tap(HID.leftBracket, with: [HID.lshift]), sym("dead_diaeresis"))
    }

    func testBritishLayout() throws {
        let t = try translator("gb")
        XCTAssertEqual(t.tap(HID.d3, with: [HID.lshift]), sym("sterling"))
        XCTAssertEqual(t.tap(HID.d2, with: [HID.lshift]), sym("quotedbl"))
        XCTAssertEqual(t.tap(HID.apostrophe, with: [HID.lshift]), sym("at"))
        XCTAssertEqual(t.tap(HID.nonUSHash), sym("numbersign"))
        XCTAssertEqual(t.tap(HID.nonUSBackslash), sym("backslash"))
        XCTAssertEqual(t.tap(HID.a), sym("a"))
    }

    func testRussianLayout() throws {
        let t = try translator("ru")
        XCTAssertEqual(t.tap(HID.a), sym("Cyrillic_ef"))
        XCTAssertEqual(t.tap(HID.q), sym("Cyrillic_shorti"))
        XCTAssertEqual(t.tap(HID.q, with: [HID.lshift]), sym("Cyrillic_SHORTI"))
        XCTAssertEqual(t.tap(HID.grave), sym("Cyrillic_io"))
        XCTAssertEqual(t.tap(HID.d3, with: [HID.lshift]), sym("numerosign"))
        XCTAssertEqual(t.tap(HID.d1), sym("1"))
    }

    func testVariant() throws {
        let t = try translator("de", variant: "nodeadkeys")
        XCTAssertEqual(t.tap(HID.grave), sym("asciicircum"))
    }

    func testUnknownLayoutIsAClearError() {
        XCTAssertThrowsError(try translator("xx-no-such-layout")) { error in
            guard let e = error as? KeyboardError, case .keymapFailed(let spec, _) = e else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(spec.layout, "xx-no-such-layout")
            XCTAssertTrue(e.description.contains("'xx-no-such-layout'"), e.description)
            XCTAssertTrue(e.description.contains("cannot build a keyboard map"), e.description)
        }
        XCTAssertThrowsError(try translator("de", variant: "no-such-variant")) { error in
            XCTAssertTrue("\(error)".contains("no-such-variant"), "\(error)")
        }
    }

    // MARK: pairing, modifiers, release

    func testShiftReleasedBeforeLetterReleasesTheShiftedKeysym() throws {
        let t = try translator("us")
        let shiftL = sym("Shift_L"), upperA = sym("A")
        XCTAssertEqual(t.key(scancode: HID.lshift, down: true), [KeyOutput(keysym: shiftL, down: true, xtKeycode: 0x2a)])
        XCTAssertEqual(t.key(scancode: HID.a, down: true), [KeyOutput(keysym: upperA, down: true, xtKeycode: 0x1e)])
        XCTAssertEqual(t.key(scancode: HID.lshift, down: false), [KeyOutput(keysym: shiftL, down: false, xtKeycode: 0x2a)])
        XCTAssertEqual(t.key(scancode: HID.a, down: false), [KeyOutput(keysym: upperA, down: false, xtKeycode: 0x1e)],
                       "release pairs with the press, not the current state")
        XCTAssertEqual(t.tap(HID.a), sym("a"))
    }

    func testAltGrReleasedFirstStillReleasesAt() throws {
        let t = try translator("de")
        _ = t.key(scancode: HID.ralt, down: true)
        XCTAssertEqual(t.key(scancode: HID.q, down: true).map(\.keysym), [sym("at")])
        XCTAssertEqual(t.key(scancode: HID.ralt, down: false).map(\.keysym), [sym("ISO_Level3_Shift")])
        XCTAssertEqual(t.key(scancode: HID.q, down: false).map(\.keysym), [sym("at")])
        XCTAssertEqual(t.tap(HID.q), sym("q"))
    }

    func testModifierKeysyms() throws {
        let t = try translator("us")
        let expected: [(Int, String, UInt32)] = [
            (HID.lshift, "Shift_L", 0x2a), (HID.rshift, "Shift_R", 0x36),
            (HID.lctrl, "Control_L", 0x1d), (HID.rctrl, "Control_R", 0xe01d),
            (HID.lalt, "Alt_L", 0x38), (HID.ralt, "Alt_R", 0xe038),
            (HID.lgui, "Super_L", 0xe05b), (HID.rgui, "Super_R", 0xe05c),
        ]
        for (key, name, xt) in expected {
            XCTAssertEqual(t.key(scancode: key, down: true), [KeyOutput(keysym: sym(name), down: true, xtKeycode: xt)], name)
            XCTAssertEqual(t.key(scancode: key, down: false), [KeyOutput(keysym: sym(name), down: false, xtKeycode: xt)], name)
        }
        XCTAssertFalse(t.hasKeysDown)
    }

    func testModifierRemapping() throws {
        let t = try translator("us", map: [.superKey: .alt, .alt: .superKey])
        XCTAssertEqual(t.key(scancode: HID.lgui, down: true), [KeyOutput(keysym: sym("Alt_L"), down: true, xtKeycode: 0x38)])
        XCTAssertEqual(t.key(scancode: HID.rgui, down: true), [KeyOutput(keysym: sym("Alt_R"), down: true, xtKeycode: 0xe038)])
        XCTAssertEqual(t.key(scancode: HID.lalt, down: true), [KeyOutput(keysym: sym("Super_L"), down: true, xtKeycode: 0xe05b)])
        XCTAssertEqual(t.key(scancode: HID.lgui, down: false), [KeyOutput(keysym: sym("Alt_L"), down: false, xtKeycode: 0x38)])
        XCTAssertEqual(t.key(scancode: HID.lalt, down: false).map(\.keysym), [sym("Super_L")])
        XCTAssertEqual(t.key(scancode: HID.rgui, down: false).map(\.keysym), [sym("Alt_R")])
        // Unmapped modifiers and other keys are untouched.
        XCTAssertEqual(t.tap(HID.lctrl), sym("Control_L"))
        XCTAssertEqual(t.tap(HID.a), sym("a"))

        let de = try translator("de", map: [.altgr: .control])
        XCTAssertEqual(de.key(scancode: HID.ralt, down: true), [KeyOutput(keysym: sym("Control_R"), down: true, xtKeycode: 0xe01d)])
        // Locally AltGr still selects level 3.
        XCTAssertEqual(de.key(scancode: HID.q, down: true).map(\.keysym), [sym("at")])
        _ = de.releaseAll()
    }

    func testParseModifierMap() throws {
        XCTAssertEqual(try KeyboardTranslator.parseModifierMap("super=alt,alt=super"), [.superKey: .alt, .alt: .superKey])
        XCTAssertEqual(try KeyboardTranslator.parseModifierMap(" Ctrl = Meta , win=altgr "), [.control: .meta, .superKey: .altgr])
        XCTAssertEqual(try KeyboardTranslator.parseModifierMap(""), [:])
        for bad in ["super", "super=", "foo=alt", "alt=bar", "super=alt,super=ctrl", "super=alt,,alt=super", "a=b=c"] {
            XCTAssertThrowsError(try KeyboardTranslator.parseModifierMap(bad), bad) { error in
                XCTAssertTrue("\(error)".hasPrefix("bad modifier map: "), "\(error)")
            }
        }
        XCTAssertThrowsError(try KeyboardTranslator.parseModifierMap("hyper=alt")) { error in
            XCTAssertTrue("\(error)".contains("unknown modifier 'hyper'"), "\(error)")
        }
    }

    func testReleaseAllReleasesEverythingInReverseOrder() throws {
        let t = try translator("us")
        _ = t.key(scancode: HID.lctrl, down: true)
        _ = t.key(scancode: HID.lshift, down: true)
        _ = t.key(scancode: HID.a, down: true)
        _ = t.key(scancode: HID.b, down: true)
        _ = t.key(scancode: HID.b, down: false)
        XCTAssertTrue(t.hasKeysDown)
        XCTAssertEqual(t.releaseAll(), [
            KeyOutput(keysym: sym("A"), down: false, xtKeycode: 0x1e),
            KeyOutput(keysym: sym("Shift_L"), down: false, xtKeycode: 0x2a),
            KeyOutput(keysym: sym("Control_L"), down: false, xtKeycode: 0x1d),
        ])
        XCTAssertFalse(t.hasKeysDown)
        XCTAssertEqual(t.releaseAll(), [])
        // No stuck modifier in the local state either, and late releases send nothing.
        XCTAssertEqual(t.key(scancode: HID.a, down: false), [])
        XCTAssertEqual(t.tap(HID.a), sym("a"))
    }

    func testKeyRepeatSendsAnotherPressWithTheSameKeysym() throws {
        let t = try translator("us")
        _ = t.key(scancode: HID.lshift, down: true)
        let first = t.key(scancode: HID.a, down: true)
        _ = t.key(scancode: HID.lshift, down: false)
        XCTAssertEqual(t.key(scancode: HID.a, down: true), first)
        XCTAssertEqual(t.key(scancode: HID.a, down: true), first)
        XCTAssertEqual(t.key(scancode: HID.a, down: false).map(\.keysym), [sym("A")])
        // A repeated modifier must not count twice in the xkb state.
        _ = t.key(scancode: HID.lshift, down: true)
        _ = t.key(scancode: HID.lshift, down: true)
        _ = t.key(scancode: HID.lshift, down: false)
        XCTAssertEqual(t.tap(HID.a), sym("a"))
    }

    // MARK: locks

    func testCapsLock() throws {
        let t = try translator("us")
        XCTAssertFalse(t.capsLockOn)
        XCTAssertEqual(t.key(scancode: HID.capsLock, down: true).map(\.keysym), [sym("Caps_Lock")])
        XCTAssertEqual(t.key(scancode: HID.capsLock, down: false).map(\.keysym), [sym("Caps_Lock")])
        XCTAssertTrue(t.capsLockOn)
        XCTAssertEqual(t.tap(HID.a), sym("A"))
        XCTAssertEqual(t.tap(HID.d1), sym("1"), "Caps Lock does not shift digits")
        XCTAssertEqual(t.tap(HID.a, with: [HID.lshift]), sym("a"))
        XCTAssertEqual(t.releaseAll(), [])
        XCTAssertTrue(t.capsLockOn, "releaseAll keeps locks")
        _ = t.tap(HID.capsLock)
        XCTAssertFalse(t.capsLockOn)
        XCTAssertEqual(t.tap(HID.a), sym("a"))

        let ru = try translator("ru")
        ru.setLocks(capsLock: true, numLock: nil)
        XCTAssertEqual(ru.tap(HID.a), sym("Cyrillic_EF"))
    }

    func testNumLockAndKeypad() throws {
        let t = try translator("us")
        XCTAssertFalse(t.numLockOn)
        XCTAssertEqual(t.tap(HID.kp1), sym("KP_End"))
        XCTAssertEqual(t.tap(HID.kpPeriod), sym("KP_Delete"))
        XCTAssertEqual(t.tap(HID.numLock), sym("Num_Lock"))
        XCTAssertTrue(t.numLockOn)
        XCTAssertEqual(t.tap(HID.kp1), sym("KP_1"))
        XCTAssertEqual(t.tap(HID.kpPeriod), sym("KP_Decimal"))
        XCTAssertEqual(t.tap(HID.kpEnter), sym("KP_Enter"))
        t.setLocks(capsLock: nil, numLock: false)
        XCTAssertFalse(t.numLockOn)
        XCTAssertEqual(t.tap(HID.kp1), sym("KP_End"))
        t.setLocks(capsLock: false, numLock: true)
        XCTAssertEqual(t.tap(HID.kp1), sym("KP_1"))
    }

    func testServerActionKeysymsFallBackToTheKey() throws {
        let t = try translator("us")
        // xkb gives XF86Switch_VT_1 for Ctrl+Alt+F1; the remote side gets F1.
        XCTAssertEqual(t.tap(HID.f1, with: [HID.lctrl, HID.lalt]), sym("F1"))
    }

    // MARK: tables and odd input

    func testXTCodes() throws {
        let t = try translator("us")
        let expected: [(Int, UInt32)] = [
            (HID.escape, 0x01), (HID.a, 0x1e), (HID.d1, 0x02), (HID.enter, 0x1c), (HID.f12, 0x58),
            (HID.rctrl, 0xe01d), (HID.up, 0xe048), (HID.right, 0xe04d), (HID.kpEnter, 0xe01c),
            (HID.lgui, 0xe05b), (HID.rgui, 0xe05c), (HID.application, 0xe05d), (HID.delete, 0xe053),
            (HID.nonUSBackslash, 0x56), (HID.kp1, 0x4f),
        ]
        for (key, xt) in expected {
            XCTAssertEqual(KeyboardTranslator.xtCode(forScancode: key), xt, "scancode \(key)")
            XCTAssertEqual(t.key(scancode: key, down: true).first?.xtKeycode, xt, "scancode \(key)")
            _ = t.key(scancode: key, down: false)
        }
        // The keysym does not change the XT code: de's Z key is still XT 0x2c.
        let de = try translator("de")
        XCTAssertEqual(de.key(scancode: HID.z, down: true), [KeyOutput(keysym: sym("y"), down: true, xtKeycode: 0x2c)])
    }

    func testHIDTableCoversAFullSizeKeyboard() {
        // Letters, digits, punctuation, F1-F12, navigation, keypad, modifiers: all mapped.
        var seen = Set<Int>()
        for hid in Array(4...101) + Array(224...231) {
            guard let ev = KeyboardTranslator.evdevCode(forScancode: hid) else {
                XCTFail("HID usage \(hid) has no evdev code"); continue
            }
            XCTAssertNotNil(KeyboardTranslator.xtCode(forEvdev: ev), "evdev \(ev) has no XT code")
            if hid != 50 { XCTAssertTrue(seen.insert(ev).inserted, "evdev \(ev) twice") }  // 50 = non-US # = backslash
        }
        XCTAssertEqual(KeyboardTranslator.evdevCode(forScancode: 4), 30)     // KEY_A
        XCTAssertEqual(KeyboardTranslator.evdevCode(forScancode: 230), 100)  // KEY_RIGHTALT
        XCTAssertEqual(KeyboardTranslator.evdevCode(forScancode: 262), 113)  // SDL AUDIOMUTE -> KEY_MUTE
    }

    func testOddInputGivesNothing() throws {
        let t = try translator("us")
        for sc in [Int.min, -1, 0, 1, 2, 3, 165, 232, 256, 1000, Int.max] {
            XCTAssertEqual(t.key(scancode: sc, down: true), [], "scancode \(sc)")
            XCTAssertEqual(t.key(scancode: sc, down: false), [], "scancode \(sc)")
        }
        for ev in [Int.min, -8, 0, 0x300, Int.max] {
            XCTAssertEqual(t.key(evdevCode: ev, down: true), [])
        }
        XCTAssertEqual(t.key(scancode: HID.a, down: false), [], "release without press")
        XCTAssertNil(KeyboardTranslator.xtCode(forEvdev: -1))
        XCTAssertNil(KeyboardTranslator.xtCode(forEvdev: 100_000))
        XCTAssertFalse(t.hasKeysDown)
    }

    func testKeysymNames() {
        XCTAssertEqual(KeyboardTranslator.keysymName(0xffe1), "Shift_L")
        XCTAssertEqual(KeyboardTranslator.keysymName(0x20ac), "EuroSign")
    }
}
