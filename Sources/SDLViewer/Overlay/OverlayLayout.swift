import CSDL2
import Interaction

/// What one present draws over the desktop and where (output pixels), with the hit geometry
/// the UI needs (window points). The window's layout pass makes it from its state before
/// anything is drawn and hands the hit geometry to the UI state; `Overlay.draw` only draws it.
struct OverlayLayout {
    /// Anything is drawn over the desktop (the software path then redraws the whole window).
    var covers = false
    /// Trackpad mode's soft cursor, at this output point.
    var softCursor: ViewPoint?
    /// The on-screen keyboard over an output this large.
    var keyboard: (keyboard: OnScreenKeyboard, outputWidth: Int, outputHeight: Int)?
    /// The last frame dimmed (the connection ended, reconnecting).
    var dimDesktop = false
    var prompt: (prompt: CredentialPrompt, layout: Overlay.PromptLayout)?
    /// The status panel (not under a prompt).
    var status: (message: String, hint: String?)?
    var picker: (picker: ScreenPicker, geometry: PickerGeometry)?
    var menu: (menu: ViewerMenu, layout: Overlay.MenuLayout)?
    var pinPad: (pad: PinPad, layout: Overlay.PinPadLayout)?
    /// The connection-info panel's lines (title first).
    var info: [String]?
    var timeline: (model: TimelineModel, layout: Overlay.TimelineLayout)?
    var recordingBadge = false
    /// A notice, lifted above the playback bar when it shows.
    var notice: (text: String, bottomInset: Int)?

    // Hit geometry in window points, for mouse and finger hits.
    var promptFields: [CredentialPrompt.Field: ViewRect] = [:]
    var pinPadHits: (frame: ViewRect, keys: [ViewRect])?
    /// The playback bar's track.
    var timelineTrack: ViewRect?
}

extension Overlay {
    /// The draw pass: the overlays in `l`, in their order (keyboard, dim, prompt or status,
    /// picker, menu, PIN pad, info, timeline, recording badge, notice), and nothing else.
    /// The soft cursor is the renderer's (its sprite lives with it).
    func draw(_ l: OverlayLayout, _ vp: Viewport, thumbnails: FrameRenderer) {
        let ow = vp.outputWidth, oh = vp.outputHeight, scale = vp.pixelsPerPointY
        if let k = l.keyboard { keyboard(k.keyboard, vp, outputWidth: k.outputWidth, outputHeight: k.outputHeight) }
        if l.dimDesktop { dim(ow, oh) }
        if let p = l.prompt {
            dim(ow, oh)
            prompt(p.prompt, p.layout, scale: scale)
        } else if let s = l.status {
            status(s.message, hint: s.hint, outputWidth: ow, outputHeight: oh, scale: scale)
        }
        if let p = l.picker {
            dim(ow, oh)
            picker(p.picker, p.geometry, vp, thumbnails: thumbnails)
        }
        if let m = l.menu { menu(m.menu, m.layout) }
        if let p = l.pinPad {
            dim(ow, oh)
            pinPad(p.pad, p.layout, scale: scale)
        }
        if let lines = l.info { info(lines, outputWidth: ow, scale: scale) }
        if let t = l.timeline { timeline(t.model, t.layout, scale: scale) }
        if l.recordingBadge { recordingBadge(outputWidth: ow, scale: scale) }
        if let n = l.notice { notice(n.text, outputWidth: ow, outputHeight: oh, scale: scale, bottomInset: n.bottomInset) }
    }
}
