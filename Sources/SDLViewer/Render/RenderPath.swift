/// How a viewer window's pixels reach the screen: chosen once per window, here and only here,
/// from the video driver, SDL_RENDER_DRIVER and what OpenGL turned out to be; `-v` logs the
/// choice with its reason. Figures behind it: docs/design/wayland-findings.md section 6 and the
/// README's table of render paths.
enum RenderPath: Equatable, Sendable {
    /// SDL's renderer (OpenGL or GLES2 on a GPU, or the one SDL_RENDER_DRIVER names).
    case renderer
    /// The window surface: X11's own shm image; on KMSDRM SDL's emulation (software asked for).
    case windowSurface
    /// Our own wl_shm buffers on SDL's wl_surface (WaylandPresenter).
    case waylandShm

    /// The path when it is known before any renderer is made, so OpenGL is not started only to
    /// be thrown away: software asked for, or X11 or Wayland on a machine with no GPU device
    /// (Mesa would give llvmpipe: starting it cost 0.13 s to the first picture and 69 MB
    /// resident for the life of the process, 1920x1080 under Xvfb). nil: make a renderer and
    /// `choose` with its GL_RENDERER.
    static func beforeRenderer(driver: String, renderDriver: String?, rotated: Bool, gpuDevice: Bool) -> (RenderPath, String)? {
        guard !rotated else { return nil }
        if renderDriver == "software" { return choose(driver: driver, renderDriver: renderDriver, glRenderer: nil, rotated: false) }
        let d = driver.lowercased()
        guard renderDriver == nil, !gpuDevice, d == "x11" || d == "wayland" else { return nil }
        let no = "no GPU device (no render node in /dev/dri)"
        return d == "wayland" ? (.waylandShm, "wayland, \(no): own wl_shm buffers, OpenGL not started (SDL_RENDER_DRIVER=opengl starts it)")
            : (.windowSurface, "\(no): drawing on the window surface, OpenGL not started (SDL_RENDER_DRIVER=opengl starts it)")
    }

    /// `driver`: SDL's video driver; `renderDriver`: SDL_RENDER_DRIVER; `glRenderer`: GL_RENDERER
    /// of the renderer made first (nil when none was made or it is not OpenGL); `rotated`: the
    /// picture is turned (it needs a renderer's target texture). Returns the path and why.
    static func choose(driver: String, renderDriver: String?, glRenderer: String?, rotated: Bool) -> (RenderPath, String) {
        let d = driver.lowercased()
        if rotated { return (.renderer, "a turned picture draws through a renderer's target texture") }
        if renderDriver == "software" {
            return d == "wayland" ? (.waylandShm, "wayland, software asked for (SDL_RENDER_DRIVER=software): own wl_shm buffers")
                : (.windowSurface, "software asked for (SDL_RENDER_DRIVER=software): the window surface")
        }
        if let rd = renderDriver { return (.renderer, "SDL_RENDER_DRIVER=\(rd)") }
        guard let gl = glRenderer else {
            return d == "wayland" ? (.waylandShm, "wayland, no OpenGL renderer: own wl_shm buffers")
                : (.renderer, "\(driver): SDL's renderer")
        }
        guard SoftwareGL.isSoftware(gl) else { return (.renderer, "\(driver), GPU (\(gl)): OpenGL") }
        switch d {
        case "x11":
            return (.windowSurface, "OpenGL here is \(gl), drawn by the CPU: drawing on the window surface instead (SDL_RENDER_DRIVER=opengl keeps OpenGL)")
        case "wayland":
            return (.waylandShm, "wayland, no GPU (\(gl)): own wl_shm buffers (SDL 2.26 has no window surface on Wayland; SDL_RENDER_DRIVER=opengl keeps OpenGL)")
        default:
            // KMSDRM: SDL's surface there is an emulation through the same renderer
            return (.renderer, "\(driver), no GPU (\(gl)): OpenGL drawn by the CPU")
        }
    }
}
