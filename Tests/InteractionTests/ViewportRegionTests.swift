import XCTest
import RFB
@testable import Interaction

final class ViewportRegionTests: XCTestCase {
    let screen2 = Rect(x: 1920, y: 0, w: 1920, h: 1080)

    func make(_ mode: ScalingMode, fb: (Int, Int), window: (Int, Int), output: (Int, Int)? = nil, region: Rect?) -> Viewport {
        var v = Viewport(mode: mode)
        let o = output ?? window
        v.resize(framebuffer: fb.0, fb.1, window: window.0, window.1, output: o.0, o.1)
        v.region = region
        return v
    }

    func pixel(_ v: Viewport, _ x: Double, _ y: Double) -> [Int]? {
        v.framebufferPixel(atWindow: ViewPoint(x: x, y: y)).map { [$0.x, $0.y] }
    }

    func testFitOnTheSecondScreen() {
        let v = make(.fit, fb: (3840, 1080), window: (960, 540), region: screen2)
        XCTAssertEqual(v.scale, 0.5)
        XCTAssertEqual(v.content, ViewRect(x: -960, y: 0, w: 1920, h: 540))
        XCTAssertEqual(v.regionContent, ViewRect(x: 0, y: 0, w: 960, h: 540))
        XCTAssertEqual(pixel(v, 0, 0), [1920, 0])
        XCTAssertEqual(pixel(v, 480, 270), [2880, 540])
        XCTAssertEqual(pixel(v, 959.99, 539.99), [3839, 1079])
        XCTAssertNil(pixel(v, -0.5, 10), "outside the window")
        XCTAssertNil(pixel(v, 960, 10))
        XCTAssertFalse(v.canScroll)
        XCTAssertEqual(v.shownRect, screen2)
        guard let d = v.drawRects() else { return XCTFail("nothing to draw") }
        XCTAssertTrue(d.source == (1920, 0, 1920, 1080))
        XCTAssertEqual(d.destination, ViewRect(x: 0, y: 0, w: 960, h: 540))
        // and back: the window rectangle of a pixel of the region
        XCTAssertEqual(v.windowRect(ofPixel: 1920, 0), ViewRect(x: 0, y: 0, w: 0.5, h: 0.5))
        XCTAssertEqual(v.windowPoint(ofPixel: 2880, 540), ViewPoint(x: 480.25, y: 270.25))
    }

    func testFitWithBarsClampsToTheRegion() {
        // 1000 wide: the region (960 at 0.5) is centred with 20-point bars that border screen 1
        // on the left and nothing on the right
        let v = make(.fit, fb: (3840, 1080), window: (1000, 540), region: screen2)
        XCTAssertEqual(v.regionContent, ViewRect(x: 20, y: 0, w: 960, h: 540))
        XCTAssertEqual(pixel(v, 20, 0), [1920, 0])
        XCTAssertEqual(pixel(v, 10, 100), [1920, 200], "left bar: the region's left edge, not screen 1")
        XCTAssertEqual(pixel(v, 0, 539.9), [1920, 1079])
        XCTAssertEqual(pixel(v, 990, 100), [3839, 200], "right bar: the region's right edge")
        guard let d = v.drawRects() else { return XCTFail("nothing to draw") }
        XCTAssertTrue(d.source == (1920, 0, 1920, 1080))
        XCTAssertEqual(d.destination, ViewRect(x: 20, y: 0, w: 960, h: 540))
        // a region in the middle of the framebuffer has bars on all sides in a square window
        let m = make(.fit, fb: (3000, 3000), window: (600, 600), region: Rect(x: 1000, y: 1000, w: 1000, h: 500))
        XCTAssertEqual(m.regionContent, ViewRect(x: 0, y: 150, w: 600, h: 300))
        XCTAssertEqual(pixel(m, 300, 10), [1500, 1000])
        XCTAssertEqual(pixel(m, 300, 590), [1500, 1499])
        XCTAssertEqual(pixel(m, 0, 150), [1000, 1000])
    }

    func testHiDPI() {
        let v = make(.fit, fb: (3840, 1080), window: (480, 270), output: (960, 540), region: screen2)
        XCTAssertEqual(pixel(v, 0, 0), [1920, 0])
        XCTAssertEqual(pixel(v, 240, 135), [2880, 540])
    }

