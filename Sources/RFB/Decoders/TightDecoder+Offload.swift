import Dispatch

/// Basic Tight rects on the lanes of a TightOffload: each zlib stream has a serial queue and a
/// decoder of its own (its scratch, palette and gradient row) sharing the connection's streams,
/// so a stream's rects and resets keep their order while the streams run side by side.
extension TightDecoder {
    final class Lane: @unchecked Sendable {
        let queue: DispatchQueue
        /// Used on `queue` only.
        let worker: TightDecoder
        /// Session thread: work went down the lane since it was last known empty, so the stream
        /// may still be in use there.
        var busy = false
        init(allowsPNG: Bool, streams: [ZStream]) {
            queue = DispatchQueue(label: "farcast.tight.lane")
            worker = TightDecoder(png: allowsPNG, streams: streams)
        }
    }

    /// What the session thread parsed of a basic rect, for the lane that decodes it.
    struct BasicPlan: Sendable {
        let stream: Int
        let filter: Int
        /// The palette's TPIXELs as sent (empty without the palette filter).
        let colours: [UInt8]
        let count: Int
        let rowSize: Int
        let dataSize: Int
    }

    /// Resets follow the rects queued on their stream: a stream is never reset under a rect
    /// still inflating on it.
    func resetOnLanes(_ bits: UInt8) {
        for i in 0..<min(4, lanes.count) where bits & (1 << i) != 0 {
            let s = streams[i]
            if lanes[i].busy { lanes[i].queue.async { s.reset() } } else { s.reset() }
        }
    }

    /// Before the session thread uses stream `i` itself: whatever went down its lane is done.
    func settleLane(_ i: Int) {
        guard i < lanes.count, lanes[i].busy else { return }
        lanes[i].queue.sync {}
        lanes[i].busy = false
    }

    /// Whether a basic rect goes to its stream's lane (true) or decodes here (false).
    func wantsLane(_ stream: Int, _ rect: Rect) -> Bool {
        guard stream < lanes.count else { return false }
        return lanes[stream].busy || rect.area >= (offload?.minPixels ?? 0)
    }

    func submitBasic(_ offload: TightOffload, rect: Rect, fb: Framebuffer, pf: PixelConverter,
                     data: UnsafePointer<UInt8>, length: Int, plan: BasicPlan) throws {
        guard plan.stream < lanes.count else { throw ProtocolError("internal: Tight stream \(plan.stream) has no lane") }
        let worker = lanes[plan.stream].worker
        lanes[plan.stream].busy = true
        try offload.submit(rect: rect, data: data, length: length, fb: fb, lane: lanes[plan.stream].queue) { job in
            worker.paintBasic(job, plan, pf)
        }
        deferredLastRect = true
    }

    /// On the lane: inflates the job's bytes on its stream and draws the rect straight into the
    /// framebuffer, under the decoders' shared side of its lock (no other rect in flight meets it).
    func paintBasic(_ job: TightOffload.Job, _ plan: BasicPlan, _ pf: PixelConverter) {
        do {
            try streams[plan.stream].inflateExactly(job.data, count: job.length, into: scratch, size: plan.dataSize,
                                                    what: "Tight rect \(job.rect) zlib stream \(plan.stream)")
            if job.rect.isEmpty { return }
            let data = UnsafePointer(scratch.pointer)
            let fb = job.fb, rect = job.rect
            try fb.lock.withWriterLock {
                guard fb.contains(rect) else { throw ProtocolError("internal: Tight rect \(rect) outside the framebuffer") }
                if plan.filter == TightDecoder.filterPalette {
                    try plan.colours.withUnsafeBufferPointer { c in
                        guard let base = c.baseAddress else { throw ProtocolError("Tight rect \(rect): empty palette") }
                        try drawPalette(rect: rect, fb: fb, pf: pf, colours: base, count: plan.count, data: data,
                                        rowSize: plan.rowSize)
                    }
                } else if plan.filter == TightDecoder.filterGradient {
                    drawGradient(rect: rect, fb: fb, pf: pf, data: data)
                } else {
                    drawCopy(rect: rect, fb: fb, pf: pf, data: data, rowSize: plan.rowSize)
                }
                fb.addDamage(rect)
            }
        } catch let e as ProtocolError {
            job.failure = e.message
        } catch {
            job.failure = "Tight rect \(job.rect): \(error)"
        }
    }
}
