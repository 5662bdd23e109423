// Keyboard translation through xkbcommon: physical keys (USB HID usage ids, which is what
// SDL2's SDL_Scancode values are) in, RFB key events (X keysyms, plus XT scancodes for QEMU's
// Extended Key Event) out. Plain logic: no SDL types, no threads.
//
// What it does is what TigerVNC's vncviewer does on X11, with xkbcommon in place of Xlib:
// the keysym of a press is looked up in the keyboard state *before* the key is applied, a
// release sends exactly the keysym its press sent (so Shift released before the letter still
// releases 'A'), and modifier keys are sent as their own keysyms.
import CXKBCommon
import Foundation

/// The xkb RMLVO names a keymap is built from.
public struct KeyboardLayoutSpec: Equatable, Sendable, CustomStringConvertible {
    public var rules: String
    public var model: String
    public var layout: String
    public var variant: String
    public var options: String

    public init(rules: String = "evdev", model: String = "pc105", layout: String = "us",
                variant: String = "", options: String = "") {
        self.rules = rules
        self.model = model
        self.layout = layout
        self.variant = variant
        self.options = options
    }

    /// "layout de(nodeadkeys), model pc105, rules evdev, options ctrl:nocaps".
    public var description: String {
        var s = "layout \(layout)"
        if !variant.isEmpty { s += "(\(variant))" }
        s += ", model \(model), rules \(rules)"
        if !options.isEmpty { s += ", options \(options)" }
        return s
    }
}

/// One RFB key event. `xtKeycode` is the key's XT scancode (set 1) for QEMU's Extended Key
/// Event, 0xE0xx for extended keys; nil when the key has none.
public struct KeyOutput: Equatable, Sendable, CustomStringConvertible {
    public var keysym: UInt32
    public var down: Bool
    public var xtKeycode: UInt32?

    public init(keysym: UInt32, down: Bool, xtKeycode: UInt32?) {
        self.keysym = keysym
        self.down = down
        self.xtKeycode = xtKeycode
    }

    public var description: String {
        let xt = xtKeycode.map { String(format: "0x%X", $0) } ?? "nil"
        return "\(down ? "down" : "up") \(KeyboardTranslator.keysymName(keysym)) xt \(xt)"
    }
}

/// Modifier keys as a user names them in `--remap` style options ("super=alt").
public enum ModifierRole: String, CaseIterable, Sendable {
    case shift, control, alt, superKey = "super", altgr, meta
}

public enum KeyboardError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// xkbcommon could not build a keymap from these names (unknown layout or variant,
    /// missing xkb data). `detail` is xkbcommon's own first error line, when it gave one.
    case keymapFailed(spec: KeyboardLayoutSpec, detail: String)
    /// xkbcommon could not even create a context or a state (out of memory).
    case xkbUnavailable(String)
    /// A modifier map string that does not parse.
    case badModifierMap(String)
    /// A keymap in text form (a Wayland compositor's) that xkbcommon does not compile.
    case keymapTextFailed(detail: String)

    public var description: String {
        switch self {
        case let .keymapTextFailed(detail):
            return "the keymap does not compile" + (detail.isEmpty ? "" : "; xkbcommon: \(detail)")
        case let .keymapFailed(spec, detail):
            var s = "cannot build a keyboard map for layout '\(spec.layout)'"
            if !spec.variant.isEmpty { s += " variant '\(spec.variant)'" }
            s += " (model \(spec.model), rules \(spec.rules)"
            if !spec.options.isEmpty { s += ", options \(spec.options)" }
            s += "): unknown layout/variant name or missing xkb data (/usr/share/X11/xkb)"
            if !detail.isEmpty { s += "; xkbcommon: \(detail)" }
            return s
        case let .xkbUnavailable(what):
            return "xkbcommon: \(what)"
        case let .badModifierMap(why):
            return "bad modifier map: \(why)"
        }
    }

    public var errorDescription: String? { description }
}

/// Collects xkbcommon's log lines while a keymap compiles (for the error message).
private final class XKBLogSink {
    var lines: [String] = []
}

