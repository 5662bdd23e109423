import CSDL2

/// A window (not full screen) takes the desktop's size when the first desktop arrives, as
/// vncviewer's does: the desktop shows 1:1, and at 1:1 the software path copies changed rows
/// straight to the window. It opened at 1024x768 before and scaled every desktop into it.
/// A desktop larger than the display's usable area gets a window that fills that area (scaled
/// to fit, as before). Not with `--remote-resize`, where the window decides the desktop's size.
extension ViewerWindow {
    func fitWindowToDesktop(width fw: Int, height fh: Int) {
        guard !fittedToDesktop, !fullscreen, !remoteResize, config.localDisplay == nil, !WindowRenderer.ownsDisplay,
              fw > 0, fh > 0, let window else { return }
        fittedToDesktop = true
        if SDL_GetWindowFlags(window) & (SDL_WINDOW_FULLSCREEN.rawValue | SDL_WINDOW_MAXIMIZED.rawValue) != 0 { return }
        let display = max(0, SDL_GetWindowDisplayIndex(window))
        var usable = SDL_Rect()
        guard SDL_GetDisplayUsableBounds(display, &usable) == 0, usable.w > 0, usable.h > 0 else { return }
        var top: Int32 = 0, left: Int32 = 0, bottom: Int32 = 0, right: Int32 = 0
        _ = SDL_GetWindowBordersSize(window, &top, &left, &bottom, &right)  // 0s without a window manager
        // the desktop in points: on a HiDPI output a point is several pixels
        let ppp = max(1, router.viewport.pixelsPerPointX), pppY = max(1, router.viewport.pixelsPerPointY)
        let wantW = Int32((Double(fw) / ppp).rounded(.up)), wantH = Int32((Double(fh) / pppY).rounded(.up))
        let roomW = usable.w - left - right, roomH = usable.h - top - bottom
        guard roomW > 0, roomH > 0 else { return }
        let w = min(wantW, roomW), h = min(wantH, roomH)
        var cw: Int32 = 0, ch: Int32 = 0
        SDL_GetWindowSize(window, &cw, &ch)
        if (w, h) == (cw, ch) { return }
        SDL_SetWindowSize(window, w, h)
        SDL_SetWindowPosition(window, usable.x + left + (roomW - w) / 2, usable.y + top + (roomH - h) / 2)
        session.log("window: \(w)x\(h) for the \(fw)x\(fh) desktop\(w < wantW || h < wantH ? " (scaled: the display is smaller)" : "")")
        syncSizes()
        fullPresent = true
    }
}
