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
        guard let window, let renderer, let frame, let overlay, let router else { return false }
        let vp = router.viewport
        let ui = router.ui
        let status = statusMessage()
        let softShown = ui.softCursorShown && router.touchMode == .trackpad && ui.ended == nil
        let overlayNow = status != nil || ui.menu != nil || ui.ended != nil || prompt != nil || notice != nil
            || router.keyboard != nil || softShown || ui.picker != nil || recorder != nil || timelineVisible
            || router.pinPad != nil || ui.info
        defer { fullPresent = false; overlayShown = overlayNow; trace.presented(menuUp: ui.menu != nil) }
        if surfaceMode && !fullPresent && !overlayNow && !overlayShown && rotation == 0, let surface,
           FrameRenderer.takesFramebufferPixels(surface) {
            let body = { (fb: Framebuffer?) -> Bool in fb.map { frame.copyDirect($0, into: surface, vp) } ?? false }
            let copied: Bool? = forInput ? withFramebufferIfFree(body) : withFramebuffer(body)
            if copied == true {
                let rects = frame.directRects
                if !rects.isEmpty {
                    rects.withUnsafeBufferPointer { _ = SDL_UpdateWindowSurfaceRects(window, $0.baseAddress, Int32($0.count)) }
                }
                return frame.hasPendingUpload
            }
            // skipped while a rect was being decoded: the pixels come with the next present
            if copied == nil { return true }
        }
        let uploaded = uploadFrame(frame, wait: !forInput)
        if surfaceMode && !fullPresent && !overlayNow && !overlayShown {
            // only what changed: a small update costs a small copy to the window
            let rects = frame.drawDamage(vp)
            if !rects.isEmpty {
                rects.withUnsafeBufferPointer { _ = SDL_UpdateWindowSurfaceRects(window, $0.baseAddress, Int32($0.count)) }
            }
            return !uploaded || frame.hasPendingUpload
        }
        beginRotatedFrame()
        frame.draw(vp)
        if softShown {
            if softCursor == nil { softCursor = SoftCursorSprite(renderer: renderer); softCursor?.setImage(cursors.lastImage) }
            let c = router.gestures.cursor
            softCursor?.draw(at: c.outputPoint(in: vp), scale: vp.pixelsPerPointY)
        }
        if let k = router.keyboard {
            let s = logicalSizes()
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
        drawTimeline(overlay, vp)
        if recorder != nil { overlay.recordingBadge(outputWidth: vp.outputWidth, scale: vp.pixelsPerPointY) }
        if let n = notice, prompt == nil {
            // above the playback bar when it shows
            overlay.notice(n.text, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY,
                           bottomInset: timeline.hit != nil ? Int(64 * vp.pixelsPerPointY) : 0)
        }
        endRotatedFrame()
        if surfaceMode { SDL_UpdateWindowSurface(window) } else { SDL_RenderPresent(renderer) }
        return !uploaded || frame.hasPendingUpload
    }

    /// Software path: (re)creates the renderer on the window surface when SDL replaced it
    /// (after a resize). Textures die with the renderer, so the frame and overlay are rebuilt
    /// and the next upload is whole. Returns false when there is no surface to draw on.
    @discardableResult
    func refreshSurface() -> Bool {
        guard surfaceMode, let window else { return false }
        // a real X11 (shm) surface: SDL's GPU-texture emulation would re-upload the whole
        // window for every changed rect. KMSDRM has no surface of its own: there the emulation
        // is the only window surface there is.
        if !ViewerWindow.ownsDisplay { SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0") }
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
        overlay = Overlay(renderer: r, fontCandidates: config.fontCandidates)
        fullPresent = true
        return true
    }

    /// 0 when presents wait for vsync; otherwise one refresh of the window's display (60 Hz if unknown).
    static func presentInterval(_ r: OpaquePointer, _ w: OpaquePointer) -> Double {
        var info = SDL_RendererInfo()
        if SDL_GetRendererInfo(r, &info) == 0, info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue != 0 { return 0 }
        return refreshInterval(w)
    }

    /// One refresh of the window's display (60 Hz if unknown).
    static func refreshInterval(_ w: OpaquePointer) -> Double {
        var mode = SDL_DisplayMode()
        let hz = SDL_GetWindowDisplayMode(w, &mode) == 0 && mode.refresh_rate > 0 ? Double(mode.refresh_rate) : 60
        return 1 / hz
    }
}
