import CSDL2
import Foundation
import RFB
import VNCSession

/// The SDL front end (main thread only): a window showing the session's framebuffer through a
/// streaming texture updated from damaged rectangles, fit to the window with the aspect kept,
/// and mouse/keyboard sent back through the viewport transform.
public final class ViewerWindow {
    let session: Session
    let viewOnly: Bool
    var window: OpaquePointer?
    var renderer: OpaquePointer?
    var texture: OpaquePointer?
    var texW = 0, texH = 0
    var buttons: UInt8 = 0
    var wakeEvent: UInt32 = 0
    var fullscreen: Bool
    var sdlCursor: OpaquePointer?

    public init(session: Session, fullscreen: Bool = false, viewOnly: Bool = false) {
        self.session = session
        self.fullscreen = fullscreen
        self.viewOnly = viewOnly
    }

    struct SDLError: Error, CustomStringConvertible { let description: String }

    static func sdlError(_ what: String) -> SDLError {
        SDLError(description: "\(what): \(String(cString: SDL_GetError()))")
    }

    /// Runs until the window is closed or the connection ends; returns the final session state.
    public func run() throws -> Session.State {
        SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        guard SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) == 0 else { throw ViewerWindow.sdlError("SDL_Init") }
        defer { SDL_Quit() }
        wakeEvent = SDL_RegisterEvents(1)
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue | (fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
        window = SDL_CreateWindow("Farcast — connecting to \(session.spec)", Int32(SDL_WINDOWPOS_UNDEFINED_MASK), Int32(SDL_WINDOWPOS_UNDEFINED_MASK), 1024, 768, flags)
        guard window != nil else { throw ViewerWindow.sdlError("SDL_CreateWindow") }
        renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue)
            ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
        guard renderer != nil else { throw ViewerWindow.sdlError("SDL_CreateRenderer") }
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
        defer { teardown() }

