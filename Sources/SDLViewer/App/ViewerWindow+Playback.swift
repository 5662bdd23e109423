import CSDL2
import Interaction
import VNCSession

/// The playback bar's state: when it hides, where its track is (window points), a drag.
struct TimelineState {
    var shownUntil = 0.0
    var hit: ViewRect?
    var dragging = false
    var lastDragSeek = 0.0
    static let showSeconds = 3.0
    /// Seeks while dragging at most this often (each reopens the recording).
    static let dragSeekInterval = 0.15
}

/// `viewer play`: keys, the timeline under a mouse or a finger, and the end of the recording.
/// Everything else (zoom, screens, screenshots, the menu) works as in a live session.
extension ViewerWindow {
    var timelineVisible: Bool {
        guard let p = player else { return false }
        return p.paused || timeline.dragging || ViewerWindow.now() < timeline.shownUntil
    }

    func showTimeline() { timeline.shownUntil = ViewerWindow.now() + TimelineState.showSeconds }

    /// Whether playback takes this event (the input controller gets the rest). Any pointer or touch
    /// activity brings the bar back.
    func playbackTakes(_ e: SDL_Event) -> Bool {
        guard let player, let router, router.ui.menu == nil, router.ui.picker == nil else { return false }
        switch e.type {
        case SDL_KEYDOWN.rawValue:
            return playbackKey(player, e.key.keysym)
        case SDL_MOUSEMOTION.rawValue:
            showTimeline()
            guard timeline.dragging, e.motion.which != SDLInput.touchMouseID else { return false }
            drag(player, to: Double(e.motion.x), final: false)
            return true
        case SDL_MOUSEBUTTONDOWN.rawValue:
            showTimeline()
            guard e.button.which != SDLInput.touchMouseID, e.button.button == UInt8(SDL_BUTTON_LEFT),
                  onTrack(Double(e.button.x), Double(e.button.y)) else { return false }
            timeline.dragging = true
            drag(player, to: Double(e.button.x), final: true)
            return true
        case SDL_MOUSEBUTTONUP.rawValue:
            guard timeline.dragging, e.button.which != SDLInput.touchMouseID else { return false }
            timeline.dragging = false
            drag(player, to: Double(e.button.x), final: true)
            return true
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            showTimeline()
            let s = logicalSizes()
            let x = Double(e.tfinger.x) * Double(s.ww), y = Double(e.tfinger.y) * Double(s.wh)
            if e.type == SDL_FINGERDOWN.rawValue {
                guard onTrack(x, y) else { return false }
                timeline.dragging = true
            }
            guard timeline.dragging else { return false }
            let up = e.type == SDL_FINGERUP.rawValue
            if up { timeline.dragging = false }
            drag(player, to: x, final: up || e.type == SDL_FINGERDOWN.rawValue)
            return true
        default:
            return false
        }
    }

    private func onTrack(_ x: Double, _ y: Double) -> Bool {
        guard timelineVisible, let r = timeline.hit else { return false }
        return x >= r.x - 8 && x <= r.x + r.w + 8 && y >= r.y && y <= r.y + r.h
    }

    /// Seeks to where `x` is on the track (throttled while dragging).
    private func drag(_ p: Player, to x: Double, final: Bool) {
        guard let r = timeline.hit, r.w > 0 else { return }
        let ms = max(0, min(1, (x - r.x) / r.w)) * p.durationMs
        let now = ViewerWindow.now()
        guard final || now - timeline.lastDragSeek >= TimelineState.dragSeekInterval else {
            p.clock.seek(toMs: ms)   // the bar follows at once; the picture at the next seek
            return
        }
        timeline.lastDragSeek = now
        p.seek(toMs: ms)
    }

    private func playbackKey(_ p: Player, _ k: SDL_Keysym) -> Bool {
        let mods = UInt32(k.mod)
        // Ctrl or Alt combinations (Ctrl+Alt+S) are the UI's
        if mods & (UInt32(KMOD_CTRL.rawValue) | UInt32(KMOD_ALT.rawValue)) != 0 { return false }
        showTimeline()
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

    /// Main loop: the end of the recording (loop or hold), and whether the bar needs redrawing.
    func playbackTick() -> Bool {
        guard let p = player else { return false }
        _ = p.tick()
        return timelineVisible || timeline.hit != nil
    }

    /// Present: the bar (while shown) and its track's hit area in window points.
    func drawTimeline(_ overlay: Overlay, _ vp: Viewport) {
        guard let p = player, timelineVisible else { timeline.hit = nil; return }
        let m = TimelineModel(positionMs: p.positionMs, durationMs: p.durationMs, paused: p.paused, speed: p.speed, loop: p.loop)
        let r = overlay.timeline(m, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        timeline.hit = vp.toWindow(output: ViewRect(r))
    }
}
