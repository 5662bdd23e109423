import Foundation
import XCTest
import RFB
import CZlib  // reached through RFB's dependency; InteropTests does not list it itself

// Images for the interop tests: 0x00RRGGBB pixels (the top byte is ignored everywhere),
// comparison and PSNR, and the file formats the tests meet: XWD (the server's screen),
// PNG (viewer snapshots; also written for failure artefacts) and PPM.

struct RGBImage: Equatable, Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt32]  // row-major, 0x00RRGGBB

    init(width: Int, height: Int, pixels: [UInt32]) {
        precondition(pixels.count == width * height, "pixel count \(pixels.count) != \(width)x\(height)")
        self.width = width; self.height = height; self.pixels = pixels
    }

    init(width: Int, height: Int, fill: UInt32 = 0) {
        self.init(width: width, height: height, pixels: Array(repeating: fill, count: width * height))
    }

    /// The viewer's decoded framebuffer.
    init(_ fb: Framebuffer) {
        self.init(width: fb.width, height: fb.height, pixels: fb.snapshotPixels())
    }

    subscript(x: Int, y: Int) -> UInt32 { pixels[y * width + x] & 0xFF_FFFF }

    /// Equality of the RGB bytes only.
    static func == (a: RGBImage, b: RGBImage) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        return a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                for i in 0..<pa.count where (pa[i] ^ pb[i]) & 0xFF_FFFF != 0 { return false }
                return true
            }
        }
    }

    func crop(x: Int, y: Int, width w: Int, height h: Int) -> RGBImage {
        let x0 = max(0, min(x, width)), y0 = max(0, min(y, height))
        let x1 = max(x0, min(x + w, width)), y1 = max(y0, min(y + h, height))
        var out: [UInt32] = []
        out.reserveCapacity((x1 - x0) * (y1 - y0))
        for row in y0..<y1 { out += pixels[(row * width + x0)..<(row * width + x1)] }
        return RGBImage(width: x1 - x0, height: y1 - y0, pixels: out)
    }

    /// Number of distinct RGB values (a scene check: a blank screen has one or two).
    var distinctColours: Int { Set(pixels.lazy.map { $0 & 0xFF_FFFF }).count }
}

// MARK: - Comparison

struct ImageDiff: CustomStringConvertible, Sendable {
    var sizeMismatch: String?
    var compared = 0
    var differing = 0
    var samples: [(x: Int, y: Int, a: UInt32, b: UInt32)] = []
    var isEqual: Bool { sizeMismatch == nil && differing == 0 }

    var description: String {
        if let sizeMismatch { return "size differs: \(sizeMismatch)" }
        if differing == 0 { return "identical (\(compared) pixels)" }
        let list = samples.map { String(format: "(%d,%d) %06X vs %06X", $0.x, $0.y, $0.a, $0.b) }
        return "\(differing) of \(compared) pixels differ; first: " + list.joined(separator: ", ")
    }
}

/// Compares RGB (the top byte is ignored), optionally skipping a rectangle (x, y, w, h).
func compareImages(_ a: RGBImage, _ b: RGBImage, excluding: (Int, Int, Int, Int)? = nil,
                   maxSamples: Int = 8) -> ImageDiff {
    var d = ImageDiff()
    guard a.width == b.width, a.height == b.height else {
        d.sizeMismatch = "\(a.width)x\(a.height) vs \(b.width)x\(b.height)"
        return d
    }
    a.pixels.withUnsafeBufferPointer { pa in
        b.pixels.withUnsafeBufferPointer { pb in
            for y in 0..<a.height {
                let skipRow = excluding.map { y >= $0.1 && y < $0.1 + $0.3 } ?? false
                let row = y * a.width
                for x in 0..<a.width {
                    if skipRow, let e = excluding, x >= e.0, x < e.0 + e.2 { continue }
                    d.compared += 1
                    let va = pa[row + x] & 0xFF_FFFF, vb = pb[row + x] & 0xFF_FFFF
                    if va != vb {
                        d.differing += 1
                        if d.samples.count < maxSamples { d.samples.append((x, y, va, vb)) }
                    }
                }
            }
        }
    }
    return d
}

