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
        guard let r = renderer, let frame = r.frame, let overlay = r.overlay, let router else { return false }
        let vp = router.viewport
        let ui = router.ui
        let status = statusMessage()
        let softShown = ui.softCursorShown && router.touchMode == .trackpad && ui.ended == nil
        let now = ViewerWindow.now()
        let recording = capture?.recording == true
        let timeline = playback?.timeline(now: now)
        let overlayNow = status != nil || ui.menu != nil || ui.ended != nil || prompt != nil || notice != nil
            || router.keyboard != nil || softShown || ui.picker != nil || recording || timeline != nil
            || router.pinPad != nil || ui.info
        defer { fullPresent = false; overlayShown = overlayNow; trace.presented(menuUp: ui.menu != nil) }
        if r.surfaceMode && !fullPresent && !overlayNow && !overlayShown && r.rotation == nil, let surface = r.surface,
           FrameRenderer.takesFramebufferPixels(surface) {
            let body = { (fb: Framebuffer?) -> Bool in fb.map { frame.copyDirect($0, into: surface, vp) } ?? false }
            let copied: Bool? = forInput ? withFramebufferIfFree(body) : withFramebuffer(body)
            if copied == true {
                r.updateSurface(frame.directRects)
                return frame.hasPendingUpload
            }
            // skipped while a rect was being decoded: the pixels come with the next present
            if copied == nil { return true }
        }
        let uploaded = uploadFrame(frame, wait: !forInput)
        if r.surfaceMode && !fullPresent && !overlayNow && !overlayShown {
            // only what changed: a small update costs a small copy to the window
            r.updateSurface(frame.drawDamage(vp))
            return !uploaded || frame.hasPendingUpload
        }
        r.beginFrame()
        frame.draw(vp)
        if softShown {
            let c = router.gestures.cursor
            r.softCursorSprite(cursors.lastImage)?.draw(at: c.outputPoint(in: vp), scale: vp.pixelsPerPointY)
        }
        if let k = router.keyboard {
            let s = r.logicalSizes()
            overlay.keyboard(k, vp, outputWidth: Int(s.ow), outputHeight: Int(s.oh))
        }
        if ui.dimsDesktop { overlay.dim(vp.outputWidth, vp.outputHeight) }
        if let prompt {
            overlay.dim(vp.outputWidth, vp.outputHeight)
            let l = overlay.prompt(prompt, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
            prompt.hitRects = l.fields.mapValues { vp.toWindow(output: ViewRect($0)) }
        } else if let (msg, hint) = status {
            overlay.status(msg, hint: hint, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        }
        if let p = ui.picker, let g = ui.pickerGeometry {
            overlay.dim(vp.outputWidth, vp.outputHeight)
            overlay.picker(p, g, vp, thumbnails: frame)
        }
        if let m = ui.menu {
            overlay.menu(m, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        }
        if let pad = router.pinPad {
            overlay.dim(vp.outputWidth, vp.outputHeight)
            let l = overlay.pinPad(pad, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
            router.setPinLayout(frame: vp.toWindow(output: ViewRect(l.frame)), keys: l.keys.map { vp.toWindow(output: ViewRect($0)) })
        }
        if ui.info && prompt == nil {
            overlay.info(ViewerWindow.infoLines(session.link, spec: session.spec), outputWidth: vp.outputWidth, scale: vp.pixelsPerPointY)
        }
        // the bar (while shown) and its track's hit area in window points
        playback?.laidOut(track: timeline.map {
            vp.toWindow(output: ViewRect(overlay.timeline($0, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight,
                                                          scale: vp.pixelsPerPointY)))
        })
        if recording { overlay.recordingBadge(outputWidth: vp.outputWidth, scale: vp.pixelsPerPointY) }
        if let n = notice, prompt == nil {
            // above the playback bar when it shows
            overlay.notice(n.text, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY,
                           bottomInset: playback?.hit != nil ? Int(64 * vp.pixelsPerPointY) : 0)
        }
        r.endFrame()
        return !uploaded || frame.hasPendingUpload
    }
}
