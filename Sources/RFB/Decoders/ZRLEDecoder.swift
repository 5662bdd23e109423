/// ZRLE (encoding 16): u32 length, then zlib data (one connection-long stream) holding 64x64
/// tiles, left to right, top to bottom, each a subencoding byte and its CPIXELs.
final class ZRLEDecoder: OffloadingDecoder {
    static let tileSize = 64
    /// Largest palette a tile can carry (palette RLE 130...255 → 2...127 colours).
    static let maxPalette = 127

    private let stream: ZStream?
    private let scratch = ScratchBuffer(capacity: 64 * 1024)
    private let palette: UnsafeMutablePointer<UInt32>
    /// Per tile of 2 or 4 colours: the pixels of each 4-bit group of indices.
    private let spread = IndexSpread()
    /// An RLE tile's pixels in order, then copied to the framebuffer row by row, with
    /// room for an 8-pixel store at its last pixel (`tileSlack`).
    private let tile: UnsafeMutablePointer<UInt32>
    static let tileSlack = 8
    /// Set by the engine when rects may decode on worker threads.
    var jobs: DecodeManager?
    /// The last rect went to `jobs`: a worker adds its pixels and damage.
    var deferredLastRect = false
    /// Painters this connection's jobs borrow on workers (tiles only, a palette each; no stream).
    private lazy var painters = ScratchPool<ZRLEDecoder>(make: { ZRLEDecoder(streamless: ()) })

    init(probe: LibraryProbe? = nil) {
        stream = ZStream(probe: probe)
        palette = .allocate(capacity: ZRLEDecoder.maxPalette + 1)
        palette.initialize(repeating: 0, count: ZRLEDecoder.maxPalette + 1)
        tile = .allocate(capacity: ZRLEDecoder.tileSize * ZRLEDecoder.tileSize + ZRLEDecoder.tileSlack)
    }

    /// A worker's painter: tiles only, no stream.
    init(streamless: Void) {
        stream = nil
        palette = .allocate(capacity: ZRLEDecoder.maxPalette + 1)
        palette.initialize(repeating: 0, count: ZRLEDecoder.maxPalette + 1)
        tile = .allocate(capacity: ZRLEDecoder.tileSize * ZRLEDecoder.tileSize + ZRLEDecoder.tileSlack)
    }
    deinit { palette.deallocate(); spread.deallocate(); tile.deallocate() }

    func reset() { stream?.reset() }

