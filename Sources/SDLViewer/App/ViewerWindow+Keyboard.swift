import CSDL2
import Interaction

/// The window's keyboard on Wayland (our own wl_keyboard, Input/WaylandKeyboard.swift), the X
/// server's keymap on X11 (Input/X11Keymap.swift), and the keyboard grab on every video driver:
/// on Wayland our shortcuts inhibitor, whose answer the user is told; elsewhere SDL's grab.
extension ViewerWindow {
    /// On X11 (unless `--keyboard` named a layout): the X server's keymap translates the keys,
    /// read now and after each change (SDL_KEYMAPCHANGED: MappingNotify), so a layout switched
    /// mid-session or a keymap XWayland passes on from a virtual keyboard means what it says.
    /// True when the window needs presenting (never: nothing is drawn for it).
    @discardableResult
    func followX11Keymap() -> Bool {
        guard config.followsX11Keymap, waylandKeyboard == nil,
              let driver = SDL_GetCurrentVideoDriver(), String(cString: driver) == "x11" else { return false }
        switch X11Keymap.read() {
        case .success(let (text, state)):
            _ = handleActions(router.handle(.keymapChanged(keymap: text)))
            _ = handleActions(router.handle(.keyboardModifiers(state)))
        case .failure(let why):
            log("keyboard: the X server's keymap cannot be read (\(why)); the detected layout stays")
        }
        return false
    }

    /// After the window exists: our own keyboard when SDL runs on Wayland.
    func startWaylandKeyboard() {
        guard let window else { return }
        waylandKeyboard = WaylandKeyboard(window: window, wake: WakeSignal(eventType: SDL_RegisterEvents(1)),
                                          log: { [unowned self] in self.log($0) })
    }

    /// SDL's key events are the controller's only where our own keyboard is not: on Wayland
    /// its keys go to the controller instead (nothing twice). SDL's autorepeat of a key the
    /// controller holds still goes through (the compositor does not repeat; SDL does, with
    /// the compositor's rate), and a prompt still reads SDL's keys and text itself.
    func sdlKeysWanted(_ input: InputEvent?) -> InputEvent? {
        guard waylandKeyboard != nil, case .key(let k)? = input else { return input }
        return k.isRepeat && router.isPressed(k.scancode) ? input : nil
    }

    /// Our keyboard's queued values and the inhibitor's answers; true when the window needs
    /// presenting.
    func waylandKeyboardEvents() -> Bool {
        guard let kb = waylandKeyboard else { return false }
        kb.wake.acknowledge()
        var redraw = false
        for e in kb.take() {
            // the prompt has SDL's keys and text; keymaps and modifiers still reach the translator
            if prompt != nil, case .key = e { continue }
            redraw = handleActions(router.handle(e)) || redraw
        }
        for a in kb.takeAnswers() {
            showNotice(a == .active ? "Keyboard shortcuts go to the remote desktop" : "The compositor keeps its shortcuts")
            redraw = true
        }
        return redraw
    }

    /// Grabs the keyboard (full screen) so Alt+Tab and Super reach the remote desktop, or lets
    /// it go. On Wayland our inhibitor asks the compositor, which answers (the notice);
    /// SDL's grab stays off there, as a second inhibitor on the same surface and seat is a
    /// protocol error.
    func grabKeyboard(_ on: Bool) {
        guard let kb = waylandKeyboard else {
            SDL_SetWindowKeyboardGrab(window, on ? SDL_TRUE : SDL_FALSE)
            return
        }
        if !kb.inhibitShortcuts(on) && on {
            showNotice("Cannot grab the keyboard: the compositor offers no shortcuts inhibitor (it keeps Alt+Tab and Super)")
        }
    }
}
