/// The RFB PIXEL_FORMAT structure (16 bytes on the wire).
public struct PixelFormat: Equatable, Sendable, CustomStringConvertible {
    public var bitsPerPixel: UInt8
    public var depth: UInt8
    public var bigEndian: Bool
    public var trueColour: Bool
    public var redMax: UInt16, greenMax: UInt16, blueMax: UInt16
    public var redShift: UInt8, greenShift: UInt8, blueShift: UInt8

    public init(bitsPerPixel: UInt8, depth: UInt8, bigEndian: Bool, trueColour: Bool,
                redMax: UInt16, greenMax: UInt16, blueMax: UInt16,
                redShift: UInt8, greenShift: UInt8, blueShift: UInt8) {
        self.bitsPerPixel = bitsPerPixel; self.depth = depth; self.bigEndian = bigEndian
        self.trueColour = trueColour; self.redMax = redMax; self.greenMax = greenMax; self.blueMax = blueMax
        self.redShift = redShift; self.greenShift = greenShift; self.blueShift = blueShift
    }

    /// The framebuffer's own format: 32 bpp little-endian 0x00RRGGBB (BGRX in memory),
    /// which is SDL's XRGB8888 texture format, so uploads are plain copies.
    public static let native = PixelFormat(bitsPerPixel: 32, depth: 24, bigEndian: false, trueColour: true,
                                           redMax: 255, greenMax: 255, blueMax: 255,
                                           redShift: 16, greenShift: 8, blueShift: 0)
    /// 16 bpp RGB565, little-endian.
    public static let rgb565 = PixelFormat(bitsPerPixel: 16, depth: 16, bigEndian: false, trueColour: true,
                                           redMax: 31, greenMax: 63, blueMax: 31,
                                           redShift: 11, greenShift: 5, blueShift: 0)
    /// 8 bpp true colour BGR233 (what vncviewer's low-colour mode asks for).
    public static let bgr233 = PixelFormat(bitsPerPixel: 8, depth: 8, bigEndian: false, trueColour: true,
                                           redMax: 7, greenMax: 7, blueMax: 3,
                                           redShift: 0, greenShift: 3, blueShift: 6)
    /// 8 bpp with a colour map sent by the server (SetColourMapEntries).
    public static let colourMap8 = PixelFormat(bitsPerPixel: 8, depth: 8, bigEndian: false, trueColour: false,
                                               redMax: 0, greenMax: 0, blueMax: 0,
                                               redShift: 0, greenShift: 0, blueShift: 0)

    public var bytesPerPixel: Int { Int(bitsPerPixel) / 8 }
    public var isNative: Bool { self == .native || (bitsPerPixel == 32 && !bigEndian && trueColour && redMax == 255 && greenMax == 255 && blueMax == 255 && redShift == 16 && greenShift == 8 && blueShift == 0) }

    /// Checks a format a server announced or a user asked for: one we can decode.
    public func validate() throws {
        guard [8, 16, 32].contains(bitsPerPixel) else { throw ProtocolError("unsupported pixel format: \(bitsPerPixel) bits per pixel (must be 8, 16 or 32)") }
        if trueColour {
            for (mx, sh, name) in [(redMax, redShift, "red"), (greenMax, greenShift, "green"), (blueMax, blueShift, "blue")] {
                // max must be 2^n-1 and fit inside the pixel at its shift
                guard mx != 0, mx & (mx &+ 1) == 0, Int(sh) < Int(bitsPerPixel),
                      (UInt64(mx) << UInt64(sh)) < (UInt64(1) << UInt64(bitsPerPixel)) else {
                    throw ProtocolError("unsupported pixel format: \(name) max \(mx) shift \(sh) does not fit \(bitsPerPixel) bpp")
                }
            }
        }
    }

    public init(wire p: UnsafePointer<UInt8>) {
        bitsPerPixel = p[0]; depth = p[1]; bigEndian = p[2] != 0; trueColour = p[3] != 0
        redMax = UInt16(p[4]) << 8 | UInt16(p[5]); greenMax = UInt16(p[6]) << 8 | UInt16(p[7])
        blueMax = UInt16(p[8]) << 8 | UInt16(p[9])
        redShift = p[10]; greenShift = p[11]; blueShift = p[12]
    }

    /// 16 bytes, padding zero.
    public var wireBytes: [UInt8] {
        [bitsPerPixel, depth, bigEndian ? 1 : 0, trueColour ? 1 : 0,
         UInt8(redMax >> 8), UInt8(redMax & 0xff), UInt8(greenMax >> 8), UInt8(greenMax & 0xff),
         UInt8(blueMax >> 8), UInt8(blueMax & 0xff), redShift, greenShift, blueShift, 0, 0, 0]
    }