    /// Most inflated bytes a valid encoding of a `w`x`h` rect can take: per tile a subencoding byte
    /// and a 127-colour palette, per pixel at most a CPIXEL and a run byte (plain RLE of 1-pixel
    /// runs) or two bytes (palette RLE index + run byte), whichever is larger.
    static func maxInflatedSize(w: Int, h: Int, cpixelSize: Int) -> Int {
        let tiles = ((w + tileSize - 1) / tileSize) * ((h + tileSize - 1) / tileSize)
        return tiles * (1 + maxPalette * cpixelSize) + max(cpixelSize + 1, 2) * w * h
    }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        // One unit per rect: zlib state cannot be rewound, so nothing happens until all bytes are in.
        let length = Int(try reader.u32())
        let bound = ZRLEDecoder.maxInflatedSize(w: rect.w, h: rect.h, cpixelSize: pf.cpixelSize)
        let limit = Limits.maxCompressedLength(rawSize: bound)
        guard length <= limit else {
            throw ProtocolError("ZRLE rect \(rect): compressed length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let src = try reader.bytes(length)
        deferredLastRect = false
        if let jobs, !rect.isEmpty, jobs.wants(rect.area, bytes: bound) {
            // inflated here, in stream order, into the job's buffer; the tiles on a worker
            let job = jobs.makeJob(rect: rect, fb: fb, work: TilesWork(pf: pf, painters: painters))
            job.length = try inflateAll(src, count: length, bound: bound, rect: rect, into: job.buffer)
            if jobs.worthHanding(area: rect.area, bytes: job.length) {
                jobs.start(job)
                deferredLastRect = true
            } else {
                // mostly solid tiles: painted here in less time than a hand-over takes
                defer { jobs.giveBack(job) }
                try decodeTiles(rect: rect, data: job.buffer.pointer, count: job.length, fb: fb, pf: pf)
            }
            return
        }
        let n = try inflateAll(src, count: length, bound: bound, rect: rect, into: scratch)
        try decodeTiles(rect: rect, data: scratch.pointer, count: n, fb: fb, pf: pf)
    }

    /// Inflates the whole payload into `scratch`, growing it as output appears (never past
    /// `bound` + 1, so a zlib bomb costs at most what a valid rect could). Returns the byte count.
    private func inflateAll(_ src: UnsafePointer<UInt8>, count: Int, bound: Int, rect: Rect,
                            into scratch: ScratchBuffer) throws -> Int {
        guard let stream else { throw ProtocolError("internal: ZRLE painter asked to inflate") }
        var consumed = 0, produced = 0
        var cap = min(scratch.capacity, bound + 1)
        while true {
            let r = try stream.inflate(src + consumed, count: count - consumed, into: scratch.pointer + produced,
                                       capacity: cap - produced, what: "ZRLE rect \(rect)")
            consumed += r.consumed; produced += r.produced
            if produced < cap { break }
            if produced > bound {
                throw ProtocolError("ZRLE rect \(rect): zlib data inflates past \(bound) bytes, more than any valid encoding of the rect needs")
            }
            // output buffer full: there may be more to come
            scratch.reserve(min(bound + 1, cap * 2), keep: produced, limit: bound + 1)
            cap = min(scratch.capacity, bound + 1)
        }
        if consumed < count {
            throw ProtocolError("ZRLE rect \(rect): \(count - consumed) bytes of zlib data left after the end of the stream")
        }
        return produced
    }

    func decodeTiles(rect: Rect, data: UnsafeMutablePointer<UInt8>, count n: Int, fb: Framebuffer,
                     pf: PixelConverter) throws {
        let data = UnsafePointer(data)
        let cpx = pf.cpixelSize
        let stride = fb.width
        let pal = palette
        var p = 0
        func truncated(_ tx: Int, _ ty: Int) -> ProtocolError { ZRLEDecoder.truncated(rect, tx, ty) }
        for ty in Swift.stride(from: 0, to: rect.h, by: ZRLEDecoder.tileSize) {
            let th = min(ZRLEDecoder.tileSize, rect.h - ty)
            for tx in Swift.stride(from: 0, to: rect.w, by: ZRLEDecoder.tileSize) {
                let tw = min(ZRLEDecoder.tileSize, rect.w - tx)
                guard p < n else { throw truncated(tx, ty) }
                let sub = Int(data[p]); p += 1
                let origin = fb.row(rect.y + ty) + rect.x + tx

                switch sub {
                case 0: // raw CPIXELs
                    let rowBytes = tw * cpx
                    guard n - p >= rowBytes * th else { throw truncated(tx, ty) }
                    for row in 0..<th {
                        pf.convertCPixels(data + p + row * rowBytes, to: origin + row * stride, count: tw)
                    }
                    p += rowBytes * th

                case 1: // solid
                    guard n - p >= cpx else { throw truncated(tx, ty) }
                    let c = pf.cpixel(data + p); p += cpx
                    for row in 0..<th { fillPixels(origin + row * stride, c, tw) }

                case 2...16: // packed palette
                    let psize = sub
                    guard n - p >= psize * cpx else { throw truncated(tx, ty) }
                    for i in 0..<psize { pal[i] = pf.cpixel(data + p + i * cpx) }
                    p += psize * cpx
                    let bits = psize == 2 ? 1 : (psize <= 4 ? 2 : 4)
                    let rowBytes = (tw * bits + 7) / 8
                    guard n - p >= rowBytes * th else { throw truncated(tx, ty) }
                    // A whole index byte at a time (8, 4 or 2 pixels). Indices are at most 4 bits,
                    // so the 128-entry table is never overrun; indices past the palette size are
                    // collected in `seen` and rejected after the tile.
                    var seen: UInt32 = 0, three: UInt32 = 0
                    let fullBytes = tw * bits / 8
                    // text is mostly 2-colour tiles: a byte of indices becomes two table loads
                    // and 64-bit stores instead of 8 selects (x11vnc-zrle-text: 0.108 -> 0.099 CPU s)
                    if bits == 1 { spread.setMono(pal[0], pal[1]) } else if bits == 2 { spread.setQuad(pal) }
                    for row in 0..<th {
                        var s = data + p + row * rowBytes
                        var d = origin + row * stride
                        switch bits {
                        case 1:
                            for _ in 0..<fullBytes {
                                spread.storeMono(d, Int(s.pointee)); s += 1
                                d += 8
                            }
                        case 2:
                            for _ in 0..<fullBytes {
                                let b = Int(s.pointee); s += 1
                                // an index of 3 is a pair of set bits within one field of this byte
                                three |= UInt32(b & (b >> 1) & 0x55)
                                spread.storeQuad(d, b)
                                d += 4
                            }
                        default:
                            for _ in 0..<fullBytes {
                                let b = Int(s.pointee); s += 1
                                seen |= 1 << UInt32(b >> 4) | 1 << UInt32(b & 15)
                                d[0] = pal[b >> 4]; d[1] = pal[b & 15]
                                d += 2
                            }
                        }
                        // the row's last pixels share a byte with padding bits, which are ignored
                        let tail = tw - fullBytes * 8 / bits
                        if tail > 0 {
                            let b = UInt32(s.pointee)
                            for i in 0..<tail {
                                let idx = (b >> UInt32(8 - bits * (i + 1))) & UInt32(1 << bits - 1)
                                seen |= 1 << idx
                                d[i] = pal[Int(idx)]
                            }
                        }
                    }
                    p += rowBytes * th
                    if three != 0 { seen |= 1 << 3 }
                    if seen >> UInt32(psize) != 0 {
                        throw ProtocolError("ZRLE rect \(rect): palette index past the \(psize)-colour palette in the tile at \(tx),\(ty)")
                    }

                case 130...255: // palette RLE
                    let psize = sub - 128
                    guard n - p >= psize * cpx else { throw truncated(tx, ty) }
                    for i in 0..<psize { pal[i] = pf.cpixel(data + p + i * cpx) }
                    p += psize * cpx
                    try paletteRLE(data, &p, n, psize: psize, into: origin, tw: tw, th: th, stride: stride, rect: rect, tx: tx, ty: ty)

                case 128: // plain RLE
                    try plainRLE(data, &p, n, pf: pf, into: origin, tw: tw, th: th, stride: stride, rect: rect, tx: tx, ty: ty)

                default:
                    throw ProtocolError("ZRLE rect \(rect): invalid subencoding \(sub) in the tile at \(tx),\(ty)")
                }
            }
        }
        // Inflated bytes past the last tile are ignored, as TigerVNC does; their amount is bounded.
    }
}

extension ZRLEDecoder {
    /// A palette RLE tile (the palette loaded): index bytes, a run's with its top bit set and
    /// followed by its length bytes. Servers built on libvncserver and neatvnc send text this
    /// way, two colours a tile, a run or a single pixel every 5.6 pixels (wayvnc, scrolling
    /// text: 14.5 M single pixels and 14.4 M runs, most of 2 to 5, in 163 M pixels). A branch per
    /// kind of entry and a loop per run mispredicted at each: here an entry is read without
    /// asking which kind it is (the run byte read anyway, used only for a run) and its colour
    /// stored 8 times, the next entry overwriting what was past its end, into the tile's pixels
    /// in order (runs go on across the tile's rows); the rows are copied out at the end.
    @inline(__always)
    private func paletteRLE(_ data: UnsafePointer<UInt8>, _ p: inout Int, _ n: Int, psize: Int,
                            into origin: UnsafeMutablePointer<UInt32>, tw: Int, th: Int, stride: Int,
                            rect: Rect, tx: Int, ty: Int) throws {
        let pal = palette, out = tile
        let total = tw * th
        var i = 0
        // the largest index met, checked after the tile: the table has 128 entries, so a bad
        // index reads a stale colour, never past it
        var top = 0
        var q = p
        // a bad index met on the way is the error, whatever ended the tile (as when each was
        // checked as it came)
        func failure(_ other: @autoclosure () -> ProtocolError, _ top: Int) -> ProtocolError {
            top >= psize ? ProtocolError("ZRLE rect \(rect): palette index \(top) past the \(psize)-colour palette in the tile at \(tx),\(ty)")
                : other()
        }
        while i < total {
            // Two entries from one 4-byte load (each is 1 or 2 bytes): where the second begins
            // is a shift of the loaded word, not another load after the first is understood,
            // which halves the chain each entry waits on. Long runs (a 255 length byte) and the
            // tile's last entry take the one-entry way below.
            if n &- q >= 4 {
                let w = UnsafeRawPointer(data + q).loadUnaligned(as: UInt32.self).littleEndian
                let run0 = (w >> 7) & 1
                let adv0 = 1 &+ run0
                let w1 = w >> (adv0 &* 8)
                let run1 = (w1 >> 7) & 1
                let len0 = 1 &+ Int((w >> 8) & 0xff & (0 &- run0))
                let len1 = 1 &+ Int((w1 >> 8) & 0xff & (0 &- run1))
                if len0 != 256 && len1 != 256 && len0 &+ len1 <= total &- i {
                    let idx0 = Int(w & 0x7f), idx1 = Int(w1 & 0x7f)
                    top = max(top, idx0, idx1)
                    ZRLEDecoder.storeRun(out + i, pal[idx0], len0)
                    ZRLEDecoder.storeRun(out + (i &+ len0), pal[idx1], len1)
                    i &+= len0 &+ len1
                    q &+= Int(adv0 &+ 1 &+ run1)
                    continue
                }
            }
            guard q < n else { throw failure(ZRLEDecoder.truncated(rect, tx, ty), top) }
            let b = Int(data[q])
            let idx = b & 0x7f
            top = max(top, idx)
            let c = pal[idx]
            var len = 1
            if q &+ 1 < n {
                let run = b >> 7                            // 1 for a run, 0 for a single pixel
                let r = Int(data[q &+ 1])
                len = 1 &+ (r & (0 &- run))
                q &+= 1 &+ run
                if run == 1 && r == 255 {
                    // a long run: "another byte follows"
                    while true {
                        guard q < n else { throw failure(ZRLEDecoder.truncated(rect, tx, ty), top) }
                        let more = Int(data[q]); q &+= 1
                        len &+= more
                        if len > total &- i { break }
                        if more != 255 { break }
                    }
                }
            } else {
                guard b < 128 else { throw failure(ZRLEDecoder.truncated(rect, tx, ty), top) }
                q &+= 1
            }
            if len > total &- i {
                throw failure(ZRLEDecoder.runPast(rect, tx, ty, len, total - i), top)
            }
            ZRLEDecoder.storeRun(out + i, c, len)
            i &+= len
        }
        p = q
        if top >= psize { throw failure(ZRLEDecoder.truncated(rect, tx, ty), top) }
        copyTile(to: origin, tw: tw, th: th, stride: stride)
    }