/// Turns physical key presses into RFB key events with an xkb keyboard state.
/// Not thread-safe: call it from one thread (the SDL main thread).
public final class KeyboardTranslator {
    /// The names the keymap was built from (a keymap from text: its first layout's name).
    public private(set) var spec: KeyboardLayoutSpec
    public let modifierMap: [ModifierRole: ModifierRole]

    private let context: OpaquePointer
    private var keymap: OpaquePointer
    private var state: OpaquePointer
    private let logSink = XKBLogSink()

    /// What a held key sent on press, by xkb keycode, to pair its release.
    private var held: [UInt32: (keysym: UInt32, xt: UInt32?)] = [:]
    /// Held keys in the order they went down (releaseAll lets go in reverse).
    private var heldOrder: [UInt32] = []
    /// Keys pressed into the xkb state (held keys plus keys that produced no keysym).
    private var stateDown: [UInt32] = []
    /// Modifier keys sent because the window system's modifier state had them with no key
    /// down that gives them (an on-screen keyboard's Shift), by role.
    private var synthesized: [ModifierRole: KeyOutput] = [:]
    /// The window system's last modifier state (carried over to a new keymap).
    private var lastMasks: (depressed: UInt32, latched: UInt32, locked: UInt32, layout: UInt32) = (0, 0, 0, 0)

    /// Largest evdev code we accept (xkb keycodes are 8 above; xkb's own limit is 0xffffffff,
    /// the evdev name space ends at KEY_MAX = 0x2ff).
    public static let maxEvdevCode = 0x2ff

