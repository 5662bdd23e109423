@_spi(Fuzzing) import RFB

/// One target per cursor pseudo-encoding, driven as the decoder targets are (`runDecoder`: the
/// same input layout, each rect a one-rect update in the target's encoding): the image and
/// mask sizes from the rect, the hotspot from its position, the pixel format's conversion
/// (RichCursor, VMware type 0), the premultiplied alpha (Cursor With Alpha, VMware type 1), and
/// the dimension limit. The input's length bounds a cursor (16 KiB: at most a few thousand
/// pixels with alpha), so no run decodes a 1024x1024 image.
let cursorTargets: [FuzzTarget] = ([
    ("cur-rich", Encoding.cursor, "RichCursor (-239): pixels in the pixel format and a 1-bit mask"),
    ("cur-x", Encoding.xCursor, "XCursor (-240): two RGB colours, a 1-bit image and a 1-bit mask"),
    ("cur-alpha", Encoding.cursorWithAlpha, "Cursor With Alpha (-314): an encoding, then premultiplied RGBA"),
    ("cur-vmware", Encoding.vmwareCursor, "VMware cursor: type 0 AND/XOR masks in the pixel format, type 1 RGBA"),
] as [(String, Int32, String)]).map { name, encoding, summary in
    FuzzTarget(name: name, summary: summary, maxLength: 16384, run: { runDecoder(encoding, $0) },
               seeds: { CursorSeeds.synthetic(encoding) })
}

enum CursorSeeds {
    /// A few cursors per encoding: small, with a hotspot, one empty, one at a non-byte width.
    static func synthetic(_ encoding: Int32) -> [[UInt8]] {
        let fb = (64, 40)
        // (hotX, hotY, w, h, body)
        var cursors: [(Int, Int, Int, Int, [UInt8])] = []
        func mask(_ w: Int, _ h: Int, _ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: (w + 7) / 8 * h) }
        func px(_ n: Int, _ v: UInt32) -> [UInt8] { (0..<n).flatMap { i in DecoderSeeds.px(v &+ UInt32(i) &* 0x010203) } }
        switch encoding {
        case Encoding.cursor:
            cursors = [(1, 1, 4, 2, px(8, 0x112233) + mask(4, 2, 0xa0)), (0, 0, 10, 3, px(30, 0xff0000) + mask(10, 3, 0xff)),
                       (0, 0, 0, 0, [])]
        case Encoding.xCursor:
            cursors = [(2, 1, 8, 2, [255, 0, 0, 0, 0, 255] + [0xf0, 0x0f] + [0xff, 0x3c]),
                       (0, 0, 9, 3, [1, 2, 3, 4, 5, 6] + mask(9, 3, 0x55) + mask(9, 3, 0xff)), (0, 0, 0, 0, [])]
        case Encoding.cursorWithAlpha:
            cursors = [(1, 0, 2, 2, be32(0) + [128, 0, 0, 128, 0, 0, 0, 0, 255, 255, 255, 255, 10, 20, 30, 40]),
                       (0, 0, 1, 1, be32(7) + [1, 2, 3, 4])]   // not Raw: refused
        case Encoding.vmwareCursor:
            cursors = [(0, 0, 2, 2, [0, 0] + px(4, 0) + px(4, 0xabcdef)),
                       (1, 1, 2, 1, [1, 0] + [255, 0, 0, 255, 0, 0, 128, 128]), (0, 0, 1, 1, [2, 0, 0, 0])]
        default:
            break
        }
        let whole = decoderInput(flags: 0, fb: fb, cursors)
        return [whole, decoderInput(flags: 1 << 3, fb: fb, cursors), decoderInput(flags: 3 << 3, fb: fb, cursors),
                decoderInput(flags: 1, fb: fb, cursors), decoderInput(flags: 2 | 4, fb: fb, cursors)]
    }
}
