import CSDL2
import Foundation
import Interaction
import RFB

/// The framebuffer as a streaming texture in its own format (XRGB8888, SDL's RGB888), so an
/// upload is a copy of the damaged rows. Main thread only.
public final class FrameRenderer {
    let renderer: OpaquePointer
    private(set) var texture: OpaquePointer?
    /// The framebuffer's size: the part of the texture in use.
    public private(set) var textureWidth = 0, textureHeight = 0
    /// The texture's own size: a framebuffer that fits in it reuses it (a server resizing
    /// again and again costs no new texture each time), unless it would use under a quarter.
    private(set) var allocatedWidth = 0, allocatedHeight = 0
    /// Pixels and rects sent to the texture by the last `upload` (tests and the benchmark).
    public private(set) var lastUploadPixels = 0, lastUploadRects = 0
    /// The framebuffer rects the last `upload` changed (the whole framebuffer after a resize).
    public private(set) var lastDamage: [Rect] = []
    private var linear: Bool?

    public init(renderer: OpaquePointer) { self.renderer = renderer }
    deinit { if let t = texture { SDL_DestroyTexture(t) } }

    /// Damage taken from the framebuffer and not uploaded yet (over the budget of a present).
    var carried: [Rect] = []
    /// Pixels one present uploads at most: a 4K frame, so ordinary streams upload whole each
    /// present, while a flood of full-screen updates on a huge desktop cannot make a present
    /// (and so the menu or a prompt answering a key) wait for hundreds of megabytes of copies.
    public static let uploadBudgetPixels = 3840 * 2160
    /// Damage is still waiting for a later present.
    public var hasPendingUpload: Bool { !carried.isEmpty }