/// Peak signal-to-noise ratio in dB over R, G and B; +infinity for identical images.
/// Lossy encodings (Tight JPEG) are judged by this: ~30 dB and up looks right.
func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
    precondition(a.width == b.width && a.height == b.height, "psnr: sizes differ")
    var sum: UInt64 = 0
    for i in 0..<a.pixels.count {
        let pa = a.pixels[i], pb = b.pixels[i]
        for shift in [16, 8, 0] as [UInt32] {
            let d = Int((pa >> shift) & 0xFF) - Int((pb >> shift) & 0xFF)
            sum += UInt64(d * d)
        }
    }
    if sum == 0 { return .infinity }
    let mse = Double(sum) / Double(a.pixels.count * 3)
    return 10 * log10(255 * 255 / mse)
}

/// Asserts pixel equality; on failure writes both images and a difference mask and
/// names the directory in the message.
func assertImagesEqual(_ viewer: RGBImage, _ server: RGBImage, _ name: String,
                       file: StaticString = #filePath, line: UInt = #line) {
    let d = compareImages(viewer, server)
    guard !d.isEqual else { return }
    let dir = saveArtefacts(name, ["viewer": viewer, "server": server])
    XCTFail("\(name): viewer vs server: \(d); images in \(dir.path)", file: file, line: line)
}

