import XCTest
@testable import Interaction
import RFB

final class ViewportTests: XCTestCase {
    func make(_ mode: ScalingMode, fb: (Int, Int), window: (Int, Int), output: (Int, Int)? = nil) -> Viewport {
        var v = Viewport(mode: mode)
        let o = output ?? window
        v.resize(framebuffer: fb.0, fb.1, window: window.0, window.1, output: o.0, o.1)
        return v
    }

    func testParsing() {
        XCTAssertEqual(ScalingMode(parsing: "fit"), .fit)
        XCTAssertEqual(ScalingMode(parsing: "1:1"), .zoom(1))
        XCTAssertEqual(ScalingMode(parsing: "200%"), .zoom(2))
        XCTAssertEqual(ScalingMode(parsing: " 50 % "), .zoom(0.5))
        XCTAssertEqual(ScalingMode(parsing: "1.5"), .zoom(1.5))
        XCTAssertNil(ScalingMode(parsing: "0%"))
        XCTAssertNil(ScalingMode(parsing: "5000%"))
        XCTAssertNil(ScalingMode(parsing: "big"))
        XCTAssertNil(ScalingMode(parsing: "nan%"))
        XCTAssertEqual(ScalingMode.zoom(2).description, "200%")
        XCTAssertEqual(ScalingMode.zoom(1).description, "1:1")
    }

    func testFitKeepsAspectAndCentres() {
        let v = make(.fit, fb: (1280, 800), window: (1024, 768))
        XCTAssertEqual(v.content, ViewRect(x: 0, y: 64, w: 1024, h: 640))
        XCTAssertFalse(v.isOneToOne)
        XCTAssertFalse(v.canScroll)
        // bars above and below map to nothing
        XCTAssertNil(v.framebufferPixel(atWindow: ViewPoint(x: 500, y: 10)))
        XCTAssertNil(v.framebufferPixel(atWindow: ViewPoint(x: 500, y: 63.9)))
        XCTAssertNil(v.framebufferPixel(atWindow: ViewPoint(x: 500, y: 704)))
        XCTAssertNil(v.framebufferPixel(atWindow: ViewPoint(x: -1, y: 300)))
        XCTAssertNil(v.framebufferPixel(atWindow: ViewPoint(x: 1024, y: 300)))
        // corners of the picture
        XCTAssertTrue(v.framebufferPixel(atWindow: ViewPoint(x: 0, y: 64))! == (0, 0))
        XCTAssertTrue(v.framebufferPixel(atWindow: ViewPoint(x: 1023.99, y: 703.99))! == (1279, 799))
        // side bars for a tall desktop
        let t = make(.fit, fb: (600, 800), window: (1000, 800))
        XCTAssertEqual(t.content, ViewRect(x: 200, y: 0, w: 600, h: 800))
        XCTAssertNil(t.framebufferPixel(atWindow: ViewPoint(x: 199, y: 400)))
        XCTAssertTrue(t.framebufferPixel(atWindow: ViewPoint(x: 200, y: 400))! == (0, 400))
        XCTAssertNil(t.framebufferPixel(atWindow: ViewPoint(x: 800, y: 400)))
    }

    /// Every framebuffer pixel → window point → the same pixel, at many zooms, sizes, HiDPI and pans.
    func testRoundTripExactAtEveryZoom() {
        let modes: [ScalingMode] = [.fit, .zoom(1), .zoom(2), .zoom(0.5), .zoom(0.37), .zoom(3.3), .zoom(16), .zoom(0.1)]
        let outputs: [((Int, Int), (Int, Int))] = [((640, 480), (640, 480)), ((641, 397), (1282, 794)), ((333, 777), (333, 777))]
        for m in modes {
            for (win, out) in outputs {
                var v = make(m, fb: (317, 211), window: win, output: out)
                v.setPan(x: 1e9, y: 1e9)  // far corner: exercises the clamp and a non-zero origin
                for y in 0..<211 {
                    for x in 0..<317 {
                        let p = v.windowPoint(ofPixel: x, y)
                        guard let back = v.framebufferPixel(atWindow: p) else {
                            // only pixels scrolled out of the window may be unreachable
                            XCTAssertTrue(p.x < 0 || p.y < 0 || p.x >= Double(win.0) || p.y >= Double(win.1),
                                          "\(m) \(win) pixel \(x),\(y) at \(p) visible but unmapped")
                            continue
                        }
                        if back != (x, y) { XCTFail("\(m) \(win)/\(out): \(x),\(y) -> \(p) -> \(back)"); return }
                    }
                }
            }
        }
    }

    /// Window point → pixel → that pixel's window rect contains the point.
    func testWindowPointsLandInsideTheirPixel() {
        for m in [ScalingMode.fit, .zoom(1), .zoom(2.5), .zoom(0.3)] {
            var v = make(m, fb: (1280, 800), window: (900, 700), output: (1800, 1400))
            v.setPan(x: 123, y: 45)
            var y = 0.0
            while y < 700 {
                var x = 0.0
                while x < 900 {
                    let p = ViewPoint(x: x, y: y)
                    if let (fx, fy) = v.framebufferPixel(atWindow: p) {
                        let r = v.windowRect(ofPixel: fx, fy)
                        XCTAssertTrue(p.x >= r.x - 1e-9 && p.x < r.x + r.w + 1e-9 && p.y >= r.y - 1e-9 && p.y < r.y + r.h + 1e-9, "\(m) \(p) in \(r)")
                    }
                    x += 7.3
                }
                y += 5.9
            }
        }
    }

