import CPNG

/// TightPNG (-260, QEMU and libvncserver): Tight whose non-fill, non-JPEG rects are PNG
/// images (compression type 0xA), decoded with libpng's simplified API.
extension TightDecoder {
    func decodePNG(rect: Rect, reader: inout ByteReader, fb: Framebuffer, resets: UInt8) throws {
        let length = try reader.compactLength()
        let limit = Limits.maxCompressedLength(rawSize: rect.area * 4)
        guard length <= limit else {
            throw ProtocolError("TightPNG rect \(rect): PNG length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let data = try reader.bytes(length)
        applyResets(resets)
        if rect.isEmpty { return }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, data, length) != 0 else {
            throw ProtocolError("TightPNG rect \(rect): bad PNG data (\(TightDecoder.message(image)))")
        }
        defer { png_image_free(&image) }
        guard Int(image.width) == rect.w, Int(image.height) == rect.h else {
            throw ProtocolError("TightPNG rect \(rect): PNG is \(image.width)x\(image.height), not the rect's \(rect.w)x\(rect.h)")
        }
        // BGRA in memory is the framebuffer's 0x00RRGGBB little-endian layout (alpha cleared after)
        image.format = UInt32(PNG_FORMAT_BGRA)
        let dst = UnsafeMutableRawPointer(fb.row(rect.y) + rect.x)
        guard png_image_finish_read(&image, nil, dst, Int32(fb.width * 4), nil) != 0 else {
            throw ProtocolError("TightPNG rect \(rect): PNG decoding failed (\(TightDecoder.message(image)))")
        }
        for row in 0..<rect.h {
            let d = fb.row(rect.y + row) + rect.x
            for x in 0..<rect.w { d[x] &= 0x00ff_ffff }
        }
    }

    static func message(_ image: png_image) -> String {
        var m = image.message
        return withUnsafeBytes(of: &m) { b in String(decoding: b.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
