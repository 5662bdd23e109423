import RFB
import Foundation
import CZlib

/// Screenshots: framebuffer pixels (0x00RRGGBB) to an 8-bit RGB PNG.
/// Each row gets whichever of the None, Sub and Up filters looks smallest (the usual
/// minimum-sum-of-absolute-differences guess), then zlib at a fast level.
public enum PNGWriter {
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// zlib level 3: most of level 6's size on screen content, at a fraction of the time.
    static let compressionLevel: Int32 = 3
    /// IDAT data is split into chunks of this size (any size up to 2^31-1 is legal; this keeps them modest).
    static let idatChunkSize = 1 << 20

    /// PNG bytes of a `width`×`height` image, `pixels` row after row with no padding.
    /// Width and height must be at least 1 (PNG has no empty images); otherwise returns `[]`.
    public static func encode(width: Int, height: Int, pixels: UnsafePointer<UInt32>) -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else { return [] }
        let rgbLen = width * 3
        let rowLen = 1 + rgbLen
        var filtered = [UInt8](repeating: 0, count: rowLen * height)
        var prev = [UInt8](repeating: 0, count: rgbLen)   // the row above row 0 counts as zeros
        var cur = [UInt8](repeating: 0, count: rgbLen)
        filtered.withUnsafeMutableBufferPointer { outBuf in
            guard let out = outBuf.baseAddress else { return }
            for y in 0..<height {
                swap(&prev, &cur)
                prev.withUnsafeBufferPointer { pb in
                    cur.withUnsafeMutableBufferPointer { cb in
                        guard let up = pb.baseAddress, let c = cb.baseAddress else { return }
                        filterRow(pixels + y * width, width: width, cur: c, prev: up, out: out + y * rowLen)
                    }
                }
            }
        }

        var idat = [UInt8](repeating: 0, count: Int(compressBound(uLong(filtered.count))))
        var idatLen = uLong(idat.count)
        let rc = idat.withUnsafeMutableBufferPointer { d in
            filtered.withUnsafeBufferPointer { s in
                compress2(d.baseAddress, &idatLen, s.baseAddress, uLong(s.count), compressionLevel)
            }
        }
        // compressBound guarantees room, so this cannot fail short of memory exhaustion.
        guard rc == Z_OK else { return [] }

        var png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        png.reserveCapacity(Int(idatLen) + 1024)
        var ihdr: [UInt8] = []
        appendBE32(UInt32(width), to: &ihdr)
        appendBE32(UInt32(height), to: &ihdr)
        ihdr += [8, 2, 0, 0, 0]   // 8 bits per channel, truecolour RGB, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", ihdr[...], to: &png)
        var off = 0
        let n = Int(idatLen)
        repeat {
            let end = min(n, off + idatChunkSize)
            appendChunk("IDAT", idat[off..<end], to: &png)
            off = end
        } while off < n
        appendChunk("IEND", [][...], to: &png)
        return png
    }

    /// The framebuffer as a PNG file's bytes (written by the caller, as `PrivateFile` makes files).
    public static func encode(_ fb: Framebuffer) throws -> [UInt8] {
        guard fb.width > 0, fb.height > 0 else {
            throw WriteError(message: "the framebuffer is empty (\(fb.width)x\(fb.height))")
        }
        let bytes = encode(width: fb.width, height: fb.height, pixels: fb.pixels)
        guard !bytes.isEmpty else { throw WriteError(message: "PNG compression failed") }
        return bytes
    }

    /// One row: RGB into `cur`, then the cheapest of None (0), Sub (1), Up (2) into `out` (filter byte first).
    private static func filterRow(_ src: UnsafePointer<UInt32>, width: Int, cur: UnsafeMutablePointer<UInt8>,
                                  prev: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>) {
        for x in 0..<width {
            let v = src[x]
            cur[3 * x] = UInt8(truncatingIfNeeded: v >> 16)
            cur[3 * x + 1] = UInt8(truncatingIfNeeded: v >> 8)
            cur[3 * x + 2] = UInt8(truncatingIfNeeded: v)
        }
        let n = width * 3
        // Costs: sum of |residual| with residuals read as signed bytes.
        var costNone = 0, costSub = 0, costUp = 0
        for i in 0..<n {
            let c = cur[i]
            let left: UInt8 = i >= 3 ? cur[i - 3] : 0
            costNone &+= cost(c)
            costSub &+= cost(c &- left)
            costUp &+= cost(c &- prev[i])
        }
        let d = out + 1
        if costNone <= costSub && costNone <= costUp {
            out[0] = 0
            d.update(from: cur, count: n)
        } else if costSub <= costUp {
            out[0] = 1
            for i in 0..<min(3, n) { d[i] = cur[i] }
            var i = 3
            while i < n { d[i] = cur[i] &- cur[i - 3]; i += 1 }
        } else {
            out[0] = 2
            for i in 0..<n { d[i] = cur[i] &- prev[i] }
        }
    }

    @inline(__always) private static func cost(_ r: UInt8) -> Int {
        let s = Int(Int8(bitPattern: r))
        return s < 0 ? -s : s
    }

    private static func appendBE32(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
                UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    /// length, type, data, CRC-32 of type and data.
    private static func appendChunk(_ type: String, _ data: ArraySlice<UInt8>, to out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        appendBE32(UInt32(data.count), to: &out)
        out += typeBytes
        out += data
        var crc = crc32(0, nil, 0)
        crc = typeBytes.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        appendBE32(UInt32(truncatingIfNeeded: crc), to: &out)
    }
}
