import CSDL2
import Foundation
import Interaction
import RFB
import Synchronization
import VNCSession

/// Coalesces wake-ups from the session thread: at most one SDL user event is queued at a time,
/// so the main loop is never more than one frame behind the network.
final class WakeSignal: Sendable {
    let eventType: UInt32
    private let pending = Atomic<Bool>(false)
    init(eventType: UInt32) { self.eventType = eventType }

    /// Any thread. Pushes the event unless one is already waiting.
    func signal() {
        guard pending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        var e = SDL_Event()
        e.type = eventType
        // SDL_PushEvent is thread-safe and wakes SDL_WaitEvent
        if SDL_PushEvent(&e) != 1 { pending.store(false, ordering: .releasing) }
    }

    /// Main thread, before reading what the session has: a wake after this pushes a new event.
    func acknowledge() { pending.store(false, ordering: .releasing) }
}

/// The SDL front end (main thread only): a window showing the session's framebuffer through a
/// streaming texture updated from damage, placed by the viewport (fit, 1:1 or a zoom), with the
/// status panel, the F8 menu and the remote cursor; input goes to the session via the router.
///
/// The loop sleeps in SDL_WaitEvent until input or a session wake-up arrives (an idle viewer
/// uses no CPU), and presents at most once per display refresh.
public final class ViewerWindow {
    let session: Session
    let viewOnly: Bool
    var fullscreen: Bool
    let initialScaling: ScalingMode
    /// The key translator (the xkbcommon one plugs in here); set before `run()`.
    public var keyTranslator: KeyTranslating = KeyMapTranslator()
    /// Credential and trust questions from the session thread, answered in the window; set
    /// before `run()` (without it the settings' own providers decide).
    public var prompter: WindowPrompter?
    /// The prompt on screen: all input goes to it, none to the server.
    var prompt: CredentialPrompt?
    /// Which way clipboard text flows; set before `run()`. View-only sends nothing.
    public var clipboardDirection: ClipboardDirection = .both
    /// The PRIMARY selection too (`--clipboard-primary`); set before `run()`.
    public var clipboardPrimary = false
    var clipboard: ClipboardBridge?
    /// How fingers drive the pointer at start (`--touch`, `--trackpad`); set before `run()`.
    public var touchMode: TouchInputMode = .touch
    /// Show the on-screen keyboard from the start (`--on-screen-keyboard`); set before `run()`.
    public var showKeyboardAtStart = false
    /// `--monitor N`: the remote screen to start on (1-based, screen 1 top-left); set before `run()`.
    public var monitorNumber: Int?
    /// Where the last screen choice per host is kept (nil: not remembered); set before `run()`.
    public var monitorMemory: MonitorMemory?
    var monitors: MonitorController?
    /// `--remote-resize`: the server's desktop follows the window (debounced); set before `run()`.
    public var remoteResize = false
    /// When the window last changed size, the request waits until this time (seconds, `now()`).
    var resizeDue: Double?
    var lastRequestedSize: (w: Int, h: Int)?
    /// A SetDesktopSize is out and its answer has not come yet.
    var resizeAnswerPending = false
    static let resizeDebounce = 0.5
    /// Which local display(s) to fill (`--display`); set before `run()`.
    public enum LocalDisplay: Equatable, Sendable { case number(Int), all }
    public var localDisplay: LocalDisplay?
    /// The local displays the window spans with `--display all` (bounds in desktop points).
    var spannedDisplays: [SDL_Rect] = []
    /// Trackpad mode's cursor sprite (the server's shape or an arrow).
    var softCursor: SoftCursorSprite?
    var lastCursorImage: CursorImage?
    /// A transient notice (a clipboard text refused for size) and when it goes away; while one
    /// is up the loop waits with a timeout, otherwise it sleeps.
    var notice: (text: String, until: Double)?
    static let noticeSeconds = 4.0

