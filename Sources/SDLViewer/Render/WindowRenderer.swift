import CSDL2
import RFB

/// The SDL handles of a viewer window and what draws with them: the window, its renderer (GL,
/// or the software path drawing on the window surface), the frame's texture (`FrameRenderer`),
/// the overlays (`Overlay`), the soft cursor's sprite and the rotation's target. The window
/// asks it for sizes and a frame to draw into; nothing else holds an SDL handle of the window.
/// Main thread only.
final class WindowRenderer {
    /// The video driver in use ("x11", "wayland", "kmsdrm", ...).
    static var videoDriver: String { SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "" }

    /// Without a window system the window is the display: it takes the display's own mode
    /// (a windowed request would switch KMSDRM to 1024x768 and letterbox).
    static var ownsDisplay: Bool { videoDriver.lowercased() == "kmsdrm" }  // SDL names it "KMSDRM"

    /// Whether SDL's window surface is only its emulation through a GL renderer: SDL 2.26's
    /// KMSDRM and Wayland drivers have no surface of their own, so with
    /// SDL_HINT_FRAMEBUFFER_ACCELERATION "0" they have no window surface at all.
    static var surfaceIsEmulated: Bool { ["kmsdrm", "wayland"].contains(videoDriver.lowercased()) }

    private(set) var window: OpaquePointer?
    private(set) var renderer: OpaquePointer?
    private(set) var frame: FrameRenderer?
    private(set) var overlay: Overlay?
    /// Trackpad mode's cursor sprite (the server's shape or an arrow); made per renderer.
    private var softCursor: SoftCursorSprite?
    /// Software path: draw into the window surface and present only the rectangles that
    /// changed (SDL's software renderer would push the whole window on every present).
    let surfaceMode: Bool
    /// Wayland without a GPU: our own wl_shm buffers show `surface` (a canvas in our memory).
    private var presenter: WaylandPresenter?
    /// X11 with the software path: the framebuffer shown from its own shared memory at 1:1.
    private(set) var x11Presenter: X11Presenter?
    private(set) var surface: UnsafeMutablePointer<SDL_Surface>?
    /// What `surface` was when the renderer was made on it: a new surface can have the old
    /// one's address (freed just before, malloc hands it out again), so that alone does not
    /// tell a new one (which is black: everything must be drawn again).
    private var surfaceShape: (w: Int32, h: Int32, pixels: UnsafeMutableRawPointer?)?
    /// Seconds between presents when the renderer has no vsync (0 with vsync: present waits).
    private(set) var frameInterval = 0.0
    /// `--rotate`; nil when the picture is upright.
    let rotation: Rotation?
    private let fontCandidates: [String]

    /// Makes the window (title, place, size and SDL window flags as the caller chose them) and
    /// its renderer: GL, or the window surface or our own wl_shm buffers as RenderPath chooses.
    init(title: String, x: Int32, y: Int32, w: Int32, h: Int32, flags: UInt32, rotation degrees: Int,
         renderDriver: String?, fontCandidates: [String], log: (String) -> Void) throws {
        self.fontCandidates = fontCandidates
        rotation = degrees == 0 ? nil : Rotation(degrees: degrees)
        window = SDL_CreateWindow(title, x, y, w, h, flags)
        guard let window else { surfaceMode = false; throw ViewerWindow.sdlError("SDL_CreateWindow") }
        let software = renderDriver == "software"
        // rotation draws through a target texture: SDL's renderers have them, window surfaces do not
        let rflags = degrees != 0 && software ? SDL_RENDERER_SOFTWARE.rawValue | SDL_RENDERER_TARGETTEXTURE.rawValue
            : SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue
        let known = RenderPath.beforeRenderer(driver: WindowRenderer.videoDriver, renderDriver: renderDriver,
                                              rotated: degrees != 0, gpuDevice: SoftwareGL.gpuDevicePresent())
        var made = known == nil ? SDL_CreateRenderer(window, -1, rflags) : nil
        var (path, why) = known ?? RenderPath.choose(driver: WindowRenderer.videoDriver, renderDriver: renderDriver,
                                                     glRenderer: made.flatMap { SoftwareGL.rendererName($0) }, rotated: degrees != 0)
        if path != .renderer, let r = made {
            SDL_DestroyRenderer(r)
            made = nil
        }
        if path == .waylandShm {
            // after the GL renderer is gone: making it may have remade SDL's window and surface
            presenter = WaylandPresenter(window: window)
            if presenter == nil {
                why += "; the compositor gave no wl_shm buffers: OpenGL"
                path = .renderer
                made = SDL_CreateRenderer(window, -1, rflags)
            }
        }
        surfaceMode = made == nil
        if surfaceMode && presenter == nil && rotation == nil {
            x11Presenter = X11Presenter(window: window, pixels: .shared)
            if x11Presenter != nil { why += "; at 1:1 the X server reads the framebuffer's shared memory" }
        }
        log("window: \(why)")
        if let r = made {
            renderer = r
            frame = FrameRenderer(renderer: r)
            overlay = Overlay(renderer: r, fontCandidates: fontCandidates)
        } else {
            guard refreshSurface() else { close(); throw ViewerWindow.sdlError("SDL_CreateSoftwareRenderer") }
        }
        guard let r = renderer else { close(); throw ViewerWindow.sdlError("SDL_CreateRenderer") }
        // a window surface has no vsync, whatever SDL's software renderer claims: presents are
        // paced to the display's refresh (they were going out at 300/s on a busy desktop)
        frameInterval = surfaceMode ? WindowRenderer.refreshInterval(window) : WindowRenderer.presentInterval(r, window)
    }

