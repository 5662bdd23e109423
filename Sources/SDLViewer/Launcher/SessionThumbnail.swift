import CPNG
import CSDL2
import FarcastTools
import Foundation
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// The small picture of a session's last screen that the launcher shows next to a connection:
/// written by the session's process when it ends (`FARCAST_THUMBNAIL` names the file), read by
/// the launcher. Main thread only (the framebuffer is read under the session's lock).
public enum SessionThumbnail {
    /// Longest side of a thumbnail in pixels: sharp at 2x in a 96-point-wide slot.
    static let maxSide = 240
    /// Anything larger is not a thumbnail we wrote: ignored.
    static let maxFileBytes = 2 << 20, maxReadSide = 1024

    /// Box-filtered down to at most `maxSide` pixels wide or high, written atomically.
    public static func write(_ fb: Framebuffer, to path: String) throws {
        guard fb.width > 0, fb.height > 0 else { return }
        let f = max(1, (max(fb.width, fb.height) + maxSide - 1) / maxSide)
        let w = max(1, fb.width / f), h = max(1, fb.height / f)
        var px = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var r = 0, g = 0, b = 0
                for sy in 0..<f {
                    let row = fb.row(min(fb.height - 1, y * f + sy))
                    for sx in 0..<f {
                        let p = row[min(fb.width - 1, x * f + sx)]
                        r += Int((p >> 16) & 0xff); g += Int((p >> 8) & 0xff); b += Int(p & 0xff)
                    }
                }
                let n = f * f
                px[y * w + x] = UInt32(r / n) << 16 | UInt32(g / n) << 8 | UInt32(b / n)
            }
        }
        let png = px.withUnsafeBufferPointer { b in b.baseAddress.map { PNGWriter.encode(width: w, height: h, pixels: $0) } ?? [] }
        // a picture of someone's remote screen: only the user may read it (0600 in a 0700 folder),
        // made so from the start, then renamed over the old one
        try PrivateFile.replace(path, with: png)
    }

    /// A texture of the PNG at `path`, or nil when there is none or it is not a picture.
    static func texture(_ renderer: OpaquePointer, path: String) -> (tex: OpaquePointer, w: Int, h: Int)? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= maxFileBytes else { return nil }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let ok = data.withUnsafeBytes { b in png_image_begin_read_from_memory(&image, b.baseAddress, b.count) != 0 }
        guard ok else { return nil }
        defer { png_image_free(&image) }
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w <= maxReadSide, h <= maxReadSide else { return nil }
        image.format = UInt32(PNG_FORMAT_BGRA)
        var px = [UInt8](repeating: 0, count: w * h * 4)
        let read = px.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w * 4), nil) != 0 }
        guard read, let tex = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue, Int32(SDL_TEXTUREACCESS_STATIC.rawValue), Int32(w), Int32(h)) else { return nil }
        px.withUnsafeBytes { _ = SDL_UpdateTexture(tex, nil, $0.baseAddress, Int32(w * 4)) }
        SDL_SetTextureScaleMode(tex, SDL_ScaleModeLinear)
        return (tex, w, h)
    }
}