/// Writes images as PNG (and a red-on-black difference mask when two same-size images are
/// given as "viewer" and "server") to a fresh temp directory and returns it.
@discardableResult
func saveArtefacts(_ name: String, _ images: [String: RGBImage]) -> URL {
    let safe = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
    let dir = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("farcast-interop-artefacts/\(safe)-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    for (k, img) in images { try? PNG.write(img, to: dir.appendingPathComponent("\(k).png").path) }
    if let v = images["viewer"], let s = images["server"], v.width == s.width, v.height == s.height {
        var mask = RGBImage(width: v.width, height: v.height)
        for i in 0..<v.pixels.count where (v.pixels[i] ^ s.pixels[i]) & 0xFF_FFFF != 0 { mask.pixels[i] = 0xFF0000 }
        try? PNG.write(mask, to: dir.appendingPathComponent("diff.png").path)
    }
    return dir
}

// MARK: - XWD

/// The root window of X display `display` (":N") as xwd sees it (0x00RRGGBB).
func captureDisplay(_ display: String, in dir: URL, timeout: TimeInterval = 30) throws -> RGBImage {
    try XWD.parse(runTool("xwd", ["-root", "-silent", "-display", display], in: dir, timeout: timeout).stdout)
}

/// X Window Dump files as `xwd` writes them: a header of 25 32-bit fields (big-endian as xwd
/// writes it; little-endian accepted too), the window name, the colormap, then the image.
enum XWD {
    static func parse(_ data: Data) throws -> RGBImage {
        let bytes = [UInt8](data)
        guard bytes.count >= 100 else { throw HarnessError("XWD: \(bytes.count) bytes is too short") }
        func be(_ i: Int) -> UInt32 {
            UInt32(bytes[i * 4]) << 24 | UInt32(bytes[i * 4 + 1]) << 16 | UInt32(bytes[i * 4 + 2]) << 8 | UInt32(bytes[i * 4 + 3])
        }
        // file_version is 7; whichever order reads it as 7 is the header's order.
        let headerBigEndian = be(1) == 7
        func field(_ i: Int) -> Int {
            let v = be(i)
            return Int(headerBigEndian ? v : v.byteSwapped)
        }
        guard field(1) == 7 else { throw HarnessError("XWD: not version 7") }
        let headerSize = field(0), format = field(2), depth = field(3)
        let width = field(4), height = field(5)
        let msbFirst = field(7) == 1
        let bpp = field(11), bytesPerLine = field(12), visualClass = field(13)
        let masks = [UInt32(field(14)), UInt32(field(15)), UInt32(field(16))]
        let ncolors = field(19)
        guard format == 2 else { throw HarnessError("XWD: pixmap format \(format), only ZPixmap (2) is read") }
        guard [16, 24, 32].contains(bpp), visualClass == 4 || visualClass == 5 else {
            throw HarnessError("XWD: \(bpp) bits per pixel, visual class \(visualClass); only TrueColor/DirectColor 16/24/32 bpp")
        }
        guard masks.allSatisfy({ $0 != 0 }) else { throw HarnessError("XWD: zero colour mask, depth \(depth)") }
        let start = headerSize + ncolors * 12
        guard bytesPerLine >= width * bpp / 8, bytes.count >= start + bytesPerLine * height else {
            throw HarnessError("XWD: \(bytes.count) bytes, need \(start + bytesPerLine * height)")
        }
        let shifts = masks.map { UInt32($0.trailingZeroBitCount) }
        let maxima = zip(masks, shifts).map { $0 >> $1 }
        let bytesPerPixel = bpp / 8
        var out = [UInt32](repeating: 0, count: width * height)
        // Unsafe buffers: a 1024x768 dump is 786k pixels and debug builds are slow otherwise.
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    var at = start + y * bytesPerLine
                    for x in 0..<width {
                        var p: UInt32 = 0
                        if msbFirst {
                            for k in 0..<bytesPerPixel { p = p << 8 | UInt32(src[at + k]) }
                        } else {
                            var k = bytesPerPixel - 1
                            while k >= 0 { p = p << 8 | UInt32(src[at + k]); k -= 1 }
                        }
                        at += bytesPerPixel
                        var rgb: UInt32 = 0
                        for c in 0..<3 {
                            var v = (p & masks[c]) >> shifts[c]
                            if maxima[c] != 255 { v = (v * 255 + maxima[c] / 2) / maxima[c] }
                            rgb = rgb << 8 | v
                        }
                        dst[y * width + x] = rgb
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }
}

// MARK: - PNG

enum PNG {
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func read(path: String) throws -> RGBImage {
        try decode(Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// 8-bit greyscale, RGB, palette, grey+alpha and RGBA; non-interlaced; all five filters.
    /// Alpha is dropped (snapshots are opaque).
    static func decode(_ data: Data) throws -> RGBImage {
        let b = [UInt8](data)
        guard b.count > 8, Array(b[0..<8]) == signature else { throw HarnessError("PNG: bad signature") }
        var at = 8
        var width = 0, height = 0, colourType = -1
        var idat: [UInt8] = []
        var palette: [UInt8] = []
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        while at + 8 <= b.count {
            let len = u32(at)
            let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            guard at + 12 + len <= b.count else { throw HarnessError("PNG: chunk \(type) cut short") }
            let body = b[(at + 8)..<(at + 8 + len)]
            switch type {
            case "IHDR":
                width = u32(at + 8); height = u32(at + 12)
                let depth = Int(b[at + 16]); colourType = Int(b[at + 17])
                let interlace = Int(b[at + 20])
                guard depth == 8 else { throw HarnessError("PNG: bit depth \(depth); only 8 is read") }
                guard interlace == 0 else { throw HarnessError("PNG: interlaced files are not read") }
            case "PLTE": palette = Array(body)
            case "IDAT": idat += body
            default: break
            }
            at += 12 + len
            if type == "IEND" { break }
        }
        let channelsByType = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4]
        guard let channels = channelsByType[colourType], width > 0, height > 0 else {
            throw HarnessError("PNG: colour type \(colourType) or size \(width)x\(height) not supported")
        }
        let stride = width * channels
        let raw = try inflate(idat, expected: (stride + 1) * height)
        guard raw.count >= (stride + 1) * height else { throw HarnessError("PNG: image data cut short") }
        var cur = [UInt8](repeating: 0, count: stride), prev = cur
        var out = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height {
            let rowStart = y * (stride + 1)
            let filter = raw[rowStart]
            for i in 0..<stride {
                let x = raw[rowStart + 1 + i]
                let a = i >= channels ? cur[i - channels] : 0
                let up = prev[i]
                let c = i >= channels ? prev[i - channels] : 0
                switch filter {
                case 0: cur[i] = x
                case 1: cur[i] = x &+ a
                case 2: cur[i] = x &+ up
                case 3: cur[i] = x &+ UInt8((Int(a) + Int(up)) / 2)
                case 4:
                    let p = Int(a) + Int(up) - Int(c)
                    let pa = abs(p - Int(a)), pb = abs(p - Int(up)), pc = abs(p - Int(c))
                    cur[i] = x &+ (pa <= pb && pa <= pc ? a : pb <= pc ? up : c)
                default: throw HarnessError("PNG: unknown filter \(filter) on row \(y)")
                }
            }
            for x in 0..<width {
                let s = x * channels
                let r: UInt8, g: UInt8, bl: UInt8
                switch colourType {
                case 0, 4: (r, g, bl) = (cur[s], cur[s], cur[s])
                case 3:
                    let k = Int(cur[s]) * 3
                    guard k + 2 < palette.count else { throw HarnessError("PNG: palette index out of range") }
                    (r, g, bl) = (palette[k], palette[k + 1], palette[k + 2])
                default: (r, g, bl) = (cur[s], cur[s + 1], cur[s + 2])
                }
                out[y * width + x] = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(bl)
            }
            swap(&cur, &prev)
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// 8-bit RGB, filter 0 on every row, zlib-compressed.
    static func encode(_ img: RGBImage) throws -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((img.width * 3 + 1) * img.height)
        for y in 0..<img.height {
            raw.append(0)
            for x in 0..<img.width {
                let p = img.pixels[y * img.width + x]
                raw += [UInt8((p >> 16) & 0xFF), UInt8((p >> 8) & 0xFF), UInt8(p & 0xFF)]
            }
        }
        var out = signature
        func chunk(_ type: String, _ body: [UInt8]) {
            let tb = Array(type.utf8) + body
            out += be32(UInt32(body.count)) + tb
            out += be32(UInt32(tb.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }))
        }
        chunk("IHDR", be32(UInt32(img.width)) + be32(UInt32(img.height)) + [8, 2, 0, 0, 0])
        chunk("IDAT", try deflate(raw))
        chunk("IEND", [])
        return Data(out)
    }

    static func write(_ img: RGBImage, to path: String) throws {
        try encode(img).write(to: URL(fileURLWithPath: path))
    }

    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func inflate(_ input: [UInt8], expected: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(expected, 1))
        var s = z_stream()
        guard inflateInit_(&s, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw HarnessError("PNG: inflateInit failed")
        }
        defer { inflateEnd(&s) }
        var rc: Int32 = Z_OK
        var produced = 0
        try input.withUnsafeBufferPointer { ib in
            s.next_in = UnsafeMutablePointer(mutating: ib.baseAddress)
            s.avail_in = uInt(ib.count)
            repeat {
                if produced == out.count { out += [UInt8](repeating: 0, count: out.count) }
                rc = out.withUnsafeMutableBufferPointer { ob in
                    s.next_out = ob.baseAddress! + produced
                    s.avail_out = uInt(ob.count - produced)
                    let r = CZlib.inflate(&s, Z_NO_FLUSH)
                    produced = ob.count - Int(s.avail_out)
                    return r
                }
                if rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR {
                    throw HarnessError("PNG: inflate error \(rc)")
                }
                if rc == Z_BUF_ERROR && s.avail_in == 0 { break }  // input ended early
            } while rc != Z_STREAM_END
        }
        return Array(out[0..<produced])
    }

    static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var destLen = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(destLen))
        let rc = out.withUnsafeMutableBufferPointer { ob in
            input.withUnsafeBufferPointer { ib in compress2(ob.baseAddress, &destLen, ib.baseAddress, uLong(ib.count), 6) }
        }
        guard rc == Z_OK else { throw HarnessError("PNG: compress2 failed \(rc)") }
        return Array(out[0..<Int(destLen)])
    }
}