    deinit { close() }

    /// Textures first, then the renderer, then the window (each belongs to the one after).
    func close() {
        softCursor = nil
        frame = nil
        overlay = nil
        rotation?.free()
        if let r = renderer { SDL_DestroyRenderer(r) }
        surface = nil
        presenter = nil   // its buffers and canvas before SDL's surface goes
        x11Presenter = nil
        if let w = window { SDL_DestroyWindow(w) }
        renderer = nil
        window = nil
    }

    /// Software path: (re)creates the renderer on the window surface when SDL replaced it
    /// (after a resize). Textures die with the renderer, so the frame and overlay are rebuilt
    /// and the next upload is whole. Returns true when it made them anew (the next present must
    /// be whole), false when nothing changed or there is no surface to draw on.
    @discardableResult
    func refreshSurface() -> Bool {
        guard surfaceMode, let window else { return false }
        // a real X11 (shm) surface: SDL's GPU-texture emulation would re-upload the whole
        // window for every changed rect. KMSDRM and Wayland have no surface of their own: there
        // the emulation is the only window surface there is (SDL_RENDER_DRIVER=software).
        let made: UnsafeMutablePointer<SDL_Surface>?
        var renewed = false
        if let presenter {
            let c = presenter.canvas(for: window)
            made = c?.surface
            renewed = c?.new ?? false
        } else {
            if !WindowRenderer.surfaceIsEmulated { SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0") }
            made = SDL_GetWindowSurface(window)
        }
        guard let s = made else { return false }
        if !renewed, s == surface, renderer != nil, let was = surfaceShape,
           was.w == s.pointee.w, was.h == s.pointee.h, was.pixels == s.pointee.pixels { return false }
        surfaceShape = (s.pointee.w, s.pointee.h, s.pointee.pixels)
        softCursor = nil   // its texture belongs to the old renderer
        frame = nil
        overlay = nil
        if let r = renderer { SDL_DestroyRenderer(r) }
        surface = s
        renderer = SDL_CreateSoftwareRenderer(s)
        guard let r = renderer else { return false }
        frame = FrameRenderer(renderer: r)
        overlay = Overlay(renderer: r, fontCandidates: fontCandidates)
        return true
    }

    /// The window's size in points and pixels as the rest of the window sees it (rotated).
    func logicalSizes() -> (ww: Int32, wh: Int32, ow: Int32, oh: Int32) {
        var ww: Int32 = 0, wh: Int32 = 0, ow: Int32 = 0, oh: Int32 = 0
        if let window { SDL_GetWindowSize(window, &ww, &wh) }
        if let renderer { SDL_GetRendererOutputSize(renderer, &ow, &oh) }
        return rotation?.swapsAxes == true ? (wh, ww, oh, ow) : (ww, wh, ow, oh)
    }

    /// Turns an event's coordinates from the screen's to the drawn frame's (rotated only).
    func unrotate(_ e: inout SDL_Event) {
        guard let rotation, let window else { return }
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        rotation.unrotate(&e, windowWidth: w, windowHeight: h)
    }

    /// Draws go to the rotation's target when the picture is turned.
    func beginFrame() {
        guard let rotation, let renderer else { return }
        let s = logicalSizes()
        rotation.begin(renderer, outputWidth: s.ow, outputHeight: s.oh)
    }

    /// The drawn frame onto the screen (turned when rotated) and shown.
    func endFrame() {
        if let rotation, let renderer { rotation.end(renderer) }
        if let presenter { presenter.present(nil) } else if surfaceMode { SDL_UpdateWindowSurface(window) } else { SDL_RenderPresent(renderer) }
    }

    /// Software path: pushes only these output rects of the window surface to the screen.
    func updateSurface(_ rects: [SDL_Rect]) {
        guard !rects.isEmpty else { return }
        if let presenter { presenter.present(rects); return }
        rects.withUnsafeBufferPointer { _ = SDL_UpdateWindowSurfaceRects(window, $0.baseAddress, Int32($0.count)) }
    }

    /// The soft cursor's sprite on this renderer, made with `image` (nil: the arrow) when first needed.
    func softCursorSprite(_ image: CursorImage?) -> SoftCursorSprite? {
        if softCursor == nil, let renderer {
            softCursor = SoftCursorSprite(renderer: renderer)
            softCursor?.setImage(image)
        }
        return softCursor
    }

    /// The server's cursor shape changed: a sprite already made takes it.
    func setSoftCursorImage(_ image: CursorImage?) { softCursor?.setImage(image) }

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
