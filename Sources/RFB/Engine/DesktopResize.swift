/// Resizes the server asks for (DesktopSize, ExtendedDesktopSize). A resize rect is 12 bytes
/// and a resize allocates and clears up to 256 MiB, so the engine makes only the last of a run:
/// a resize is noted when its rect arrives (its events go out then, in stream order, whatever
/// the feeding) and made just before the next rect that draws, or when parsing stops, so the
/// front end never sees a framebuffer of a size the server has already left. The one made is
/// counted as work: a flood of resizes between rects of pixels still lets the session thread
/// look at its commands and at `stop()`.
extension ClientEngine {
    /// The desktop's size as the server last set it (a resize not yet made included); nil
    /// before ServerInit. What update requests and the continuous-updates region cover.
    public var desktopBounds: Rect? {
        if let p = pendingResize { return Rect(x: 0, y: 0, w: p.width, h: p.height) }
        return framebuffer?.bounds
    }

    /// Notes a resize to `width`x`height` (checked against the limits by the caller).
    func noteResize(width: Int, height: Int) {
        pendingResize = (width, height)
        flow.regionStale = flow.continuousUpdates
    }

    /// Makes the noted resize, if any: before a rect draws, and when parsing stops.
    func applyResize() throws {
        guard let p = pendingResize, let fb = framebuffer else { return }
        pendingResize = nil
        guard p.width != fb.width || p.height != fb.height else { return }
        // rects on workers write the old pixels
        if let o = jobs, o.hasPending { try o.drain() }
        // made outside the lock (the workers are drained: nothing else writes the old pixels),
        // swapped in under it: the window never waits for 256 MiB to be cleared and copied
        let pixels = fb.resizedPixels(width: p.width, height: p.height)
        fb.lock.withWriterLock { fb.adopt(pixels, width: p.width, height: p.height) }
        stats.resizes += 1
        addWork(p.width * p.height)
    }
}
