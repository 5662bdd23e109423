import CZlib

/// PNG files of any colour type, bit depth and interlacing, with chosen ancillary chunks,
/// written here from the PNG specification (not by libpng, which decodes them): rows filtered
/// with each of the five filter types in turn.
struct PNGTestFile {
    enum ColourType: UInt8 { case grey = 0, rgb = 2, palette = 3, greyAlpha = 4, rgba = 6 }

    let width: Int, height: Int
    let type: ColourType
    let depth: Int
    /// Per pixel, the samples as stored (grey; grey, alpha; R, G, B; R, G, B, A; or the index).
    let samples: [[Int]]
    var palette: [(r: UInt8, g: UInt8, b: UInt8)] = []
    var interlaced = false
    /// Chunks placed between IHDR and the image data (PLTE comes first for palette images).
    var before: [(type: String, body: [UInt8])] = []
    /// Chunks between PLTE and IDAT (tRNS must follow PLTE).
    var afterPalette: [(type: String, body: [UInt8])] = []
    /// Chunks after the image data, before IEND.
    var after: [(type: String, body: [UInt8])] = []

    var channels: Int { [ColourType.grey: 1, .rgb: 3, .palette: 1, .greyAlpha: 2, .rgba: 4][type] ?? 1 }

    /// What a VNC viewer must show: the stored colour samples at 8 bits (16-bit rounded, lower
    /// depths scaled to 255, palette entries looked up), 0x00RRGGBB; alpha plays no part.
    var expected: [UInt32] {
        let maxSample = (1 << depth) - 1
        func to8(_ v: Int) -> UInt32 {
            depth == 16 ? UInt32((v * 255 + 32767) / 65535) : UInt32(v * 255 / maxSample)
        }
        return samples.map { s in
            switch type {
            case .grey, .greyAlpha:
                let g = to8(s[0]); return g << 16 | g << 8 | g
            case .rgb, .rgba:
                return to8(s[0]) << 16 | to8(s[1]) << 8 | to8(s[2])
            case .palette:
                let p = palette[s[0]]; return UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b)
            }
        }
    }

    /// Pixels of random samples (`seed`); palette images get a palette of `paletteSize` entries.
    static func random(_ w: Int, _ h: Int, _ type: ColourType, depth: Int, seed: UInt64, paletteSize: Int? = nil) -> PNGTestFile {
        var g = SplitMix(seed)
        let n = [ColourType.grey: 1, .rgb: 3, .palette: 1, .greyAlpha: 2, .rgba: 4][type] ?? 1
        let entries = paletteSize ?? (1 << depth)
        let samples = (0..<(w * h)).map { _ in
            (0..<n).map { _ in type == .palette ? Int(g.next() % UInt64(entries)) : Int(g.next() & UInt64((1 << depth) - 1)) }
        }
        var f = PNGTestFile(width: w, height: h, type: type, depth: depth, samples: samples)
        if type == .palette {
            f.palette = (0..<entries).map { _ in (UInt8(truncatingIfNeeded: g.next()), UInt8(truncatingIfNeeded: g.next()), UInt8(truncatingIfNeeded: g.next())) }
        }
        return f
    }

    var bytes: [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        func chunk(_ type: String, _ body: [UInt8]) {
            let t = Array(type.utf8)
            out += be32(body.count) + t + body
            let crc = (t + body).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            out += be32(Int(crc))
        }
        chunk("IHDR", be32(width) + be32(height) + [UInt8(depth), type.rawValue, 0, 0, interlaced ? 1 : 0])
        for c in before { chunk(c.type, c.body) }
        if type == .palette { chunk("PLTE", palette.flatMap { [$0.r, $0.g, $0.b] }) }
        for c in afterPalette { chunk(c.type, c.body) }
        let raw = interlaced ? adam7() : scanlines(Array(0..<width), Array(0..<height))
        // two IDAT chunks, as encoders split them
        let zs = PNGTestFile.zlib(raw), half = zs.count / 2
        chunk("IDAT", Array(zs[0..<half]))
        chunk("IDAT", Array(zs[half...]))
        for c in after { chunk(c.type, c.body) }
        chunk("IEND", [])
        return out
    }

    /// The seven Adam7 passes' sub-images, one after another (empty ones left out).
    private func adam7() -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return passes.flatMap { xs, ys, dx, dy in
            scanlines(Array(stride(from: xs, to: width, by: dx)), Array(stride(from: ys, to: height, by: dy)))
        }
    }

    /// Filtered rows of the pixels at columns `xs` of rows `ys`, filter type row % 5.
    private func scanlines(_ xs: [Int], _ ys: [Int]) -> [UInt8] {
        if xs.isEmpty || ys.isEmpty { return [] }
        let bitsPerPixel = channels * depth
        let rowBytes = (xs.count * bitsPerPixel + 7) / 8
        let bpp = max(1, bitsPerPixel / 8)   // the filters' left neighbour distance
        var out: [UInt8] = []
        var prior = [UInt8](repeating: 0, count: rowBytes)
        for (n, y) in ys.enumerated() {
            var row = [UInt8](repeating: 0, count: rowBytes)
            var bit = 0
            for x in xs {
                for v in samples[y * width + x] {
                    if depth == 16 {
                        row[bit / 8] = UInt8(v >> 8); row[bit / 8 + 1] = UInt8(v & 0xff)
                    } else {
                        row[bit / 8] |= UInt8(v << (8 - depth - bit % 8))
                    }
                    bit += depth
                }
            }
            let filter = n % 5
            out.append(UInt8(filter))
            for i in 0..<rowBytes {
                let a = i >= bpp ? Int(row[i - bpp]) : 0, b = Int(prior[i]), c = i >= bpp ? Int(prior[i - bpp]) : 0
                let predictor: Int
                switch filter {
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predictor = 0
                }
                out.append(UInt8(truncatingIfNeeded: Int(row[i]) - predictor))
            }
            prior = row
        }
        return out
    }

    static func zlib(_ raw: [UInt8]) -> [UInt8] {
        var destLen = compressBound(uLong(raw.count))
        var z = [UInt8](repeating: 0, count: Int(destLen))
        _ = raw.withUnsafeBufferPointer { compress2(&z, &destLen, $0.baseAddress, uLong(raw.count), 9) }
        return Array(z[0..<Int(destLen)])
    }

    private func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
}

/// A small deterministic generator for test pictures.
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