    /// Copies what changed since the last call, up to `budget` pixels (the rest waits for the
    /// next call). The caller holds the lock that guards `fb`. A new framebuffer size
    /// (DesktopSize) gets a texture (a new one unless it fits in the last) and uploads it
    /// whole, over as many calls as the budget takes.
    @discardableResult
    public func upload(_ fb: Framebuffer, budget: Int = FrameRenderer.uploadBudgetPixels) -> Bool {
        lastUploadPixels = 0; lastUploadRects = 0; lastDamage = []
        guard fb.width > 0, fb.height > 0 else { return false }
        if texture == nil || fb.width != textureWidth || fb.height != textureHeight {
            let fits = fb.width <= allocatedWidth && fb.height <= allocatedHeight
                && fb.width * fb.height * 4 >= allocatedWidth * allocatedHeight
            if texture == nil || !fits {
                if let t = texture { SDL_DestroyTexture(t) }
                linear = nil
                texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGB888.rawValue,
                                            Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), Int32(fb.width), Int32(fb.height))
                guard texture != nil else {
                    FileHandle.standardError.write(Data("viewer: cannot make a \(fb.width)x\(fb.height) texture: \(String(cString: SDL_GetError()))\n".utf8))
                    textureWidth = 0; textureHeight = 0; allocatedWidth = 0; allocatedHeight = 0
                    return false
                }
                allocatedWidth = fb.width; allocatedHeight = fb.height
            }
            textureWidth = fb.width; textureHeight = fb.height
            blackMargin()
            // the whole new size, within the budget like any damage: a server resizing a huge
            // desktop again and again cannot make a present copy all of it each time
            _ = fb.takeDamage()
            carried = [fb.bounds]
        }
        guard let work = takeWork(fb, budget: budget) else { return false }
        for r in work { send(fb, r) }
        return true
    }

    /// The damaged rects to handle now within `budget` pixels, the rest carried to the next
    /// call; nil when nothing changed.
    func takeWork(_ fb: Framebuffer, budget: Int) -> [Rect]? {
        let fresh = fb.takeDamage()
        if fresh.isEmpty && carried.isEmpty { return nil }
        var todo = carried + fresh
        // many carried rects collapse into their bounding box: the list stays short
        if todo.count > 64 { todo = [todo.dropFirst().reduce(todo[0]) { $0.union($1) }] }
        carried = []
        var now: [Rect] = []
        var left = max(1, budget)
        for r0 in todo {
            let r = r0.intersection(fb.bounds)
            if r.isEmpty { continue }
            if left <= 0 { carried.append(r); continue }
            if r.area <= left { now.append(r); left -= r.area; continue }
            // the top rows that fit now, the rest later
            let rows = max(1, left / max(1, r.w))
            now.append(Rect(x: r.x, y: r.y, w: r.w, h: rows))
            left -= rows * r.w
            if rows < r.h { carried.append(Rect(x: r.x, y: r.y + rows, w: r.w, h: r.h - rows)) }
        }
        return now
    }

    /// The direct path (FrameRenderer+Direct) draws without the texture: it goes, and the
    /// next upload makes it anew and sends the framebuffer whole.
    func releaseTexture() {
        guard let t = texture else { return }
        SDL_DestroyTexture(t)
        texture = nil
        textureWidth = 0; textureHeight = 0; allocatedWidth = 0; allocatedHeight = 0
        linear = nil
    }
    /// Output rects the last `copyDirect` or `presentShared` drew.
    var directRects: [SDL_Rect] = []
    /// Whether the last direct present is on the screen already (`presentShared`), or still
    /// only in the window surface (`copyDirect`: SDL_UpdateWindowSurfaceRects shows it).
    var directShown = false

    /// In a reused texture, the column and row just past the framebuffer are black: scaled
    /// (linear filtering) the edge pixels blend with them, not with a larger desktop's pixels.
    private func blackMargin() {
        guard let t = texture else { return }
        let edges = [Rect(x: textureWidth, y: 0, w: min(1, allocatedWidth - textureWidth), h: min(allocatedHeight, textureHeight + 1)),
                     Rect(x: 0, y: textureHeight, w: min(allocatedWidth, textureWidth + 1), h: min(1, allocatedHeight - textureHeight))]
        for r in edges where !r.isEmpty {
            let black = [UInt32](repeating: 0, count: r.area)
            var sr = SDL_Rect(x: Int32(r.x), y: Int32(r.y), w: Int32(r.w), h: Int32(r.h))
            _ = black.withUnsafeBytes { SDL_UpdateTexture(t, &sr, $0.baseAddress, Int32(r.w * 4)) }
        }
    }

    private func send(_ fb: Framebuffer, _ r: Rect) {
        guard !r.isEmpty, let t = texture else { return }
        var sr = SDL_Rect(x: Int32(r.x), y: Int32(r.y), w: Int32(r.w), h: Int32(r.h))
        SDL_UpdateTexture(t, &sr, fb.pixels + r.y * fb.width + r.x, Int32(fb.width * 4))
        lastUploadPixels += r.area
        lastUploadRects += 1
        lastDamage.append(r)
    }

    /// Clears to black and draws the visible part of the framebuffer where the viewport says:
    /// nearest filtering at 1:1 (crisp pixels), linear when scaled.
    public func draw(_ vp: Viewport) {
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        copy(vp)
    }

    /// Redraws only `clip` (output pixels): for presenting just what changed.
    public func draw(_ vp: Viewport, clip: SDL_Rect) {
        var c = clip
        SDL_RenderSetClipRect(renderer, &c)
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_NONE)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderFillRect(renderer, &c)  // RenderClear would ignore the clip
        copy(vp)
        SDL_RenderSetClipRect(renderer, nil)
    }

    /// Where framebuffer rect `r` lands in the output, widened by the filter's reach when
    /// scaled; nil when it is not visible.
    public func outputRect(_ r: Rect, _ vp: Viewport) -> SDL_Rect? {
        guard vp.framebufferWidth > 0, vp.framebufferHeight > 0 else { return nil }
        let c = vp.content
        let sx = c.w / Double(vp.framebufferWidth), sy = c.h / Double(vp.framebufferHeight)
        let grow = vp.isOneToOne ? 0.0 : sx.rounded(.up) + 1
        let x0 = max(0, (c.x + Double(r.x) * sx - grow).rounded(.down))
        let y0 = max(0, (c.y + Double(r.y) * sy - grow).rounded(.down))
        let x1 = min(Double(vp.outputWidth), (c.x + Double(r.maxX) * sx + grow).rounded(.up))
        let y1 = min(Double(vp.outputHeight), (c.y + Double(r.maxY) * sy + grow).rounded(.up))
        guard x1 > x0, y1 > y0 else { return nil }
        return SDL_Rect(x: Int32(x0), y: Int32(y0), w: Int32(x1 - x0), h: Int32(y1 - y0))
    }

    /// Redraws the output rects under the last upload's damage; returns them for presenting.
    public func drawDamage(_ vp: Viewport) -> [SDL_Rect] {
        let rects = lastDamage.compactMap { outputRect($0, vp) }
        for r in rects { draw(vp, clip: r) }
        return rects
    }

    /// Draws framebuffer rect `r` scaled into `dst` (a thumbnail); false without that part.
    @discardableResult
    func drawThumbnail(_ r: Rect, into dst: SDL_Rect) -> Bool {
        guard let t = texture, r.x >= 0, r.y >= 0, r.w > 0, r.h > 0, r.x + r.w <= textureWidth, r.y + r.h <= textureHeight else { return false }
        if linear != true { SDL_SetTextureScaleMode(t, SDL_ScaleModeLinear); linear = true }
        var src = SDL_Rect(x: Int32(r.x), y: Int32(r.y), w: Int32(r.w), h: Int32(r.h))
        var d = dst
        return SDL_RenderCopy(renderer, t, &src, &d) == 0
    }

    private func copy(_ vp: Viewport) {
        guard let t = texture, textureWidth == vp.framebufferWidth, textureHeight == vp.framebufferHeight,
              let (s, d) = vp.drawRects() else { return }
        let wantLinear = !vp.isOneToOne
        if linear != wantLinear {
            SDL_SetTextureScaleMode(t, wantLinear ? SDL_ScaleModeLinear : SDL_ScaleModeNearest)
            linear = wantLinear
        }
        var src = SDL_Rect(x: Int32(s.x), y: Int32(s.y), w: Int32(s.w), h: Int32(s.h))
        var dst = SDL_FRect(x: Float(d.x), y: Float(d.y), w: Float(d.w), h: Float(d.h))
        SDL_RenderCopyF(renderer, t, &src, &dst)
    }
}