    /// A plain RLE tile: a CPIXEL and run length bytes per run. Photographs and gradients from
    /// libvncserver servers come this way, runs of 1 to 4 pixels mostly (x11vnc, a desktop of
    /// gradients: 45 % of the pixels). As for palette RLE, each run is stored 8 pixels at a time
    /// into the tile in order and the rows copied out at the end, and a 24-bit CPIXEL of a
    /// native framebuffer is one load: the run byte after it is always there to read.
    @inline(__always)
    private func plainRLE(_ data: UnsafePointer<UInt8>, _ p: inout Int, _ n: Int, pf: PixelConverter,
                          into origin: UnsafeMutablePointer<UInt32>, tw: Int, th: Int, stride: Int,
                          rect: Rect, tx: Int, ty: Int) throws {
        let out = tile
        let total = tw * th
        let cpx = pf.cpixelSize
        let low24 = pf.cpixelIsLow24
        var i = 0
        var q = p
        while i < total {
            guard n &- q > cpx else { throw ZRLEDecoder.truncated(rect, tx, ty) }
            let c = low24 ? UnsafeRawPointer(data + q).loadUnaligned(as: UInt32.self).littleEndian & 0x00ff_ffff
                : pf.cpixel(data + q)
            q &+= cpx
            let b = Int(data[q]); q &+= 1
            // run length: 1 + sum of bytes, 255 meaning "another byte follows"
            var len = 1 &+ b
            if b == 255 {
                while true {
                    guard q < n else { throw ZRLEDecoder.truncated(rect, tx, ty) }
                    let more = Int(data[q]); q &+= 1
                    len &+= more
                    if len > total &- i || more != 255 { break }
                }
            }
            if len > total &- i {
                throw ZRLEDecoder.runPast(rect, tx, ty, len, total - i)
            }
            ZRLEDecoder.storeRun(out + i, c, len)
            i &+= len
        }
        p = q
        copyTile(to: origin, tw: tw, th: th, stride: stride)
    }

