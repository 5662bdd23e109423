import CSDL2
import Interaction
import RFB

/// The software path's shortcut: at 1:1 with nothing drawn over the desktop, damaged rows go
/// from the framebuffer to the window in one step. On X11 with the framebuffer in shared memory
/// the X server reads them itself (`presentShared`: no copy of ours); otherwise they are copied
/// into the window surface (`copyDirect`). Through the texture they took three copies
/// (framebuffer to texture, a black fill, texture to window), which made the window cost more
/// than the decoding on busy desktops. Whole frames (the first, after a resize or an overlay)
/// go the same way, and the texture is let go while this path draws (8.3 MB less at 1080p).
/// Main thread only.
extension FrameRenderer {
    /// Whether `surface` takes the framebuffer's pixels as they are (32-bit XRGB in memory).
    static func takesFramebufferPixels(_ surface: UnsafeMutablePointer<SDL_Surface>) -> Bool {
        guard let f = surface.pointee.format else { return false }
        let fmt = f.pointee.format
        return (fmt == SDL_PIXELFORMAT_RGB888.rawValue || fmt == SDL_PIXELFORMAT_ARGB8888.rawValue)
            && surface.pointee.pixels != nil && surface.pointee.pitch >= surface.pointee.w * 4
    }

    /// What one direct present draws: framebuffer rects (inside `shown`), moved by `dx`,`dy`
    /// into an output of `outputWidth`x`outputHeight`.
    struct DirectPlan {
        var work: [Rect]
        var dx: Int, dy: Int
        /// The framebuffer's part the output shows.
        var shown: Rect
        var outputWidth: Int, outputHeight: Int
        /// The desktop's place in the output.
        var desktop: Rect { Rect(x: shown.x + dx, y: shown.y + dy, w: shown.w, h: shown.h) }
        /// The output around the desktop (black in a whole frame).
        var margins: [Rect] {
            let d = desktop, w = outputWidth, h = outputHeight
            return [Rect(x: 0, y: 0, w: w, h: d.y), Rect(x: 0, y: d.y + d.h, w: w, h: h - d.y - d.h),
                    Rect(x: 0, y: d.y, w: d.x, h: d.h), Rect(x: d.x + d.w, y: d.y, w: w - d.x - d.w, h: d.h)]
                .filter { !$0.isEmpty }
        }
        /// Where `r` (a framebuffer rect of `work`) lands in the output.
        func output(_ r: Rect) -> SDL_Rect { SDL_Rect(x: Int32(r.x + dx), y: Int32(r.y + dy), w: Int32(r.w), h: Int32(r.h)) }
    }

    /// The damage (or with `whole`, all of the output) to draw now, up to `budget` pixels, taken
    /// from the framebuffer; nil when the viewport is not 1:1 on whole pixels, or a whole frame
    /// is over the budget (the texture path draws it then): nothing is taken then. The caller
    /// holds the lock that guards `fb`.
    func planDirect(_ fb: Framebuffer, outputWidth sw: Int, outputHeight sh: Int, _ vp: Viewport,
                    whole: Bool, budget: Int) -> DirectPlan? {
        guard vp.isOneToOne, fb.width == vp.framebufferWidth, fb.height == vp.framebufferHeight,
              let (src, dst) = vp.drawRects(), dst.x == dst.x.rounded(), dst.y == dst.y.rounded() else { return nil }
        // framebuffer pixel (x, y) lands at (x + dx, y + dy), inside `shown` only
        let dx = Int(dst.x) - src.x, dy = Int(dst.y) - src.y
        let shown = Rect(x: src.x, y: src.y, w: src.w, h: src.h)
            .intersection(Rect(x: -dx, y: -dy, w: sw, h: sh))
        var work: [Rect] = []
        if whole {
            guard shown.area <= budget else { return nil }
            _ = fb.takeDamage()
            carried = []
            work = [shown]
        } else if let w = takeWork(fb, budget: budget) {
            work = w.map { $0.intersection(shown) }.filter { !$0.isEmpty }
        }
        return DirectPlan(work: work, dx: dx, dy: dy, shown: shown, outputWidth: sw, outputHeight: sh)
    }

