import RFB
import VNCSession

/// Where the front end's input goes: the session in the viewer, a recording double in tests.
/// Called on the main thread only.
public protocol InputSink: AnyObject {
    /// Pointer position in framebuffer pixels with the RFB button mask (bit 0 = button 1).
    /// `buttons`: bit n is button n+1 (8/9: back/forward).
    func sendPointer(x: Int, y: Int, buttons: UInt16)
    /// Key press or release; `xtKeycode` goes along when the server takes QEMU key events.
    func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?)
}

extension Session: InputSink {}

/// One key event as SDL reports it, in plain values (the seam for the xkbcommon translator).
public struct KeyInput: Equatable, Sendable {
    /// SDL_Scancode: the physical key (USB HID usage), independent of the layout.
    public var scancode: Int32
    /// SDL_Keycode under the current layout.
    public var sym: Int32
    /// SDL_Keymod bits at the time of the event.
    public var mod: UInt16
    public var down: Bool
    public var isRepeat: Bool
    /// The physical key as a Linux evdev code when the window system told us (X11: keycode - 8).
    /// SDL2's X11 backend derives letter scancodes from the local keysyms, so on X11 this, not
    /// `scancode`, is the key's position.
    public var evdevCode: Int32?
    public init(scancode: Int32, sym: Int32, mod: UInt16, down: Bool, isRepeat: Bool, evdevCode: Int32? = nil) {
        self.scancode = scancode; self.sym = sym; self.mod = mod; self.down = down; self.isRepeat = isRepeat
        self.evdevCode = evdevCode
    }
}

/// What a key event becomes on the wire.
public struct KeyOutput: Equatable, Sendable {
    public var keysym: UInt32
    public var xtKeycode: UInt32?
    public init(keysym: UInt32, xtKeycode: UInt32? = nil) { self.keysym = keysym; self.xtKeycode = xtKeycode }
}

/// Turns a key press into the keysym (and XT code) to send. The router remembers what each
/// physical key sent on press and sends exactly that on release, so a translator only needs to
/// answer for presses (it is asked on releases too, for translators that track state).
/// Main thread only.
public protocol KeyTranslating: AnyObject {
    func translate(_ key: KeyInput) -> KeyOutput?
}

/// The built-in translator (KeyMap: layout-independent keys plus US ASCII); the fallback until
/// the xkbcommon translator is plugged in through `ViewerWindow.keyTranslator`.
public final class KeyMapTranslator: KeyTranslating {
    public init() {}
    public func translate(_ key: KeyInput) -> KeyOutput? {
        KeyMap.keysym(sym: key.sym, mod: key.mod).map { KeyOutput(keysym: $0) }
    }
}
