import Foundation
import XCTest
import RFB
import VNCSession

/// The viewer's decoded framebuffer against the server's own screen (xwd), per encoding,
/// on real TigerVNC Xvnc and x11vnc servers started on loopback.
final class DecodeInteropTests: XCTestCase {

    func snapshot(_ server: VNCServer, encodings: String, quality: Int? = nil,
                  pixelFormat: PixelFormat = .native, password: String? = nil) throws -> (RGBImage, SnapshotResult) {
        var o = SnapshotOptions()
        o.settings.encodings = try Encoding.parseList(encodings)
        o.settings.jpegQuality = quality
        o.settings.pixelFormat = pixelFormat
        o.settings.password = password.map { Array($0.utf8) }
        // x11vnc polls its screen: give straggling updates time to arrive
        o.quietSeconds = server.kind == .x11vnc ? 1.5 : 0.7
        let r = try Snapshot.capture(HostSpec(host: server.host, port: server.port), options: o)
        return (RGBImage(r.framebuffer), r)
    }

    /// Lossless: the viewer's framebuffer is the server's screen, pixel for pixel.
    func checkLossless(_ kind: VNCServer.Kind, _ encodings: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try startServer(kind)
        let screen = try server.captureStableScreen()
        let (img, r) = try snapshot(server, encodings: encodings)
        XCTAssertEqual(r.framebuffer.width, server.width, file: file, line: line)
        XCTAssertGreaterThan(img.distinctColours, 1000, "the scene (photo + text) is really there", file: file, line: line)
        assertImagesEqual(img, screen, "\(kind.rawValue)-\(encodings)", file: file, line: line)
    }

    // TigerVNC Xvnc
    func testXvncRaw() throws { try checkLossless(.xvnc, "raw") }
    func testXvncCopyRectHextile() throws { try checkLossless(.xvnc, "copyrect,hextile") }
    func testXvncRRE() throws { try checkLossless(.xvnc, "rre") }
    func testXvncZRLE() throws { try checkLossless(.xvnc, "zrle") }
    func testXvncTightLossless() throws { try checkLossless(.xvnc, "tight") }

    /// Tight JPEG at quality 8: close to the server's screen (PSNR), and really lossy somewhere.
    func checkJPEG(_ kind: VNCServer.Kind, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try startServer(kind)
        let screen = try server.captureStableScreen()
        let (img, _) = try snapshot(server, encodings: "tight", quality: 8)
        let db = psnr(img, screen)
        if db < 30 { saveArtefacts("\(kind.rawValue)-tight-q8", ["viewer": img, "server": screen]) }
        XCTAssertGreaterThanOrEqual(db, 30, "\(kind.rawValue) Tight JPEG q8 PSNR \(db) dB", file: file, line: line)
        XCTAssertFalse(compareImages(img, screen).isEqual, "expected JPEG artefacts at quality 8", file: file, line: line)
    }

    func testXvncTightJPEGQuality8() throws { try checkJPEG(.xvnc) }

    // x11vnc (libvncserver)
    func testX11vncZlib() throws { try checkLossless(.x11vnc, "zlib") }
    func testX11vncCoRRE() throws { try checkLossless(.x11vnc, "corre") }
    func testX11vncZRLE() throws { try checkLossless(.x11vnc, "zrle") }
    func testX11vncTightLossless() throws { try checkLossless(.x11vnc, "tight") }
    /// libvncserver's TightPNG: PNG rects (and fills), lossless.
    func testX11vncTightPNG() throws { try checkLossless(.x11vnc, "tightpng") }

    func testX11vncTightJPEG() throws { try checkJPEG(.x11vnc) }

    /// 16 bpp: every pixel equals the server's pixel reduced to RGB565.
    func testXvnc16bpp() throws {
        let server = try startServer(.xvnc)
        let screen = try server.captureStableScreen()
        for enc in ["zrle", "hextile", "tight"] {
            let (img, _) = try snapshot(server, encodings: enc, pixelFormat: .rgb565)
            // TigerVNC reduces 8-bit channels as (c * max + 128) / 255 (checked: 37 -> 5 of 31); our expansion
            // back to 8 bits is exact under the same rounding, so both sides must agree.
            let r = { (c: UInt32, max: UInt32) -> UInt32 in (c * max + 128) / 255 }
            let q = { (p: UInt32) -> UInt32 in r(p >> 16 & 255, 31) << 11 | r(p >> 8 & 255, 63) << 5 | r(p & 255, 31) }
            let bad = zip(img.pixels, screen.pixels).enumerated().filter { q($0.1.0) != q($0.1.1) }
            let mismatch = bad.count
            for b in bad.prefix(6) { print("16bpp \(enc) differs at \(b.offset % img.width),\(b.offset / img.width): viewer \(String(b.element.0, radix: 16)) server \(String(b.element.1, radix: 16))") }
            if mismatch > 0 { saveArtefacts("xvnc-16bpp-\(enc)", ["viewer": img, "server": screen]) }
            XCTAssertEqual(mismatch, 0, "16 bpp \(enc): pixels differing after RGB565 reduction")
        }
    }

    /// 8 bpp with a colour map: the server sends SetColourMapEntries and indexed pixels.
    func testColourMap8bpp() throws {
        let server = try startServer(.x11vnc)
        let screen = try server.captureStableScreen()
        for enc in ["raw", "hextile", "zrle"] {
            let (img, _) = try snapshot(server, encodings: enc, pixelFormat: .colourMap8)
            XCTAssertGreaterThan(img.distinctColours, 16, "\(enc): colour map applied")
            XCTAssertLessThanOrEqual(img.distinctColours, 256, "\(enc): at most 256 colours")
            let db = psnr(img, screen)
            if db < 20 { saveArtefacts("cmap8-\(enc)", ["viewer": img, "server": screen]) }
            XCTAssertGreaterThanOrEqual(db, 20, "8 bpp colour-mapped \(enc): PSNR \(db) dB")
        }
    }

    func testVNCAuthentication() throws {
        var o = VNCServer.Options()
        o.security = .vncAuth(password: "farcast1")
        let server = try startServer(.xvnc, o)
        let screen = try server.captureStableScreen()
        let (img, r) = try snapshot(server, encodings: "zrle", password: "farcast1")
        XCTAssertEqual(r.securityType, SecurityType.vncAuth)
        assertImagesEqual(img, screen, "xvnc-vncauth")
        XCTAssertThrowsError(try snapshot(server, encodings: "zrle", password: "wrong")) {
            XCTAssertTrue("\($0)".contains("authentication failed"), "\($0)")
        }
        XCTAssertThrowsError(try snapshot(server, encodings: "zrle", password: nil)) {
            XCTAssertTrue("\($0)".contains("--password-file"), "\($0)")
        }
    }
}