    /// Copies what changed (up to `budget` pixels) into `surface` where the viewport shows it;
    /// with `whole`, all of the window: the shown desktop and black around it. False when
    /// `planDirect` is. The output rects written are left in `directRects` for
    /// SDL_UpdateWindowSurfaceRects. The caller holds the lock that guards `fb`.
    func copyDirect(_ fb: Framebuffer, into surface: UnsafeMutablePointer<SDL_Surface>, _ vp: Viewport,
                    whole: Bool = false, budget: Int = FrameRenderer.uploadBudgetPixels) -> Bool {
        directRects = []
        directShown = false
        let sw = Int(surface.pointee.w), sh = Int(surface.pointee.h)
        guard let plan = planDirect(fb, outputWidth: sw, outputHeight: sh, vp, whole: whole, budget: budget) else { return false }
        if plan.work.isEmpty && !whole { return true }
        releaseTexture()
        let lock = surface.pointee.flags & UInt32(SDL_RLEACCEL) != 0  // SDL_MUSTLOCK
        if lock && SDL_LockSurface(surface) != 0 {
            carried = plan.work   // drawn by the next present
            return false
        }
        defer { if lock { SDL_UnlockSurface(surface) } }
        guard let base = surface.pointee.pixels?.assumingMemoryBound(to: UInt8.self) else { return false }
        let pitch = Int(surface.pointee.pitch)
        if whole {
            if plan.desktop != Rect(x: 0, y: 0, w: sw, h: sh) {
                // black around the desktop (the whole surface once: margins are the rare case)
                for row in 0..<sh { (base + row * pitch).initialize(repeating: 0, count: sw * 4) }
            }
            directRects = [SDL_Rect(x: 0, y: 0, w: Int32(sw), h: Int32(sh))]
        }
        for r in plan.work {
            // checked once per rect: r lies inside the framebuffer and, moved, inside the surface
            let rowBytes = r.w * 4
            var from = UnsafeRawPointer(fb.pixels + r.y * fb.width + r.x)
            var to = base + (r.y + plan.dy) * pitch + (r.x + plan.dx) * 4
            for _ in 0..<r.h {
                to.update(from: from.assumingMemoryBound(to: UInt8.self), count: rowBytes)
                from += fb.width * 4
                to += pitch
            }
            if !whole { directRects.append(plan.output(r)) }
        }
        return true
    }

    /// As `copyDirect`, with the X server reading the damaged rects from the framebuffer's own
    /// shared memory (`X11Presenter`) into the window of `outputWidth`x`outputHeight`: on the
    /// screen when it returns true (`directShown`). False, with the damage kept for the next
    /// present, when the presenter cannot show this framebuffer (its pixels are not in a segment
    /// the X server took): the caller copies then. The caller holds the lock that guards `fb`.
    func presentShared(_ fb: Framebuffer, through presenter: X11Presenter, outputWidth sw: Int, outputHeight sh: Int,
                       _ vp: Viewport, whole: Bool = false, budget: Int = FrameRenderer.uploadBudgetPixels) -> Bool {
        directRects = []
        directShown = false
        guard presenter.canShow(fb),
              let plan = planDirect(fb, outputWidth: sw, outputHeight: sh, vp, whole: whole, budget: budget) else { return false }
        if plan.work.isEmpty && !whole { directShown = true; return true }
        guard presenter.present(fb, plan.work, dx: plan.dx, dy: plan.dy, margins: whole ? plan.margins : []) else {
            carried = plan.work
            return false
        }
        releaseTexture()
        directRects = whole ? [SDL_Rect(x: 0, y: 0, w: Int32(sw), h: Int32(sh))] : plan.work.map(plan.output)
        directShown = true
        return true
    }
}
