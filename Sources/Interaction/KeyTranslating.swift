/// Turns a key press into the RFB key event to send. The input controller remembers what each
/// physical key sent on press and sends exactly that on release, so a translator only needs to
/// answer for presses (it is asked on releases too, for translators that track state).
/// Main thread only.
public protocol KeyTranslating: AnyObject {
    /// The key event to send for `key` (its `down` is the key's), or nil for none.
    func translate(_ key: KeyInput) -> KeyOutput?
}

/// The window system's own keymap and modifier state (Wayland's wl_keyboard), where it gives
/// them: a translator that can take them says so by conforming.
public protocol KeymapTaking: KeyTranslating {
    /// A new keymap in xkb's text format (the caller has released on the server the keys that
    /// were down); returns modifier keys to press or release as the modifier state carries
    /// over. One that does not compile throws and the old one stays.
    func setKeymap(text: String) throws -> [KeyOutput]
    /// The window system's modifier state; returns modifier keys to press or release on the
    /// server for modifiers held without a key (an on-screen keyboard's Shift).
    func setModifiers(_ m: ModifierMasks) -> [KeyOutput]
    /// Releases what `setModifiers` pressed (focus lost).
    func releaseSynthesized() -> [KeyOutput]
    /// The HID usage the viewer's UI reads for a key that came as an evdev code under this
    /// keymap (a virtual keyboard's keys by keysym), nil when unknown.
    func uiScancode(forEvdev evdev: Int) -> Int?
}

/// The built-in translator: layout-independent keys plus US ASCII from the local key code; the
/// fallback when no xkbcommon keymap could be built.
public final class KeyMapTranslator: KeyTranslating {
    public init() {}
    public func translate(_ key: KeyInput) -> KeyOutput? {
        KeyMapTranslator.keysym(sym: key.sym, shift: key.modifiers.contains(.shift))
            .map { KeyOutput(keysym: $0, down: key.down, xtKeycode: nil) }
    }

    /// A key code in SDL's convention (`KeyInput.sym`) for a key with no character.
    static func code(_ usage: Int32) -> Int32 { 0x4000_0000 | usage }

    /// Key codes → X keysyms for keys whose keysym does not depend on the layout.
    static let special: [Int32: UInt32] = [
        8: 0xff08, 9: 0xff09, 13: 0xff0d, 27: 0xff1b, 127: 0xffff,   // Backspace, Tab, Return, Escape, Delete
        code(0x4a): 0xff50, code(0x50): 0xff51, code(0x52): 0xff52, code(0x4f): 0xff53,   // Home, arrows
        code(0x51): 0xff54, code(0x4b): 0xff55, code(0x4e): 0xff56, code(0x4d): 0xff57,   // Down, PgUp, PgDn, End
        code(0x49): 0xff63, code(0x58): 0xff8d,                                           // Insert, keypad Enter
        code(0xe1): 0xffe1, code(0xe5): 0xffe2, code(0xe0): 0xffe3, code(0xe4): 0xffe4,   // Shift, Control
        code(0x39): 0xffe5, code(0xe2): 0xffe9, code(0xe6): 0xffea,                       // Caps Lock, Alt
        code(0xe3): 0xffeb, code(0xe7): 0xffec, code(0x76): 0xff67, code(0x46): 0xff61,   // Super, Menu, Print
        code(0x48): 0xff13, code(0x47): 0xff14, code(0x53): 0xff7f,                       // Pause, Scroll/Num Lock
    ]

    static func keysym(sym: Int32, shift: Bool) -> UInt32? {
        if let s = special[sym] { return s }
        let f1 = code(HIDUsage.f1), f12 = code(HIDUsage.f12)
        if sym >= f1 && sym <= f12 { return 0xffbe + UInt32(sym - f1) }
        if sym >= 32 && sym < 127 {
            if shift, let u = shifted[UInt8(sym)] { return UInt32(u) }
            return UInt32(sym)
        }
        return nil
    }

    /// US-layout shifted symbols (a stop-gap: the xkbcommon translator knows the real layout).
    static let shifted: [UInt8: UInt8] = {
        var m: [UInt8: UInt8] = [:]
        for c in UInt8(ascii: "a")...UInt8(ascii: "z") { m[c] = c - 32 }
        let pairs = Array("1!2@3#4$5%6^7&8*9(0)-_=+[{]}\\|;:'\",<.>/?`~".utf8)
        for i in stride(from: 0, to: pairs.count, by: 2) { m[pairs[i]] = pairs[i + 1] }
        return m
    }()
}

/// Key translation through xkbcommon (`KeyboardTranslator`): the local layout decides the
/// keysym of each physical key, modifiers included. Main thread only.
public final class XKBKeyTranslator: KeymapTaking {
    public let translator: KeyboardTranslator

    public init(_ translator: KeyboardTranslator) { self.translator = translator }

    public func translate(_ key: KeyInput) -> KeyOutput? {
        // HID usages are what the translator takes (SDL's scancodes); the evdev code, where the
        // window system gave one, is the key's position. It keeps the xkb state (Shift, AltGr,
        // locks) from presses and releases alike.
        let out = key.evdevCode.map { translator.key(evdevCode: Int($0), down: key.down) }
            ?? translator.key(scancode: Int(key.scancode), down: key.down)
        return out.first(where: { $0.down == key.down }) ?? out.first
    }

    public func setKeymap(text: String) throws -> [KeyOutput] { try translator.setKeymap(text: text) }

    public func setModifiers(_ m: ModifierMasks) -> [KeyOutput] {
        translator.setModifiers(depressed: m.depressed, latched: m.latched, locked: m.locked, layout: m.layout)
    }

    public func releaseSynthesized() -> [KeyOutput] { translator.releaseSynthesized() }

    public func uiScancode(forEvdev evdev: Int) -> Int? { translator.uiScancode(forEvdev: evdev) }
}
