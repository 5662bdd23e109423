import CSDL2
import FarcastTools
import Foundation
import Interaction
import RFB
import VNCSession

/// The SDL front end (main thread only): a window showing the session's framebuffer through a
/// streaming texture updated from damage, placed by the viewport (fit, 1:1 or a zoom), with the
/// status panel, the F8 menu and the remote cursor; SDL events become plain values (`SDLInput`)
/// for the input controller (`router`, Interaction), which owns the UI state (`router.ui`).
///
/// The loop sleeps in SDL_WaitEvent until input or a session wake-up arrives (an idle viewer
/// uses no CPU), and presents at most once per display refresh. What the window does with the
/// session is in ViewerWindow+Session.swift, the prompt in ViewerWindow+Prompt.swift, drawing in
/// Render/ViewerWindow+Present.swift.
public final class ViewerWindow {
    let session: Session
    /// What the window was told at start (options and environment, from `viewer/`).
    let config: ViewerConfiguration
    /// Full screen now: the UI state's fact (the menu's check mark); starts as the configuration
    /// says (or as `--display` and KMSDRM make it), then F11 and the menu toggle it.
    var fullscreen: Bool {
        get { router.ui.fullscreen }
        set { router.ui.fullscreen = newValue }
    }
    /// The session's questions (credentials, trust) waiting for the prompt: the configuration's,
    /// or one `run()` makes to answer the session.
    var prompter: WindowPrompter?
    /// `FARCAST_TRACE=1` timing lines.
    let trace: PresentTrace
    /// The prompt's editor while one is up: all input goes to it, none to the server.
    var prompt: CredentialPrompt? {
        didSet { router.ui.setPrompt(shown: prompt != nil) }
    }
    var clipboard: ClipboardBridge?
    /// The X11 selection reader's wake-ups (an SDL user event of their own).
    var readerWake: WakeSignal?
    var monitors: MonitorController?
    var resize = RemoteResize()
    /// A transient notice (a clipboard text refused for size) and when it goes away; while one
    /// is up the loop waits with a timeout, otherwise it sleeps.
    var notice: (text: String, until: Double)?
    static let noticeSeconds = 4.0
    static let infoRefreshSeconds = 0.5
    /// The reconnecting countdown's redraws.
    static let countdownRedrawSeconds = 0.25
    /// Playback's bar clock and end-of-recording check while it shows or plays.
    static let playbackTickSeconds = 0.1
    /// Screenshots and the recording in progress (made once the wake-up signal exists).
    var capture: CaptureController?
    /// `viewer play`: the recording being played (from the configuration).
    var player: Player? { config.player }
    /// `viewer play`'s bar and keys; nil in a live session.
    let playback: PlaybackController?
    /// `--rotate`: degrees clockwise the picture is turned on the screen.
    var rotation: Int { config.rotation }
    var remoteResize: Bool { config.remoteResize }
    var viewOnly: Bool { config.viewOnly }
    /// The controller's input on its way to the session; the server's lock lights, pointer
    /// mode and power actions.
    lazy var remoteInput = RemoteInputController(target: session, viewOnly: viewOnly,
                                                 notice: { [unowned self] in self.showNotice($0) },
                                                 log: { [unowned self] in self.log($0) })
    /// QEMU's sound wanted now (the UI state's fact): starts as `--audio` says, the menu's
    /// Sound entry toggles it.
    var audioWanted: Bool {
        get { router.ui.audioWanted }
        set { router.ui.audioWanted = newValue }
    }
    let audioPlayer = AudioPlayer()
    /// What a kiosk's window holds while it runs (the console, whether a mouse was seen).
    var kioskState = KioskState()
    var kiosk: KioskOptions { config.kiosk }

    /// The SDL window and everything that draws into it (Render/WindowRenderer.swift).
    var renderer: WindowRenderer?
    /// The SDL window (for its title, size, full screen, keyboard grab and focus).
    var window: OpaquePointer? { renderer?.window }
    /// The input controller: SDL's events as plain values in, window actions out; it holds
    /// the UI state (`router.ui`), the one owner of full screen, recording, sound, info and
    /// the prompt's presence.
    lazy var router: InputController = {
        let r = InputController(sink: remoteInput, viewport: Viewport(mode: config.scaling), viewOnly: config.viewOnly,
                                keyTranslator: config.keyTranslator, touchMode: config.touchMode)
        r.ui.fullscreen = config.fullscreen
        r.ui.audioWanted = config.audioWanted
        return r
    }()
    /// SDL events → the controller's plain values.
    var sdlInput = SDLInput()
    /// On Wayland: our own keyboard (the compositor's keymap, virtual keyboards, the
    /// shortcuts inhibitor); its keys replace SDL's for the controller.
    var waylandKeyboard: WaylandKeyboard?
    var wake: WakeSignal?
    let cursors = Cursors()
    /// The next present redraws and pushes everything (window exposed, resized, menu, pan...).
    var fullPresent = true
    /// An overlay was on screen in the last present: the next one must redraw to remove it.
    var overlayShown = false
    /// The last present pushed pixels to the screen. One that pushed nothing (a key press with
    /// nothing to show) does not hold the next back a refresh: the server's answer to that key
    /// is what the user waits for.
    var presentDrew = true
    var everReady = false
    /// The window took the first desktop's size (ViewerWindow+Fit); once per window.
    var fittedToDesktop = false
    var quit = false
    /// Set when the window closed because the connection ended and --on-disconnect is quit.
    public internal(set) var endReason: String?

