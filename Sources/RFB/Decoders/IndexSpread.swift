/// Packed palette indices painted a byte at a time: a table holds the pixels of every 4-bit
/// group of indices (4 pixels as a 16-byte vector for 1-bit indices, a 64-bit pair for 2-bit
/// ones), so a byte becomes two table loads and stores instead of a select per pixel (text is
/// mostly 2-colour: ZRLE tiles, Tight mono rects).
/// Indices are most significant bit first, as RFB packs them.
struct IndexSpread {
    /// For 2-bit indices: 2 pixels (one pair) per 4-bit group.
    let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 16)
    /// For 1-bit indices: the 4 pixels of each 4-bit group as one 16-byte vector, so a byte of
    /// indices is two vector loads and stores (as 64-bit pairs it was four of each, and the
    /// stores were half of a ZRLE text decode).
    let mono = UnsafeMutablePointer<SIMD4<UInt32>>.allocate(capacity: 16)

    func deallocate() { table.deallocate(); mono.deallocate() }

    /// For 1-bit indices: colour `c0` for 0, `c1` for 1.
    @inline(__always) func setMono(_ c0: UInt32, _ c1: UInt32) {
        for v in 0..<16 {
            let px = { (bit: Int) in v >> bit & 1 == 0 ? c0 : c1 }
            mono[v] = SIMD4(px(3), px(2), px(1), px(0))
        }
    }

    /// For 2-bit indices: `pal` holds at least 4 colours.
    @inline(__always) func setQuad(_ pal: UnsafePointer<UInt32>) {
        for v in 0..<16 { table[v] = pixelPair(pal[v >> 2], pal[v & 3]) }
    }

    /// 8 pixels at `d` from a byte of 1-bit indices (after `setMono`).
    @inline(__always) func storeMono(_ d: UnsafeMutablePointer<UInt32>, _ b: Int) {
        let r = UnsafeMutableRawPointer(d)   // unaligned stores (SE-0349)
        r.storeBytes(of: mono[b >> 4], as: SIMD4<UInt32>.self)
        r.storeBytes(of: mono[b & 15], toByteOffset: 16, as: SIMD4<UInt32>.self)
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
