import CSDL2
import Interaction
import RFB

/// The software path's shortcut: at 1:1 with nothing drawn over the desktop, damaged rows go
/// from the framebuffer straight into the window surface, one copy. Through the texture they
/// took three (framebuffer to texture, a black fill, texture to window), which made the window
/// cost more than the decoding on busy desktops. Whole frames (the first, after a resize or an
/// overlay) go the same way, and the texture is let go while this path draws: the window then
/// holds two copies of the desktop (framebuffer, window surface), as vncviewer's does, not three
/// (8.3 MB less at 1080p). Main thread only.
extension FrameRenderer {
    /// Whether `surface` takes the framebuffer's pixels as they are (32-bit XRGB in memory).
    static func takesFramebufferPixels(_ surface: UnsafeMutablePointer<SDL_Surface>) -> Bool {
        guard let f = surface.pointee.format else { return false }
        let fmt = f.pointee.format
        return (fmt == SDL_PIXELFORMAT_RGB888.rawValue || fmt == SDL_PIXELFORMAT_ARGB8888.rawValue)
            && surface.pointee.pixels != nil && surface.pointee.pitch >= surface.pointee.w * 4
    }

    /// Copies what changed (up to `budget` pixels) into `surface` where the viewport shows it;
    /// with `whole`, all of the window: the shown desktop and black around it. False when the
    /// viewport is not 1:1 on whole pixels, or a whole frame is over the budget (the texture
    /// path draws it then). The output rects written are left in `directRects` for
    /// SDL_UpdateWindowSurfaceRects. The caller holds the lock that guards `fb`.
    func copyDirect(_ fb: Framebuffer, into surface: UnsafeMutablePointer<SDL_Surface>, _ vp: Viewport,
                    whole: Bool = false, budget: Int = FrameRenderer.uploadBudgetPixels) -> Bool {
        directRects = []
        guard vp.isOneToOne, fb.width == vp.framebufferWidth, fb.height == vp.framebufferHeight,
              let (src, dst) = vp.drawRects(), dst.x == dst.x.rounded(), dst.y == dst.y.rounded() else { return false }
        // framebuffer pixel (x, y) lands at (x + dx, y + dy), inside `shown` only
        let dx = Int(dst.x) - src.x, dy = Int(dst.y) - src.y
        let sw = Int(surface.pointee.w), sh = Int(surface.pointee.h)
        let shown = Rect(x: src.x, y: src.y, w: src.w, h: src.h)
            .intersection(Rect(x: -dx, y: -dy, w: sw, h: sh))
        let work: [Rect]
        if whole {
            guard shown.area <= budget else { return false }
            _ = fb.takeDamage()
            carried = []
            work = [shown]
        } else {
            guard let w = takeWork(fb, budget: budget) else { return true }
            work = w
        }
        releaseTexture()
        let lock = surface.pointee.flags & UInt32(SDL_RLEACCEL) != 0  // SDL_MUSTLOCK
        if lock && SDL_LockSurface(surface) != 0 { return false }
        defer { if lock { SDL_UnlockSurface(surface) } }
        guard let base = surface.pointee.pixels?.assumingMemoryBound(to: UInt8.self) else { return false }
        let pitch = Int(surface.pointee.pitch)
        if whole {
            let desktop = Rect(x: shown.x + dx, y: shown.y + dy, w: shown.w, h: shown.h)
            if desktop != Rect(x: 0, y: 0, w: sw, h: sh) {
                // black around the desktop (the whole surface once: margins are the rare case)
                let black = base
                for row in 0..<sh { (black + row * pitch).initialize(repeating: 0, count: sw * 4) }
            }
            directRects = [SDL_Rect(x: 0, y: 0, w: Int32(sw), h: Int32(sh))]
        }
        for r0 in work {
            let r = r0.intersection(shown)
            if r.isEmpty { continue }
            // checked once per rect: r lies inside the framebuffer and, moved, inside the surface
            let rowBytes = r.w * 4
            var from = UnsafeRawPointer(fb.pixels + r.y * fb.width + r.x)
            var to = base + (r.y + dy) * pitch + (r.x + dx) * 4
            for _ in 0..<r.h {
                to.update(from: from.assumingMemoryBound(to: UInt8.self), count: rowBytes)
                from += fb.width * 4
                to += pitch
            }
            if !whole { directRects.append(SDL_Rect(x: Int32(r.x + dx), y: Int32(r.y + dy), w: Int32(r.w), h: Int32(r.h))) }
        }
        return true
    }
}
