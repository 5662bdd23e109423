/// RRE (encoding 2) and CoRRE (encoding 4): a subrect count, a background pixel, then that many
/// subrects of (pixel, x, y, w, h) relative to the rect; RRE uses u16 fields, CoRRE u8 fields.
///
/// Subrects stream: each call draws as many whole subrects as are buffered, commits, and keeps the
/// remaining count as state. The count is never used to size anything, so a server claiming
/// 4 billion subrects costs nothing until their bytes actually arrive.
final class RREDecoder: OffloadingDecoder {
    let compact: Bool
    private var headerDone = false
    /// Subrects announced but not yet drawn.
    private var left: UInt32 = 0

    /// Set by the engine when rects may decode on worker threads.
    var jobs: DecodeManager?
    /// The last rect went to `jobs`: a worker adds its pixels and damage.
    var deferredLastRect = false
    /// A rect buffered whole is copied for a worker only up to this many bytes a pixel: one
    /// subrect (a 4-byte pixel and four u16) for each pixel of the rect. A server may send far
    /// more subrects than pixels (they only draw over each other); such a rect streams on the
    /// session thread, where its size costs nothing but the time to draw it.
    static let maxCopiedBytesPerPixel = 12

    init(compact: Bool) { self.compact = compact }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        if !resume { headerDone = false; left = 0 }
        deferredLastRect = false
        let bpp = pf.bytesPerPixel
        // A rect already buffered whole goes to a worker as a copy of its bytes (its size is
        // the count's, in Int: no overflow), unless it holds more subrects than pixels (the
        // copy would be sized by the count, not the area); one still arriving streams here.
        if !resume, let jobs, reader.remaining >= 4 + bpp {
            let p = reader.current
            let n = Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
            let size = 4 + bpp + n * (bpp + (compact ? 4 : 8))
            if size <= reader.remaining, size <= 4 + bpp + rect.area * RREDecoder.maxCopiedBytesPerPixel,
               jobs.wants(rect.area, bytes: size) {
                let compact = compact
                jobs.startCopy(of: size, from: &reader, rect: rect, fb: fb,
                               work: WholeRectWork(pf: pf) { RREDecoder(compact: compact) })
                deferredLastRect = true
                return
            }
        }
        if !headerDone {
            try reader.require(4 + bpp)
            let n = try reader.u32()
            let background = pf.pixel(try reader.bytes(bpp))
            fb.fill(rect, background)
            left = n
            headerDone = true
            reader.commit()
        }
        let size = bpp + (compact ? 4 : 8)
        while left > 0 {
            let n = min(Int(left), reader.remaining / size)
            if n == 0 { throw NeedMoreData() }
            let p = try reader.bytes(n * size)
            if pf.mode == .native {
                if compact { try drawNative(p, n, CoRREFields.self, rect: rect, fb: fb) }
                else { try drawNative(p, n, RREFields.self, rect: rect, fb: fb) }
            } else {
                try drawConverted(p, n, rect: rect, fb: fb, pf: pf)
            }
            left -= UInt32(n)
            reader.commit()
        }
    }

    /// The format we ask for: pixels load as they are and fields as one big-endian word. Most
    /// subrects are a pixel or a short run (x11vnc's RRE desktop: 851 K subrects of 3 pixels
    /// on average), so the cost per subrect is the decode's cost: one loop per field layout,
    /// no call, no per-row checks.
    private func drawNative<F: SubrectFields>(_ start: UnsafePointer<UInt8>, _ n: Int, _: F.Type, rect: Rect, fb: Framebuffer) throws {
        let stride = fb.width
        let base = fb.pixels + (rect.y &* stride &+ rect.x)
        var p = UnsafeRawPointer(start)
        for _ in 0..<n {
            let colour = p.loadUnaligned(as: UInt32.self).littleEndian & 0x00ff_ffff
            let (sx, sy, sw, sh) = F.fields(p + 4)
            guard sx &+ sw <= rect.w, sy &+ sh <= rect.h else { throw outside(sx, sy, sw, sh, rect) }
            var d = base + (sy &* stride &+ sx)
            // a line of 1-4 pixels, down (glyph strokes) or across: one test for both, and
            // stored without a loop whose varying exit mispredicts (pixels past the last store
            // the last one again). sw or sh is 1, so sw + sh - 2 is the last pixel's index.
            if sw &* sh == sw &+ sh &- 1, UInt(bitPattern: sw &+ sh &- 2) < 4 {
                let last = sw &+ sh &- 2
                let step = sw == 1 ? stride : 1
                d.pointee = colour; d[min(1, last) &* step] = colour
                d[min(2, last) &* step] = colour; d[min(3, last) &* step] = colour
            } else if sw == 1 {
                for _ in 0..<sh { d.pointee = colour; d += stride }
            } else if sw &* sh <= Framebuffer.bandPixels {
                for _ in 0..<sh { fillPixels(d, colour, sw); d += stride }
            } else {
                drawLarge(rect, sx, sy, sw, sh, colour, fb)
            }
            p += 4 + F.size
        }
    }

    /// A subrect big enough to let a waiting window in between bands (kept out of the loop above).
    @inline(never)
    private func drawLarge(_ rect: Rect, _ sx: Int, _ sy: Int, _ sw: Int, _ sh: Int, _ colour: UInt32, _ fb: Framebuffer) {
        fb.fill(Rect(x: rect.x + sx, y: rect.y + sy, w: sw, h: sh), colour)
    }

    /// Any other format: each pixel through the converter.
    private func drawConverted(_ start: UnsafePointer<UInt8>, _ n: Int, rect: Rect, fb: Framebuffer, pf: PixelConverter) throws {
        let bpp = pf.bytesPerPixel
        let size = bpp + (compact ? 4 : 8)
        var p = start
        for _ in 0..<n {
            let colour = pf.pixel(p)
            let q = p + bpp
            let sx, sy, sw, sh: Int
            if compact {
                sx = Int(q[0]); sy = Int(q[1]); sw = Int(q[2]); sh = Int(q[3])
            } else {
                sx = Int(q[0]) << 8 | Int(q[1]); sy = Int(q[2]) << 8 | Int(q[3])
                sw = Int(q[4]) << 8 | Int(q[5]); sh = Int(q[6]) << 8 | Int(q[7])
            }
            // Int math on 8/16-bit fields: no overflow; inside the rect means inside the framebuffer.
            guard sx + sw <= rect.w, sy + sh <= rect.h else { throw outside(sx, sy, sw, sh, rect) }
            fb.fill(Rect(x: rect.x + sx, y: rect.y + sy, w: sw, h: sh), colour)
            p += size
        }
    }

    private func outside(_ sx: Int, _ sy: Int, _ sw: Int, _ sh: Int, _ rect: Rect) -> ProtocolError {
        ProtocolError("\(compact ? "CoRRE" : "RRE") subrect \(sw)x\(sh)+\(sx)+\(sy) lies outside its \(rect.w)x\(rect.h) rect at +\(rect.x)+\(rect.y)")
    }
}

/// A subrect's x, y, w, h as sent: u8 fields (CoRRE) or u16 (RRE), read as one big-endian word.
protocol SubrectFields {
    static var size: Int { get }
    static func fields(_ p: UnsafeRawPointer) -> (Int, Int, Int, Int)
}

enum CoRREFields: SubrectFields {
    static var size: Int { 4 }
    @inline(__always) static func fields(_ p: UnsafeRawPointer) -> (Int, Int, Int, Int) {
        let f = UInt32(bigEndian: p.loadUnaligned(as: UInt32.self))
        return (Int(f >> 24), Int(f >> 16 & 0xff), Int(f >> 8 & 0xff), Int(f & 0xff))
    }
}

enum RREFields: SubrectFields {
    static var size: Int { 8 }
    @inline(__always) static func fields(_ p: UnsafeRawPointer) -> (Int, Int, Int, Int) {
        let f = UInt64(bigEndian: p.loadUnaligned(as: UInt64.self))
        return (Int(f >> 48), Int(f >> 32 & 0xffff), Int(f >> 16 & 0xffff), Int(f & 0xffff))
    }
}
