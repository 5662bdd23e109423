import CAVCodec

/// Open H.264 (encoding 50): u32 length, u32 flags, then `length` bytes of Annex B H.264.
/// Each rect (x, y, w, h) has its own decoder context, as the specification says; flag bit 0
/// resets the rect's context, bit 1 all of them. libavcodec's own parser cuts a rect's data
/// into access units (as TigerVNC's decoder does), so any slice count or parameter-set
/// placement splits as FFmpeg splits it; a rect may hold several pictures (the last is shown)
/// or none (parameter sets alone), and frames larger than the rect are cropped.
///
/// The codec work runs outside the framebuffer lock, which is taken only to copy the finished
/// picture in. Every picture counts against the engine's work budget, and pictures per rect
/// and per update are capped; contexts are bounded in number, in area and in memory.
final class H264Decoder: CancellableDecoder {
    static let resetContextFlag: UInt32 = 1
    static let resetAllContextsFlag: UInt32 = 2
    /// As TigerVNC and noVNC: past 64 contexts the least recently used one goes.
    static let maxContexts = 64
    /// Frames may exceed their rect by the padding encoders add: whole macroblocks (16),
    /// 32 or 64 for hardware encoders, in each direction (a 683x768 rect came coded 688x776).
    static let framePadding = 64
    /// libavcodec checks a frame's width rounded up to its SIMD row alignment (up to 64
    /// pixels) times its height against `max_pixels`.
    static let rowAlignment = 64
    /// All contexts' rects together may cover the framebuffer twice (a full-screen context
    /// beside window-sized ones); beyond that the least recently used go, so a server cannot
    /// make us hold 64 full-screen decoders.
    static let contextAreaFactor = 2
    /// Pictures (access units) in one rect. Servers send one a rect, and at times two when a
    /// frame was queued behind another (as in the report this limit came with); a server that
    /// fell behind by more than a second at 60 frames a second should drop frames, not send
    /// them all. Past this a rect is refused: 20,000 skipped 1080p pictures in one rect cost
    /// 33-37 s of CPU; 64 of them cost 0.1 s, a real 1080p picture 10-30 ms.
    static let maxPicturesPerRect = 64
    /// Decoded pixels in one update, in framebuffers: a server sends each context once an
    /// update, so an update holds at most a screen of pictures per picture a rect may carry.
    static let maxScreensPerUpdate = maxPicturesPerRect
    /// Memory all contexts (and the shared conversion buffer) may hold: a 4K context with three
    /// references is about 125 MB in libavcodec, 256 parameter sets in one context 90 MB;
    /// beyond this the least recently used contexts go. A context that needs more on its own
    /// ends the connection.
    static let minMemoryBudget = 256 << 20
    /// ...or, for framebuffers past 16 Mpixel, this much per framebuffer pixel: a full-screen
    /// context with its references and the conversion buffer.
    static let memoryBudgetPerPixel = 16
    /// The copy of a rect's data the parser reads (it needs zeros past the end) is kept for
    /// the next rect up to this size (a 1080p picture is rarely more); larger ones are freed.
    static let keptInputBytes = 1 << 20

    private let probe: LibraryProbe?
    private let tryHardware: Bool
    private var contexts: [H264Context] = []
    private var tick: UInt64 = 0
    private let scratch = ScratchBuffer()
    /// Frames converted straight into the framebuffer rather than through `scratch` (tests).
    private(set) var framesConvertedInPlace = 0
    private var input: [UInt8] = []
    private var hwDevice: UnsafeMutablePointer<AVBufferRef>?
    private var hwTried = false
    /// Pixels of pictures decoded since the last update ended.
    private var decodedInUpdate = 0
    /// See `RectDecoder.extraWork`.
    private(set) var extraWork = 0
    /// Looked at before each picture: a stopping session does not wait for the rest of a rect.
    var cancellation: DecodeCancellation?

    /// The budget in force instead of `memoryBudget(framebufferPixels:)` (tests).
    private let budgetOverride: Int?

    /// `tryHardware`: decode through VA-API when the machine has it (software otherwise).
    init(probe: LibraryProbe? = nil, tryHardware: Bool = true, memoryBudget: Int? = nil) {
        self.probe = probe
        self.tryHardware = tryHardware
        budgetOverride = memoryBudget
    }

    deinit { if hwDevice != nil { cav_av_buffer_unref(&hwDevice) } }

    /// Called unlocked by the engine: the decode runs outside the framebuffer lock.
    var locksFramebufferItself: Bool { true }

    /// Contexts alive now (tests).
    var contextRects: [Rect] { contexts.map(\.rect) }

    /// Bytes all contexts and the conversion buffer hold, as `H264Context.memoryBytes` counts (tests).
    var memoryBytes: Int { contexts.reduce(scratch.capacity) { $0 + $1.memoryBytes } }

    static func maxFramePixels(_ r: Rect) -> Int {
        let a = rowAlignment
        return (r.w + framePadding + a - 1) / a * a * (r.h + framePadding)
    }

    /// Eight bytes per pixel of the padded frame, +64 KiB for parameter sets: H.264's worst
    /// case (PCM macroblocks) is 1.5 bytes per pixel, so several frames fit in one rect.
    static func maxLength(_ r: Rect) -> Int { Limits.maxCompressedLength(rawSize: maxFramePixels(r) * 4) }

