import Foundation
import RFB
import VNCSession
import XCTest

/// QEMU showing a photo: SeaBIOS's boot splash (`-boot splash=`), the machine stopped on it.
/// QEMU sends a photo as full-colour PNG rects in TightPNG (zlib 9 and every PNG filter at its
/// default compression level, none at level 0), as zlib rects in Tight and ZRLE: every
/// encoding's snapshot equals QEMU's own screendump, pixel for pixel. With lossy=on QEMU's
/// TightPNG sends gradient rects, and JPEG ones once a quality is asked for.
final class QEMUSplashInteropTests: XCTestCase {
    static let width = 640, height = 480

    /// A landscape with the look of a photo: a sky gradient, a sun with a halo, hills, grain
    /// (tens of thousands of colours, smooth, so QEMU's palette and solid paths do not take it).
    static func photo() -> RGBImage {
        var px = [UInt32](repeating: 0, count: width * height)
        var seed: UInt32 = 12345
        func grain() -> Double {
            seed = seed &* 1_103_515_245 &+ 12345
            return Double((seed >> 16) & 0xff) / 255 * 10 - 5
        }
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                let hill = 0.62 + 0.08 * sin(fx * 7.1) + 0.04 * sin(fx * 23 + 1.3)
                var r: Double, g: Double, b: Double
                if fy < hill {
                    // sky: deep blue above, pale near the horizon, a warm sun on the right
                    r = 40 + 150 * fy; g = 90 + 120 * fy; b = 200 + 40 * fy
                    let d = hypot(fx - 0.72, (fy - 0.25) * 0.75)
                    let glow = max(0, 1 - d * 4)
                    r += 200 * glow * glow; g += 150 * glow * glow; b -= 60 * glow
                } else {
                    // grass: darker down the slope, striped by the wind
                    let depth = (fy - hill) / (1 - hill)
                    r = 70 - 40 * depth + 15 * sin(fx * 90 + fy * 40)
                    g = 150 - 70 * depth + 20 * sin(fx * 53 - fy * 30)
                    b = 40 + 10 * depth
                }
                let n = grain()
                func c(_ v: Double) -> UInt32 { UInt32(max(0, min(255, (v + n).rounded()))) }
                px[y * width + x] = c(r) << 16 | c(g) << 8 | c(b)
            }
        }
        return RGBImage(width: width, height: height, pixels: px)
    }

    /// The photo as a baseline JPEG SeaBIOS decodes (4:2:0), made by ffmpeg.
    func splashJPEG(in dir: URL) throws -> (path: String, photo: RGBImage) {
        let photo = Self.photo()
        let ppm = dir.appendingPathComponent("splash.ppm").path, jpg = dir.appendingPathComponent("splash.jpg").path
        try PPM.write(photo, to: ppm)
        try runTool("ffmpeg", ["-loglevel", "error", "-y", "-i", ppm, "-q:v", "3", "-pix_fmt", "yuvj420p", jpg], in: dir)
        return (jpg, photo)
    }

    func distinctColours(_ img: RGBImage) -> Int { Set(img.pixels.map { $0 & 0xff_ffff }).count }

    /// QEMU (VNC options `vnc`) showing the splash, stopped on it; its screendump.
    func splashMachine(vnc: String = "") throws -> (QEMUMachine, RGBImage) {
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-splash-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: scratch) }
        let (jpg, photo) = try splashJPEG(in: scratch)
        // SeaBIOS shows the splash while it waits for the boot menu key (for a minute here)
        let m = try startQEMU(["-boot", "menu=on,splash=\(jpg),splash-time=60000"], running: true, vnc: vnc)
        var shown = RGBImage(width: 0, height: 0)
        XCTAssertTrue(poll(timeout: 30, interval: 0.25) {
            shown = (try? m.screendump()) ?? shown
            // (SeaBIOS draws the grain smoother than libjpeg: some 2000 colours, not the photo's 66 000)
            return shown.width == Self.width && distinctColours(shown) > 1000
        }, "the splash did not appear: \(shown.width)x\(shown.height), \(distinctColours(shown)) colours; \(m.log)")
        try m.qmp(["{\"execute\": \"stop\"}"])
        let screen = try m.screendump()
        // it is the photo (as SeaBIOS's own JPEG decoder draws it), not some other screen
        XCTAssertGreaterThan(psnr(screen, photo), 28, "the screen shows the splash photo")
        return (m, screen)
    }

    func snapshot(_ m: QEMUMachine, _ encodings: [Int32], level: Int? = nil, quality: Int? = nil) throws -> RGBImage {
        var o = SnapshotOptions()
        o.settings.securityMethods = [.type(SecurityType.none)]
        o.settings.encodings = encodings
        o.settings.encodingsNamedByUser = true
        o.settings.compressLevel = level
        o.settings.jpegQuality = quality
        // short: QEMU's first update carries only pseudo-rects, and its PNG rects of the photo
        // take it the better part of a second; the snapshot must wait for the picture itself
        o.quietSeconds = 0.1
        return RGBImage(try Snapshot.capture(HostSpec(host: Loopback.host, port: m.port), options: o).framebuffer)
    }

    func testEveryEncodingOfTheSplashEqualsTheScreendump() throws {
        let (m, screen) = try splashMachine()
        let cases: [(String, [Int32], Int?)] = [
            ("TightPNG", [Encoding.tightPNG, Encoding.copyRect], nil),
            ("TightPNG level 0 (no PNG filters, stored zlib)", [Encoding.tightPNG, Encoding.copyRect], 0),
            ("ZRLE", [Encoding.zrle, Encoding.copyRect], nil),
            ("Tight", [Encoding.tight, Encoding.copyRect], nil),
            ("Raw", [Encoding.raw], nil),
        ]
        for (name, encodings, level) in cases {
            assertImagesEqual(try snapshot(m, encodings, level: level), screen, "\(name) snapshot of QEMU's splash vs its screendump")
        }
    }

    /// QEMU with lossy=on: lossless, its TightPNG sends the photo as Tight gradient rects (not
    /// PNG), still exact; at quality 2 as JPEG rects (TightPNG and Tight), near the screendump.
    func testLossyQEMUsGradientAndJPEGRects() throws {
        let (m, screen) = try splashMachine(vnc: ",lossy=on")
        assertImagesEqual(try snapshot(m, [Encoding.tightPNG, Encoding.copyRect]), screen, "TightPNG (gradient rects) vs the screendump")
        for (name, enc) in [("TightPNG", Encoding.tightPNG), ("Tight", Encoding.tight)] {
            let lossy = try snapshot(m, [enc, Encoding.copyRect], quality: 2)
            let db = psnr(lossy, screen)
            print("splash: \(name) at quality 2: \(String(format: "%.1f", db)) dB against the screendump")
            XCTAssertGreaterThan(db, 28, "\(name) JPEG rects at quality 2 (JPEG quality 15 in QEMU; 32 dB here)")
            XCTAssertLessThan(db, .infinity, "\(name) at quality 2 went through QEMU's JPEG path")
        }
    }
}
