import CSDL2
import Foundation

/// Making the window: where and how large (`--display`, full screen, a display of its own on
/// KMSDRM), and its renderer (GL, or the software path).
extension ViewerWindow {
    /// The window at its place and size (`--display`, full screen) and its renderer.
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
        if ViewerWindow.ownsDisplay { fullscreen = true }
        if fullscreen && config.localDisplay == nil {
            // made at the display's bounds, so it covers the display where nothing honours the
            // full-screen request (X11 without a window manager)
            var b = SDL_Rect()
            if SDL_GetDisplayBounds(0, &b) == 0 { (x, y, w, h) = (b.x, b.y, b.w, b.h) }
        }
        if fullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        window = SDL_CreateWindow("Farcast — connecting to \(session.spec)", x, y, w, h, flags)
        guard let window else { throw ViewerWindow.sdlError("SDL_CreateWindow") }
        // SDL_RENDER_DRIVER=software (SDL's own variable) asks for the software path
        let software = config.renderDriver == "software"
        // rotation draws through a target texture: SDL's renderers have them, window surfaces do not
        let rflags = rotation != 0 && software ? SDL_RENDERER_SOFTWARE.rawValue | SDL_RENDERER_TARGETTEXTURE.rawValue
            : SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue
        var made = !software || rotation != 0 ? SDL_CreateRenderer(window, -1, rflags) : nil
        // only where the surface is the window system's own (X11, Wayland): on KMSDRM it is
        // SDL's emulation through a renderer
        if let r = made, rotation == 0, ["x11", "wayland"].contains(ViewerWindow.videoDriver.lowercased()),
           config.renderDriver == nil,
           let gl = SoftwareGL.rendererName(r), SoftwareGL.isSoftware(gl) {
            session.log("window: OpenGL here is \(gl), drawn by the CPU: drawing on the window surface instead (SDL_RENDER_DRIVER=opengl keeps OpenGL)")
            SDL_DestroyRenderer(r)
            made = nil
        }
        if let r = made {
            renderer = r
            frame = FrameRenderer(renderer: r)
            overlay = Overlay(renderer: r, fontCandidates: config.fontCandidates)
        } else {
            surfaceMode = true
            guard refreshSurface() else { throw ViewerWindow.sdlError("SDL_CreateSoftwareRenderer") }
        }
        guard let r = renderer else { throw ViewerWindow.sdlError("SDL_CreateRenderer") }
        // a window surface has no vsync, whatever SDL's software renderer claims: presents are
        // paced to the display's refresh (they were going out at 300/s on a busy desktop)
        frameInterval = surfaceMode ? ViewerWindow.refreshInterval(window) : ViewerWindow.presentInterval(r, window)
    }
}