    public init(session: Session, configuration: ViewerConfiguration = ViewerConfiguration()) {
        self.session = session
        self.config = configuration
        self.prompter = configuration.prompter
        self.trace = PresentTrace(enabled: configuration.trace)
        self.playback = configuration.player.map { PlaybackController(player: $0) }
    }

    struct SDLError: Error, CustomStringConvertible { let description: String }

    static func sdlError(_ what: String) -> SDLError {
        SDLError(description: "\(what): \(String(cString: SDL_GetError()))")
    }

    static func now() -> Double { Double(SDL_GetPerformanceCounter()) / Double(SDL_GetPerformanceFrequency()) }

    /// Runs until the window is closed or the user disconnects; returns the final session state.
    /// After a failure the window stays up with the message until dismissed.
    public func run() throws -> Session.State {
        SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        // a full-screen viewer must stay up when Alt+Tab goes to the remote side
        SDL_SetHint(SDL_HINT_VIDEO_MINIMIZE_ON_FOCUS_LOSS, "0")
        // before SDL_Init: SDL chains to the handler it finds and puts it back before closing
        // its X connections, which is when a stale wake-up's error is read
        StaleWakeups.ignore()
        ComposeCache.use()
        // the connection and its handshake go on while SDL and the window start (with -v on
        // Xvfb: the server ready at 262 ms, the window made at 355 ms); nothing is woken until
        // the loop can be
        startSession()
        var windowMade = false
        defer { if !windowMade { stopSession() } }
        guard SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) == 0 else { throw ViewerWindow.sdlError("SDL_Init") }
        defer { SDL_Quit() }
        try createWindow()
        defer { teardown() }
        windowMade = true
        startWaylandKeyboard()
        followX11Keymap()
        let dir: ClipboardDirection = config.viewOnly ? (config.clipboardDirection.receives ? .receive : .off) : config.clipboardDirection
        let bridge = ClipboardBridge(session: session, direction: dir, primary: config.clipboardPrimary)
        clipboard = bridge
        startSelectionReader(bridge)
        if fullscreen { grabKeyboard(true) }
        cursors.start()