    public var description: String {
        if !trueColour { return "\(bitsPerPixel)bpp colour-mapped" }
        return "\(bitsPerPixel)bpp depth \(depth) \(bigEndian ? "BE" : "LE") r\(redMax)<<\(redShift) g\(greenMax)<<\(greenShift) b\(blueMax)<<\(blueShift)"
    }

    /// Parses `--pixel-format` values: rgb888 (default), rgb565, bgr233, cmap8.
    public init?(name: String) {
        switch name.lowercased() {
        case "rgb888", "bgrx", "native", "32", "24": self = .native
        case "rgb565", "16": self = .rgb565
        case "bgr233", "8": self = .bgr233
        case "cmap8", "colourmap", "colormap", "palette": self = .colourMap8
        default: return nil
        }
    }
}

/// Converts pixels in the session's wire format into framebuffer pixels (0x00RRGGBB).
/// The mode is chosen once per format; loops switch on it outside the per-pixel work.
public final class PixelConverter {
    public enum Mode { case native, lut8, lut16, generic32 }
    public let format: PixelFormat
    public let bytesPerPixel: Int
    public let mode: Mode
    /// For lut8/lut16: fb pixel by raw wire value (16-bit keys are the two wire bytes as b0 | b1<<8).
    public private(set) var lut: [UInt32]
    /// ZRLE's CPIXEL size and, for 3-byte CPIXELs, whether they are the high three bytes.
    public let cpixelSize: Int
    let cpixelHighBytes: Bool
    /// Tight's TPIXEL is 3 bytes R,G,B when the format is 32 bpp depth 24 with 8-bit channels.
    public let tightRGB: Bool

    public init(format: PixelFormat) {
        self.format = format
        bytesPerPixel = format.bytesPerPixel
        if format.isNative { mode = .native }
        else if format.bitsPerPixel == 8 { mode = .lut8 }
        else if format.bitsPerPixel == 16 { mode = .lut16 }
        else { mode = .generic32 }
        let entries = mode == .lut8 ? 256 : mode == .lut16 ? 65536 : 0
        lut = format.trueColour ? PixelConverter.cachedTable(format) ?? [] : []
        let cached = lut.count == entries
        if !cached { lut = [UInt32](repeating: 0, count: entries) }
        // CPIXEL: 3 bytes when all colour bits sit in the low or the high three bytes of a 32-bit true-colour pixel
        if format.trueColour && format.bitsPerPixel == 32 && format.depth <= 24 {
            let mask = (UInt32(format.redMax) << UInt32(format.redShift)) | (UInt32(format.greenMax) << UInt32(format.greenShift)) | (UInt32(format.blueMax) << UInt32(format.blueShift))
            if mask & 0xff00_0000 == 0 { cpixelSize = 3; cpixelHighBytes = false }
            else if mask & 0x0000_00ff == 0 { cpixelSize = 3; cpixelHighBytes = true }
            else { cpixelSize = 4; cpixelHighBytes = false }
        } else { cpixelSize = format.bytesPerPixel; cpixelHighBytes = false }
        tightRGB = format.trueColour && format.bitsPerPixel == 32 && format.depth == 24
            && format.redMax == 255 && format.greenMax == 255 && format.blueMax == 255
        if format.trueColour && entries > 0 && !cached {
            if mode == .lut8 { for i in 0..<256 { lut[i] = mapTrueColour(UInt32(i)) } }
            if mode == .lut16 {
                for i in 0..<65536 {
                    let v = format.bigEndian ? UInt32((i & 0xff) << 8 | i >> 8) : UInt32(i)
                    lut[i] = mapTrueColour(v)
                }
            }
            PixelConverter.keepTable(format, lut)
        }
    }

    /// True-colour tables of recent formats, shared (copy on write) by every converter made for
    /// one: a 16-bit table is 65 536 divisions, and each connection, reconnect and format switch
    /// made it again (a quarter of a fuzz run's time). Colour maps change, so they are not kept.
    private static let tableCache = PthreadMutex()
    nonisolated(unsafe) private static var tables: [(PixelFormat, [UInt32])] = []
    private static let tablesKept = 4

    private static func cachedTable(_ f: PixelFormat) -> [UInt32]? {
        tableCache.locked { tables.first { $0.0 == f }?.1 }
    }

    private static func keepTable(_ f: PixelFormat, _ t: [UInt32]) {
        tableCache.locked {
            if tables.count == tablesKept { tables.removeFirst() }
            tables.append((f, t))
        }
    }

