import CSDL2
import Interaction
import RFB

/// Drawing a frame: the desktop (whole, or only the damaged rects on the software path), the
/// soft cursor, then the overlays the UI state calls for.
extension ViewerWindow {
    /// Copies what changed in the session's framebuffer into the texture. With `wait` false
    /// (a present answering input) nothing is copied while a rect is being decoded; returns
    /// false then, and the pixels come with the next present.
    @discardableResult
    func uploadFrame(_ frame: FrameRenderer, wait: Bool = true) -> Bool {
        if wait {
            withFramebuffer { fb in if let fb { frame.upload(fb) } }
            return true
        }
        let done: Bool? = withFramebufferIfFree { fb -> Bool in
            if let fb { frame.upload(fb) }
            return true
        }
        return done != nil
    }

    /// Draws and shows a frame. Returns true when pixels are still waiting (over the upload
    /// budget, or skipped while decoding): the loop presents again.
    @discardableResult
    func present(forInput: Bool = false) -> Bool {
        presentDrew = true
        guard let r = renderer, let frame = r.frame, let overlay = r.overlay else { return false }
        let vp = router.viewport
        let layout = layoutOverlays(router, r, overlay, vp)
        applyHits(layout)
        /// A whole frame skipped while a rect was being decoded is still owed.
        var wholeOwed = false
        defer { fullPresent = wholeOwed; overlayShown = layout.covers; trace.presented(menuUp: layout.menu != nil) }
        if r.surfaceMode && !layout.covers && r.rotation == nil, let surface = r.surface,
           FrameRenderer.takesFramebufferPixels(surface) {
            // a whole frame when the window was redrawn or an overlay just went away
            let whole = fullPresent || overlayShown
            let shared = r.x11Presenter
            let body = { (fb: Framebuffer?) -> Bool in
                guard let fb else { return false }
                if let shared, frame.presentShared(fb, through: shared, outputWidth: Int(surface.pointee.w),
                                                   outputHeight: Int(surface.pointee.h), vp, whole: whole) { return true }
                return frame.copyDirect(fb, into: surface, vp, whole: whole)
            }
            let copied: Bool? = forInput ? withFramebufferIfFree(body) : withFramebuffer(body)
            if copied == true {
                if !frame.directShown { r.updateSurface(frame.directRects) }
                presentDrew = !frame.directRects.isEmpty
                return frame.hasPendingUpload
            }
            // skipped while a rect was being decoded: the pixels come with the next present
            if copied == nil {
                wholeOwed = whole
                return true
            }
        }
        let uploaded = uploadFrame(frame, wait: !forInput)
        if r.surfaceMode && !fullPresent && !layout.covers && !overlayShown {
            // only what changed: a small update costs a small copy to the window
            let drawn = frame.drawDamage(vp)
            r.updateSurface(drawn)
            presentDrew = !drawn.isEmpty
            return !uploaded || frame.hasPendingUpload
        }
        r.beginFrame()
        frame.draw(vp)
        if let c = layout.softCursor { r.softCursorSprite(cursors.lastImage)?.draw(at: c, scale: vp.pixelsPerPointY) }
        overlay.draw(layout, vp, thumbnails: frame)
        r.endFrame()
        return !uploaded || frame.hasPendingUpload
    }

    /// The layout pass: which overlays the UI state calls for and where, measured but not
    /// drawn, with their hit geometry in window points.
    func layoutOverlays(_ router: InputController, _ r: WindowRenderer, _ overlay: Overlay, _ vp: Viewport) -> OverlayLayout {
        let ui = router.ui
        let ow = vp.outputWidth, oh = vp.outputHeight, scale = vp.pixelsPerPointY
        let status = statusMessage()
        let softShown = ui.softCursorShown && router.touchMode == .trackpad && ui.ended == nil
        let recording = capture?.recording == true
        let timeline = playback?.timeline(now: ViewerWindow.now())
        var l = OverlayLayout()
        l.covers = status != nil || ui.menu != nil || ui.ended != nil || prompt != nil || notice != nil
            || router.keyboard != nil || softShown || ui.picker != nil || recording || timeline != nil
            || router.pinPad != nil || ui.info
        // the common case, every frame of a busy desktop: nothing over it
        guard l.covers else { return l }
        if softShown { l.softCursor = router.gestures.cursor.outputPoint(in: vp) }
        if let k = router.keyboard {
            let s = r.logicalSizes()
            l.keyboard = (k, Int(s.ow), Int(s.oh))
        }
        l.dimDesktop = ui.dimsDesktop
        if let prompt {
            let pl = overlay.layoutPrompt(prompt, outputWidth: ow, outputHeight: oh, scale: scale)
            l.prompt = (prompt, pl)
            l.promptFields = pl.fields.mapValues { vp.toWindow(output: ViewRect($0)) }
        } else {
            l.status = status.map { ($0.0, $0.1) }
        }
        if let p = ui.picker, let g = ui.pickerGeometry { l.picker = (p, g) }
        if let m = ui.menu { l.menu = (m, overlay.layoutMenu(m, outputWidth: ow, outputHeight: oh, scale: scale)) }
        if let pad = router.pinPad {
            let pl = overlay.layoutPinPad(outputWidth: ow, outputHeight: oh, scale: scale)
            l.pinPad = (pad, pl)
            l.pinPadHits = (vp.toWindow(output: ViewRect(pl.frame)), pl.keys.map { vp.toWindow(output: ViewRect($0)) })
        }
        if ui.info && prompt == nil { l.info = Overlay.infoLines(session.link, spec: session.spec) }
        if let m = timeline {
            let tl = Overlay.layoutTimeline(outputWidth: ow, outputHeight: oh, scale: scale)
            l.timeline = (m, tl)
            l.timelineTrack = vp.toWindow(output: ViewRect(tl.hit))
        }
        l.recordingBadge = recording
        if let n = notice, prompt == nil {
            // above the playback bar when it shows
            l.notice = (n.text, l.timelineTrack != nil ? Int(64 * scale) : 0)
        }
        return l
    }

    /// The layout's hit geometry to the UI state that hit-tests with it (the prompt's fields,
    /// the PIN pad's keys, the playback bar's track).
    func applyHits(_ l: OverlayLayout) {
        if let prompt, l.prompt != nil { prompt.hitRects = l.promptFields }
        if let h = l.pinPadHits { router.setPinLayout(frame: h.frame, keys: h.keys) }
        playback?.laidOut(track: l.timelineTrack)
    }
}
