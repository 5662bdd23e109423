/// Zlib (encoding 6): u32 length, then zlib data on one connection-long stream that inflates
/// to exactly the rect's raw pixels.
final class ZlibDecoder: RectDecoder {
    private let stream: ZStream
    private let scratch = ScratchBuffer()

    init(probe: LibraryProbe? = nil) { stream = ZStream(probe: probe) }

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        // One unit per rect: zlib state cannot be rewound, so nothing happens until all bytes are in.
        let length = Int(try reader.u32())
        let rowBytes = rect.w * pf.bytesPerPixel
        let rawSize = rowBytes * rect.h
        let limit = Limits.maxCompressedLength(rawSize: rawSize)
        guard length <= limit else {
            throw ProtocolError("Zlib rect \(rect): compressed length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let src = try reader.bytes(length)
        if length == 0 && rawSize == 0 { return }
        try stream.inflateExactly(src, count: length, into: scratch, size: rawSize, what: "Zlib rect \(rect)")
        let out = scratch.pointer
        for i in 0..<rect.h {
            pf.convert(out + i * rowBytes, to: fb.row(rect.y + i) + rect.x, count: rect.w)
        }
    }

    func reset() { stream.reset() }
}
