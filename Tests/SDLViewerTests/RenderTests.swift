import CSDL2
import Interaction
import RFB
@testable import SDLViewer
import XCTest

/// The texture path: a known framebuffer drawn at several scalings, partial updates, read back.
final class RenderTests: XCTestCase {
    override func setUpWithError() throws { try SDLTest.require() }

    /// 8×8 blocks of distinct colours: block centres survive any filtering.
    static func blockColour(_ bx: Int, _ by: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: (bx * 37 + 11) & 0xff) << 16 | UInt32(truncatingIfNeeded: (by * 53 + 7) & 0xff) << 8 | UInt32((bx + by) * 19 & 0xff)
    }

    func makeFramebuffer(_ w: Int, _ h: Int) -> Framebuffer {
        let fb = Framebuffer(width: w, height: h)
        for y in 0..<h { for x in 0..<w { fb.pixels[y * w + x] = RenderTests.blockColour(x / 8, y / 8) } }
        return fb
    }

    func render(_ fr: FrameRenderer, _ c: Canvas, _ vp: Viewport) -> [UInt32] {
        fr.draw(vp)
        return c.read()
    }

    /// Checks that every 8×8 block's centre shows the block's colour where the viewport puts it,
    /// and that the bars are black.
    func checkBlocks(_ px: [UInt32], _ c: Canvas, _ vp: Viewport, _ fb: Framebuffer, file: StaticString = #filePath, line: UInt = #line) {
        var checked = 0
        for by in 0..<(fb.height / 8) {
            for bx in 0..<(fb.width / 8) {
                let p = vp.windowPoint(ofPixel: bx * 8 + 4, by * 8 + 4)
                let o = vp.toOutput(p)
                let ox = Int(o.x), oy = Int(o.y)
                guard ox >= 0, oy >= 0, ox < c.width, oy < c.height else { continue }
                let got = px[oy * c.width + ox], want = fb.pixels[(by * 8 + 4) * fb.width + bx * 8 + 4]
                if got != want {
                    XCTFail("\(vp.mode): block \(bx),\(by) at \(ox),\(oy): \(String(got, radix: 16)) != \(String(want, radix: 16))", file: file, line: line)
                    return
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 4, file: file, line: line)
        // bars (where the viewport maps nothing) are black
        for oy in stride(from: 0, to: c.height, by: 3) {
            for ox in stride(from: 0, to: c.width, by: 3) where vp.framebufferPixel(atWindow: vp.toWindow(output: ViewPoint(x: Double(ox) + 0.5, y: Double(oy) + 0.5))) == nil {
                if px[oy * c.width + ox] != 0 { XCTFail("bar pixel \(ox),\(oy) not black", file: file, line: line); return }
            }
        }
    }

    func testFitOneToOneZoomAndPartialUpdates() throws {
        let c = try XCTUnwrap(Canvas(200, 150))
        let fb = makeFramebuffer(96, 64)
        let fr = FrameRenderer(renderer: c.renderer)
        XCTAssertTrue(fr.upload(fb))
        XCTAssertEqual(fr.lastUploadPixels, 96 * 64)
        for mode in [ScalingMode.fit, .zoom(1), .zoom(3), .zoom(0.5), .zoom(1.7)] {
            var vp = Viewport(mode: mode)
            vp.resize(framebuffer: 96, 64, window: 200, 150, output: 200, 150)
            vp.setPan(x: 40, y: 25)
            checkBlocks(render(fr, c, vp), c, vp, fb)
        }

        // a small change uploads only itself and shows up
        var vp = Viewport(mode: .zoom(1))
        vp.resize(framebuffer: 96, 64, window: 200, 150, output: 200, 150)
        fb.fill(Rect(x: 8, y: 8, w: 8, h: 8), 0xff00ff)
        fb.addDamage(Rect(x: 8, y: 8, w: 8, h: 8))
        XCTAssertTrue(fr.upload(fb))
        XCTAssertEqual(fr.lastUploadPixels, 64)
        XCTAssertEqual(fr.lastUploadRects, 1)
        var px = render(fr, c, vp)
        checkBlocks(px, c, vp, fb)
        let o = vp.toOutput(vp.windowPoint(ofPixel: 12, 12))
        XCTAssertEqual(px[Int(o.y) * 200 + Int(o.x)], 0xff00ff)
        // nothing changed: nothing uploaded
        XCTAssertFalse(fr.upload(fb))
        XCTAssertEqual(fr.lastUploadPixels, 0)

        // a change that is not reported as damage is not uploaded (proof that uploads are partial)
        fb.fill(Rect(x: 40, y: 40, w: 8, h: 8), 0x00ff00)
        fb.fill(Rect(x: 0, y: 0, w: 8, h: 8), 0x0000ff)
        fb.addDamage(Rect(x: 0, y: 0, w: 8, h: 8))
        fr.upload(fb)
        XCTAssertEqual(fr.lastUploadPixels, 64)
        px = render(fr, c, vp)
        let a = vp.toOutput(vp.windowPoint(ofPixel: 4, 4)), b = vp.toOutput(vp.windowPoint(ofPixel: 44, 44))
        XCTAssertEqual(px[Int(a.y) * 200 + Int(a.x)], 0x0000ff)
        XCTAssertEqual(px[Int(b.y) * 200 + Int(b.x)], RenderTests.blockColour(5, 5))
    }

    func testDesktopSizeRecreatesTheTexture() throws {
        let c = try XCTUnwrap(Canvas(120, 100))
        let fb = makeFramebuffer(64, 48)
        let fr = FrameRenderer(renderer: c.renderer)
        fr.upload(fb)
        fb.resize(width: 112, height: 96)
        for y in 0..<96 { for x in 0..<112 { fb.pixels[y * 112 + x] = RenderTests.blockColour(x / 8, y / 8) } }
        XCTAssertTrue(fr.upload(fb))
        XCTAssertEqual(fr.textureWidth, 112); XCTAssertEqual(fr.textureHeight, 96)
        XCTAssertEqual(fr.lastUploadPixels, 112 * 96)
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 112, 96, window: 120, 100, output: 120, 100)
        checkBlocks(render(fr, c, vp), c, vp, fb)
        // a viewport still sized for the old framebuffer draws nothing rather than garbage
        vp.resize(framebuffer: 64, 48, window: 120, 100, output: 120, 100)
        XCTAssertTrue(render(fr, c, vp).allSatisfy { $0 == 0 })
    }

    func testHiDPIOutput() throws {
        // window 100x75 points on a 2x output: 1:1 means one framebuffer pixel per output pixel
        let c = try XCTUnwrap(Canvas(200, 150))
        let fb = makeFramebuffer(160, 120)
        let fr = FrameRenderer(renderer: c.renderer)
        fr.upload(fb)
        for mode in [ScalingMode.fit, .zoom(1), .zoom(2)] {
            var vp = Viewport(mode: mode)
            vp.resize(framebuffer: 160, 120, window: 100, 75, output: 200, 150)
            checkBlocks(render(fr, c, vp), c, vp, fb)
        }
    }

    func testStatusTextRendersInThePanel() throws {
        let c = try XCTUnwrap(Canvas(480, 200))
        let ov = Overlay(renderer: c.renderer)
        try XCTSkipUnless(TextRenderer.fontCandidates.contains { FileManager.default.isReadableFile(atPath: $0) }, "no font installed")
        XCTAssertTrue(ov.text.available, "SDL2_ttf opened")
        SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
        SDL_RenderClear(c.renderer)
        let r = ov.status("Connecting to example.org…", hint: nil, outputWidth: 480, outputHeight: 200, scale: 1)
        let px = c.read()
        var bright = 0, panel = 0
        for y in Int(r.y)..<Int(r.y + r.h) {
            for x in Int(r.x)..<Int(r.x + r.w) {
                let p = px[y * 480 + x]
                let lum = (Int(p >> 16 & 0xff) + Int(p >> 8 & 0xff) + Int(p & 0xff)) / 3
                if lum > 150 { bright += 1 } else if p != 0 { panel += 1 }
            }
        }
        XCTAssertGreaterThan(bright, 150, "text pixels")
        XCTAssertGreaterThan(panel, Int(r.w * r.h) / 2, "translucent panel")
        // outside the panel nothing was drawn
        XCTAssertEqual(px[0], 0)
        // rounded corners: the very corner pixel of the panel stays background
        XCTAssertEqual(px[Int(r.y) * 480 + Int(r.x)], 0)
    }

    func testMissingFontFailsSoft() throws {
        let c = try XCTUnwrap(Canvas(300, 120))
        let ov = Overlay(renderer: c.renderer, fontCandidates: ["/nonexistent/font.ttf"])
        XCTAssertFalse(ov.text.available)
        SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
        SDL_RenderClear(c.renderer)
        let r = ov.status("Authenticating…", hint: "hint", outputWidth: 300, outputHeight: 120, scale: 1)
        let px = c.read()
        // the panel is there, no text
        XCTAssertNotEqual(px[Int(r.y + r.h / 2) * 300 + Int(r.x + r.w / 2)], 0)
        XCTAssertFalse(px.contains { ($0 >> 16 & 0xff) > 150 })
    }

    /// A window too small for the menu (512x384 points at output scale 2: 1024x768 pixels)
    /// gets it smaller, whole and inside, not cut off; where it fits it keeps its scale.
    func testMenuFitsASmallWindow() throws {
        let c = try XCTUnwrap(Canvas(64, 64))
        let ov = Overlay(renderer: c.renderer)
        try XCTSkipUnless(TextRenderer.fontCandidates.contains { FileManager.default.isReadableFile(atPath: $0) }, "no font installed")
        XCTAssertTrue(ov.text.available, "SDL2_ttf opened")
        let m = ViewerMenu(fullscreen: false, scaling: .fit, viewOnly: false)
        let roomy = ov.layoutMenu(m, outputWidth: 2048, outputHeight: 1536, scale: 2)
        XCTAssertEqual(roomy.scale, 2)
        XCTAssertGreaterThan(roomy.frame.h, 768, "taller than the small window at scale 2")
        let small = ov.layoutMenu(m, outputWidth: 1024, outputHeight: 768, scale: 2)
        XCTAssertLessThan(small.scale, 2)
        XCTAssertGreaterThanOrEqual(small.frame.y, 0)
        XCTAssertLessThanOrEqual(small.frame.y + small.frame.h, 768)
        XCTAssertLessThanOrEqual(small.frame.x + small.frame.w, 1024)
        XCTAssertEqual(small.rows.count, m.items.count)
        XCTAssertLessThanOrEqual(Int(small.rows.last.map { $0.y + $0.h } ?? 0), Int(small.frame.y + small.frame.h))
    }

    func testMenuDrawsEntriesAndSelection() throws {
        let c = try XCTUnwrap(Canvas(500, 420))
        let ov = Overlay(renderer: c.renderer)
        try XCTSkipUnless(TextRenderer.fontCandidates.contains { FileManager.default.isReadableFile(atPath: $0) }, "no font installed")
        XCTAssertTrue(ov.text.available, "SDL2_ttf opened")
        var m = ViewerMenu(fullscreen: false, scaling: .fit, viewOnly: false)
        m.selected = 2
        SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
        SDL_RenderClear(c.renderer)
        ov.menu(m, outputWidth: 500, outputHeight: 420, scale: 1)
        let l = ov.layoutMenu(m, outputWidth: 500, outputHeight: 420, scale: 1)
        XCTAssertEqual(l.rows.count, m.items.count)
        let px = c.read()
        // the selected row is highlighted in the selection colour; every row has text
        let sel = l.rows[2]
        let mid = px[Int(sel.y + 2) * 500 + Int(sel.x + sel.w - 6)]
        XCTAssertEqual(mid, 0x466ebe, String(mid, radix: 16))
        for (i, r) in l.rows.enumerated() {
            var bright = 0
            for y in Int(r.y)..<Int(r.y + r.h) { for x in Int(r.x)..<Int(r.x + r.w) where (px[y * 500 + x] >> 16 & 0xff) > 200 && (px[y * 500 + x] & 0xff) > 200 { bright += 1 } }
            XCTAssertGreaterThan(bright, 20, "row \(i) text")
        }
    }
}