    func testPanLimitsAreTheRegions() {
        var v = make(.zoom(1), fb: (3840, 1080), window: (960, 540), region: screen2)
        XCTAssertTrue(v.isOneToOne)
        XCTAssertEqual(v.minPanX, 1920); XCTAssertEqual(v.maxPanX, 2880)
        XCTAssertEqual(v.minPanY, 0); XCTAssertEqual(v.maxPanY, 540)
        XCTAssertTrue(v.canScroll)
        XCTAssertEqual(v.panX, 1920, "starts at the region's corner")
        XCTAssertEqual(pixel(v, 0, 0), [1920, 0])
        v.setPan(x: 0, y: -50)
        XCTAssertEqual(v.panX, 1920); XCTAssertEqual(v.panY, 0)
        XCTAssertFalse(v.scroll(dx: -10, dy: -10), "already at the region's top-left")
        v.setPan(x: 1e9, y: 1e9)
        XCTAssertEqual(v.panX, 2880); XCTAssertEqual(v.panY, 540)
        XCTAssertEqual(pixel(v, 959.5, 539.5), [3839, 1079])
        XCTAssertTrue(v.scroll(dx: -100, dy: 0))
        XCTAssertEqual(v.panX, 2780)
        guard let d = v.drawRects() else { return XCTFail("nothing to draw") }
        XCTAssertTrue(d.source == (2780, 540, 960, 540))
        // the bottom screen of an L: the vertical limits move down
        var c = make(.zoom(1), fb: (3840, 2160), window: (960, 540), region: Rect(x: 0, y: 1080, w: 1920, h: 1080))
        XCTAssertEqual(c.minPanY, 1080); XCTAssertEqual(c.maxPanY, 1620)
        XCTAssertEqual(c.minPanX, 0); XCTAssertEqual(c.maxPanX, 960)
        c.setPan(x: 0, y: 0)
        XCTAssertEqual(pixel(c, 0, 0), [0, 1080])
        // zoomed out below the region's size: centred, no scrolling
        let small = make(.zoom(0.25), fb: (3840, 1080), window: (960, 540), region: screen2)
        XCTAssertFalse(small.canScroll)
        XCTAssertEqual(small.regionContent, ViewRect(x: 240, y: 135, w: 480, h: 270))
    }

    func testSwitchingRegionsKeepsTheOffsetInside() {
        var v = make(.zoom(1), fb: (3840, 1080), window: (960, 540), region: Rect(x: 0, y: 0, w: 1920, h: 1080))
        v.setPan(x: 100, y: 50)
        v.region = screen2
        XCTAssertEqual(v.panX, 2020); XCTAssertEqual(v.panY, 50)
        v.region = nil
        XCTAssertEqual(v.panX, 100); XCTAssertEqual(v.panY, 50)
    }

    func testZoomAboutAPointStaysInside() {
        var v = make(.fit, fb: (3840, 1080), window: (960, 540), region: screen2)
        let p = ViewPoint(x: 300, y: 200)
        XCTAssertEqual(pixel(v, p.x, p.y), [2520, 400])
        v.setMode(.zoom(2), keepingWindowPoint: p)
        XCTAssertEqual(v.mode, .zoom(2))
        XCTAssertEqual(pixel(v, p.x, p.y), [2520, 400])
        XCTAssertEqual(v.panX, 4740); XCTAssertEqual(v.panY, 600)
        v.setMode(.fit, keepingWindowPoint: p)
        XCTAssertEqual(v.content, ViewRect(x: -960, y: 0, w: 1920, h: 540))
        // zooming about a point in the left bar (over screen 1's pixels): the clamp wins over the
        // fixed point, and no part of screen 1 shows
        var b = make(.fit, fb: (3840, 1080), window: (1000, 540), region: screen2)
        b.setMode(.zoom(3), keepingWindowPoint: ViewPoint(x: 5, y: 100))
        XCTAssertEqual(b.minPanX, 5760)
        XCTAssertEqual(b.panX, 5760)
        XCTAssertEqual(pixel(b, 0, 0)?.first, 1920)
        XCTAssertEqual(b.regionContent.x, 0)
    }

