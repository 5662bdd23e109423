import CPNG

/// TightPNG (-260, QEMU and libvncserver): Tight whose non-fill, non-JPEG rects are PNG
/// images (compression type 0xA). QEMU sends 8-bit RGB for full-colour rects and 8-bit palette
/// PNGs for rects of up to 256 colours; any colour type and depth libpng reads is taken.
///
/// The pixels are the samples as stored (16-bit scaled to 8, alpha dropped), as a VNC server
/// means them: libpng's full read API with every ancillary chunk skipped (cpng_decode_bgrx), not
/// its simplified API, which takes 16-bit samples and gAMA to be linear light and converts them.
extension TightDecoder {
    /// libpng allocates no chunk larger: it reads IHDR, PLTE (768 bytes) and IDAT (streamed
    /// through zlib in 8 KiB pieces) and skips every other chunk unread.
    static let maxPNGChunkBytes = 64 * 1024

    func decodePNG(rect: Rect, reader: inout ByteReader, fb: Framebuffer, resets: UInt8) throws {
        let length = try reader.compactLength()
        let limit = Limits.maxCompressedLength(rawSize: rect.area * 4)
        guard length <= limit else {
            throw ProtocolError("TightPNG rect \(rect): PNG length \(length) exceeds the limit of \(limit) bytes for its size")
        }
        let data = try reader.bytes(length)
        applyResets(resets)
        if rect.isEmpty { return }
        // BGRX in memory is the framebuffer's 0x00RRGGBB little-endian layout, X written as 0
        let dst = UnsafeMutableRawPointer(fb.row(rect.y) + rect.x).assumingMemoryBound(to: UInt8.self)
        var imageW: UInt32 = 0, imageH: UInt32 = 0
        var message = [CChar](repeating: 0, count: 160)
        let status = message.withUnsafeMutableBufferPointer { m in
            cpng_decode_bgrx(data, length, UInt32(rect.w), UInt32(rect.h), dst, fb.width * 4, TightDecoder.maxPNGChunkBytes,
                             &imageW, &imageH, m.baseAddress, m.count)
        }
        switch Int(status) {
        case Int(CPNG_OK):
            return
        case Int(CPNG_WRONG_SIZE):
            throw ProtocolError("TightPNG rect \(rect): PNG is \(imageW)x\(imageH), not the rect's \(rect.w)x\(rect.h)")
        default:
            let why = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ProtocolError("TightPNG rect \(rect): bad PNG data (\(why.isEmpty ? "unknown error" : why))")
        }
    }
}