// MARK: - PPM

enum PPM {
    /// Binary P6, for quick looks with any image viewer.
    static func encode(_ img: RGBImage) -> Data {
        var out = Array("P6\n\(img.width) \(img.height)\n255\n".utf8)
        out.reserveCapacity(out.count + img.pixels.count * 3)
        for p in img.pixels { out += [UInt8((p >> 16) & 0xFF), UInt8((p >> 8) & 0xFF), UInt8(p & 0xFF)] }
        return Data(out)
    }

    static func write(_ img: RGBImage, to path: String) throws {
        try encode(img).write(to: URL(fileURLWithPath: path))
    }

    /// Binary P6 with 8-bit samples (QEMU's screendump).
    static func read(path: String) throws -> RGBImage {
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard b.starts(with: Array("P6".utf8)) else { throw HarnessError("\(path): not a binary PPM") }
        var fields: [Int] = [], i = 2, cur = ""
        while fields.count < 3 && i < b.count {
            let c = Character(UnicodeScalar(b[i])); i += 1
            if c.isNumber { cur.append(c) } else if !cur.isEmpty { fields.append(Int(cur) ?? 0); cur = "" }
        }
        guard fields.count == 3, fields[2] == 255, b.count >= i + fields[0] * fields[1] * 3 else { throw HarnessError("\(path): bad PPM") }
        let (w, h) = (fields[0], fields[1])
        var px = [UInt32](repeating: 0, count: w * h)
        for k in 0..<(w * h) { px[k] = UInt32(b[i + 3 * k]) << 16 | UInt32(b[i + 3 * k + 1]) << 8 | UInt32(b[i + 3 * k + 2]) }
        return RGBImage(width: w, height: h, pixels: px)
    }
}
