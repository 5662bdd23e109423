import CSDL2
import Interaction

/// Sizes and geometry: the viewport from the framebuffer, window and renderer; the chosen
/// remote screen; where the menu and the picker are drawn (for mouse and finger hits).
extension ViewerWindow {
    /// Viewport sizes from the framebuffer, the window (points) and the renderer (pixels).
    func syncSizes() {
        if renderer?.refreshSurface() == true { fullPresent = true }
        guard let renderer, renderer.window != nil, renderer.renderer != nil else { return }
        let before = router.viewport
        defer { if router.viewport != before { fullPresent = true } }
        let (fw, fh) = withFramebuffer { ($0?.width ?? 0, $0?.height ?? 0) }
        let (ww, wh, ow, oh) = renderer.logicalSizes()
        router.windowSize = (Double(ww), Double(wh))
        // the on-screen keyboard takes the bottom of the window; the desktop fits above it
        var kbH = 0
        if router.keyboard != nil, wh > 0 {
            kbH = Int(OnScreenKeyboard.preferredHeight(windowWidth: Double(ww), windowHeight: Double(wh)).rounded())
            router.setKeyboardLayout(ViewRect(x: 0, y: Double(Int(wh) - kbH), w: Double(ww), h: Double(kbH)))
        }
        let kbOut = wh > 0 ? Int((Double(kbH) * Double(oh) / Double(wh)).rounded()) : 0
        router.viewport.resize(framebuffer: fw, fh, window: Int(ww), Int(wh) - kbH, output: Int(ow), Int(oh) - kbOut)
        router.clampSoftCursor()
        layoutMenu()
        layoutPicker()
    }

    /// Frames the view on the chosen remote screen (nil region: everything) at the initial
    /// scaling; the soft cursor stays on it.
    func applyMonitor() {
        guard let monitors else { return }
        let region = monitors.region(router.ui)
        if router.viewport.region != region {
            router.viewport.region = region
            router.viewport.mode = config.scaling
            router.clampSoftCursor()
        }
        fullPresent = true
    }

    /// The picker's geometry in window points: the middle of the desktop area.
    func layoutPicker() {
        guard let p = router.picker else { return }
        let vp = router.viewport
        let ww = Double(vp.windowWidth), wh = Double(vp.windowHeight)
        // room above and below the box for the title and the hint the overlay adds
        let box = ViewRect(x: ww * 0.08, y: wh * 0.14, w: ww * 0.84, h: wh * 0.72)
        router.pickerGeometry = p.geometry(in: box)
    }

    /// The menu's geometry in window points, for mouse hits.
    func layoutMenu() {
        guard let overlay = renderer?.overlay, let m = router.menu else { return }
        let vp = router.viewport
        let l = overlay.layoutMenu(m, outputWidth: vp.outputWidth, outputHeight: vp.outputHeight, scale: vp.pixelsPerPointY)
        router.setMenuLayout(frame: vp.toWindow(output: ViewRect(l.frame)), rows: l.rows.map { vp.toWindow(output: ViewRect($0)) })
    }
}
