/// RRE (encoding 2) and CoRRE (encoding 4): a subrect count, a background pixel, then that many
/// subrects of (pixel, x, y, w, h) relative to the rect; RRE uses u16 fields, CoRRE u8 fields.
///
/// Subrects stream: each call draws as many whole subrects as are buffered, commits, and keeps the
/// remaining count as state. The count is never used to size anything, so a server claiming
/// 4 billion subrects costs nothing until their bytes actually arrive.
final class RREDecoder: RectDecoder {
    let compact: Bool
    private var headerDone = false
    /// Subrects announced but not yet drawn.
    private var left: UInt32 = 0

    /// Set by the engine when rects may decode on worker threads (DecodeOffload).
    var offload: DecodeOffload?
    /// The last rect went to `offload`: a worker adds its pixels and damage.
    var deferredLastRect = false

    init(compact: Bool) { self.compact = compact }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        if !resume { headerDone = false; left = 0 }
        deferredLastRect = false
        let bpp = pf.bytesPerPixel
        // A rect already buffered whole goes to a worker as a copy of its bytes (its size is
        // the count's, in Int: no overflow); one still arriving streams here as before.
        if !resume, let offload, reader.remaining >= 4 + bpp, offload.wants(rect.area) {
            let p = reader.current
            let n = Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
            let size = 4 + bpp + n * (bpp + (compact ? 4 : 8))
            if size <= reader.remaining {
                offload.startBuffered(compact ? Encoding.coRRE : Encoding.rre, rect: rect, size: size, reader: &reader,
                                      fb: fb, pf: pf)
                deferredLastRect = true
                return
            }
        }
        let name = compact ? "CoRRE" : "RRE"
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
            var p = try reader.bytes(n * size)
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
                guard sx + sw <= rect.w, sy + sh <= rect.h else {
                    throw ProtocolError("\(name) subrect \(sw)x\(sh)+\(sx)+\(sy) lies outside its \(rect.w)x\(rect.h) rect at +\(rect.x)+\(rect.y)")
                }
                fb.fill(Rect(x: rect.x + sx, y: rect.y + sy, w: sw, h: sh), colour)
                p += size
            }
            left -= UInt32(n)
            reader.commit()
        }
    }
}