    /// A run into the tile buffer: up to 8 pixels in two 16-byte stores whatever its length (the
    /// next run overwrites what went past its end; `tileSlack` holds what goes past the tile's).
    @inline(__always)
    private static func storeRun(_ d: UnsafeMutablePointer<UInt32>, _ c: UInt32, _ len: Int) {
        if len <= tileSlack {
            let raw = UnsafeMutableRawPointer(d)
            let four = SIMD4<UInt32>(repeating: c)
            raw.storeBytes(of: four, as: SIMD4<UInt32>.self)
            raw.storeBytes(of: four, toByteOffset: 16, as: SIMD4<UInt32>.self)
        } else {
            fillPixels(d, c, len)
        }
    }

    static func truncated(_ rect: Rect, _ tx: Int, _ ty: Int) -> ProtocolError {
        ProtocolError("ZRLE rect \(rect): inflated data ends inside the tile at \(tx),\(ty)")
    }

    static func runPast(_ rect: Rect, _ tx: Int, _ ty: Int, _ len: Int, _ left: Int) -> ProtocolError {
        ProtocolError("ZRLE rect \(rect): run of \(len) pixels goes past the end of the tile at \(tx),\(ty) (\(left) pixels left)")
    }

    /// The tile buffer's rows to the framebuffer. A whole tile's 64-pixel rows are copied inline,
    /// 16 pixels a load: a memmove call per 256-byte row was 11-16 % of ZRLE text's decode.
    @inline(__always)
    private func copyTile(to origin: UnsafeMutablePointer<UInt32>, tw: Int, th: Int, stride: Int) {
        if tw == ZRLEDecoder.tileSize {
            typealias V = SIMD16<UInt32>
            var from = UnsafeRawPointer(tile), to = UnsafeMutableRawPointer(origin)
            for _ in 0..<th {
                let a = from.loadUnaligned(as: V.self), b = from.loadUnaligned(fromByteOffset: 64, as: V.self)
                let c = from.loadUnaligned(fromByteOffset: 128, as: V.self), d = from.loadUnaligned(fromByteOffset: 192, as: V.self)
                to.storeBytes(of: a, as: V.self); to.storeBytes(of: b, toByteOffset: 64, as: V.self)
                to.storeBytes(of: c, toByteOffset: 128, as: V.self); to.storeBytes(of: d, toByteOffset: 192, as: V.self)
                from += 256
                to += stride &* 4
            }
            return
        }
        for row in 0..<th { (origin + row * stride).update(from: tile + row * tw, count: tw) }
    }

    /// A rect's tiles on a worker, from its inflated data (the job's buffer), by a painter of
    /// the pool (the tile palette is per painter).
    struct TilesWork: RectWork {
        let what = "ZRLE rect"
        let pf: PixelConverter
        let painters: ScratchPool<ZRLEDecoder>

        func draw(_ r: Rect, into fb: Framebuffer, from data: UnsafeMutablePointer<UInt8>, length: Int) throws {
            try painters.borrow(unavailable: ProtocolError("ZRLE rect \(r): no painter")) { painter in
                try painter.decodeTiles(rect: r, data: data, count: length, fb: fb, pf: pf)
            }
        }
    }
}