    public init(spec: KeyboardLayoutSpec, modifierMap: [ModifierRole: ModifierRole] = [:]) throws {
        self.spec = spec
        self.modifierMap = modifierMap
        let ctx = try Self.makeContext(logSink)
        let built: OpaquePointer? = spec.rules.withCString { r in
            spec.model.withCString { m in
                spec.layout.withCString { l in
                    spec.variant.withCString { v in
                        spec.options.withCString { o in
                            var names = xkb_rule_names(rules: r, model: m, layout: l, variant: v,
                                                       options: spec.options.isEmpty ? nil : o)
                            return xkb_keymap_new_from_names(ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let km = built else {
            let detail = logSink.lines.first { !$0.isEmpty } ?? ""
            xkb_context_unref(ctx)
            throw KeyboardError.keymapFailed(spec: spec, detail: detail)
        }
        guard let st = xkb_state_new(km) else {
            xkb_keymap_unref(km)
            xkb_context_unref(ctx)
            throw KeyboardError.xkbUnavailable("cannot create a keyboard state")
        }
        context = ctx
        keymap = km
        state = st
    }

    /// A translator on a keymap in xkb's text format: what a Wayland compositor hands its
    /// clients (wl_keyboard.keymap), so keys mean what the compositor's keymap says (its
    /// layouts and groups, an on-screen keyboard's generated keymap). `spec` then only names
    /// the keymap's first layout, for logs.
    public init(keymapText: String, modifierMap: [ModifierRole: ModifierRole] = [:]) throws {
        self.modifierMap = modifierMap
        let ctx = try Self.makeContext(logSink)
        guard let (km, st) = Self.compile(keymapText, ctx) else {
            let detail = logSink.lines.first { !$0.isEmpty } ?? ""
            xkb_context_unref(ctx)
            throw KeyboardError.keymapTextFailed(detail: detail)
        }
        context = ctx
        keymap = km
        state = st
        spec = KeyboardLayoutSpec(rules: "", model: "", layout: Self.layoutName(km))
    }

    /// A context that reads no XKB_DEFAULT_* and collects error lines into `sink`.
    private static func makeContext(_ sink: XKBLogSink) throws -> OpaquePointer {
        // No XKB_DEFAULT_* from the environment here: the detector decides, so that a spec
        // means the same keymap everywhere (and tests are deterministic).
        guard let ctx = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else {
            throw KeyboardError.xkbUnavailable("cannot create a context")
        }
        xkb_context_set_user_data(ctx, Unmanaged.passUnretained(sink).toOpaque())
        xkb_context_set_log_fn(ctx) { ctx, _, format, args in
            guard let ctx, let format, let args, let user = xkb_context_get_user_data(ctx) else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            _ = buffer.withUnsafeMutableBufferPointer { b in
                vsnprintf(b.baseAddress, b.count, format, args)
            }
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                              as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let sink = Unmanaged<XKBLogSink>.fromOpaque(user).takeUnretainedValue()
            if sink.lines.count < 32 { sink.lines.append(line) }
        }
        xkb_context_set_log_level(ctx, XKB_LOG_LEVEL_ERROR)
        return ctx
    }

    /// Keymap and state from keymap text, nil when it does not compile.
    private static func compile(_ text: String, _ ctx: OpaquePointer) -> (OpaquePointer, OpaquePointer)? {
        guard let km = text.withCString({ xkb_keymap_new_from_string(ctx, $0, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS) })
        else { return nil }
        guard let st = xkb_state_new(km) else { xkb_keymap_unref(km); return nil }
        return (km, st)
    }

    private static func layoutName(_ km: OpaquePointer) -> String {
        xkb_keymap_layout_get_name(km, 0).map { String(cString: $0) } ?? "(unnamed)"
    }

    /// Takes a new keymap in text form (a compositor's keymap changed mid-session). Keys held
    /// are forgotten (the caller releases on the server what it sent for them). The modifier
    /// state carries over: sway sends a virtual keyboard's keymap again after its modifiers,
    /// and the eight real modifiers have the same bits in every keymap; the returned events
    /// are modifier keys that changes (usually none). A keymap that does not compile is refused
    /// with an error and the old one stays.
    public func setKeymap(text: String) throws -> [KeyOutput] {
        logSink.lines.removeAll()
        guard let (km, st) = Self.compile(text, context) else {
            throw KeyboardError.keymapTextFailed(detail: logSink.lines.first { !$0.isEmpty } ?? "")
        }
        _ = releaseAll()
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        keymap = km
        state = st
        spec = KeyboardLayoutSpec(rules: "", model: "", layout: Self.layoutName(km))
        let m = lastMasks, real: UInt32 = 0xff
        let layout = m.layout < xkb_keymap_num_layouts(km) ? m.layout : 0
        return setModifiers(depressed: m.depressed & real, latched: m.latched & real, locked: m.locked & real, layout: layout)
    }

    deinit {
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    // MARK: - Keys

    /// One key press or release; `scancode` is a USB HID usage id (SDL2 `SDL_Scancode`).
    /// Unknown scancodes give no events. A press of a key that is already down (key repeat)
    /// sends another press with the keysym of the first one.
    public func key(scancode: Int, down: Bool) -> [KeyOutput] {
        guard let evdev = Self.evdevCode(forScancode: scancode) else { return [] }
        return key(evdevCode: evdev, down: down)
    }

    /// The same with a Linux evdev key code (xkb keycode - 8), for input that comes as evdev.
    public func key(evdevCode: Int, down: Bool) -> [KeyOutput] {
        guard evdevCode > 0, evdevCode <= Self.maxEvdevCode else { return [] }
        let kc = UInt32(evdevCode + 8)
        if down {
            if let h = held[kc] {
                return [KeyOutput(keysym: h.keysym, down: true, xtKeycode: h.xt)]   // repeat
            }
            if stateDown.contains(kc) { return [] }   // repeat of a key without a keysym
            let sym = lookupKeysym(kc)
            xkb_state_update_key(state, kc, XKB_KEY_DOWN)
            stateDown.append(kc)
            guard sym != 0 else { return [] }
            let (outSym, outXT) = remap(keysym: sym, xt: Self.xtCode(forEvdev: evdevCode))
            held[kc] = (outSym, outXT)
            heldOrder.append(kc)
            return [KeyOutput(keysym: outSym, down: true, xtKeycode: outXT)]
        } else {
            var out: [KeyOutput] = []
            if let h = held.removeValue(forKey: kc) {
                heldOrder.removeAll { $0 == kc }
                out.append(KeyOutput(keysym: h.keysym, down: false, xtKeycode: h.xt))
            }
            if let i = stateDown.firstIndex(of: kc) {
                stateDown.remove(at: i)
                xkb_state_update_key(state, kc, XKB_KEY_UP)
            }
            return out
        }
    }

    /// Releases everything held, last pressed first (focus lost, disconnect), so the server
    /// is left with no stuck keys. Locks (Caps Lock, Num Lock) stay as they are.
    public func releaseAll() -> [KeyOutput] {
        var out: [KeyOutput] = []
        for kc in heldOrder.reversed() {
            if let h = held[kc] { out.append(KeyOutput(keysym: h.keysym, down: false, xtKeycode: h.xt)) }
        }
        for kc in stateDown.reversed() {
            xkb_state_update_key(state, kc, XKB_KEY_UP)
        }
        held.removeAll()
        heldOrder.removeAll()
        stateDown.removeAll()
        return out
    }

    /// True while any key is down.
    public var hasKeysDown: Bool { !stateDown.isEmpty }

    // MARK: - The window system's modifier state

    /// The modifier masks and layout a Wayland compositor sends (wl_keyboard.modifiers), in
    /// this keymap's bits. The state takes them as they are (the compositor's state is the
    /// truth, not the keys we saw); a modifier that is on with no key down giving it (an
    /// on-screen keyboard's Shift, `wtype -M shift`) is pressed on the server as its left-hand
    /// key, and released when it goes off: the returned events, to send. Locks are left to
    /// the lock-key synchronisation.
    public func setModifiers(depressed: UInt32, latched: UInt32, locked: UInt32, layout: UInt32) -> [KeyOutput] {
        lastMasks = (depressed, latched, locked, layout)
        xkb_state_update_mask(state, depressed, latched, locked, 0, 0, layout)
        var out: [KeyOutput] = []
        for (role, name) in Self.synthesizable {
            let on = xkb_state_mod_name_is_active(state, name, Self.depressedOrLatched) > 0
            let want = on && !keyDown(giving: role)
            if want, synthesized[role] == nil {
                let k = Self.modifierKey(role, .left)
                let (sym, xt) = remap(keysym: k.keysym, xt: k.xt)
                let press = KeyOutput(keysym: sym, down: true, xtKeycode: xt)
                synthesized[role] = press
                out.append(press)
            } else if !want, let press = synthesized.removeValue(forKey: role) {
                out.append(KeyOutput(keysym: press.keysym, down: false, xtKeycode: press.xtKeycode))
            }
        }
        return out
    }

    /// Releases the modifiers `setModifiers` pressed (focus lost, a new keymap).
    public func releaseSynthesized() -> [KeyOutput] {
        let out = Self.synthesizable.compactMap { role, _ in
            synthesized.removeValue(forKey: role).map { KeyOutput(keysym: $0.keysym, down: false, xtKeycode: $0.xtKeycode) }
        }
        return out
    }

    private static let depressedOrLatched =
        xkb_state_component(rawValue: XKB_STATE_MODS_DEPRESSED.rawValue | XKB_STATE_MODS_LATCHED.rawValue)

    /// The modifiers an on-screen keyboard may hold without a key, with xkb's names for them.
    static let synthesizable: [(ModifierRole, String)] = [
        (.shift, XKB_MOD_NAME_SHIFT), (.control, XKB_MOD_NAME_CTRL),
        (.alt, XKB_MOD_NAME_ALT), (.superKey, XKB_MOD_NAME_LOGO),
    ]

    /// Whether a key down in the state is that modifier's key in this keymap (its first level).
    private func keyDown(giving role: ModifierRole) -> Bool {
        stateDown.contains { kc in
            var syms: UnsafePointer<xkb_keysym_t>?
            let n = xkb_keymap_key_get_syms_by_level(keymap, kc, 0, 0, &syms)
            guard n > 0, let syms, let (r, _) = Self.modifierRole(ofKeysym: syms[0]) else { return false }
            return r == role
        }
    }

    // MARK: - Locks

    /// Caps Lock as the xkb state has it.
    public var capsLockOn: Bool { modLocked(XKB_MOD_NAME_CAPS) }
    /// Num Lock as the xkb state has it.
    public var numLockOn: Bool { modLocked(XKB_MOD_NAME_NUM) }

    /// Align Caps Lock / Num Lock with the local keyboard (SDL_GetModState on focus gain):
    /// xkb starts with both off, a local desktop usually has Num Lock on. Only changes the
    /// translator's state; nothing is sent. nil leaves a lock as it is.
    public func setLocks(capsLock: Bool?, numLock: Bool?) {
        var locked = xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED)
        func apply(_ name: String, _ on: Bool?) {
            guard let on else { return }
            let idx = xkb_keymap_mod_get_index(keymap, name)
            guard idx != XKB_MOD_INVALID, idx < 32 else { return }
            if on { locked |= (1 << idx) } else { locked &= ~(1 << idx) }
        }
        apply(XKB_MOD_NAME_CAPS, capsLock)
        apply(XKB_MOD_NAME_NUM, numLock)
        xkb_state_update_mask(state,
                              xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED),
                              xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED),
                              locked,
                              xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_DEPRESSED),
                              xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_LATCHED),
                              xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_LOCKED))
    }

    private func modLocked(_ name: String) -> Bool {
        xkb_state_mod_name_is_active(state, name, XKB_STATE_MODS_LOCKED) > 0
    }

    // MARK: - Lookup

    /// The keysym the key gives in the current state; the layout's level-0 keysym when the
    /// state gives none (or several), or when it gives one of xkb's server-action keysyms
    /// (Ctrl+Alt+F1 is XF86Switch_VT_1 locally; the remote side should see F1).
    private func lookupKeysym(_ kc: UInt32) -> UInt32 {
        let sym = xkb_state_key_get_one_sym(state, kc)
        if sym != 0 && !Self.isServerActionKeysym(sym) { return sym }
        var layout = xkb_state_key_get_layout(state, kc)
        if layout == XKB_LAYOUT_INVALID { layout = 0 }
        var syms: UnsafePointer<xkb_keysym_t>?
        let n = xkb_keymap_key_get_syms_by_level(keymap, kc, layout, 0, &syms)
        if n > 0, let syms { return syms[0] }
        if layout != 0 {
            let n0 = xkb_keymap_key_get_syms_by_level(keymap, kc, 0, 0, &syms)
            if n0 > 0, let syms { return syms[0] }
        }
        return sym
    }

    /// XF86Switch_VT_1 ... XF86LogGrabInfo (0x1008FE01-0x1008FE25) and Terminate_Server:
    /// actions for the local X server, meaningless to a remote one.
    static func isServerActionKeysym(_ sym: UInt32) -> Bool {
        (0x1008FE01...0x1008FE25).contains(sym) || sym == 0xFED5
    }

    // MARK: - Modifier remapping

    enum Side { case left, right, none }

    /// The role and side of a modifier keysym, nil for any other keysym.
    static func modifierRole(ofKeysym sym: UInt32) -> (ModifierRole, Side)? {
        switch sym {
        case 0xffe1: return (.shift, .left)      // Shift_L
        case 0xffe2: return (.shift, .right)     // Shift_R
        case 0xffe3: return (.control, .left)    // Control_L
        case 0xffe4: return (.control, .right)   // Control_R
        case 0xffe7: return (.meta, .left)       // Meta_L
        case 0xffe8: return (.meta, .right)      // Meta_R
        case 0xffe9: return (.alt, .left)        // Alt_L
        case 0xffea: return (.alt, .right)       // Alt_R
        case 0xffeb: return (.superKey, .left)   // Super_L
        case 0xffec: return (.superKey, .right)  // Super_R
        case 0xfe03: return (.altgr, .none)      // ISO_Level3_Shift
        case 0xff7e: return (.altgr, .none)      // Mode_switch
        default: return nil
        }
    }

    /// Keysym and XT code of a role on a side (AltGr has no side; a sided role standing in
    /// for AltGr takes the right-hand key, where AltGr sits).
    static func modifierKey(_ role: ModifierRole, _ side: Side) -> (keysym: UInt32, xt: UInt32) {
        let right = side == .right || side == .none
        switch role {
        case .shift: return right ? (0xffe2, 0x36) : (0xffe1, 0x2a)
        case .control: return right ? (0xffe4, 0xe01d) : (0xffe3, 0x1d)
        case .alt: return right ? (0xffea, 0xe038) : (0xffe9, 0x38)
        case .superKey: return right ? (0xffec, 0xe05c) : (0xffeb, 0xe05b)
        case .meta: return right ? (0xffe8, 0xe05c) : (0xffe7, 0xe05b)
        case .altgr: return (0xfe03, 0xe038)
        }
    }

    private func remap(keysym: UInt32, xt: UInt32?) -> (UInt32, UInt32?) {
        guard !modifierMap.isEmpty, let (role, side) = Self.modifierRole(ofKeysym: keysym),
              let target = modifierMap[role], target != role else { return (keysym, xt) }
        let k = Self.modifierKey(target, side)
        return (k.keysym, k.xt)
    }

    /// Parses "super=alt,alt=super": comma-separated `from=to` pairs of modifier names
    /// (shift, control/ctrl, alt, super/win/logo, altgr/level3, meta). Empty gives no remapping.
    public static func parseModifierMap(_ s: String) throws -> [ModifierRole: ModifierRole] {
        var map: [ModifierRole: ModifierRole] = [:]
        let names = "shift, control (ctrl), alt, super (win), altgr, meta"
        for part in s.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.isEmpty {
                if s.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                throw KeyboardError.badModifierMap("empty entry in '\(s)'; expected from=to pairs like super=alt")
            }
            let sides = item.split(separator: "=", omittingEmptySubsequences: false)
            guard sides.count == 2 else {
                throw KeyboardError.badModifierMap("'\(item)' is not from=to (example: super=alt)")
            }
            guard let from = modifierRole(named: String(sides[0])) else {
                throw KeyboardError.badModifierMap("unknown modifier '\(sides[0].trimmingCharacters(in: .whitespaces))' in '\(item)'; known: \(names)")
            }
            guard let to = modifierRole(named: String(sides[1])) else {
                throw KeyboardError.badModifierMap("unknown modifier '\(sides[1].trimmingCharacters(in: .whitespaces))' in '\(item)'; known: \(names)")
            }
            if map[from] != nil {
                throw KeyboardError.badModifierMap("'\(from.rawValue)' is mapped twice")
            }
            map[from] = to
        }
        return map
    }