    var window: OpaquePointer?
    var renderer: OpaquePointer?
    var frame: FrameRenderer?
    var overlay: Overlay?
    var router: InputRouter?
    var wake: WakeSignal?
    /// Seconds between presents when the renderer has no vsync (0 with vsync: present waits).
    var frameInterval = 0.0
    /// Software path: draw into the window surface and present only the rectangles that
    /// changed (SDL's software renderer would push the whole window on every present).
    var surfaceMode = false
    var surface: UnsafeMutablePointer<SDL_Surface>?
    /// The next present redraws and pushes everything (window exposed, resized, menu, pan...).
    var fullPresent = true
    /// An overlay was on screen in the last present: the next one must redraw to remove it.
    var overlayShown = false
    var everReady = false
    var ended: String?
    var quit = false
    /// What a dropped connection leads to once automatic retries (if any) are over.
    public enum OnDisconnect: String, Sendable { case reconnect, quit, prompt }
    public var onDisconnect: OnDisconnect = .prompt
    /// Set when the window closed because the connection ended and --on-disconnect is quit.
    public private(set) var endReason: String?

    // cursors
    var remoteCursor: OpaquePointer?
    var remoteCursorEmpty = false
    var haveRemoteCursor = false
    var dotCursor: OpaquePointer?
    var arrowCursor: OpaquePointer?

    public init(session: Session, fullscreen: Bool = false, viewOnly: Bool = false, scaling: ScalingMode = .fit) {
        self.session = session
        self.fullscreen = fullscreen
        self.viewOnly = viewOnly
        self.initialScaling = scaling
    }

    struct SDLError: Error, CustomStringConvertible { let description: String }

    static func sdlError(_ what: String) -> SDLError {
        SDLError(description: "\(what): \(String(cString: SDL_GetError()))")
    }

