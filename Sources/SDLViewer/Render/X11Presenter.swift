import CSDL2
import CXCB
import Glibc
import RFB

/// The window's pixels on X11 at 1:1 with nothing over the desktop, shown straight from the
/// framebuffer: its pixels are a shared-memory segment (`X11ShmPixels`) the X server attaches
/// read-only, and each present is a MIT-SHM PutImage per damaged rect from it into SDL's window.
/// No copy of ours: the window surface path copied every damaged pixel into SDL's XShm image
/// first (16 % of the window's CPU on the paced 2560x1440 replay) and kept the desktop twice
/// (SDL's image stays untouched now, so not resident). Overlays, scaling and rotation still draw
/// through SDL's surface. A connection of our own (as the clipboard's reader has): SDL's Xlib
/// one is not ours to read errors from; both wait for the X server at each present, so their
/// drawing keeps its order. Main thread only.
final class X11Presenter {
    private let conn: OpaquePointer
    private let window: xcb_window_t
    private let gc: xcb_gcontext_t
    private let pixels: X11ShmPixels
    /// The segment the X server has attached, by our shm id.
    private var attached: (shmid: Int32, seg: xcb_shm_seg_t)?
    /// Set when the X server refused a segment or a PutImage: the window surface path from then on.
    private(set) var failed = false

    /// nil when the window is not an X11 one, the X server has no MIT-SHM (a remote display)
    /// or the window does not take 32-bit 0x00RRGGBB pixels in this byte order (depth 24).
    init?(window sdlWindow: OpaquePointer, pixels: X11ShmPixels) {
        var info = SDL_SysWMinfo()
        info.version = SDL_version(major: UInt8(SDL_MAJOR_VERSION), minor: UInt8(SDL_MINOR_VERSION), patch: UInt8(SDL_PATCHLEVEL))
        guard SDL_GetWindowWMInfo(sdlWindow, &info) == SDL_TRUE, info.subsystem == SDL_SYSWM_X11,
              let display = info.info.x11.display, let name = XDisplayString(display),
              X11Presenter.isLocal(String(cString: name)) else { return nil }
        // the display SDL opened, whatever DISPLAY says now
        guard let c = xcb_connect(name, nil) else { return nil }
        let win = xcb_window_t(truncatingIfNeeded: info.info.x11.window)
        guard xcb_connection_has_error(c) == 0, X11Presenter.usable(c, win) else {
            xcb_disconnect(c)
            return nil
        }
        conn = c
        window = win
        self.pixels = pixels
        gc = xcb_generate_id(c)
        // black for the margins; no GraphicsExpose events for PutImage
        let values: [UInt32] = [0, 0]
        xcb_create_gc(c, gc, win, XCB_GC_FOREGROUND.rawValue | XCB_GC_GRAPHICS_EXPOSURES.rawValue, values)
    }

    deinit {
        if let a = attached { xcb_shm_detach(conn, a.seg) }
        xcb_free_gc(conn, gc)
        xcb_flush(conn)
        xcb_disconnect(conn)
    }

    /// A display on this machine (":0", "unix:0"): our segment ids mean nothing to another
    /// one's X server (an ssh-forwarded "localhost:10" reports MIT-SHM all the same).
    static func isLocal(_ display: String) -> Bool {
        display.hasPrefix(":") || display.hasPrefix("unix:") || display.hasPrefix("/")
    }

    /// MIT-SHM there, the window 24 bits deep, pixels 32 bits little-endian.
    private static func usable(_ c: OpaquePointer, _ win: xcb_window_t) -> Bool {
        guard let ext = xcb_get_extension_data(c, farcast_xcb_shm_id()), ext.pointee.present != 0,
              let setup = xcb_get_setup(c), setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue) else { return false }
        var formats = xcb_setup_pixmap_formats_iterator(setup)
        var bpp24: UInt8 = 0
        while formats.rem > 0 {
            if formats.data.pointee.depth == 24 { bpp24 = formats.data.pointee.bits_per_pixel }
            xcb_format_next(&formats)
        }
        guard bpp24 == 32, let geo = xcb_get_geometry_reply(c, xcb_get_geometry(c, win), nil) else { return false }
        defer { free(geo) }
        return geo.pointee.depth == 24
    }

    /// Whether `fb`'s pixels are a segment this presenter can show.
    func canShow(_ fb: Framebuffer) -> Bool { !failed && pixels.segment(of: fb.pixels) != nil }

    /// Shows `rects` of `fb` (framebuffer coordinates, already inside it) at `dx`,`dy` in the
    /// window, and with `margins` paints those window rects black; returns when the X server has
    /// read them (so a decoder may write the pixels again). False, having drawn nothing, when
    /// the pixels are not a segment the X server could attach: the caller copies instead. The
    /// caller holds the lock that guards `fb`.
    func present(_ fb: Framebuffer, _ rects: [Rect], dx: Int, dy: Int, margins: [Rect]) -> Bool {
        guard !failed, let shmid = pixels.segment(of: fb.pixels), let seg = segment(shmid) else { return false }
        if !margins.isEmpty {
            let xr = margins.map { xcb_rectangle_t(x: Int16(clamping: $0.x), y: Int16(clamping: $0.y),
                                                   width: UInt16(clamping: $0.w), height: UInt16(clamping: $0.h)) }
            xcb_poly_fill_rectangle(conn, window, gc, UInt32(xr.count), xr)
        }
        let tw = UInt16(clamping: fb.width), th = UInt16(clamping: fb.height)
        for r in rects where !r.isEmpty {
            xcb_shm_put_image(conn, window, gc, tw, th, UInt16(r.x), UInt16(r.y), UInt16(r.w), UInt16(r.h),
                              Int16(clamping: r.x + dx), Int16(clamping: r.y + dy), 24,
                              UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), 0, seg, 0)
        }
        roundTrip()
        return !failed
    }

    /// The X server's id for our segment `shmid`, attached now if it is a new one (after a
    /// resize); nil when the X server refused it.
    private func segment(_ shmid: Int32) -> xcb_shm_seg_t? {
        if let a = attached, a.shmid == shmid { return a.seg }
        if let a = attached { xcb_shm_detach(conn, a.seg) }
        attached = nil
        let seg = xcb_generate_id(conn)
        if let err = xcb_request_check(conn, xcb_shm_attach_checked(conn, seg, UInt32(bitPattern: shmid), 1)) {
            free(err)
            failed = true
            return nil
        }
        attached = (shmid, seg)
        return seg
    }

    /// Waits until the X server has handled everything sent (one request with a reply), and
    /// reads what it sent meanwhile: an error means the window surface path from now on.
    private func roundTrip() {
        if let reply = xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn), nil) { free(reply) }
        if xcb_connection_has_error(conn) != 0 { failed = true; return }
        while let e = xcb_poll_for_event(conn) {
            if e.pointee.response_type == 0 { failed = true }
            free(e)
        }
    }
}
