// The front end's input as plain values: what a window system reports (keys, pointer, wheel,
// fingers, focus), with no SDL (or Wayland) type in it. A front end turns its events into these
// and hands them to `InputController`; nothing here decides anything.

/// Modifier keys down at the time of a key event (the window system's view, locks included).
public struct KeyModifiers: OptionSet, Equatable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let shift = KeyModifiers(rawValue: 1 << 0)
    public static let control = KeyModifiers(rawValue: 1 << 1)
    public static let alt = KeyModifiers(rawValue: 1 << 2)
    /// The logo (Super, Windows) key.
    public static let gui = KeyModifiers(rawValue: 1 << 3)
    /// AltGr (ISO Level 3 shift, SDL's "mode").
    public static let altGr = KeyModifiers(rawValue: 1 << 4)
    public static let capsLock = KeyModifiers(rawValue: 1 << 5)
    public static let numLock = KeyModifiers(rawValue: 1 << 6)
}

/// One key event in plain values (the seam for the key translators).
public struct KeyInput: Equatable, Sendable {
    /// The physical key as a USB HID usage (page 7), independent of the layout; SDL's scancodes
    /// are these (`HIDUsage` names the ones the viewer itself reacts to).
    public var scancode: Int32
    /// The key under the local layout, in SDL's key code convention: a character's Unicode code
    /// point (lower case), otherwise 0x4000_0000 | the HID usage. Only the built-in US fallback
    /// (`KeyMapTranslator`) reads it; the xkbcommon translator works from the physical key.
    public var sym: Int32
    public var modifiers: KeyModifiers
    public var down: Bool
    public var isRepeat: Bool
    /// The physical key as a Linux evdev code when the window system told us (X11: keycode - 8;
    /// Wayland's wl_keyboard.key gives it directly). SDL2's X11 backend derives letter scancodes
    /// from the local keysyms, so on X11 this, not `scancode`, is the key's position.
    public var evdevCode: Int32?
    public init(scancode: Int32, sym: Int32, modifiers: KeyModifiers = [], down: Bool, isRepeat: Bool = false,
                evdevCode: Int32? = nil) {
        self.scancode = scancode; self.sym = sym; self.modifiers = modifiers; self.down = down
        self.isRepeat = isRepeat; self.evdevCode = evdevCode
    }
}

/// A pointer button as the window system numbers it (X11/SDL: 1 left, 2 middle, 3 right,
/// then back and forward).
public enum PointerButton: Equatable, Sendable {
    case left, middle, right, back, forward
    /// Any other button (not sent: RFB has no bit the viewer maps it to).
    case other(Int)
}

/// One wheel event: whole notches (what is sent: buttons 4-7, one press and release per notch),
/// and the exact amount where the device has finer steps (a high-resolution wheel, a touchpad;
/// Wayland's value120 / 120). Positive `dy` is away from the user (up), positive `dx` right;
/// already corrected for "natural" (flipped) scrolling.
public struct WheelInput: Equatable, Sendable {
    public var dx: Int, dy: Int
    public var preciseX: Double, preciseY: Double
    /// Where the pointer is, in window points.
    public var at: ViewPoint
    public init(dx: Int, dy: Int, preciseX: Double? = nil, preciseY: Double? = nil, at: ViewPoint) {
        self.dx = dx; self.dy = dy
        self.preciseX = preciseX ?? Double(dx); self.preciseY = preciseY ?? Double(dy)
        self.at = at
    }
}

/// Everything the input controller takes from a front end.
public enum InputEvent: Equatable, Sendable {
    case key(KeyInput)
    /// Text the keys typed under the local layout and input method (SDL_TEXTINPUT; Wayland's
    /// text-input protocol). Not sent: RFB keys go by keysym; here for the prompt and the
    /// launcher's fields.
    case text(String)
    /// The pointer moved to `at` (window points); `dx`/`dy` is the motion the device reported
    /// (what a relative, captured pointer sends; Wayland's relative-pointer protocol).
    case pointerMotion(at: ViewPoint, dx: Double, dy: Double)
    case pointerButton(PointerButton, down: Bool, at: ViewPoint)
    case wheel(WheelInput)
    /// A finger; `x`, `y` as fractions of the touch area (0...1, SDL's convention; the
    /// controller scales them by the window size it was given), `time` in seconds.
    case finger(id: Int64, TouchEvent.Phase, x: Double, y: Double, time: Double)
    case focusGained
    /// The window lost the keyboard: whatever the server holds down is released.
    case focusLost
    /// The local keyboard layout changed: a translator built from the old one is stale.
    /// `keymap` is the new keymap in xkb's text format where the window system gives one
    /// (Wayland's wl_keyboard.keymap), nil where it only says that it changed
    /// (SDL_KEYMAPCHANGED).
    case keymapChanged(keymap: String?)
    /// The window system's modifier state in the keymap's own bits (Wayland's
    /// wl_keyboard.modifiers): what the keys mean next, including modifiers an on-screen
    /// keyboard holds without a key.
    case keyboardModifiers(ModifierMasks)
}

