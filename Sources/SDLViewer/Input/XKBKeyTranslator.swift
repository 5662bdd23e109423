import Interaction

/// The window's key translation through xkbcommon (Interaction's KeyboardTranslator): the local
/// layout decides the keysym of each physical key, modifiers included. Main thread only.
public final class XKBKeyTranslator: KeyTranslating {
    public let translator: KeyboardTranslator

    public init(_ translator: KeyboardTranslator) { self.translator = translator }

    public func translate(_ key: KeyInput) -> KeyOutput? {
        // SDL scancodes are USB HID usages, which is what the translator takes. It keeps the xkb
        // state (Shift, AltGr, locks) from presses and releases alike.
        let out = key.evdevCode.map { translator.key(evdevCode: Int($0), down: key.down) }
            ?? translator.key(scancode: Int(key.scancode), down: key.down)
        guard let o = out.first(where: { $0.down == key.down }) ?? out.first else { return nil }
        return KeyOutput(keysym: o.keysym, xtKeycode: o.xtKeycode)
    }
}
