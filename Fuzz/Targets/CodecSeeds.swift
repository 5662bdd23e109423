import CPNG
import CTurboJPEG

/// Seeds made by the encoders real servers use: libjpeg-turbo's TurboJPEG (TigerVNC's JPEG
/// encoder, for JPEG (21) and Tight JPEG) and libpng (QEMU's, for TightPNG). No recording in the
/// corpus has either encoding.
enum CodecSeeds {
    /// A small picture with edges and gradients (0x00RRGGBB).
    static func picture(_ w: Int, _ h: Int, _ seed: Int) -> [UInt32] {
        (0..<(w * h)).map { i in
            let x = i % w, y = i / w
            return UInt32((x * 16 + seed) & 0xff) << 16 | UInt32((y * 24 + seed * 3) & 0xff) << 8 | UInt32(((x ^ y) * 9) & 0xff)
        }
    }

    /// `img` as a JPEG at `quality`, subsampling `sub` (TJSAMP_*), TurboJPEG `flags`.
    static func jpeg(_ img: [UInt32], _ w: Int, _ h: Int, quality: Int32 = 80, sub: TJSAMP = TJSAMP_420, flags: Int32 = 0) -> [UInt8] {
        let rgb = img.flatMap { [UInt8($0 >> 16 & 0xff), UInt8($0 >> 8 & 0xff), UInt8($0 & 0xff)] }
        guard let c = tjInitCompress() else { return [] }
        defer { tjDestroy(c) }
        var buf: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        guard tjCompress2(c, rgb, Int32(w), 0, Int32(h), Int32(TJPF_RGB.rawValue), &buf, &size, Int32(sub.rawValue), quality, flags) == 0,
              let b = buf else { return [] }
        defer { tjFree(b) }
        return Array(UnsafeBufferPointer(start: b, count: Int(size)))
    }

    /// The JPEG without its DQT and DHT segments, as RealVNC sends rects after the first.
    static func withoutTables(_ j: [UInt8]) -> [UInt8] {
        var out = Array(j.prefix(2)), i = 2
        while i + 4 <= j.count {
            let m = j[i + 1], len = Int(j[i + 2]) << 8 | Int(j[i + 3])
            if m == 0xda { out += j[i...]; break }
            if m != 0xdb && m != 0xc4 { out += j[i..<min(j.count, i + 2 + len)] }
            i += 2 + len
        }
        return out
    }

