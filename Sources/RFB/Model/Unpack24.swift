/// Rows of 3-byte pixels widened to 32 bits: ZRLE's CPIXELs (little-endian, the low byte first)
/// and Tight's TPIXELs (R, G, B). Two pixels per 8-byte load and 8-byte store (a load and a
/// store per pixel was the limit) while the load stays inside the row; then 4-byte loads
/// masked to 3, for all but the last pixel, whose 4th byte may lie past the row.
protocol Packed24 {
    /// Pixels i and i+1 from the 8 bytes at `p` (host order): the first in the low half.
    static func pair(_ p: UnsafeRawPointer) -> UInt64
    /// One pixel from the 4 bytes at `p`.
    static func one(_ p: UnsafeRawPointer) -> UInt32
    /// One pixel from exactly 3 bytes.
    static func last(_ p: UnsafePointer<UInt8>) -> UInt32
}

/// B, G, R in memory (a CPIXEL of a little-endian 0x00RRGGBB format).
enum LowByteFirst24: Packed24 {
    @inline(__always) static func pair(_ p: UnsafeRawPointer) -> UInt64 {
        let x = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        return x & 0xff_ffff | x << 8 & 0x00ff_ffff_0000_0000
    }
    @inline(__always) static func one(_ p: UnsafeRawPointer) -> UInt32 {
        UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)) & 0x00ff_ffff
    }
    @inline(__always) static func last(_ p: UnsafePointer<UInt8>) -> UInt32 {
        UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16
    }
}

/// R, G, B in memory (Tight's TPIXEL).
enum RGB24: Packed24 {
    @inline(__always) static func pair(_ p: UnsafeRawPointer) -> UInt64 {
        // r0 g0 b0 r1 g1 b1 from the top byte down
        let x = UInt64(bigEndian: p.loadUnaligned(as: UInt64.self))
        return x >> 40 | x << 16 & 0x00ff_ffff_0000_0000
    }
    @inline(__always) static func one(_ p: UnsafeRawPointer) -> UInt32 {
        UInt32(bigEndian: p.loadUnaligned(as: UInt32.self)) >> 8
    }
    @inline(__always) static func last(_ p: UnsafePointer<UInt8>) -> UInt32 {
        UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
    }
}

@inline(__always)
func unpack24<F: Packed24>(_ src: UnsafePointer<UInt8>, to dst: UnsafeMutablePointer<UInt32>, count: Int, _: F.Type) {
    guard count > 0 else { return }
    let raw = UnsafeRawPointer(src), out = UnsafeMutableRawPointer(dst)
    var i = 0
    #if _endian(little)   // the pair holds the first pixel in its low half
    while i &+ 3 <= count {
        out.storeBytes(of: F.pair(raw + i &* 3).littleEndian, toByteOffset: i &* 4, as: UInt64.self)
        i &+= 2
    }
    #endif
    while i < count - 1 {
        dst[i] = F.one(raw + i * 3)
        i += 1
    }
    dst[count - 1] = F.last(src + (count - 1) * 3)
}
