import CSDL2
import Interaction

/// The credential or trust prompt: questions come from the session thread through `prompter`
/// (`WindowPrompter`), are shown here, and answered with `prompter.respond`. While it is up all
/// input goes to the prompt, none to the server.
extension ViewerWindow {
    /// Input while the credential prompt is up. Fingers: on the on-screen keyboard they type
    /// into the prompt; elsewhere a finger is a click (SDL's mouse copies of touches are
    /// dropped, so each tap counts once).
    func handlePromptInput(_ e: SDL_Event) -> Bool {
        switch e.type {
        case SDL_MOUSEMOTION.rawValue:
            if e.motion.which == SDLInput.touchMouseID { return false }
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            if e.button.which == SDLInput.touchMouseID { return false }
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            let (w, h) = router.windowSize
            let p = ViewPoint(x: Double(e.tfinger.x) * w, y: Double(e.tfinger.y) * h)
            if router.keyboard?.contains(p) == true || e.type != SDL_FINGERDOWN.rawValue {
                var redraw = false
                router.keyboardTarget = { [weak self] k in if self?.promptKey(k) == true { redraw = true } }
                defer { router.keyboardTarget = nil }
                var fingers = SDLInput()   // fingers carry no translation state
                redraw = handleActions(fingers.translate(e).map(router.handle) ?? []) || redraw
                return redraw
            }
            var c = SDL_Event()
            c.type = SDL_MOUSEBUTTONDOWN.rawValue
            c.button.button = UInt8(SDL_BUTTON_LEFT)
            c.button.x = Int32(p.x); c.button.y = Int32(p.y)
            return handlePrompt(c)
        default: break
        }
        return handlePrompt(e)
    }

    /// An on-screen key typed into the prompt: printable keys as text, the rest as SDL keys.
    func promptKey(_ k: OnScreenKeyEvent) -> Bool {
        guard k.down, prompt != nil else { return false }
        var e = SDL_Event()
        if (0x20...0x7e).contains(k.keysym) {
            e.type = SDL_TEXTINPUT.rawValue
            withUnsafeMutableBytes(of: &e.text.text) { b in b[0] = UInt8(k.keysym); b[1] = 0 }
        } else {
            let map: [UInt32: SDL_KeyCode] = [0xff1b: SDLK_ESCAPE, 0xff09: SDLK_TAB, 0xff0d: SDLK_RETURN, 0xff08: SDLK_BACKSPACE,
                                              0xff51: SDLK_LEFT, 0xff52: SDLK_UP, 0xff53: SDLK_RIGHT, 0xff54: SDLK_DOWN]
            guard let sym = map[k.keysym] else { return false }
            e.type = SDL_KEYDOWN.rawValue
            e.key.keysym.sym = Int32(sym.rawValue)
        }
        return handlePrompt(e)
    }

    /// A credential or trust question from the session thread: show it (closes the menu).
    func showPendingPrompt() {
        guard prompt == nil, let req = prompter?.takeRequest() else { return }
        prompt = CredentialPrompt(req, prefill: prompter?.takePrefill())
        router.closeMenu()
        SDL_StartTextInput()
        applyCursor()
        fullPresent = true
    }

    /// Input while the prompt is up: it goes to the prompt only, never to the server.
    func handlePrompt(_ e: SDL_Event) -> Bool {
        guard let p = prompt else { return false }
        if e.type == SDL_QUIT.rawValue { quit = true; return false }
        switch p.handle(e) {
        case .ignored: return false
        case .redraw: return true
        case .submit:
            if p.isTrust { prompter?.respond(trust: true) } else { prompter?.respond(credentials: p.takeCredentials()) }
            closePrompt()
            return true
        case .cancel:
            if p.isTrust { prompter?.respond(trust: false) } else { prompter?.respond(credentials: nil) }
            closePrompt()
            return true
        }
    }

    func closePrompt() {
        guard let p = prompt else { return }
        p.wipe()
        prompt = nil
        SDL_StopTextInput()
        applyCursor()
        fullPresent = true
    }
}