    /// Pinch zoom through the gesture recogniser: fit is the region, the pinch centre stays put,
    /// pinching back in snaps to the region's fit.
    func testPinchWithinTheRegion() {
        var d = GestureDriver(.touch, fb: (3840, 1080), window: (960, 540))
        d.v.region = screen2
        XCTAssertEqual(d.v.scale, 0.5)
        d.down(1, 400, 270, 0); d.down(2, 440, 270, 0)
        d.move(1, 370, 270, 0.02)  // 70 apart: the pinch starts, anchored at the centre (405,270)
        let anchor = d.framebufferPoint(405, 270)
        XCTAssertEqual(anchor.x, 2730, accuracy: 1e-9)
        d.move(2, 470, 270, 0.04); d.move(1, 300, 270, 0.06); d.move(2, 540, 270, 0.08)  // 240 apart
        guard case .zoom(let z) = d.v.mode else { return XCTFail("\(d.v.mode)") }
        XCTAssertEqual(z, 0.5 * 240 / 70, accuracy: 1e-9)
        let f = d.framebufferPoint(420, 270)
        XCTAssertEqual(f.x, anchor.x, accuracy: 1 / z)
        XCTAssertEqual(f.y, anchor.y, accuracy: 1 / z)
        XCTAssertGreaterThanOrEqual(d.v.panX, d.v.minPanX)
        XCTAssertLessThanOrEqual(d.v.panX, d.v.maxPanX)
        // pinching in past the start snaps back to the region fitted to the window
        d.move(1, 419, 270, 0.1); d.move(2, 421, 270, 0.12)
        XCTAssertEqual(d.v.mode, .fit)
        XCTAssertFalse(d.v.canScroll)
        XCTAssertEqual(pixel(d.v, 0, 0), [1920, 0])
    }

    /// Every pixel of the region → window point → the same pixel, at many zooms, sizes, HiDPI and pans.
    func testRoundTripInsideTheRegion() {
        let region = Rect(x: 100, y: 50, w: 150, h: 120)
        let modes: [ScalingMode] = [.fit, .zoom(1), .zoom(2), .zoom(0.5), .zoom(0.37), .zoom(3.3), .zoom(16)]
        let outputs: [((Int, Int), (Int, Int))] = [((640, 480), (640, 480)), ((641, 397), (1282, 794)), ((333, 777), (333, 777))]
        for m in modes {
            for (win, out) in outputs {
                for pan in [0.0, 1e9] {
                    var v = make(m, fb: (317, 211), window: win, output: out, region: region)
                    v.setPan(x: pan, y: pan)
                    XCTAssertFalse(m == .fit && v.canScroll, "fit never scrolls")
                    for y in region.y..<region.maxY {
                        for x in region.x..<region.maxX {
                            let p = v.windowPoint(ofPixel: x, y)
                            guard let back = v.framebufferPixel(atWindow: p) else {
                                let o = v.toOutput(p)
                                XCTAssertFalse(o.x >= 0 && o.y >= 0 && o.x < Double(out.0) && o.y < Double(out.1),
                                               "\(m) \(win) (\(x),\(y)) visible but unmapped")
                                continue
                            }
                            if back.x != x || back.y != y {
                                return XCTFail("\(m) \(win) pan \(pan): (\(x),\(y)) → \(p) → \(back)")
                            }
                        }
                    }
                    // what is drawn is never outside the region, nor outside the output
                    guard let d = v.drawRects() else { XCTFail("\(m) \(win): nothing drawn"); continue }
                    XCTAssertGreaterThanOrEqual(d.source.x, region.x); XCTAssertGreaterThanOrEqual(d.source.y, region.y)
                    XCTAssertLessThanOrEqual(d.source.x + d.source.w, region.maxX)
                    XCTAssertLessThanOrEqual(d.source.y + d.source.h, region.maxY)
                    // the region's top-left edge is on whole output pixels when it is in view
                    if v.regionContent.x >= 0 { XCTAssertEqual(v.regionContent.x, v.regionContent.x.rounded(), accuracy: 1e-9) }
                }
            }
        }
    }

