import ArgumentParser
import CXKBGuard
import Foundation
import Interaction
import RFB
import SDLViewer
import VNCSession

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Open the remote desktop in a window (the default command).")

    @OptionGroup var conn: ConnectionOptions

    @Flag(help: "Start in full screen (F11 toggles).")
    var fullscreen = false

    @Flag(help: "Send no input at all.")
    var viewOnly = false

    @Flag(help: "Touch input drives the pointer directly (the default): it goes where the finger is; tap clicks, double tap double-clicks, two/three-finger tap right/middle-clicks, hold then move drags, two fingers scroll, pinch zooms (four-finger tap resets). Swipe down from the top edge for the menu, up from the bottom edge for the on-screen keyboard.")
    var touch = false

    @Flag(help: "Touch input as a trackpad: one finger moves a soft cursor relatively (with acceleration), tap clicks at it, double-tap-and-hold drags, two fingers scroll, pinch zooms. Switchable in the F8 menu.")
    var trackpad = false

    @Option(help: "Start on remote screen N of a multi-monitor desktop (1 is the top-left one; F9 opens the screen picker). Without it, the last screen chosen for this host.",
            transform: Parse.positive("a remote screen number from 1 (1 is the top-left one)"))
    var monitor: Int?

    @Flag(help: "Make the server's desktop follow the window's size (asked once the window has been still for half a second), as TigerVNC's RemoteResize. With --display all, one remote screen per local display.")
    var remoteResize = false

    @Option(help: "Full screen on local display N (1, 2, ...), or 'all' to span every local display.", transform: Parse.display)
    var display: ViewerConfiguration.LocalDisplay?

    @Flag(help: "Play the remote machine's sound (QEMU's audio; the F8 menu toggles it).")
    var audio = false

    @Option(help: "Turn the picture (and touch) clockwise by 0, 90, 180 or 270 degrees, for a panel mounted portrait or upside down.",
            transform: Parse.rotation)
    var rotate: Int = 0

    @Flag(help: "Show the on-screen keyboard at start (a kiosk without a keyboard; also in the menu and by swiping up from the bottom edge).")
    var onScreenKeyboard = false

    @Option(help: "Clipboard text: both, send (local to remote only), receive (remote to local only) or off. UTF-8 with servers that offer the Extended Clipboard, Latin-1 otherwise. View-only sends nothing.")
    var clipboard: ClipboardDirection = .both

    @Option(help: "Largest clipboard text in bytes (UTF-8), both ways; larger texts are refused with a notice, never truncated. Default 10 MiB.",
            transform: Parse.positive("a positive number of bytes"))
    var clipboardMaxSize: Int?

    @Flag(help: "Also use the PRIMARY selection (select to copy, middle-click to paste): the server's text is put on it too, and a new local selection is sent (as --clipboard allows).")
    var clipboardPrimary = false

    @Option(help: "Scaling: fit (the window, aspect kept), 1:1, or a zoom such as 200% or 50%. When the desktop is larger than the window, Ctrl+Alt+wheel scrolls (Shift for sideways). F8 opens the menu.",
            transform: Parse.scaling)
    var scale: ScalingMode = .fit

    @Option(help: "Keyboard layout as layout[,variant] (e.g. de or de,nodeadkeys); default: the session's, XKB_DEFAULT_*, or /etc/default/keyboard.")
    var keyboard: String?

    @Option(help: "Remap modifiers sent to the server, e.g. super=alt,alt=super (shift, control, alt, super, altgr, meta).")
    var mapModifier: String?

    @Option(help: "Where a recording made in the window (the F8 menu, Ctrl+Alt+R) stops by itself, e.g. 500M or 2G (default 1G).",
            transform: Parse.recordingSize)
    var recordingMaxSize: Int?

    @Option(help: "Reconnect automatically when the connection drops or cannot be made: never, always, or a number of attempts (backoff 1 s doubling to 30 s, with jitter).",
            transform: Parse.reconnect)
    var reconnect = ReconnectPolicy(mode: .never)

    @Option(help: "When a connection ends and no retry is left: prompt (show why; R reconnects), quit, or reconnect (keep trying: a kiosk).")
    var onDisconnect: ViewerConfiguration.OnDisconnect = .prompt

    func validate() throws {
        if touch && trackpad { throw ValidationError("--touch and --trackpad choose one touch mode each: give one of them (the F8 menu switches at run time)") }
    }

    func run() throws { runWindow(kiosk: KioskOptions()) }

    /// The window; `farcast kiosk` passes its menu lock, watchdog and cursor hiding.
    func runWindow(kiosk: KioskOptions) {
        var settings = conn.settings
        // Live viewing adapts the quality to the link (starting at JPEG quality 8, as vncviewer
        // on fast links) unless the user chose it: --quality or --encodings pin it, and with it
        // on --compress pins compression and --pixel-format the colour depth.
        let adaptive = conn.quality == nil && conn.encodings == nil
        if adaptive { settings.jpegQuality = 8 }
        if let n = clipboardMaxSize { settings.clipboardLimit = n }
        // offered always, so QEMU says it has sound and the menu can offer it
        settings.wantAudio = true
        var policy = reconnect
        if onDisconnect == .reconnect && policy.mode == .never { policy.mode = .always }
        // on X11 the window shows the framebuffer from its own memory (X11Presenter)
        let pixels: any PixelAllocator = expectsX11() ? X11ShmPixels.shared : HeapPixels()
        let session = Session(plan: conn.plan, settings: settings, reconnect: policy, pixels: pixels)
        session.log = conn.log
        if adaptive { session.adaptiveQuality = AdaptiveQuality.Pins(compress: conn.compress, colour: conn.pixelFormat != nil) }
        session.probeWithRequests = conn.verbose   // and while the connection-info panel shows
        // given or saved credentials and known identities are answered by the session;
        // anything else is asked in the window
        session.answers = conn.answers()
        var c = ViewerConfiguration.fromEnvironment()
        c.fullscreen = fullscreen
        c.viewOnly = viewOnly
        c.scaling = scale
        c.knownUsername = conn.givenCredentials.username
        c.onDisconnect = onDisconnect
        c.clipboardDirection = clipboard
        c.clipboardPrimary = clipboardPrimary
        c.touchMode = trackpad ? .trackpad : .touch
        c.monitorNumber = monitor
        c.monitorMemory = MonitorMemory(url: MonitorMemory.defaultURL(env: ViewerEnvironment.variables))
        c.remoteResize = remoteResize && !viewOnly
        c.localDisplay = display
        c.showKeyboardAtStart = onScreenKeyboard && !viewOnly
        c.keyTranslator = keyTranslator()
        c.followsX11Keymap = keyboard == nil
        if conn.verbose {
            // SDL's calls the guards changed (from SDL's pump, on the main thread): once per kind
            farcast_xkb_guard_set_log { line in line.map { say(String(cString: $0)) } }
            if farcast_xkb_guard_installed() == 0 { say("xkb guard: not in the global symbol lookup (SDL's Wayland keyboard is unguarded)") }
        }
        c.kiosk = kiosk
        c.rotation = rotate
        c.audioWanted = audio
        if let n = recordingMaxSize { c.recordingMaxBytes = n }
        prepareVideoDriver()
        let w = ViewerWindow(session: session, configuration: c)
        let end: Session.State
        do { end = try w.run() } catch { die("\(error)") }
        // started by the launcher: leave it a picture of the last screen
        if let thumb = ViewerEnvironment.variables["FARCAST_THUMBNAIL"], !thumb.isEmpty {
            session.withFramebuffer { fb in fb.map { try? SessionThumbnail.write($0, to: thumb) } }
        }
        // the window has shown why; the exit status and a line on stderr say it to scripts too
        if let why = w.endReason { die(why) }
        if case .failed(let why) = end { die(why) }
    }

    /// Whether SDL will put the window on X11.
    func expectsX11() -> Bool {
        let env = ViewerEnvironment.variables
        return VideoDriverChoice.expectsX11(.init(sdlVideoDriver: env["SDL_VIDEODRIVER"], waylandDisplay: env["WAYLAND_DISPLAY"],
                                                  display: env["DISPLAY"]))
    }

    /// Keys through xkbcommon with the local layout; the built-in US map only if that fails.
    func keyTranslator() -> KeyTranslating {
        // on X11 the window follows the X server's keymap from its start, so the session's layout
        // is not asked for (setxkbmap -query: 42 ms on the start-up's path)
        let env = ViewerEnvironment.variables
        let x11 = expectsX11()
        let (spec, source) = KeyboardLayoutDetector.detect(override: keyboard, environment: env,
                                                           querySession: !(x11 && keyboard == nil))
        do {
            let map = try KeyboardTranslator.parseModifierMap(mapModifier ?? "")
            let t = XKBKeyTranslator(try KeyboardTranslator(spec: spec, modifierMap: map))
            conn.log("keyboard \(spec) from \(source)")
            return t
        } catch let e as KeyboardError {
            if keyboard != nil || mapModifier != nil { die("\(e)", code: 2) }
            say("\(e); using the built-in US key map")
        } catch { die("\(error)", code: 2) }
        return KeyMapTranslator()
    }
}