    func testPanIsClamped() {
        var v = make(.zoom(1), fb: (1280, 800), window: (1024, 768))
        XCTAssertTrue(v.canScroll)
        XCTAssertEqual(v.maxPanX, 256); XCTAssertEqual(v.maxPanY, 32)
        XCTAssertFalse(v.scroll(dx: -10, dy: -10))  // already at the origin
        XCTAssertEqual(v.panX, 0)
        XCTAssertTrue(v.scroll(dx: 1000, dy: 1000))
        XCTAssertEqual(v.panX, 256); XCTAssertEqual(v.panY, 32)
        XCTAssertEqual(v.content, ViewRect(x: -256, y: -32, w: 1280, h: 800))
        XCTAssertTrue(v.framebufferPixel(atWindow: ViewPoint(x: 0, y: 0))! == (256, 32))
        XCTAssertTrue(v.framebufferPixel(atWindow: ViewPoint(x: 1023, y: 767))! == (1279, 799))
        // a smaller window after the fact re-clamps; a bigger one recentres and stops scrolling
        v.resize(framebuffer: 1280, 800, window: 1280, 700, output: 1280, 700)
        XCTAssertEqual(v.panX, 0); XCTAssertEqual(v.panY, 32)
        v.resize(framebuffer: 1280, 800, window: 1400, 900, output: 1400, 900)
        XCTAssertFalse(v.canScroll)
        XCTAssertEqual(v.content, ViewRect(x: 60, y: 50, w: 1280, h: 800))
        XCTAssertNil(v.framebufferPixel(atWindow: ViewPoint(x: 59, y: 100)))
        // switching to fit drops the pan
        v.resize(framebuffer: 1280, 800, window: 640, 400, output: 640, 400)
        v.setPan(x: 100, y: 100)
        v.mode = .fit
        XCTAssertEqual(v.panX, 0); XCTAssertEqual(v.panY, 0)
        XCTAssertEqual(v.content, ViewRect(x: 0, y: 0, w: 640, h: 400))
    }

    func testHiDPIMapsPointsToPixels() {
        // a 2x display: the window is 800x600 points, 1600x1200 pixels; at 1:1 one framebuffer
        // pixel is one output pixel, i.e. half a point
        let v = make(.zoom(1), fb: (1600, 1200), window: (800, 600), output: (1600, 1200))
        XCTAssertTrue(v.isOneToOne)
        XCTAssertEqual(v.pixelsPerPointX, 2)
        XCTAssertTrue(v.framebufferPixel(atWindow: ViewPoint(x: 10, y: 20))! == (20, 40))
        XCTAssertTrue(v.framebufferPixel(atWindow: ViewPoint(x: 10.5, y: 20.5))! == (21, 41))
        XCTAssertEqual(v.windowPoint(ofPixel: 21, 41), ViewPoint(x: 10.75, y: 20.75))
        let f = make(.fit, fb: (800, 600), window: (800, 600), output: (1600, 1200))
        XCTAssertEqual(f.content, ViewRect(x: 0, y: 0, w: 1600, h: 1200))
        XCTAssertTrue(f.framebufferPixel(atWindow: ViewPoint(x: 799.9, y: 0))! == (799, 0))
    }

    /// An overlay's output rect (where the menu, prompt, pad or timeline was drawn) in window
    /// points: the same corners either way, at 1x and on a 2x display.
    func testOutputRectsInWindowPoints() {
        let v = make(.fit, fb: (800, 600), window: (800, 600), output: (1600, 1200))
        XCTAssertEqual(v.toWindow(output: ViewRect(x: 100, y: 40, w: 300, h: 90)), ViewRect(x: 50, y: 20, w: 150, h: 45))
        let one = make(.fit, fb: (800, 600), window: (800, 600), output: (800, 600))
        XCTAssertEqual(one.toWindow(output: ViewRect(x: 7, y: 9, w: 11, h: 13)), ViewRect(x: 7, y: 9, w: 11, h: 13))
        let r = v.toWindow(output: ViewRect(x: 3, y: 5, w: 0, h: 0))
        XCTAssertEqual(r.w, 0); XCTAssertEqual(r.h, 0)
    }

    func testDrawRectsCoverTheVisiblePart() {
        var v = make(.zoom(2), fb: (100, 80), window: (50, 30))
        v.setPan(x: 21, y: 9)
        let d = v.drawRects()!
        // visible output 0..<50 is content 21..<71 → framebuffer columns 10..<36 (10.5 ... 35.5)
        XCTAssertEqual(d.source.x, 10); XCTAssertEqual(d.source.w, 26)
        XCTAssertEqual(d.destination.x, -1); XCTAssertEqual(d.destination.w, 52)
        XCTAssertEqual(d.source.y, 4); XCTAssertEqual(d.destination.y, -1)
        XCTAssertLessThanOrEqual(d.destination.y, 0)
        XCTAssertGreaterThanOrEqual(d.destination.y + d.destination.h, 30)
        // nothing to draw without a framebuffer
        XCTAssertNil(make(.fit, fb: (0, 0), window: (50, 30)).drawRects())
        XCTAssertNil(make(.fit, fb: (0, 0), window: (50, 30)).framebufferPixel(atWindow: ViewPoint(x: 1, y: 1)))
    }
}
