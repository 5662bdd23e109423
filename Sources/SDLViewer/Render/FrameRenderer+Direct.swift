import CSDL2
import Interaction
import RFB

/// The software path's shortcut: at 1:1 with nothing drawn over the desktop, damaged rows go
/// from the framebuffer straight into the window surface, one copy. Through the texture they
/// took three (framebuffer to texture, a black fill, texture to window), which made the window
/// cost more than the decoding on busy desktops. Main thread only.
extension FrameRenderer {
    /// Whether `surface` takes the framebuffer's pixels as they are (32-bit XRGB in memory).
    static func takesFramebufferPixels(_ surface: UnsafeMutablePointer<SDL_Surface>) -> Bool {
        guard let f = surface.pointee.format else { return false }
        let fmt = f.pointee.format
        return (fmt == SDL_PIXELFORMAT_RGB888.rawValue || fmt == SDL_PIXELFORMAT_ARGB8888.rawValue)
            && surface.pointee.pixels != nil && surface.pointee.pitch >= surface.pointee.w * 4
    }

    /// Copies what changed (up to `budget` pixels) into `surface` where the viewport shows it;
    /// false when the viewport is not 1:1 on whole pixels (the texture path draws it then).
    /// The damaged output rects are left in `directRects` for SDL_UpdateWindowSurfaceRects.
    /// The caller holds the lock that guards `fb`.
    func copyDirect(_ fb: Framebuffer, into surface: UnsafeMutablePointer<SDL_Surface>, _ vp: Viewport,
                    budget: Int = FrameRenderer.uploadBudgetPixels) -> Bool {
        directRects = []
        guard vp.isOneToOne, fb.width == vp.framebufferWidth, fb.height == vp.framebufferHeight,
              let (src, dst) = vp.drawRects(), dst.x == dst.x.rounded(), dst.y == dst.y.rounded() else { return false }
        // framebuffer pixel (x, y) lands at (x + dx, y + dy), inside `shown` only
        let dx = Int(dst.x) - src.x, dy = Int(dst.y) - src.y
        let sw = Int(surface.pointee.w), sh = Int(surface.pointee.h)
        let shown = Rect(x: src.x, y: src.y, w: src.w, h: src.h)
            .intersection(Rect(x: -dx, y: -dy, w: sw, h: sh))
        guard let work = takeWork(fb, budget: budget) else { return true }
        textureStale = true
        let lock = surface.pointee.flags & UInt32(SDL_RLEACCEL) != 0  // SDL_MUSTLOCK
        if lock && SDL_LockSurface(surface) != 0 { return false }
        defer { if lock { SDL_UnlockSurface(surface) } }
        guard let base = surface.pointee.pixels?.assumingMemoryBound(to: UInt8.self) else { return false }
        let pitch = Int(surface.pointee.pitch)
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
            directRects.append(SDL_Rect(x: Int32(r.x + dx), y: Int32(r.y + dy), w: Int32(r.w), h: Int32(r.h)))
        }
        return true
    }
}