    static func modifierRole(named raw: String) -> ModifierRole? {
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "shift": return .shift
        case "control", "ctrl": return .control
        case "alt": return .alt
        case "super", "win", "windows", "logo", "gui", "cmd", "command": return .superKey
        case "altgr", "level3": return .altgr
        case "meta": return .meta
        default: return nil
        }
    }

    // MARK: - Tables

    /// Linux evdev code of a USB HID usage id (SDL2 scancode), nil for keys we do not know.
    public static func evdevCode(forScancode scancode: Int) -> Int? {
        guard scancode >= 0, scancode < KeyboardTables.hidToEvdev.count else { return nil }
        let code = Int(KeyboardTables.hidToEvdev[scancode])
        return code == 0 ? nil : code
    }

    /// The HID usage the viewer's own shortcuts and UI read for a key that came as an evdev
    /// code: its position, except in a keymap without a layout name (a virtual keyboard's:
    /// wtype, an on-screen keyboard), whose key codes are just slots: there the key's keysym
    /// says which key it is (F11 is F11 wherever it sits), as SDL does for such keyboards.
    public func uiScancode(forEvdev evdev: Int) -> Int? {
        guard evdev > 0, evdev <= Self.maxEvdevCode else { return nil }
        if xkb_keymap_layout_get_name(keymap, 0) == nil {
            var syms: UnsafePointer<xkb_keysym_t>?
            let n = xkb_keymap_key_get_syms_by_level(keymap, UInt32(evdev + 8), 0, 0, &syms)
            if n > 0, let syms, let hid = Self.hidUsage(forKeysym: syms[0]) { return hid }
        }
        return Self.scancode(forEvdev: evdev)
    }

    /// The HID usage of the key that gives `sym` on a US keyboard, for the keys the viewer's UI
    /// reads (function keys, editing and arrow keys, letters, digits, modifiers); nil otherwise.
    static func hidUsage(forKeysym sym: UInt32) -> Int? {
        switch sym {
        case 0xffbe...0xffc9: return 0x3a + Int(sym - 0xffbe)               // F1...F12
        case 0x61...0x7a: return 0x04 + Int(sym - 0x61)                     // a...z
        case 0x41...0x5a: return 0x04 + Int(sym - 0x41)                     // A...Z
        case 0x31...0x39: return 0x1e + Int(sym - 0x31)                     // 1...9
        case 0x30: return 0x27
        case 0xffb1...0xffb9: return 0x59 + Int(sym - 0xffb1)               // KP_1...KP_9
        case 0xffb0: return 0x62
        default: return keysymHID[sym]
        }
    }

    private static let keysymHID: [UInt32: Int] = [
        0xff1b: 0x29, 0xff0d: 0x28, 0xff8d: 0x58, 0x20: 0x2c, 0xff09: 0x2b, 0xff08: 0x2a,   // Escape Return KP_Enter space Tab BackSpace
        0xff51: 0x50, 0xff52: 0x52, 0xff53: 0x4f, 0xff54: 0x51,                             // arrows
        0xff50: 0x4a, 0xff57: 0x4d, 0xff55: 0x4b, 0xff56: 0x4e, 0xffff: 0x4c, 0xff63: 0x49, // Home End PgUp PgDn Delete Insert
        0xffe1: 0xe1, 0xffe2: 0xe5, 0xffe3: 0xe0, 0xffe4: 0xe4,                             // Shift, Control
        0xffe9: 0xe2, 0xffea: 0xe6, 0xffeb: 0xe3, 0xffec: 0xe7,                             // Alt, Super
    ]

    /// USB HID usage id (SDL2 scancode) of a Linux evdev code, nil for keys we do not know:
    /// keys that come as evdev codes (Wayland) still drive the viewer's own shortcuts by HID.
    public static func scancode(forEvdev evdev: Int) -> Int? {
        guard evdev > 0, evdev <= maxEvdevCode else { return nil }
        return evdevToHID[evdev]
    }

    private static let evdevToHID: [Int: Int] = {
        var m: [Int: Int] = [:]
        for (hid, e) in KeyboardTables.hidToEvdev.enumerated() where e != 0 && m[Int(e)] == nil { m[Int(e)] = hid }
        return m
    }()

    /// XT scancode set 1 of a Linux evdev code (0xE0xx for extended keys), nil when none.
    public static func xtCode(forEvdev evdev: Int) -> UInt32? {
        guard evdev >= 0, evdev < KeyboardTables.evdevToXT.count else { return nil }
        let code = UInt32(KeyboardTables.evdevToXT[evdev])
        return code == 0 ? nil : code
    }

    /// XT scancode of a USB HID usage id (SDL2 scancode).
    public static func xtCode(forScancode scancode: Int) -> UInt32? {
        evdevCode(forScancode: scancode).flatMap { xtCode(forEvdev: $0) }
    }

    /// The keysym's xkb name ("Shift_L", "EuroSign"), or hex when it has none (logs, --verbose).
    public static func keysymName(_ keysym: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            xkb_keysym_get_name(keysym, b.baseAddress, b.count)
        }
        guard n > 0 else { return String(format: "0x%X", keysym) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