    /// `img` as a PNG written by libpng's simplified API in `format` (PNG_FORMAT_FLAG_*); a
    /// colour-mapped format gets a palette of the picture's colours (at most 256 of them).
    static func png(_ img: [UInt32], _ w: Int, _ h: Int, format: UInt32) -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(w)
        image.height = UInt32(h)
        image.format = format
        let linear = format & UInt32(PNG_FORMAT_FLAG_LINEAR) != 0
        let colourMapped = format & UInt32(PNG_FORMAT_FLAG_COLORMAP) != 0
        let channels = Int(format & 3) + 1   // grey, grey+alpha, RGB, RGBA
        var colours: [UInt32] = []
        var bytes: [UInt8] = []
        if colourMapped {
            var index: [UInt32: Int] = [:]
            for p in img where index[p] == nil && index.count < 256 { index[p] = index.count; colours.append(p) }
            bytes = img.map { UInt8(index[$0] ?? 0) }
            image.colormap_entries = UInt32(colours.count)
        } else {
            for p in img {
                let rgb = [p >> 16 & 0xff, p >> 8 & 0xff, p & 0xff].map { UInt16($0) }
                let grey = (rgb[0] * 3 + rgb[1] * 6 + rgb[2]) / 10
                var s: [UInt16] = channels >= 3 ? rgb : [grey]
                if channels % 2 == 0 { s.append(UInt16((p >> 3) & 0xff)) }   // some alpha
                if linear { for v in s { let w16 = v * 257; bytes += [UInt8(w16 & 0xff), UInt8(w16 >> 8)] } }   // native (LE) 16-bit
                else { bytes += s.map { UInt8($0) } }
            }
        }
        let map = colours.flatMap { [UInt8($0 >> 16 & 0xff), UInt8($0 >> 8 & 0xff), UInt8($0 & 0xff)] }
        return map.withUnsafeBytes { m -> [UInt8] in
            let colormap = colourMapped ? m.baseAddress : nil
            defer { png_image_free(&image) }
            var size = 0
            // first the size, then the file
            guard png_image_write_to_memory(&image, nil, &size, 0, bytes, 0, colormap) != 0, size > 0 else { return [] }
            var out = [UInt8](repeating: 0, count: size)
            guard png_image_write_to_memory(&image, &out, &size, 0, bytes, 0, colormap) != 0 else { return [] }
            return Array(out.prefix(size))
        }
    }

    /// JPEG (21) rects: baseline 4:2:0, 4:4:4 and greyscale, progressive, and a rect without
    /// tables after one with them (RealVNC).
    static func jpegRects() -> [(Int, Int, Int, Int, [UInt8])] {
        let a = picture(16, 16, 1), b = picture(16, 8, 2), c = picture(8, 8, 3)
        return [(0, 0, 16, 16, jpeg(a, 16, 16)),
                (16, 0, 16, 8, jpeg(b, 16, 8, quality: 95, sub: TJSAMP_444)),
                (16, 8, 16, 8, withoutTables(jpeg(b, 16, 8, quality: 95, sub: TJSAMP_444))),
                (32, 0, 8, 8, jpeg(c, 8, 8, sub: TJSAMP_GRAY)),
                (40, 0, 16, 16, jpeg(a, 16, 16, flags: Int32(TJFLAG_PROGRESSIVE)))]
    }

    /// TightPNG rects as QEMU sends them (8-bit RGB, palette) and in libpng's other formats
    /// (grey, grey+alpha, RGBA, 16-bit), with a Tight fill, a Tight JPEG and a gradient rect
    /// (QEMU sends those too, the last with lossy=on).
    static func tightPNGRects() -> [(Int, Int, Int, Int, [UInt8])] {
        func png(_ b: [UInt8]) -> [UInt8] { [0xa0] + compact(b.count) + b }
        let a = picture(16, 8, 4)
        let few = (0..<64).map { [0x102030, 0xffffff, 0x0000ff, 0x808080][($0 / 3) % 4] as UInt32 }
        let grey: UInt32 = 0, rgb = UInt32(PNG_FORMAT_FLAG_COLOR), alpha = UInt32(PNG_FORMAT_FLAG_ALPHA), rgba = rgb | alpha
        let linear = UInt32(PNG_FORMAT_FLAG_LINEAR), colormap = UInt32(PNG_FORMAT_FLAG_COLORMAP)
        let j = jpeg(picture(8, 8, 5), 8, 8)
        return [(0, 0, 16, 8, png(CodecSeeds.png(a, 16, 8, format: rgb))),
                (16, 0, 8, 8, png(CodecSeeds.png(few, 8, 8, format: rgb | colormap))),
                (24, 0, 16, 8, png(CodecSeeds.png(a, 16, 8, format: grey))),
                (40, 0, 16, 8, png(CodecSeeds.png(a, 16, 8, format: grey | alpha))),
                (0, 8, 16, 8, png(CodecSeeds.png(a, 16, 8, format: rgba))),
                (16, 8, 16, 8, png(CodecSeeds.png(a, 16, 8, format: rgb | linear))),
                (32, 8, 16, 8, png(CodecSeeds.png(a, 16, 8, format: rgba | linear))),
                (0, 16, 8, 8, [0x80, 0x10, 0x20, 0x30]),
                (8, 16, 8, 8, [0x90] + compact(j.count) + j),
                (16, 16, 4, 4, [0x70, 2] + DecoderSeeds.tightZlib([UInt8](repeating: 7, count: 48)))]
    }

    /// Tight's compact length.
    static func compact(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        if n < 0x4000 { return [UInt8(n & 0x7f | 0x80), UInt8(n >> 7)] }
        return [UInt8(n & 0x7f | 0x80), UInt8(n >> 7 & 0x7f | 0x80), UInt8(n >> 14)]
    }
}