    static func memoryBudget(framebufferPixels: Int) -> Int {
        max(minMemoryBudget, framebufferPixels * memoryBudgetPerPixel)
    }

    func reset() {
        contexts.removeAll()
        decodedInUpdate = 0
    }

    func updateEnded() { decodedInUpdate = 0 }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        // One unit per rect: decoder state cannot be rewound, so every byte is buffered first.
        extraWork = 0
        try reader.require(8)
        let length = Int(try reader.u32())
        let flags = try reader.u32()
        let limit = H264Decoder.maxLength(rect)
        guard length <= limit else {
            throw ProtocolError("H.264 rect \(rect): length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let data = try reader.bytes(length)
        if flags & H264Decoder.resetAllContextsFlag != 0 {
            contexts.removeAll()
        } else if flags & H264Decoder.resetContextFlag != 0 {
            contexts.removeAll { $0.rect == rect }
        }
        if length == 0 || rect.isEmpty { return }
        let ctx = try context(for: rect, fb: fb)
        let pictures = try decodeUnits(data, count: length, ctx: ctx, rect: rect, fb: fb)
        extraWork = max(0, pictures - 1) * rect.area
        try fitMemory(keeping: ctx, fb: fb)
        let converted = try ctx.convertLatest(scratch: scratch, fb: fb)
        if case .framebuffer = converted { framesConvertedInPlace += 1 }
        guard case .scratch(let pixels, let stride) = converted else { return }
        // only the copy into the rect holds the lock; the front end may read between bands
        fb.lock.withWriterLock {
            let band = fb.bandRows(rect.w)
            for y in 0..<rect.h {
                if y > 0 && y % band == 0 { fb.lock.yieldToReaders() }
                (fb.row(rect.y + y) + rect.x).update(from: pixels + y * stride, count: rect.w)
            }
        }
    }

    /// The rect's access units through its context, within the caps; how many there were.
    private func decodeUnits(_ data: UnsafePointer<UInt8>, count: Int, ctx: H264Context, rect: Rect,
                             fb: Framebuffer) throws -> Int {
        // libavcodec's parser reads past the end of its input: a zero-padded copy
        input.removeAll(keepingCapacity: input.capacity <= H264Decoder.keptInputBytes)
        input.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        input.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        defer { if input.capacity > H264Decoder.keptInputBytes { input = [] } }
        let updateLimit = H264Decoder.maxScreensPerUpdate * max(fb.width * fb.height, rect.area)
        var pictures = 0
        try input.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            try ctx.decode(base, count: count, probe: probe) {
                if cancellation?.isCancelled == true { throw ProtocolError("H.264 rect \(rect): stopped") }
                guard pictures < H264Decoder.maxPicturesPerRect else {
                    throw ProtocolError("H.264 rect \(rect): more than \(H264Decoder.maxPicturesPerRect) pictures in one rect, the limit (a server sends one a rect; more is work for nothing)")
                }
                guard decodedInUpdate + rect.area <= updateLimit else {
                    throw ProtocolError("H.264 rect \(rect): this update has decoded \(decodedInUpdate / max(1, fb.width * fb.height)) framebuffers of pictures, the limit of \(H264Decoder.maxScreensPerUpdate) (a server sends each picture once)")
                }
                pictures += 1
                decodedInUpdate += rect.area
            }
        }
        return pictures
    }

    /// Least recently used contexts go until all fit the memory budget; the one in use stays,
    /// and when it alone is over the budget the connection ends.
    private func fitMemory(keeping ctx: H264Context, fb: Framebuffer) throws {
        let budget = budgetOverride ?? H264Decoder.memoryBudget(framebufferPixels: fb.width * fb.height)
        var total = memoryBytes
        while total > budget {
            let others = contexts.indices.filter { contexts[$0] !== ctx }
            guard let oldest = others.min(by: { contexts[$0].lastUsed < contexts[$1].lastUsed }) else { break }
            total -= contexts[oldest].memoryBytes
            contexts.remove(at: oldest)
        }
        if total > budget {
            contexts.removeAll { $0 === ctx }
            throw ProtocolError("H.264 rect \(ctx.rect): its decoder would hold about \(total >> 20) MiB (\(ctx.memoryDescription)), more than the \(budget >> 20) MiB all H.264 contexts may hold")
        }
    }

    private func context(for rect: Rect, fb: Framebuffer) throws -> H264Context {
        tick &+= 1
        if let c = contexts.first(where: { $0.rect == rect }) {
            c.lastUsed = tick
            return c
        }
        let budget = H264Decoder.contextAreaFactor * max(fb.width * fb.height, rect.area)
        var area = contexts.reduce(rect.area) { $0 + $1.rect.area }
        while !contexts.isEmpty && (contexts.count >= H264Decoder.maxContexts || area > budget) {
            guard let oldest = contexts.indices.min(by: { contexts[$0].lastUsed < contexts[$1].lastUsed }) else { break }
            area -= contexts[oldest].rect.area
            contexts.remove(at: oldest)
        }
        if tryHardware && !hwTried {
            hwTried = true
            hwDevice = makeVAAPIDevice()
        }
        let c = try H264Context(rect: rect, maxFramePixels: H264Decoder.maxFramePixels(rect), hwDevice: hwDevice)
        c.lastUsed = tick
        contexts.append(c)
        return c
    }
}
