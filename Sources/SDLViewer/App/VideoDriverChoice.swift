import CSDL2
import CWaylandPresent
import CXCB

/// Which video driver SDL gets, decided before SDL_Init: SDL 2.26 dies with SIGSEGV inside
/// SDL_Init on a Wayland compositor that offers no wl_seat (weston's headless backend; SDL
/// issue 8898), so when the driver will be Wayland the registry is probed first and, without a
/// seat, X11 is used where DISPLAY works, else the viewer stops with a message. The values come
/// from the command line (nothing in SDLViewer reads the environment). Main thread, before SDL_Init.
public enum VideoDriverChoice {
    /// What the environment says about the window systems.
    public struct Environment: Sendable {
        /// SDL_VIDEODRIVER: the user's choice, which always wins (apart from the seat check).
        public var sdlVideoDriver: String?
        public var waylandDisplay: String?
        public var display: String?
        public init(sdlVideoDriver: String?, waylandDisplay: String?, display: String?) {
            self.sdlVideoDriver = sdlVideoDriver
            self.waylandDisplay = waylandDisplay
            self.display = display
        }
    }

    /// What to do before SDL_Init.
    public enum Outcome: Equatable, Sendable {
        /// SDL chooses as it always does (the reason for -v, if there is one to give).
        case leave(String?)
        /// SDL is told to use this driver, for this reason.
        case use(String, String)
        /// No driver can work: stop with this message.
        case refuse(String)
    }

    /// The seat probe's answer.
    public enum Seat: Sendable { case offered, missing, unreachable }

    /// Whether the viewer takes native Wayland in a Wayland session when SDL_VIDEODRIVER is not
    /// set. Not yet, with the keyboard guards, own keyboard and own clipboard in: the window costs
    /// the same either way (1.49 s against 1.53 s of CPU in 15 s of a scrolling xterm, README
    /// "Video drivers"), while the launcher natively still draws with GL on llvmpipe, native with
    /// a GPU is untried, and GNOME without libdecor's plugin gives a native window no title bar.
    static let prefersWayland = false

    /// The decision, with the probes passed in (tests give their own).
    static func decide(_ env: Environment, x11Works: () -> Bool, waylandSeat: () -> Seat) -> Outcome {
        let asked = env.sdlVideoDriver?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let waylandNamed = !(env.waylandDisplay ?? "").isEmpty
        let x11Named = !(env.display ?? "").isEmpty
        let willBeWayland: Bool
        var why: String? = nil
        switch asked {
        case "wayland"?:
            willBeWayland = true
        case nil:
            // SDL 2 tries X11 before Wayland
            if x11Named && x11Works() {
                guard prefersWayland, waylandNamed else { return .leave(nil) }
                willBeWayland = true
                why = "a Wayland session (WAYLAND_DISPLAY set)"
            } else {
                willBeWayland = waylandNamed
            }
        default:
            return .leave(nil)
        }
        guard willBeWayland else { return .leave(nil) }
        switch waylandSeat() {
        case .offered:
            return why.map { .use("wayland", "video: \($0): native Wayland") } ?? .leave(nil)
        case .unreachable:
            // SDL says why it cannot connect; with X11 there it takes that
            return .leave(nil)
        case .missing:
            let name = env.waylandDisplay ?? "wayland-0"
            if why != nil { return .leave("video: the Wayland compositor (\(name)) offers no seat: X11 (DISPLAY=\(env.display ?? ""))") }
            if x11Named && x11Works() {
                return .use("x11", "video: the Wayland compositor (\(name)) offers no seat (wl_seat: no keyboard, pointer or touch), and SDL 2.26 cannot start on Wayland without one: using X11 (DISPLAY=\(env.display ?? "")) instead")
            }
            return .refuse("the Wayland compositor (\(name)) offers no seat (wl_seat: no keyboard, pointer or touch), and SDL 2.26 cannot start a window on Wayland without one. Give the compositor an input device (weston's headless backend has none), or run the viewer on X11 (DISPLAY set, SDL_VIDEODRIVER=x11)")
        }
    }

    /// Whether SDL will run on X11, as far as the environment says without probing: there the
    /// window reads the X server's own keymap, so nothing needs to ask the session for its layout.
    public static func expectsX11(_ env: Environment) -> Bool {
        let asked = env.sdlVideoDriver?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        switch asked {
        case "x11"?: return true
        case nil: return !(env.display ?? "").isEmpty && !(prefersWayland && !(env.waylandDisplay ?? "").isEmpty)
        default: return false
        }
    }

    /// Decides with the real probes and tells SDL. Returns the message to stop with, or nil.
    public static func prepare(_ env: Environment, log: (String) -> Void) -> String? {
        let outcome = decide(env, x11Works: { x11Connects(env.display) }, waylandSeat: { probeSeat(env.waylandDisplay) })
        switch outcome {
        case .leave(let why):
            if let why { log(why) }
            return nil
        case .use(let driver, let why):
            log(why)
            // over SDL_VIDEODRIVER in the environment too (the seat check is not a preference)
            SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, driver, SDL_HINT_OVERRIDE)
            return nil
        case .refuse(let message):
            return message
        }
    }

    static func x11Connects(_ display: String?) -> Bool {
        guard let display, !display.isEmpty, let c = xcb_connect(display, nil) else { return false }
        defer { xcb_disconnect(c) }
        return xcb_connection_has_error(c) == 0
    }

    static func probeSeat(_ name: String?) -> Seat {
        switch fc_wl_probe_seat(name.flatMap { $0.isEmpty ? nil : $0 }) {
        case FC_WL_PROBE_SEAT: return .offered
        case FC_WL_PROBE_NO_SEAT: return .missing
        default: return .unreachable
        }
    }
}
