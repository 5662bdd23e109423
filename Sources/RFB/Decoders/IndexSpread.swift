/// Packed palette indices painted a byte at a time: a table holds the pixels of every 4-bit
/// group of indices as 64-bit pairs, so a byte becomes two table loads and 64-bit stores
/// instead of a select per pixel (text is mostly 2-colour: ZRLE tiles, Tight mono rects).
/// Indices are most significant bit first, as RFB packs them.
struct IndexSpread {
    /// 32 pairs: for 1-bit indices, 4 pixels (two pairs) per 4-bit group; for 2-bit ones,
    /// 2 pixels (one pair) per group.
    let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 32)

    func deallocate() { table.deallocate() }

    /// For 1-bit indices: colour `c0` for 0, `c1` for 1.
    @inline(__always) func setMono(_ c0: UInt32, _ c1: UInt32) {
        for v in 0..<16 {
            let px = { (bit: Int) in v >> bit & 1 == 0 ? c0 : c1 }
            table[2 * v] = pixelPair(px(3), px(2)); table[2 * v + 1] = pixelPair(px(1), px(0))
        }
    }

    /// For 2-bit indices: `pal` holds at least 4 colours.
    @inline(__always) func setQuad(_ pal: UnsafePointer<UInt32>) {
        for v in 0..<16 { table[v] = pixelPair(pal[v >> 2], pal[v & 3]) }
    }

    /// 8 pixels at `d` from a byte of 1-bit indices (after `setMono`).
    @inline(__always) func storeMono(_ d: UnsafeMutablePointer<UInt32>, _ b: Int) {
        let hi = table + (b >> 4) * 2, lo = table + (b & 15) * 2
        let r = UnsafeMutableRawPointer(d)
        r.storeBytes(of: hi[0], as: UInt64.self); r.storeBytes(of: hi[1], toByteOffset: 8, as: UInt64.self)
        r.storeBytes(of: lo[0], toByteOffset: 16, as: UInt64.self); r.storeBytes(of: lo[1], toByteOffset: 24, as: UInt64.self)
    }

    /// 4 pixels at `d` from a byte of 2-bit indices (after `setQuad`).
    @inline(__always) func storeQuad(_ d: UnsafeMutablePointer<UInt32>, _ b: Int) {
        let r = UnsafeMutableRawPointer(d)
        r.storeBytes(of: table[b >> 4], as: UInt64.self)
        r.storeBytes(of: table[b & 15], toByteOffset: 8, as: UInt64.self)
    }
}

/// Two framebuffer pixels as one 64-bit store, the first at the lower address.
@inline(__always) func pixelPair(_ first: UInt32, _ second: UInt32) -> UInt64 {
    #if _endian(little)
    return UInt64(first) | UInt64(second) << 32
    #else
    return UInt64(first) << 32 | UInt64(second)
    #endif
}
