import CSDL2
import Interaction
import RFB
@testable import SDLViewer
import XCTest

/// A server resizing again and again: the texture is reused while the desktop fits in it (no
/// new 64 MiB texture a resize), given back when the desktop shrinks to under a quarter, and a
/// new size is uploaded within the per-present budget like any damage.
final class TextureReuseTests: XCTestCase {
    override func setUpWithError() throws { try SDLTest.require() }

    func paint(_ fb: Framebuffer) {
        for y in 0..<fb.height { for x in 0..<fb.width { fb.pixels[y * fb.width + x] = RenderTests.blockColour(x / 8, y / 8) } }
    }

    func testAResizeThatFitsReusesTheTexture() throws {
        let c = try XCTUnwrap(Canvas(120, 100))
        let fb = Framebuffer(width: 112, height: 96)
        paint(fb)
        let fr = FrameRenderer(renderer: c.renderer)
        fr.upload(fb)
        let first = fr.texture
        fb.resize(width: 100, height: 90)
        paint(fb)
        fr.upload(fb)
        XCTAssertEqual(fr.texture, first, "reused")
        XCTAssertEqual(fr.allocatedWidth, 112); XCTAssertEqual(fr.allocatedHeight, 96)
        XCTAssertEqual(fr.textureWidth, 100); XCTAssertEqual(fr.textureHeight, 90)
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 100, 90, window: 120, 100, output: 120, 100)
        fr.draw(vp)
        let px = c.read()
        for (bx, by) in [(0, 0), (5, 3), (11, 10), (0, 10)] {
            let o = vp.toOutput(vp.windowPoint(ofPixel: bx * 8 + 4, by * 8 + 4))
            XCTAssertEqual(px[Int(o.y) * c.width + Int(o.x)], RenderTests.blockColour(bx, by), "block \(bx),\(by)")
        }
        // a quarter of it or less: a texture of its own
        fb.resize(width: 40, height: 30)
        fr.upload(fb)
        XCTAssertEqual(fr.allocatedWidth, 40); XCTAssertEqual(fr.allocatedHeight, 30)
    }

    func testANewSizeIsUploadedWithinTheBudget() throws {
        let c = try XCTUnwrap(Canvas(64, 64))
        let fb = Framebuffer(width: 64, height: 64)
        let fr = FrameRenderer(renderer: c.renderer)
        fr.upload(fb)
        fb.resize(width: 100, height: 100)
        XCTAssertTrue(fr.upload(fb, budget: 3000))
        XCTAssertLessThanOrEqual(fr.lastUploadPixels, 3000)
        XCTAssertTrue(fr.hasPendingUpload)
        var total = fr.lastUploadPixels
        while fr.hasPendingUpload { fr.upload(fb, budget: 3000); total += fr.lastUploadPixels }
        XCTAssertEqual(total, 100 * 100)
    }
}
