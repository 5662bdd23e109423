import CSDL2
import Interaction
import VNCSession

/// `viewer play`: the player and its timeline bar: when the bar shows (it hides while playing
/// untouched), where its track is (window points), a drag along it, the keys, and the end of
/// the recording. Everything else (zoom, screens, screenshots, the menu) works as in a live
/// session. Main thread only; times are `ViewerWindow.now()` seconds.
final class PlaybackController {
    let player: Player
    /// The bar shows until then (or while paused or dragged).
    private var shownUntil = 0.0
    /// The track's hit area in window points while the bar shows, from the last layout.
    private(set) var hit: ViewRect?
    private var dragging = false
    private var lastDragSeek = 0.0
    static let showSeconds = 3.0
    /// Seeks while dragging at most this often (each reopens the recording).
    static let dragSeekInterval = 0.15

    init(player: Player) { self.player = player }

    func visible(now: Double) -> Bool { player.paused || dragging || now < shownUntil }

    func show(now: Double) { shownUntil = now + PlaybackController.showSeconds }

    /// The loop's clock runs while the bar shows or the recording plays.
    func needsTicks(now: Double) -> Bool { visible(now: now) || !player.paused }

    /// Whether playback takes this event (the input controller gets the rest; not while the menu or the
    /// picker is up). Any pointer or touch activity brings the bar back. `windowSize` in points
    /// turns a finger's 0...1 into them.
    func takes(_ e: SDL_Event, windowSize: (w: Double, h: Double), now: Double) -> Bool {
        switch e.type {
        case SDL_KEYDOWN.rawValue:
            return key(e.key.keysym, now: now)
        case SDL_MOUSEMOTION.rawValue:
            show(now: now)
            guard dragging, e.motion.which != SDLInput.touchMouseID else { return false }
            drag(to: Double(e.motion.x), final: false, now: now)
            return true
        case SDL_MOUSEBUTTONDOWN.rawValue:
            show(now: now)
            guard e.button.which != SDLInput.touchMouseID, e.button.button == UInt8(SDL_BUTTON_LEFT),
                  onTrack(Double(e.button.x), Double(e.button.y), now: now) else { return false }
            dragging = true
            drag(to: Double(e.button.x), final: true, now: now)
            return true
        case SDL_MOUSEBUTTONUP.rawValue:
            guard dragging, e.button.which != SDLInput.touchMouseID else { return false }
            dragging = false
            drag(to: Double(e.button.x), final: true, now: now)
            return true
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            show(now: now)
            let x = Double(e.tfinger.x) * windowSize.w, y = Double(e.tfinger.y) * windowSize.h
            if e.type == SDL_FINGERDOWN.rawValue {
                guard onTrack(x, y, now: now) else { return false }
                dragging = true
            }
            guard dragging else { return false }
            let up = e.type == SDL_FINGERUP.rawValue
            if up { dragging = false }
            drag(to: x, final: up || e.type == SDL_FINGERDOWN.rawValue, now: now)
            return true
        default:
            return false
        }
    }

    private func onTrack(_ x: Double, _ y: Double, now: Double) -> Bool {
        guard visible(now: now), let r = hit else { return false }
        return x >= r.x - 8 && x <= r.x + r.w + 8 && y >= r.y && y <= r.y + r.h
    }

    /// Seeks to where `x` is on the track (throttled while dragging).
    private func drag(to x: Double, final: Bool, now: Double) {
        guard let r = hit, r.w > 0 else { return }
        let ms = max(0, min(1, (x - r.x) / r.w)) * player.durationMs
        guard final || now - lastDragSeek >= PlaybackController.dragSeekInterval else {
            player.clock.seek(toMs: ms)   // the bar follows at once; the picture at the next seek
            return
        }
        lastDragSeek = now
        player.seek(toMs: ms)
    }

    private func key(_ k: SDL_Keysym, now: Double) -> Bool {
        let p = player
        let mods = UInt32(k.mod)
        // Ctrl or Alt combinations (Ctrl+Alt+S) are the UI's
        if mods & (UInt32(KMOD_CTRL.rawValue) | UInt32(KMOD_ALT.rawValue)) != 0 { return false }
        show(now: now)
        switch UInt32(bitPattern: k.sym) {
        case SDLK_SPACE.rawValue, SDLK_k.rawValue: p.setPaused(!p.paused)
        case SDLK_LEFT.rawValue: p.seek(toMs: p.positionMs - 5000)
        case SDLK_RIGHT.rawValue: p.seek(toMs: p.positionMs + 5000)
        case SDLK_HOME.rawValue: p.seek(toMs: 0)
        case SDLK_END.rawValue: p.seek(toMs: p.durationMs)
        case SDLK_UP.rawValue, SDLK_PLUS.rawValue, SDLK_EQUALS.rawValue, SDLK_RIGHTBRACKET.rawValue, SDLK_KP_PLUS.rawValue: p.stepSpeed(true)
        case SDLK_DOWN.rawValue, SDLK_MINUS.rawValue, SDLK_LEFTBRACKET.rawValue, SDLK_KP_MINUS.rawValue: p.stepSpeed(false)
        case SDLK_l.rawValue: p.loop.toggle()
        default: return false
        }
        return true
    }

    /// The loop's turn: the end of the recording (loop or hold); true when the bar needs redrawing.
    func tick(now: Double) -> Bool {
        _ = player.tick()
        return visible(now: now) || hit != nil
    }

    /// What the bar shows now; nil while it is hidden.
    func timeline(now: Double) -> TimelineModel? {
        guard visible(now: now) else { return nil }
        let p = player
        return TimelineModel(positionMs: p.positionMs, durationMs: p.durationMs, paused: p.paused, speed: p.speed, loop: p.loop)
    }

    /// Where the bar's track was laid out (window points), nil when it is not shown.
    func laidOut(track: ViewRect?) { hit = track }
}