    /// Runs until the window is closed or the user disconnects; returns the final session state.
    /// After a failure the window stays up with the message until dismissed.
    public func run() throws -> Session.State {
        SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        // a full-screen viewer must stay up when Alt+Tab goes to the remote side
        SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0")
        guard SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) == 0 else { throw ViewerWindow.sdlError("SDL_Init") }
        defer { SDL_Quit() }
        var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        var (x, y, w, h) = (Int32(SDL_WINDOWPOS_UNDEFINED_MASK), Int32(SDL_WINDOWPOS_UNDEFINED_MASK), Int32(1024), Int32(768))
        switch localDisplay {
        case .number(let n):
            let count = Int(SDL_GetNumVideoDisplays())
            guard (1...max(1, count)).contains(n) else {
                throw SDLError(description: "there \(count == 1 ? "is 1 local display" : "are \(count) local displays"); --display \(n) is not one of them")
            }
            // full screen on that display: the window is made at its bounds first, so it covers
            // the display even where nothing honours the full-screen request (no window manager)
            var b = SDL_Rect()
            if SDL_GetDisplayBounds(Int32(n - 1), &b) == 0 {
                (x, y, w, h) = (b.x, b.y, b.w, b.h)
            } else {
                x = Int32(Int(SDL_WINDOWPOS_CENTERED_MASK) | (n - 1)); y = x
            }
            fullscreen = true
        case .all:
            // SDL has no full screen across displays: a borderless window over their union
            spannedDisplays = ViewerWindow.displayBounds()
            let u = ViewerWindow.union(spannedDisplays)
            (x, y, w, h) = (u.x, u.y, u.w, u.h)
            flags |= SDL_WINDOW_BORDERLESS.rawValue
            fullscreen = false
        case nil:
            break
        }
        if fullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        window = SDL_CreateWindow("Farcast — connecting to \(session.spec)", x, y, w, h, flags)
        guard let window else { throw ViewerWindow.sdlError("SDL_CreateWindow") }
        defer { teardown() }
        // SDL_RENDER_DRIVER=software (SDL's own variable) asks for the software path
        let software = ProcessInfo.processInfo.environment["SDL_RENDER_DRIVER"] == "software"
        if !software, let r = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue) {
            renderer = r
            frame = FrameRenderer(renderer: r)
            overlay = Overlay(renderer: r)
        } else {
            surfaceMode = true
            guard refreshSurface() else { throw ViewerWindow.sdlError("SDL_CreateSoftwareRenderer") }
        }
        guard let r = renderer else { throw ViewerWindow.sdlError("SDL_CreateRenderer") }
        frameInterval = ViewerWindow.presentInterval(r, window)
        let router = InputRouter(sink: session, viewport: Viewport(mode: initialScaling), viewOnly: viewOnly,
                                 keyTranslator: keyTranslator, touchMode: touchMode)
        router.fullscreen = fullscreen
        self.router = router
        let dir: ClipboardDirection = viewOnly ? (clipboardDirection.receives ? .receive : .off) : clipboardDirection
        clipboard = ClipboardBridge(session: session, direction: dir, primary: clipboardPrimary)
        if fullscreen { SDL_SetWindowKeyboardGrab(window, SDL_TRUE) }
        arrowCursor = SDL_CreateSystemCursor(SDL_SYSTEM_CURSOR_ARROW)

        // raw X11 key events carry the physical keycode for the xkbcommon translation
        SDL_EventState(SDL_SYSWMEVENT.rawValue, SDL_ENABLE)
        let wake = WakeSignal(eventType: SDL_RegisterEvents(1))
        self.wake = wake
        session.wake = { wake.signal() }
        prompter?.attach { wake.signal() }
        session.start()
        defer { session.stop() }
        // first: a session thread waiting on a prompt is released before the session stops
        defer { closePrompt(); prompter?.detach() }
        if showKeyboardAtStart { _ = router.setKeyboard(shown: true) }
        monitors = MonitorController(requestedNumber: monitorNumber, memory: monitorMemory, host: session.spec)
        syncSizes()
        applyCursor()

        var needsPresent = true
        var nextPresent = 0.0
        var e = SDL_Event()
        while !quit {
            let got: Bool
            if router.needsPolling {
                // momentum or a trackpad click waiting: wake each frame; idle otherwise
                let wait = max(0.001, min(1.0 / 60, needsPresent ? nextPresent - ViewerWindow.now() : 1.0 / 60))
                got = SDL_WaitEventTimeout(&e, Int32((wait * 1000).rounded(.up))) != 0
            } else if let due = resizeDue, !needsPresent {
                got = SDL_WaitEventTimeout(&e, Int32(max(1, ((due - ViewerWindow.now()) * 1000).rounded(.up)))) != 0
            } else if needsPresent {
                let wait = nextPresent - ViewerWindow.now()
                got = wait > 0 ? SDL_WaitEventTimeout(&e, Int32((wait * 1000).rounded(.up))) != 0 : SDL_PollEvent(&e) != 0
            } else if case .waiting = session.state {
                // the countdown needs redrawing; only in this state, so an idle viewer still sleeps
                got = SDL_WaitEventTimeout(&e, 250) != 0
                needsPresent = true
            } else if let n = notice {
                got = SDL_WaitEventTimeout(&e, Int32(max(1, ((n.until - ViewerWindow.now()) * 1000).rounded(.up)))) != 0
            } else {
                got = SDL_WaitEvent(&e) != 0
            }
            if got {
                repeat {
                    if handle(e) { needsPresent = true }
                } while !quit && SDL_PollEvent(&e) != 0
            }
            if quit { break }
            if let due = resizeDue, ViewerWindow.now() >= due {
                resizeDue = nil
                requestRemoteResize()
            }
            if router.needsPolling {
                // the gesture clock is SDL's event timestamps (milliseconds since SDL_Init)
                if handleActions(router.poll(now: Double(SDL_GetTicks()) / 1000)) { needsPresent = true }
            }
            if let n = notice, ViewerWindow.now() >= n.until {
                notice = nil
                needsPresent = true
                fullPresent = true
            }
            if needsPresent && ViewerWindow.now() >= nextPresent {
                present()
                needsPresent = false
                nextPresent = ViewerWindow.now() + frameInterval
            }
        }
        return session.state
    }

    /// Software path: (re)creates the renderer on the window surface when SDL replaced it
    /// (after a resize). Textures die with the renderer, so the frame and overlay are rebuilt
    /// and the next upload is whole. Returns false when there is no surface to draw on.
    @discardableResult
    func refreshSurface() -> Bool {
        guard surfaceMode, let window else { return false }
        // a real X11 (shm) surface: SDL's GPU-texture emulation would re-upload the whole
        // window for every changed rect
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        guard let s = SDL_GetWindowSurface(window) else { return false }
        if s == surface, renderer != nil { return true }
        softCursor = nil   // its texture belongs to the old renderer
        frame = nil
        overlay = nil
        if let r = renderer { SDL_DestroyRenderer(r) }
        surface = s
        renderer = SDL_CreateSoftwareRenderer(s)
        guard let r = renderer else { return false }
        frame = FrameRenderer(renderer: r)
        overlay = Overlay(renderer: r)
        fullPresent = true
        return true
    }

    /// 0 when presents wait for vsync; otherwise one refresh of the window's display (60 Hz if unknown).
    static func presentInterval(_ r: OpaquePointer, _ w: OpaquePointer) -> Double {
        var info = SDL_RendererInfo()
        if SDL_GetRendererInfo(r, &info) == 0, info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue != 0 { return 0 }
        var mode = SDL_DisplayMode()
        let hz = SDL_GetWindowDisplayMode(w, &mode) == 0 && mode.refresh_rate > 0 ? Double(mode.refresh_rate) : 60
        return 1 / hz
    }

    static func now() -> Double { Double(SDL_GetPerformanceCounter()) / Double(SDL_GetPerformanceFrequency()) }

    func teardown() {
        softCursor = nil
        frame = nil
        overlay = nil
        for c in [remoteCursor, dotCursor, arrowCursor] { if let c { SDL_FreeCursor(c) } }
        remoteCursor = nil; dotCursor = nil; arrowCursor = nil
        if let r = renderer { SDL_DestroyRenderer(r) }
        if let w = window { SDL_DestroyWindow(w) }
        renderer = nil; window = nil
    }

    /// Returns true when the window needs presenting.
    func handle(_ e: SDL_Event) -> Bool {
        guard let router else { return false }
        switch e.type {
        case SDL_QUIT.rawValue:
            quit = true
            return false
        case wake?.eventType:
            wake?.acknowledge()
            showPendingPrompt()
            sessionChanged()
            return true
        case SDL_CLIPBOARDUPDATE.rawValue:
            clipboard?.localClipboardChanged()
            // a refusal is an event of this call, on this thread: no wake-up announces it
            let had = notice != nil
            sessionChanged()
            return notice != nil || had
        case _ where prompt != nil && e.type != SDL_WINDOWEVENT.rawValue:
            return handlePromptInput(e)
        case SDL_WINDOWEVENT.rawValue:
            // a selection another program set while we did not own it
            if e.window.event == UInt8(SDL_WINDOWEVENT_FOCUS_GAINED.rawValue) { clipboard?.localClipboardChanged(); sessionChanged() }
            if remoteResize && e.window.event == UInt8(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue) {
                // while the window is dragged, one request once it has been still for a moment
                resizeDue = ViewerWindow.now() + ViewerWindow.resizeDebounce
            }
            _ = router.handle(e)
            syncSizes()
            fullPresent = true
            return true
        default:
            return handleActions(router.handle(e))
        }
    }

    /// Carries out what the router asked for; true when the window needs presenting.
    func handleActions(_ actions: [RouterAction]) -> Bool {
        guard let router else { return false }
        var redraw = false
        defer { if redraw { fullPresent = true } }
        for a in actions {
            switch a {
            case .redraw: redraw = true
            case .toggleFullscreen: toggleFullscreen()
            case .setScaling(let s):
                router.viewport.mode = s
                applyCursor()
            case .menuChanged:
                layoutMenu()
                applyCursor()
            case .disconnect:
                session.stop()
                quit = true
            case .quit:
                quit = true
            case .retryNow:
                session.retryNow()
            case .reconnect:
                ended = nil
                endReason = nil
                router.sessionEnded = false
                applyCursor()
                session.restart()
            case .keyboardChanged:
                syncSizes()
                if remoteResize { resizeDue = ViewerWindow.now() + ViewerWindow.resizeDebounce }
                redraw = true
            case .pickerChanged:
                layoutPicker()
                applyCursor()
                redraw = true
            case .chooseMonitor(let c):
                monitors?.choose(c)
                applyMonitor()
                redraw = true
            case .cycleMonitor(let forward):
                if let m = monitors, let c = m.cycle(forward: forward) {
                    m.choose(c)
                    applyMonitor()
                    showNotice(m.label(c))
                    redraw = true
                }
            }
        }
        if router.softCursorVisible != softCursorShown { applyCursor() }
        return redraw
    }

    /// Input while the credential prompt is up. Fingers: on the on-screen keyboard they type
    /// into the prompt; elsewhere a finger is a click (SDL's mouse copies of touches are
    /// dropped, so each tap counts once).
    func handlePromptInput(_ e: SDL_Event) -> Bool {
        guard let router else { return handlePrompt(e) }
        switch e.type {
        case SDL_MOUSEMOTION.rawValue:
            if e.motion.which == InputRouter.touchMouseID { return false }
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            if e.button.which == InputRouter.touchMouseID { return false }
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            let (w, h) = router.windowSize
            let p = ViewPoint(x: Double(e.tfinger.x) * w, y: Double(e.tfinger.y) * h)
            if router.keyboard?.contains(p) == true || e.type != SDL_FINGERDOWN.rawValue {
                var redraw = false
                router.keyboardTarget = { [weak self] k in if self?.promptKey(k) == true { redraw = true } }
                defer { router.keyboardTarget = nil }
                redraw = handleActions(router.handle(e)) || redraw
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

    // MARK: prompt

    /// A credential or trust question from the session thread: show it (closes the menu).
    func showPendingPrompt() {
        guard prompt == nil, let req = prompter?.takeRequest() else { return }
        prompt = CredentialPrompt(req)
        router?.closeMenu()
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
            prompter?.respond(p.isTrust ? .trust(true) : .credentials(p.takeCredentials()))
            closePrompt()
            return true
        case .cancel:
            prompter?.respond(p.isTrust ? .trust(false) : .credentials(nil))
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

    func showNotice(_ text: String?) {
        guard let text else { return }
        session.log("notice: \(text)")
        notice = (text, ViewerWindow.now() + ViewerWindow.noticeSeconds)
        fullPresent = true
    }

    /// The on-screen line for a clipboard text refused for size (nil for other events).
    static func clipboardNotice(_ ev: EngineEvent) -> String? {
        switch ev {
        case .cutTextSkipped(let n):
            return "Remote clipboard text (\(byteSize(n))) is over the clipboard limit: not taken"
        case .cutTextNotSent(let n, let limit):
            return "Clipboard text (\(byteSize(n))) is over the \(byteSize(limit)) limit: not sent"
        default:
            return nil
        }
    }

    static func byteSize(_ n: Int) -> String {
        if n >= 1 << 20 {
            let v = Double(n) / Double(1 << 20)
            return v == v.rounded() ? "\(Int(v)) MiB" : String(format: "%.1f MiB", v)
        }
        if n >= 1 << 10 { return "\(n >> 10) KiB" }
        return "\(n) bytes"
    }

    /// Session events and state (the wake-up said something changed).
    func sessionChanged() {
        for ev in session.takeEvents() {
            switch ev {
            case .ready(let name, _, _), .desktopName(let name):
                SDL_SetWindowTitle(window, "\(name) — Farcast")
            case .cursor(let c):
                setRemoteCursor(c)
            case .screenLayout(let l, _):
                let first = monitors?.layout == nil
                showNotice(monitors?.layoutChanged(l))
                router?.screenLayout = l
                if router?.picker != nil { router?.closePicker(); applyCursor() }
                syncSizes()
                applyMonitor()
                // the desktop is made to fit the window as soon as the server says it can be
                if first && remoteResize { resizeDue = ViewerWindow.now() }
            case .updateEnded:
                showNotice(monitors?.noLayoutNotice())
            case .desktopSizeRequestResult(let status, let message):
                resizeAnswerPending = false
                if !status.isSuccess {
                    session.log("remote resize: \(message)")
                    showNotice("Remote resize refused: \(message)")
                }
            case .cutText(let t):
                clipboard?.serverText(t)
            case .cutTextSkipped(let n):
                session.log("clipboard: the server's text of \(n) bytes is over the clipboard limit; not taken")
                showNotice(ViewerWindow.clipboardNotice(ev))
            case .cutTextNotSent(let n, let limit):
                session.log("clipboard: local text of \(n) bytes is over the \(limit)-byte limit; not sent")
                showNotice(ViewerWindow.clipboardNotice(ev))
            default: break
            }
        }
        let st = session.state
        if case .waiting = st { router?.reconnecting = true } else { router?.reconnecting = false }
        switch st {
        case .ready:
            // a touch script (FARCAST_TOUCH_REPLAY) plays once the desktop is there
            if !everReady, let path = ProcessInfo.processInfo.environment["FARCAST_TOUCH_REPLAY"] {
                TouchReplay.start(path: path, log: session.log)
            }
            everReady = true
        case .failed where prompter?.cancelledAuthentication == true:
            if ended == nil {
                endReason = "authentication cancelled"
                if onDisconnect == .quit { quit = true; break }
                router?.offerReconnect = onDisconnect == .prompt
                ended = "Authentication cancelled"
                router?.sessionEnded = true
                router?.closeMenu()
                applyCursor()
            }
        case .failed(let why) where onDisconnect == .quit:
            endReason = everReady ? "connection lost: \(why)" : why
            quit = true
        case .failed(let why):
            if ended == nil {
                router?.offerReconnect = onDisconnect == .prompt
                // the session's reason already names the server ("cannot connect to HOST: ...")
                ended = everReady ? "Connection lost: \(why)" : why.prefix(1).uppercased() + why.dropFirst()
                router?.sessionEnded = true
                router?.closeMenu()
                applyCursor()
            }
        case .closed:
            quit = true
        default:
            // connecting, authenticating, waiting (reconnecting per --reconnect): the status
            // panel says so; the countdown overlay comes with the reconnect UI
            break
        }
        syncSizes()
    }

    /// Viewport sizes from the framebuffer, the window (points) and the renderer (pixels).
    func syncSizes() {
        refreshSurface()
        guard let router, let window, let renderer else { return }
        let before = router.viewport
        defer { if router.viewport != before { fullPresent = true } }
        let (fw, fh) = session.lock.withLock { (session.framebuffer?.width ?? 0, session.framebuffer?.height ?? 0) }
        var ww: Int32 = 0, wh: Int32 = 0, ow: Int32 = 0, oh: Int32 = 0
        SDL_GetWindowSize(window, &ww, &wh)
        SDL_GetRendererOutputSize(renderer, &ow, &oh)
        router.windowSize = (Double(ww), Double(wh))
        // the on-screen keyboard takes the bottom of the window; the desktop fits above it
        var kbH = 0
        if router.keyboard != nil, wh > 0 {
            kbH = Int(OnScreenKeyboard.preferredHeight(windowWidth: Double(ww), windowHeight: Double(wh)).rounded())
            router.setKeyboardLayout(ViewRect(x: 0, y: Double(Int(wh) - kbH), w: Double(ww), h: Double(kbH)))
        }
        let kbOut = wh > 0 ? Int((Double(kbH) * Double(oh) / Double(wh)).rounded()) : 0
        router.viewport.resize(framebuffer: fw, fh, window: Int(ww), Int(wh) - kbH, output: Int(ow), Int(oh) - kbOut)
        router.clampSoftCursor()
        layoutMenu()
        layoutPicker()
    }

    /// Frames the view on the chosen remote screen (nil region: everything) at the initial
    /// scaling; the soft cursor stays on it.
    func applyMonitor() {
        guard let router, let monitors else { return }
        router.monitorChoice = monitors.choice
        let region = monitors.region
        if router.viewport.region != region {
            router.viewport.region = region
            router.viewport.mode = initialScaling
            router.clampSoftCursor()
        }
        fullPresent = true
    }

    /// SetDesktopSize for the window's desktop area (output pixels), one screen per spanned
    /// local display with `--display all`. Skipped when nothing would change.
    func requestRemoteResize() {
        guard remoteResize, let router, session.supportsSetDesktopSize else { return }
        let vp = router.viewport
        let w = vp.outputWidth, h = vp.outputHeight
        guard w > 0, h > 0 else { return }
        let current = session.screenLayout
        var screens: [RFB.Screen]? = nil
        if spannedDisplays.count > 1 {
            // one remote screen per local display, placed as they are (pixels per point applied)
            let u = ViewerWindow.union(spannedDisplays)
            let sx = vp.pixelsPerPointX, sy = vp.pixelsPerPointY
            let ids = (current?.screens.map(\.id) ?? []) + (0..<UInt32(spannedDisplays.count)).map { 0x1000 + $0 }
            screens = spannedDisplays.enumerated().map { i, b in
                RFB.Screen(id: ids[i], x: Int((Double(b.x - u.x) * sx).rounded()), y: Int((Double(b.y - u.y) * sy).rounded()),
                       width: Int((Double(b.w) * sx).rounded()), height: Int((Double(b.h) * sy).rounded()))
            }
        }
        if screens == nil, let c = current, c.width == w, c.height == h, c.screens.count == 1 { return }
        // asked already: done, or the answer is still on its way
        if let last = lastRequestedSize, last == (w, h), screens == nil,
           resizeAnswerPending || (current?.width == w && current?.height == h) { return }
        lastRequestedSize = (w, h)
        do {
            try session.requestDesktopSize(width: w, height: h, screens: screens)
            resizeAnswerPending = true
            session.log("remote resize: asked for \(w)x\(h)\(screens.map { " with \($0.count) screens" } ?? "")")
        } catch {
            session.log("remote resize: \(error)")
        }
    }

    /// The local displays' bounds (SDL's desktop coordinates).
    static func displayBounds() -> [SDL_Rect] {
        (0..<max(0, SDL_GetNumVideoDisplays())).compactMap { i in
            var r = SDL_Rect()
            return SDL_GetDisplayBounds(i, &r) == 0 ? r : nil
        }
    }

    static func union(_ rs: [SDL_Rect]) -> SDL_Rect {
        guard let f = rs.first else { return SDL_Rect(x: 0, y: 0, w: 1024, h: 768) }
        var x0 = f.x, y0 = f.y, x1 = f.x + f.w, y1 = f.y + f.h
        for r in rs { x0 = min(x0, r.x); y0 = min(y0, r.y); x1 = max(x1, r.x + r.w); y1 = max(y1, r.y + r.h) }
        return SDL_Rect(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
    }

    /// The picker's geometry in window points: the middle of the desktop area.
    func layoutPicker() {
        guard let router, let p = router.picker else { return }
        let vp = router.viewport
        let ww = Double(vp.windowWidth), wh = Double(vp.windowHeight)
        // room above and below the box for the title and the hint the overlay adds
        let box = ViewRect(x: ww * 0.08, y: wh * 0.14, w: ww * 0.84, h: wh * 0.72)
        router.pickerGeometry = p.geometry(in: box)
    }

    func toggleFullscreen() {
        fullscreen.toggle()
        router?.fullscreen = fullscreen
        SDL_SetWindowFullscreen(window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
        // grab the keyboard in full screen so Alt+Tab and friends reach the remote side
        SDL_SetWindowKeyboardGrab(window, fullscreen ? SDL_TRUE : SDL_FALSE)
        syncSizes()
    }

    /// The menu's geometry in window points, for mouse hits.
    func layoutMenu() {
        guard let router, let overlay, let m = router.menu else { return }
        let vp = router.viewport
        let l = overlay.layoutMenu(m, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        func pts(_ r: SDL_Rect) -> ViewRect {
            let a = vp.toWindow(output: ViewPoint(x: Double(r.x), y: Double(r.y)))
            let b = vp.toWindow(output: ViewPoint(x: Double(r.x + r.w), y: Double(r.y + r.h)))
            return ViewRect(x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y)
        }
        router.setMenuLayout(frame: pts(l.frame), rows: l.rows.map(pts))
    }

    func statusMessage() -> (String, String?)? {
        if let ended {
            return (ended, onDisconnect == .prompt ? "Press R to reconnect, Esc or Enter to close" : "Press Esc or Enter to close")
        }
        switch session.state {
        case .waiting(let why, let at, let n):
            let secs = max(0, Int((at - monotonicSeconds()).rounded(.up)))
            let head = everReady ? "Connection lost: \(why)" : why.prefix(1).uppercased() + why.dropFirst()
            return (head, "Reconnecting in \(secs) s (attempt \(n)) — press R or tap to retry now, Esc to give up")
        case .connecting: return ("Connecting to \(session.spec)…", nil)
        case .authenticating: return ("Authenticating…", nil)
        default: return nil
        }
    }

    func present() {
        guard let window, let renderer, let frame, let overlay, let router else { return }
        session.lock.withLock {
            if let fb = session.framebuffer { frame.upload(fb) }
        }
        let vp = router.viewport
        let status = statusMessage()
        let softShown = router.softCursorVisible && router.touchMode == .trackpad && ended == nil
        let overlayNow = status != nil || router.menu != nil || ended != nil || prompt != nil || notice != nil
            || router.keyboard != nil || softShown || router.picker != nil
        defer { fullPresent = false; overlayShown = overlayNow }
        if surfaceMode && !fullPresent && !overlayNow && !overlayShown {
            // only what changed: a small update costs a small copy to the window
            let rects = frame.drawDamage(vp)
            if !rects.isEmpty {
                rects.withUnsafeBufferPointer { _ = SDL_UpdateWindowSurfaceRects(window, $0.baseAddress, Int32($0.count)) }
            }
            return
        }
        frame.draw(vp)
        if softShown {
            if softCursor == nil { softCursor = SoftCursorSprite(renderer: renderer); softCursor?.setImage(lastCursorImage) }
            let c = router.gestures.cursor
            softCursor?.draw(at: c.outputPoint(in: vp), scale: vp.pixelsPerPointY)
        }
        if let k = router.keyboard {
            var ow: Int32 = 0, oh: Int32 = 0
            SDL_GetRendererOutputSize(renderer, &ow, &oh)
            overlay.keyboard(k, vp, outputWidth: Int(ow), outputHeight: Int(oh))
        }
        if ended != nil || router.reconnecting { overlay.dim(vp.outputWidth, vp.outputHeight) }
        if let prompt {
            overlay.dim(vp.outputWidth, vp.outputHeight)
            let l = overlay.prompt(prompt, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
            prompt.hitRects = l.fields.mapValues { r in
                let a = vp.toWindow(output: ViewPoint(x: Double(r.x), y: Double(r.y)))
                let b = vp.toWindow(output: ViewPoint(x: Double(r.x + r.w), y: Double(r.y + r.h)))
                return ViewRect(x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y)
            }
        } else if let (msg, hint) = status {
            overlay.status(msg, hint: hint, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        }
        if let p = router.picker, let g = router.pickerGeometry {
            overlay.dim(vp.outputWidth, vp.outputHeight)
            overlay.picker(p, g, vp, thumbnails: frame)
        }
        if let m = router.menu {
            overlay.menu(m, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        }
        if let n = notice, prompt == nil {
            overlay.notice(n.text, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        }
        if surfaceMode { SDL_UpdateWindowSurface(window) } else { SDL_RenderPresent(renderer) }
    }

    // MARK: cursor

    /// The server's cursor over the desktop (a dot when it is empty, like TigerVNC's
    /// DotWhenNoCursor); the local arrow over the menu, while connecting and after the end.
    /// Whether the soft cursor was in use when the system cursor was last chosen.
    var softCursorShown = false

    func applyCursor() {
        softCursorShown = router?.softCursorVisible == true
        let local = router?.menuOpen == true || ended != nil || !haveRemoteCursor || prompt != nil || router?.picker != nil
        if softCursorShown && !local && router?.touchMode == .trackpad {
            // the soft cursor is the pointer; a system cursor left where the mouse was would be a second one
            SDL_ShowCursor(SDL_DISABLE)
            return
        }
        let c: OpaquePointer?
        if local {
            c = arrowCursor
        } else if remoteCursorEmpty {
            if dotCursor == nil { dotCursor = ViewerWindow.makeDotCursor() }
            c = dotCursor
        } else {
            c = remoteCursor
        }
        if let c { SDL_SetCursor(c) }
        SDL_ShowCursor(SDL_ENABLE)
    }

    func setRemoteCursor(_ c: CursorImage) {
        lastCursorImage = c
        softCursor?.setImage(c)
        if let old = remoteCursor { SDL_FreeCursor(old); remoteCursor = nil }
        haveRemoteCursor = true
        remoteCursorEmpty = c.isEmpty || c.argb.count < c.width * c.height
        if !remoteCursorEmpty {
            var px = c.argb
            let surf = px.withUnsafeMutableBytes { b in
                SDL_CreateRGBSurfaceWithFormatFrom(b.baseAddress, Int32(c.width), Int32(c.height), 32, Int32(c.width * 4), SDL_PIXELFORMAT_ARGB8888.rawValue)
            }
            if let surf {
                remoteCursor = SDL_CreateColorCursor(surf, Int32(c.hotX), Int32(c.hotY))
                SDL_FreeSurface(surf)
            }
            if remoteCursor == nil { remoteCursorEmpty = true }
        }
        applyCursor()
    }

    /// A 5×5 round dot, black with a white rim, hot spot in the middle.
    static let dotPattern = [
        " www ",
        "wbbbw",
        "wbbbw",
        "wbbbw",
        " www ",
    ]

    static func makeDotCursor() -> OpaquePointer? {
        var px: [UInt32] = dotPattern.flatMap { row in
            row.map { ch -> UInt32 in ch == "b" ? 0xff00_0000 : ch == "w" ? 0xffff_ffff : 0 }
        }
        let surf = px.withUnsafeMutableBytes { b in
            SDL_CreateRGBSurfaceWithFormatFrom(b.baseAddress, 5, 5, 32, 20, SDL_PIXELFORMAT_ARGB8888.rawValue)
        }
        guard let surf else { return nil }
        defer { SDL_FreeSurface(surf) }
        return SDL_CreateColorCursor(surf, 2, 2)
    }
}