    func testFitNeverScrollsOnOddSizes() {
        for (fw, fh, r) in [(3841, 1081, Rect(x: 1921, y: 0, w: 1920, h: 1081)), (5000, 3000, Rect(x: 1, y: 7, w: 1279, h: 1023)),
                            (1000, 1000, Rect(x: 333, y: 333, w: 333, h: 333))] {
            for (ww, wh) in [(960, 540), (961, 541), (1023, 767), (500, 900), (37, 23)] {
                let v = make(.fit, fb: (fw, fh), window: (ww, wh), region: r)
                XCTAssertFalse(v.canScroll, "\(r) in \(ww)x\(wh)")
                let c = v.regionContent
                XCTAssertGreaterThanOrEqual(c.x, 0); XCTAssertGreaterThanOrEqual(c.y, 0)
                XCTAssertLessThanOrEqual(c.x + c.w, Double(ww) + 1); XCTAssertLessThanOrEqual(c.y + c.h, Double(wh) + 1)
                XCTAssertTrue(c.w >= Double(ww) - 1 || c.h >= Double(wh) - 1, "\(r) in \(ww)x\(wh): fills one direction")
            }
        }
    }

    func testRegionClipping() {
        var v = make(.fit, fb: (3840, 1080), window: (960, 540), region: Rect(x: 3000, y: -100, w: 2000, h: 5000))
        XCTAssertEqual(v.activeRegion, Rect(x: 3000, y: 0, w: 840, h: 1080))
        // the whole framebuffer, or one that misses it, is the same as no region
        v.region = Rect(x: 0, y: 0, w: 3840, h: 1080)
        XCTAssertNil(v.activeRegion)
        v.region = Rect(x: 5000, y: 0, w: 100, h: 100)
        XCTAssertNil(v.activeRegion)
        XCTAssertEqual(v.content, ViewRect(x: 0, y: 135, w: 960, h: 270))
        // the framebuffer shrinking under the region (before the new layout arrives)
        v.region = screen2
        v.resize(framebuffer: 1920, 1080, window: 960, 540, output: 960, 540)
        XCTAssertNil(v.activeRegion)
        XCTAssertEqual(pixel(v, 0, 0), [0, 0])
    }

    /// No region (nil, or the whole framebuffer) gives exactly what a viewport never given one does.
    func testNoRegionIsUnchanged() {
        let modes: [ScalingMode] = [.fit, .zoom(1), .zoom(2), .zoom(0.37), .zoom(3.3)]
        for m in modes {
            for (fw, fh, ww, wh, ow, oh) in [(1280, 800, 1024, 768, 1024, 768), (600, 800, 1000, 800, 2000, 1600), (317, 211, 641, 397, 1282, 794)] {
                for pan in [(0.0, 0.0), (123.4, 56.7), (1e9, 1e9)] {
                    var plain = Viewport(mode: m)
                    plain.resize(framebuffer: fw, fh, window: ww, wh, output: ow, oh)
                    plain.setPan(x: pan.0, y: pan.1)
                    for region in [nil, Rect(x: 0, y: 0, w: fw, h: fh), Rect(x: -5, y: -5, w: fw + 10, h: fh + 10)] as [Rect?] {
                        var v = plain
                        v.region = region
                        v.setPan(x: pan.0, y: pan.1)
                        XCTAssertEqual(v.content, plain.content)
                        XCTAssertEqual(v.regionContent, plain.content)
                        XCTAssertEqual(v.panX, plain.panX); XCTAssertEqual(v.panY, plain.panY)
                        XCTAssertEqual(v.maxPanX, plain.maxPanX); XCTAssertEqual(v.minPanX, 0)
                        XCTAssertEqual(v.canScroll, plain.canScroll)
                        XCTAssertEqual(v.scale, plain.scale)
                        let a = v.drawRects(), b = plain.drawRects()
                        XCTAssertEqual(a?.destination, b?.destination)
                        XCTAssertEqual(a.map { [$0.source.x, $0.source.y, $0.source.w, $0.source.h] },
                                       b.map { [$0.source.x, $0.source.y, $0.source.w, $0.source.h] })
                        for (x, y) in [(0.0, 0.0), (-1, 5), (10.5, 20.25), (Double(ww) - 0.01, Double(wh) - 0.01), (Double(ww) / 2, 3)] {
                            let p = ViewPoint(x: x, y: y)
                            let pa = v.framebufferPixel(atWindow: p), pb = plain.framebufferPixel(atWindow: p)
                            XCTAssertEqual(pa.map { [$0.x, $0.y] }, pb.map { [$0.x, $0.y] }, "\(m) \(p)")
                        }
                    }
                }
            }
        }
    }
}
