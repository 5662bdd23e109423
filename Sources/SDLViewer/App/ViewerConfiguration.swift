import FarcastTools
import Interaction
import RFB
import VNCSession

/// Everything a window is told before it starts, as one value given to `ViewerWindow.init`:
/// the command line's choices (made in `viewer/`, validated there) and the environment variables
/// that concern the window (read in `viewer/` too, so nothing in SDLViewer reads the
/// environment). The window never changes it; what changes while it runs (full screen, the
/// scaling, the touch mode) starts from here and is owned elsewhere.
public struct ViewerConfiguration {
    /// Which local display(s) to fill (`--display`).
    public enum LocalDisplay: Equatable, Sendable { case number(Int), all }
    /// What a dropped connection leads to once automatic retries (if any) are over.
    public enum OnDisconnect: String, Sendable { case reconnect, quit, prompt }

    /// Start in full screen (F11 toggles).
    public var fullscreen = false
    /// `--view-only`: nothing goes to the server; clipboard text only comes in.
    public var viewOnly = false
    /// The scaling at start and after a screen is chosen.
    public var scaling: ScalingMode = .fit
    /// The key translator (the xkbcommon one plugs in here).
    public var keyTranslator: KeyTranslating = KeyMapTranslator()
    /// On X11 the X server's own keymap replaces the translator's layout (and follows its
    /// changes); false when the user named a layout (`--keyboard`), which then stays.
    public var followsX11Keymap = true
    /// Who answers the session's questions (credentials, trust); nil: the window makes one that
    /// answers the session (tests give one that records the answers).
    public var prompter: WindowPrompter?
    /// A user name known before asking (VNC_USERNAME, a vnc://user@ URI): pre-fills the prompt.
    public var knownUsername: String?
    /// Which way clipboard text flows. View-only sends nothing whatever this says.
    public var clipboardDirection: ClipboardDirection = .both
    /// The PRIMARY selection too (`--clipboard-primary`).
    public var clipboardPrimary = false
    /// How fingers drive the pointer at start (`--touch`, `--trackpad`).
    public var touchMode: TouchInputMode = .touch
    /// Show the on-screen keyboard from the start (`--on-screen-keyboard`).
    public var showKeyboardAtStart = false
    /// `--monitor N`: the remote screen to start on (1-based, screen 1 top-left).
    public var monitorNumber: Int?
    /// Where the last screen choice per host is kept (nil: not remembered).
    public var monitorMemory: MonitorMemory?
    /// `--remote-resize`: the server's desktop follows the window (debounced).
    public var remoteResize = false
    /// `--display`: nil is the window system's choice.
    public var localDisplay: LocalDisplay?
    /// Where a recording stops by itself (`--recording-max-size`).
    public var recordingMaxBytes: Int? = RecordingLimit.defaultMaxBytes
    /// `viewer play`: the recording being played (the window's session is its session).
    public var player: Player?
    /// `--rotate`: degrees clockwise the picture is turned on the screen (0, 90, 180, 270).
    public var rotation = 0
    /// QEMU's sound at start (`--audio`; the menu's Sound entry toggles).
    public var audioWanted = false
    /// `farcast kiosk`: menu lock, watchdog, cursor.
    public var kiosk = KioskOptions()
    public var onDisconnect: OnDisconnect = .prompt

    // From the environment, read by `viewer/`:
    /// `SDL_RENDER_DRIVER` (SDL's own variable): "software" asks for the software path; any
    /// value keeps the renderer SDL makes (no switch to the window surface under llvmpipe).
    public var renderDriver: String?
    /// `FARCAST_FONT`: a font tried before the usual ones.
    public var fontPath: String?
    /// `FARCAST_TOUCH_REPLAY`: a touch script played once the desktop is there.
    public var touchReplayPath: String?
    /// `FARCAST_TRACE=1`: timing lines on stderr.
    public var trace = false
    /// Where screenshots and recordings go (the XDG pictures and videos folders).
    public var picturesDirectory = "."
    public var videosDirectory = "."

    public init() {}

    /// The font files the overlays try, first found wins.
    var fontCandidates: [String] { (fontPath.map { [$0] } ?? []) + TextRenderer.fontCandidates }
}