        // raw X11 key events carry the physical keycode for the xkbcommon translation
        SDL_EventState(SDL_SYSWMEVENT.rawValue, SDL_ENABLE)
        let wake = WakeSignal(eventType: SDL_RegisterEvents(1))
        self.wake = wake
        let capture = CaptureController(session: session, recordingMaxBytes: config.recordingMaxBytes,
                                        picturesDirectory: config.picturesDirectory, videosDirectory: config.videosDirectory, wake: wake)
        self.capture = capture
        wakeSession(wake)
        defer { stopSession() }
        defer { capture.finish() }
        router.ui.recording = player == nil ? false : nil
        // one lock for the menu and every shortcut; nothing recorded while playing one back
        router.ui.lock = ControlLock(menu: kiosk.menuLock, screenshots: kiosk.screenshots,
                                    recording: kiosk.recording && player == nil)
        router.ui.canQuit = kiosk.menuLock == .open
        startKiosk(router)
        kiosk.notifier?.ready(status: "connecting to \(session.spec)")
        playback?.show(now: ViewerWindow.now())
        // first: a question still open is cancelled before the session stops
        defer { closePrompt(); prompter?.detach() }
        if config.showKeyboardAtStart { _ = router.setKeyboard(shown: true) }
        monitors = MonitorController(requestedNumber: config.monitorNumber, memory: config.monitorMemory, host: session.spec,
                                     warn: { FileHandle.standardError.write(Data("viewer: \($0)\n".utf8)) })
        syncSizes()
        applyCursor()
        loop(router)
        return sessionState
    }

    /// Waits for events, or until the earliest deadline of the timers running (`Deadlines`:
    /// a present due, momentum, a debounced resize, the countdown, playback, the info panel, a
    /// notice, the watchdog), handles them, presents. Nothing timed: it sleeps until an event.
    func loop(_ router: InputController) {
        var needsPresent = true
        /// The next present answers input: it does not wait for pixels being decoded.
        var forInput = false
        var nextPresent = 0.0
        var deadlines = Deadlines()
        var e = SDL_Event()
        while !quit {
            let now = ViewerWindow.now()
            deadlines.set(.present, needsPresent ? nextPresent : nil)
            // momentum or a trackpad click waiting: wake each frame; idle otherwise
            deadlines.every(.gestures, 1.0 / 60, running: router.needsPolling, now: now)
            deadlines.set(.remoteResize, resize.due)
            // only while reconnecting, so an idle viewer still sleeps
            deadlines.every(.countdown, ViewerWindow.countdownRedrawSeconds, running: reconnecting, now: now)
            deadlines.every(.playback, ViewerWindow.playbackTickSeconds,
                            running: playback?.needsTicks(now: now) == true, now: now)
            deadlines.every(.info, ViewerWindow.infoRefreshSeconds, running: router.ui.info, now: now)
            deadlines.set(.notice, notice?.until)
            deadlines.every(.watchdog, Double(longestWaitMs ?? 0) / 1000, running: longestWaitMs != nil, now: now)
            let got: Bool
            switch deadlines.waitMilliseconds(now: now) {
            case nil: got = SDL_WaitEvent(&e) != 0
            case 0?: got = SDL_PollEvent(&e) != 0
            case let ms?: got = SDL_WaitEventTimeout(&e, ms) != 0
            }
            let fired = deadlines.takeDue(now: ViewerWindow.now())
            // what changes on screen without an event: the countdown, the info panel's figures
            if fired.contains(.countdown) { needsPresent = true }
            if fired.contains(.info) {
                needsPresent = true
                fullPresent = true
            }
            kiosk.notifier?.pingIfDue()
            if got {
                repeat {
                    if handle(e) {
                        needsPresent = true
                        if e.type != wake?.eventType { forInput = true }
                    }
                } while !quit && SDL_PollEvent(&e) != 0
            }
            if quit { break }
            if let due = resize.due, ViewerWindow.now() >= due {
                resize.due = nil
                requestRemoteResize()
            }
            if router.needsPolling {
                // the gesture clock is SDL's event timestamps (milliseconds since SDL_Init)
                if handleActions(router.poll(now: Double(SDL_GetTicks()) / 1000)) { needsPresent = true }
            }
            if let p = playback, p.tick(now: ViewerWindow.now()) { needsPresent = true }
            if let n = notice, ViewerWindow.now() >= n.until {
                notice = nil
                needsPresent = true
                fullPresent = true
            }
            if needsPresent && ViewerWindow.now() >= nextPresent {
                // pixels left over (upload budget, or skipped for input) come next frame
                needsPresent = present(forInput: forInput)
                forInput = false
                nextPresent = ViewerWindow.now() + (presentDrew ? renderer?.frameInterval ?? 0 : 0)
            }
        }
    }

    func teardown() {
        kioskState.console?.release()
        stopSelectionReader()
        waylandKeyboard = nil
        cursors.free()
        audioPlayer.stop()
        renderer?.close()
        renderer = nil
    }

    /// Returns true when the window needs presenting.
    func handle(_ event: SDL_Event) -> Bool {
        var e = event
        renderer?.unrotate(&e)
        kioskSaw(e)
        let input = sdlKeysWanted(sdlInput.translate(e))
        switch e.type {
        case SDL_QUIT.rawValue:
            trace.mark("quit")
            quit = true
            return false
        case wake?.eventType:
            wake?.acknowledge()
            runMainTasks()
            showPendingPrompt()
            sessionChanged()
            return true
        case waylandKeyboard?.wake.eventType:
            return waylandKeyboardEvents()
        case SDL_KEYMAPCHANGED.rawValue where waylandKeyboard == nil:
            return followX11Keymap()
        case readerWake?.eventType:
            // texts read by our own (X11 or Wayland) reader; a refusal comes back as a notice
            return selectionsRead()
        case SDL_CLIPBOARDUPDATE.rawValue:
            clipboard?.localClipboardChanged()
            // a refusal is an event of this call, on this thread: no wake-up announces it
            let had = notice != nil
            sessionChanged()
            return notice != nil || had
        case _ where prompt != nil && e.type != SDL_WINDOWEVENT.rawValue:
            return handlePromptInput(e)
        case _ where playbackTakes(e):
            return true
        case _ where input.flatMap({ remoteInput.relativePointerEvent($0, overUI: router.ui.menu != nil || prompt != nil) }) != nil:
            return true
        case SDL_WINDOWEVENT.rawValue:
            if e.window.event == UInt8(SDL_WINDOWEVENT_CLOSE.rawValue) { trace.mark("window-close") }
            // a selection another program set while we did not own it
            if e.window.event == UInt8(SDL_WINDOWEVENT_FOCUS_GAINED.rawValue) {
                clipboard?.localClipboardChanged(); sessionChanged(); remoteInput.syncLockKeys(localLocks)
            }
            if remoteResize && e.window.event == UInt8(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue) {
                // while the window is dragged, one request once it has been still for a moment
                resize.due = ViewerWindow.now() + RemoteResize.debounce
            }
            if let input { _ = router.handle(input) }
            syncSizes()
            fullPresent = true
            return true
        default:
            return handleActions(input.map(router.handle) ?? [])
        }
    }

    /// Carries out what the router asked for; true when the window needs presenting.
    func handleActions(_ actions: [WindowAction]) -> Bool {
        var redraw = false, cursorChanged = false
        defer { if redraw { fullPresent = true } }
        for a in actions {
            switch a {
            case .redraw: redraw = true
            case .softCursorChanged: cursorChanged = true
            case .toggleFullscreen: toggleFullscreen()
            case .setScaling(let s):
                router.viewport.mode = s
                applyCursor()
            case .menuChanged:
                layoutMenu()
                applyCursor()
            case .disconnect:
                stopSession()
                quit = true
            case .screenshot:
                takeScreenshot()
            case .power(let a):
                remoteInput.powerAction(a)
            case .toggleAudio:
                toggleAudio()
            case .toggleInfo:
                router.ui.info.toggle()
                if router.ui.info { session.probeWithRequests = true }
                redraw = true
            case .toggleRecording:
                toggleRecording()
            case .pin(let e):
                kioskPin(e)
            case .log(let line):
                log(line)
            case .quit:
                quit = true
            case .retryNow:
                retrySessionNow()
            case .reconnect:
                router.ui.clearEnded()
                endReason = nil
                applyCursor()
                restartSession()
            case .keyboardChanged:
                syncSizes()
                if remoteResize { resize.due = ViewerWindow.now() + RemoteResize.debounce }
                redraw = true
            case .pickerChanged:
                layoutPicker()
                applyCursor()
                redraw = true
            case .chooseMonitor(let c):
                monitors?.choose(c, in: &router.ui)
                applyMonitor()
                redraw = true
            case .cycleMonitor(let forward):
                if let m = monitors, let c = m.cycle(forward: forward, router.ui) {
                    m.choose(c, in: &router.ui)
                    applyMonitor()
                    showNotice(m.label(c, router.ui))
                    redraw = true
                }
            }
        }
        if cursorChanged { applyCursor() }
        return redraw
    }

    /// `viewer play`: whether the bar or its keys take this event (not while the menu or the
    /// picker is up; the router gets the rest).
    func playbackTakes(_ e: SDL_Event) -> Bool {
        guard let playback, router.ui.menu == nil, router.ui.picker == nil else { return false }
        let s = renderer?.logicalSizes()
        return playback.takes(e, windowSize: (Double(s?.ww ?? 0), Double(s?.wh ?? 0)), now: ViewerWindow.now())
    }

    /// After a wake-up: a saved screenshot's notice, a recording that stopped by itself.
    func runMainTasks() {
        guard let capture else { return }
        let wasRecording = capture.recording
        for n in capture.takeNotices() { showNotice(n) }
        if wasRecording && !capture.recording { recordingChanged() }
    }

    func takeScreenshot() {
        if let n = capture?.screenshot(region: monitors?.region(router.ui)) { showNotice(n) }
    }

    /// Starts a recording, or stops it and says where the file is.
    func toggleRecording() {
        guard let capture else { return }
        showNotice(capture.toggleRecording())
        recordingChanged()
    }

    /// The menu's check mark and the red dot follow the recording.
    private func recordingChanged() {
        router.ui.recording = capture?.recording == true
        fullPresent = true
    }

    func toggleFullscreen() {
        fullscreen.toggle()
        SDL_SetWindowFullscreen(window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
        // grab the keyboard in full screen so Alt+Tab and friends reach the remote side
        grabKeyboard(fullscreen)
        syncSizes()
    }

    /// The server's cursor over the desktop; the local arrow over the menu, picker and prompt,
    /// while connecting and after the end; none while the soft cursor is the pointer.
    func applyCursor() {
        if kioskHidesCursor { cursors.show(.hidden); return }
        let local = router.ui.coversDesktop == true || !cursors.haveRemote
        if router.ui.softCursorShown == true && !local && router.touchMode == .trackpad {
            // a system cursor left where the mouse was would be a second pointer
            cursors.show(.hidden)
        } else {
            cursors.show(local ? .local : .remote)
        }
    }

    func setRemoteCursor(_ c: CursorImage) {
        cursors.setRemote(c)
        renderer?.setSoftCursorImage(c)
        applyCursor()
    }
}