        let ev = wakeEvent
        session.wake = {
            // thread-safe: SDL_PushEvent may be called from any thread
            var e = SDL_Event()
            e.type = ev
            SDL_PushEvent(&e)
        }
        session.start()
        defer { session.stop() }
        present()
        var e = SDL_Event()
        while true {
            guard SDL_WaitEvent(&e) != 0 else { continue }
            var dirty = false
            repeat {
                if !handle(e, &dirty) { return session.state }
            } while SDL_PollEvent(&e) != 0
            switch session.state {
            case .failed, .closed: return session.state
            default: break
            }
            if dirty { present() }
        }
    }

    func teardown() {
        if let t = texture { SDL_DestroyTexture(t) }
        if let c = sdlCursor { SDL_FreeCursor(c) }
        if let r = renderer { SDL_DestroyRenderer(r) }
        if let w = window { SDL_DestroyWindow(w) }
    }

    /// Returns false to quit.
    func handle(_ e: SDL_Event, _ dirty: inout Bool) -> Bool {
        switch e.type {
        case SDL_QUIT.rawValue:
            return false
        case wakeEvent:
            for ev in session.takeEvents() {
                switch ev {
                case .ready(let name, _, _), .desktopName(let name):
                    SDL_SetWindowTitle(window, "\(name) — Farcast")
                case .cursor(let c):
                    setCursor(c)
                case .bell:
                    break
                default: break
                }
            }
            uploadDamage()
            dirty = true
        case SDL_WINDOWEVENT.rawValue:
            dirty = true
            if e.window.event == UInt8(SDL_WINDOWEVENT_FOCUS_LOST.rawValue) { releaseAll() }
        case SDL_MOUSEMOTION.rawValue:
            pointer(Int(e.motion.x), Int(e.motion.y))
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            let bit: UInt8
            switch Int32(e.button.button) {
            case SDL_BUTTON_LEFT: bit = 1
            case SDL_BUTTON_MIDDLE: bit = 2
            case SDL_BUTTON_RIGHT: bit = 4
            case SDL_BUTTON_X1: bit = 128   // back
            default: bit = 0
            }
            if e.type == SDL_MOUSEBUTTONDOWN.rawValue { buttons |= bit } else { buttons &= ~bit }
            pointer(Int(e.button.x), Int(e.button.y))
        case SDL_MOUSEWHEEL.rawValue:
            var mx: Int32 = 0, my: Int32 = 0
            SDL_GetMouseState(&mx, &my)
            // wheel: buttons 4/5 (up/down), 6/7 (left/right), pressed and released
            var bits: [UInt8] = []
            if e.wheel.y > 0 { bits.append(8) } else if e.wheel.y < 0 { bits.append(16) }
            if e.wheel.x < 0 { bits.append(32) } else if e.wheel.x > 0 { bits.append(64) }
            for b in bits {
                buttons |= b; pointer(Int(mx), Int(my))
                buttons &= ~b; pointer(Int(mx), Int(my))
            }
        case SDL_KEYDOWN.rawValue, SDL_KEYUP.rawValue:
            let down = e.type == SDL_KEYDOWN.rawValue
            if down && e.key.keysym.sym == Int32(SDLK_F11.rawValue) { toggleFullscreen(); break }
            if let ks = KeyMap.keysym(for: e.key.keysym), !viewOnly {
                session.sendKey(ks, down: down)
                if down { pressed.insert(ks) } else { pressed.remove(ks) }
            }
        default: break
        }
        return true
    }

    var pressed = Set<UInt32>()

    /// No stuck keys: everything held is released when focus goes.
    func releaseAll() {
        guard !viewOnly else { return }
        for k in pressed { session.sendKey(k, down: false) }
        pressed.removeAll()
    }

    func toggleFullscreen() {
        fullscreen.toggle()
        SDL_SetWindowFullscreen(window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
    }

    /// Where the framebuffer is drawn in the renderer's output: fit, aspect kept, centred.
    func viewport() -> SDL_Rect? {
        guard texW > 0, texH > 0 else { return nil }
        var ow: Int32 = 0, oh: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &ow, &oh)
        let s = min(Double(ow) / Double(texW), Double(oh) / Double(texH))
        let w = Int32(Double(texW) * s), h = Int32(Double(texH) * s)
        return SDL_Rect(x: (ow - w) / 2, y: (oh - h) / 2, w: w, h: h)
    }

    func pointer(_ wx: Int, _ wy: Int) {
        guard !viewOnly, let vp = viewport(), vp.w > 0, vp.h > 0 else { return }
        // window points to output pixels (HiDPI), then to framebuffer pixels
        var ww: Int32 = 0, wh: Int32 = 0, ow: Int32 = 0, oh: Int32 = 0
        SDL_GetWindowSize(window, &ww, &wh)
        SDL_GetRendererOutputSize(renderer, &ow, &oh)
        let px = Double(wx) * Double(ow) / Double(max(1, ww)), py = Double(wy) * Double(oh) / Double(max(1, wh))
        let fx = (px - Double(vp.x)) * Double(texW) / Double(vp.w)
        let fy = (py - Double(vp.y)) * Double(texH) / Double(vp.h)
        // in the letterbox bars nothing is sent
        guard fx >= 0, fy >= 0, fx < Double(texW), fy < Double(texH) else { return }
        session.sendPointer(x: Int(fx), y: Int(fy), buttons: buttons)
    }

    func setCursor(_ c: CursorImage) {
        if let old = sdlCursor { SDL_FreeCursor(old); sdlCursor = nil }
        if c.isEmpty || c.width == 0 || c.height == 0 {
            SDL_ShowCursor(SDL_DISABLE)
            return
        }
        var px = c.argb
        let surf = px.withUnsafeMutableBytes { b in
            SDL_CreateRGBSurfaceWithFormatFrom(b.baseAddress, Int32(c.width), Int32(c.height), 32, Int32(c.width * 4), SDL_PIXELFORMAT_ARGB8888.rawValue)
        }
        guard let surf else { return }
        sdlCursor = SDL_CreateColorCursor(surf, Int32(c.hotX), Int32(c.hotY))
        SDL_FreeSurface(surf)
        if let cur = sdlCursor { SDL_SetCursor(cur); SDL_ShowCursor(SDL_ENABLE) }
    }

    /// Uploads only the damaged rectangles (the texture is the framebuffer's format).
    func uploadDamage() {
        session.lock.lock()
        defer { session.lock.unlock() }
        guard let fb = session.framebuffer else { return }
        if fb.width != texW || fb.height != texH || texture == nil {
            if let t = texture { SDL_DestroyTexture(t) }
            texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGB888.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), Int32(max(1, fb.width)), Int32(max(1, fb.height)))
            texW = fb.width; texH = fb.height
            _ = fb.takeDamage()
            var all = SDL_Rect(x: 0, y: 0, w: Int32(fb.width), h: Int32(fb.height))
            SDL_UpdateTexture(texture, &all, fb.pixels, Int32(fb.width * 4))
            return
        }
        for r in fb.takeDamage() {
            var sr = SDL_Rect(x: Int32(r.x), y: Int32(r.y), w: Int32(r.w), h: Int32(r.h))
            SDL_UpdateTexture(texture, &sr, fb.pixels + r.y * fb.width + r.x, Int32(fb.width * 4))
        }
    }

    func present() {
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        if let t = texture, var vp = viewport() { SDL_RenderCopy(renderer, t, nil, &vp) }
        SDL_RenderPresent(renderer)
    }
}