    @inline(__always) static func scale(_ c: UInt32, _ max: UInt16) -> UInt32 {
        max == 255 ? c : (c * 255 + UInt32(max) / 2) / UInt32(max)
    }

    /// A true-colour pixel value (host order) to 0x00RRGGBB.
    @inline(__always) public func mapTrueColour(_ v: UInt32) -> UInt32 {
        let f = format
        let r = PixelConverter.scale((v >> UInt32(f.redShift)) & UInt32(f.redMax), f.redMax)
        let g = PixelConverter.scale((v >> UInt32(f.greenShift)) & UInt32(f.greenMax), f.greenMax)
        let b = PixelConverter.scale((v >> UInt32(f.blueShift)) & UInt32(f.blueMax), f.blueMax)
        return r << 16 | g << 8 | b
    }

    /// SetColourMapEntries: 16-bit channels. Entries outside the table are the caller's error to report.
    public func setColourMapEntry(_ index: Int, r: UInt16, g: UInt16, b: UInt16) {
        guard !format.trueColour, index >= 0, index < lut.count else { return }
        lut[index] = UInt32(r >> 8) << 16 | UInt32(g >> 8) << 8 | UInt32(b >> 8)
    }
    public var colourMapSize: Int { format.trueColour ? 0 : lut.count }

    /// One wire pixel (bytesPerPixel bytes) to a framebuffer pixel.
    @inline(__always) public func pixel(_ p: UnsafePointer<UInt8>) -> UInt32 {
        switch mode {
        case .native: return UnsafeRawPointer(p).loadUnaligned(as: UInt32.self).littleEndian & 0x00ff_ffff
        case .lut8: return lut.withUnsafeBufferPointer { $0[Int(p[0])] }
        case .lut16: return lut.withUnsafeBufferPointer { $0[Int(p[0]) | Int(p[1]) << 8] }
        case .generic32: return mapTrueColour(load32(p))
        }
    }

    @inline(__always) func load32(_ p: UnsafePointer<UInt8>) -> UInt32 {
        let v = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
        return format.bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v)
    }

    /// A row of `count` wire pixels to framebuffer pixels.
    public func convert(_ src: UnsafePointer<UInt8>, to dst: UnsafeMutablePointer<UInt32>, count: Int) {
        switch mode {
        case .native:
            // BGRX on the wire is the framebuffer's layout: one copy.
            UnsafeMutableRawPointer(dst).copyMemory(from: src, byteCount: count * 4)
        case .lut8:
            lut.withUnsafeBufferPointer { t in for i in 0..<count { dst[i] = t[Int(src[i])] } }
        case .lut16:
            lut.withUnsafeBufferPointer { t in
                var s = src
                for i in 0..<count { dst[i] = t[Int(s[0]) | Int(s[1]) << 8]; s += 2 }
            }
        case .generic32:
            var s = src
            for i in 0..<count { dst[i] = mapTrueColour(load32(s)); s += 4 }
        }
    }

    /// One ZRLE CPIXEL (cpixelSize bytes) to a framebuffer pixel.
    @inline(__always) public func cpixel(_ p: UnsafePointer<UInt8>) -> UInt32 {
        if cpixelSize != 3 { return pixel(p) }
        let v: UInt32
        if format.bigEndian {
            let x = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
            v = cpixelHighBytes ? x << 8 : x
        } else {
            let x = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16
            v = cpixelHighBytes ? x << 8 : x
        }
        return mode == .native ? v : mapTrueColour(v)
    }

    /// CPIXELs are the three low bytes of the framebuffer's own pixel: a little-endian load of
    /// four bytes, masked, is the pixel.
    public var cpixelIsLow24: Bool { cpixelSize == 3 && mode == .native && !format.bigEndian && !cpixelHighBytes }

    /// A row of CPIXELs to framebuffer pixels.
    public func convertCPixels(_ src: UnsafePointer<UInt8>, to dst: UnsafeMutablePointer<UInt32>, count: Int) {
        if cpixelSize != 3 { convert(src, to: dst, count: count); return }
        if cpixelIsLow24 {
            unpack24(src, to: dst, count: count, LowByteFirst24.self)
            return
        }
        var s = src
        for i in 0..<count { dst[i] = cpixel(s); s += 3 }
    }

    /// Size of one Tight TPIXEL.
    public var tpixelSize: Int { tightRGB ? 3 : bytesPerPixel }

    /// One Tight TPIXEL to a framebuffer pixel.
    @inline(__always) public func tpixel(_ p: UnsafePointer<UInt8>) -> UInt32 {
        tightRGB ? (UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])) : pixel(p)
    }
}
