import CSDL2
import Foundation

/// Making the window: where and how large (`--display`, full screen, a display of its own on
/// KMSDRM); the window and its renderer are made by Render/WindowRenderer.swift.
extension ViewerWindow {
    /// The window at its place and size (`--display`, full screen), with its renderer.
    func createWindow() throws {
        var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        var (x, y, w, h) = (Int32(SDL_WINDOWPOS_UNDEFINED_MASK), Int32(SDL_WINDOWPOS_UNDEFINED_MASK), Int32(1024), Int32(768))
        switch config.localDisplay {
        case .number(let n):
            let count = Int(SDL_GetNumVideoDisplays())
            guard (1...max(1, count)).contains(n) else {
                throw SDLError(description: "there \(count == 1 ? "is 1 local display" : "are \(count) local displays"); --display \(n) is not one of them")
            }
            // full screen on that display: the window is made at its bounds first, so it covers
            // the display even where nothing honours the full-screen request (no window manager)
            var b = SDL_Rect()
            if SDL_GetDisplayBounds(Int32(n - 1), &b) == 0 {
                (x, y, w, h) = (b.x, b.y, b.w, b.h)
            } else {
                x = Int32(Int(SDL_WINDOWPOS_CENTERED_MASK) | (n - 1)); y = x
            }
            fullscreen = true
        case .all:
            // SDL has no full screen across displays: a borderless window over their union
            resize.spannedDisplays = RemoteResize.displayBounds()
            let u = RemoteResize.union(resize.spannedDisplays)
            (x, y, w, h) = (u.x, u.y, u.w, u.h)
            flags |= SDL_WINDOW_BORDERLESS.rawValue
            fullscreen = false
        case nil:
            break
        }
        if WindowRenderer.ownsDisplay { fullscreen = true }
        if fullscreen && config.localDisplay == nil {
            // made at the display's bounds, so it covers the display where nothing honours the
            // full-screen request (X11 without a window manager)
            var b = SDL_Rect()
            if SDL_GetDisplayBounds(0, &b) == 0 { (x, y, w, h) = (b.x, b.y, b.w, b.h) }
        }
        if fullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        renderer = try WindowRenderer(title: "Farcast — connecting to \(session.spec)", x: x, y: y, w: w, h: h, flags: flags,
                                      rotation: rotation, renderDriver: config.renderDriver,
                                      fontCandidates: config.fontCandidates, log: session.log)
    }
}
