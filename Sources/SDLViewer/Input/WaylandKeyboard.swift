import CSDL2
import CWaylandKeyboard
import Interaction

/// The viewer's own keyboard on SDL's Wayland connection (CWaylandKeyboard): the compositor's
/// keymap text, evdev key codes (virtual keyboards' too), its modifier state and the key held
/// in `enter`, as the input controller's plain values; and the keyboard-shortcuts inhibitor
/// with the compositor's answer. SDL 2.26 gives none of these (docs/design/wayland-findings.md
/// 4, 7.5, 7.6). Only on Wayland: `init` fails elsewhere.
///
/// Main thread only. The callbacks run inside SDL's event pump (SDL_WaitEvent*), where the
/// window must not act: they queue plain values and wake the loop, which takes them
/// (`take()`) when it handles `wake`'s event.
final class WaylandKeyboard {
    /// The inhibitor's last answer.
    enum GrabAnswer: Equatable { case active, inactive }

    private var handle: OpaquePointer?
    private var pending: [InputEvent] = []
    private var answers: [GrabAnswer] = []
    /// A keymap arrived: modifier masks before it are in bits we cannot read.
    private var haveKeymap = false
    let wake: WakeSignal
    let log: (String) -> Void

    /// Scancodes for evdev codes with no HID usage (so a release still finds its press):
    /// above every HID usage.
    static let unmappedScancodeBase: Int32 = 0x10000

    init?(window: OpaquePointer, wake: WakeSignal, log: @escaping (String) -> Void) {
        self.wake = wake
        self.log = log
        var info = SDL_SysWMinfo()
        info.version = SDL_version(major: UInt8(SDL_MAJOR_VERSION), minor: UInt8(SDL_MINOR_VERSION), patch: UInt8(SDL_PATCHLEVEL))
        guard SDL_GetWindowWMInfo(window, &info) == SDL_TRUE, info.subsystem == SDL_SYSWM_WAYLAND,
              let display = info.info.wl.display, let surface = info.info.wl.surface else { return nil }
        var ev = farcast_wl_keyboard_events()
        ev.user = Unmanaged.passUnretained(self).toOpaque()
        ev.keymap = { user, text, size in
            WaylandKeyboard.from(user)?.keymap(text.map { String(cString: $0) }, size: size)
        }
        ev.enter = { user, keys, count in
            let held = keys.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
            WaylandKeyboard.from(user)?.enter(held)
        }
        ev.leave = { _ in }
        ev.key = { user, evdev, down in WaylandKeyboard.from(user)?.key(evdev, down: down != 0) }
        ev.modifiers = { user, d, l, k, g in
            WaylandKeyboard.from(user)?.modifiers(ModifierMasks(depressed: d, latched: l, locked: k, layout: g))
        }
        ev.inhibitor = { user, active in WaylandKeyboard.from(user)?.answer(active != 0 ? .active : .inactive) }
        guard let h = farcast_wl_keyboard_new(UnsafeMutableRawPointer(display), UnsafeMutableRawPointer(surface), &ev) else {
            log("keyboard: the Wayland compositor offers no wl_seat: SDL's key events only")
            return nil
        }
        handle = h
        log("keyboard: our own wl_keyboard on SDL's Wayland display (the compositor's keymap translates the keys)")
    }

    deinit { farcast_wl_keyboard_destroy(handle) }

    private static func from(_ user: UnsafeMutableRawPointer?) -> WaylandKeyboard? {
        user.map { Unmanaged<WaylandKeyboard>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether the compositor offers the keyboard-shortcuts-inhibit protocol.
    var canInhibit: Bool { farcast_wl_keyboard_can_inhibit(handle) != 0 }

    /// Asks for the compositor's shortcuts, or gives them back; false when it offers no
    /// inhibitor. The answer comes later (`takeAnswers`).
    func inhibitShortcuts(_ on: Bool) -> Bool { farcast_wl_keyboard_inhibit(handle, on ? 1 : 0) == 0 }

    /// The plain values since the last call (the loop, on `wake`'s event).
    func take() -> [InputEvent] {
        defer { pending.removeAll() }
        return pending
    }

    /// The inhibitor's answers since the last call.
    func takeAnswers() -> [GrabAnswer] {
        defer { answers.removeAll() }
        return answers
    }

    // MARK: callbacks (inside SDL's pump)

    private func queue(_ e: InputEvent) {
        pending.append(e)
        wake.signal()
    }

    private func keymap(_ text: String?, size: UInt32) {
        guard let text else {
            log("keyboard: a keymap from the compositor could not be read (\(size) bytes): the previous one stays")
            return
        }
        haveKeymap = true
        queue(.keymapChanged(keymap: text))
    }

    /// Keys already down when our surface got the keyboard: a virtual keyboard that appears
    /// with its first key pressed (wtype, an on-screen keyboard) sends it only here.
    private func enter(_ keys: [UInt32]) {
        for k in keys { key(k, down: true) }
    }

    private func key(_ evdev: UInt32, down: Bool) {
        guard haveKeymap, evdev <= UInt32(KeyboardTranslator.maxEvdevCode) else { return }
        let scancode = KeyboardTranslator.scancode(forEvdev: Int(evdev)).map(Int32.init)
            ?? WaylandKeyboard.unmappedScancodeBase + Int32(evdev)
        queue(.key(KeyInput(scancode: scancode, sym: 0, down: down, evdevCode: Int32(evdev))))
    }

    private func modifiers(_ m: ModifierMasks) {
        guard haveKeymap else { return }
        queue(.keyboardModifiers(m))
    }

    private func answer(_ a: GrabAnswer) {
        answers.append(a)
        wake.signal()
    }
}