/// xkb modifier masks and the locked layout (group), as wl_keyboard.modifiers gives them.
public struct ModifierMasks: Equatable, Sendable {
    public var depressed: UInt32, latched: UInt32, locked: UInt32, layout: UInt32
    public init(depressed: UInt32 = 0, latched: UInt32 = 0, locked: UInt32 = 0, layout: UInt32 = 0) {
        self.depressed = depressed; self.latched = latched; self.locked = locked; self.layout = layout
    }
}

/// USB HID keyboard usages (page 7) of the keys the viewer's own UI and the PIN pad use: the
/// physical keys SDL reports as scancodes (same numbers).
public enum HIDUsage {
    public static let a: Int32 = 0x04
    public static let g: Int32 = 0x0a
    public static let i: Int32 = 0x0c
    public static let r: Int32 = 0x15
    public static let s: Int32 = 0x16
    /// 1...9 are 0x1e...0x26, 0 is 0x27.
    public static let digit1: Int32 = 0x1e
    public static let digit9: Int32 = 0x26
    public static let digit0: Int32 = 0x27
    public static let enter: Int32 = 0x28
    public static let escape: Int32 = 0x29
    public static let backspace: Int32 = 0x2a
    public static let tab: Int32 = 0x2b
    public static let space: Int32 = 0x2c
    /// F1...F12 are 0x3a...0x45.
    public static let f1: Int32 = 0x3a
    public static let f8: Int32 = 0x41
    public static let f9: Int32 = 0x42
    public static let f11: Int32 = 0x44
    public static let f12: Int32 = 0x45
    public static let home: Int32 = 0x4a
    public static let pageUp: Int32 = 0x4b
    public static let end: Int32 = 0x4d
    public static let pageDown: Int32 = 0x4e
    public static let right: Int32 = 0x4f
    public static let left: Int32 = 0x50
    public static let down: Int32 = 0x51
    public static let up: Int32 = 0x52
    public static let keypadEnter: Int32 = 0x58
    /// Keypad 1...9 are 0x59...0x61, keypad 0 is 0x62.
    public static let keypad1: Int32 = 0x59
    public static let keypad9: Int32 = 0x61
    public static let keypad0: Int32 = 0x62
    public static let leftControl: Int32 = 0xe0
    public static let leftShift: Int32 = 0xe1
    public static let leftAlt: Int32 = 0xe2
    public static let leftGUI: Int32 = 0xe3
    public static let rightControl: Int32 = 0xe4
    public static let rightShift: Int32 = 0xe5
    public static let rightAlt: Int32 = 0xe6
    public static let rightGUI: Int32 = 0xe7

    /// The UI key a physical key stands for (by position, so the UI's keys are where they are
    /// whatever the layout).
    public static func uiKey(_ u: Int32) -> UIKey {
        switch u {
        case escape: return .escape
        case enter, keypadEnter: return .enter
        case space: return .space
        case tab: return .tab
        case HIDUsage.up: return .up
        case HIDUsage.down: return .down
        case left: return .left
        case right: return .right
        case home: return .home
        case end: return .end
        case pageUp: return .pageUp
        case pageDown: return .pageDown
        case f8: return .f8
        case f9: return .f9
        case f11: return .f11
        case r: return .r
        case a: return .a
        case s: return .s
        case i: return .i
        case digit1...digit9: return .digit(Int(u - digit1) + 1)
        case digit0: return .digit(0)
        case keypad1...keypad9: return .digit(Int(u - keypad1) + 1)
        case keypad0: return .digit(0)
        case leftControl...rightGUI: return .modifier
        default: return .other
        }
    }

    /// The PIN pad's key for a physical key: digits (main row or keypad), Backspace, Enter, Esc.
    public static func pinKey(_ u: Int32) -> PinPad.Key? {
        switch u {
        case digit1...digit9: return .digit(Int(u - digit1) + 1)
        case digit0: return .digit(0)
        case keypad1...keypad9: return .digit(Int(u - keypad1) + 1)
        case keypad0: return .digit(0)
        case backspace: return .delete
        case enter, keypadEnter: return .ok
        case escape: return .cancel
        default: return nil
        }
    }
}

/// Where the controller's RFB input goes: the remote-input controller in the viewer (which
/// sends it to the session), a recording double in tests. Called on the thread that drives the
/// controller (the main thread).
public protocol InputSink: AnyObject {
    /// Pointer position in framebuffer pixels with the RFB button mask: bit n is button n+1
    /// (8/16 wheel up/down, 32/64 wheel left/right, 8/9 back/forward).
    func sendPointer(x: Int, y: Int, buttons: UInt16)
    /// Key press or release; `xtKeycode` goes along when the server takes QEMU key events.
    func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?)
}
