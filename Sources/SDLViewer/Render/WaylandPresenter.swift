import CSDL2
import CWaylandPresent

/// The window's pixels on Wayland without a GPU: the software path draws into `canvas` (an
/// SDL_Surface in our memory, the size of the window in device pixels), and each present copies
/// what changed into a free `wl_shm` buffer attached to SDL's own `wl_surface`. SDL 2.26 has no
/// window surface on Wayland but a GL renderer, which llvmpipe draws with the CPU: the whole
/// window rasterised and copied every frame (9-16 ms a frame against 1.5 ms here, measured in
/// docs/design/wayland-findings.md section 6). SDL still owns the window, its xdg_toplevel, its
/// buffer scale and viewport; we only attach, damage and commit. Main thread only.
final class WaylandPresenter {
    private let handle: OpaquePointer
    private(set) var canvas: UnsafeMutablePointer<SDL_Surface>?

    /// nil when the window is not a Wayland one or the compositor has no wl_shm.
    init?(window: OpaquePointer) {
        var info = SDL_SysWMinfo()
        info.version = SDL_version(major: UInt8(SDL_MAJOR_VERSION), minor: UInt8(SDL_MINOR_VERSION), patch: UInt8(SDL_PATCHLEVEL))
        guard SDL_GetWindowWMInfo(window, &info) == SDL_TRUE, info.subsystem == SDL_SYSWM_WAYLAND,
              let display = info.info.wl.display, let surface = info.info.wl.surface,
              let h = fc_wl_presenter_create(UnsafeMutableRawPointer(display), UnsafeMutableRawPointer(surface)) else { return nil }
        handle = h
    }

    deinit {
        if let canvas { SDL_FreeSurface(canvas) }
        fc_wl_presenter_destroy(handle)
    }

    /// A canvas of the window's size in device pixels: the same one while the size holds, a new
    /// one (`new`: black, to be drawn whole) after a resize; nil when memory runs out. A new one
    /// can have the old one's address: `new` is what tells.
    func canvas(for window: OpaquePointer) -> (surface: UnsafeMutablePointer<SDL_Surface>, new: Bool)? {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSizeInPixels(window, &w, &h)
        w = max(w, 1); h = max(h, 1)
        if let c = canvas, c.pointee.w == w, c.pointee.h == h { return (c, false) }
        if let c = canvas { SDL_FreeSurface(c) }
        // XRGB8888: wl_shm's format every compositor has, and SDL's RGB888 (the framebuffer's)
        canvas = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGB888.rawValue)
        return canvas.map { ($0, true) }
    }

    /// Shows what changed: `rects` in canvas pixels, or the whole canvas when nil. Waits up to
    /// one refresh for a buffer the compositor gave back; false when the connection failed.
    @discardableResult
    func present(_ rects: [SDL_Rect]?, timeoutMs: Int32 = 20) -> Bool {
        guard let c = canvas, let px = c.pointee.pixels else { return false }
        let flat = (rects ?? []).flatMap { [$0.x, $0.y, $0.w, $0.h] }
        let r = flat.withUnsafeBufferPointer {
            fc_wl_presenter_present(handle, px, c.pointee.w, c.pointee.h, c.pointee.pitch,
                                    $0.baseAddress, Int32(rects?.count ?? 0), rects == nil ? 1 : 0, timeoutMs)
        }
        return r >= 0
    }

    /// Buffers made, presents, presents that waited for a buffer, presents that found none.
    var stats: (buffers: Int32, presents: Int64, waits: Int64, dropped: Int64) {
        var b: Int32 = 0, p: Int64 = 0, w: Int64 = 0, d: Int64 = 0
        fc_wl_presenter_stats(handle, &b, &p, &w, &d)
        return (b, p, w, d)
    }
}
