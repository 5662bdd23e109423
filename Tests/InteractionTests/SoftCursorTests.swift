import XCTest
@testable import Interaction

final class SoftCursorTests: XCTestCase {
    func testClampedToTheFramebuffer() {
        var c = SoftCursor()
        c.set(x: -5, y: 2000, framebufferWidth: 1000, height: 800)
        XCTAssertTrue(c.pixel == (0, 799))
        c.move(dx: 5000, dy: -5000, framebufferWidth: 1000, height: 800)
        XCTAssertTrue(c.pixel == (999, 0))
        c.move(dx: -0.25, dy: 0.75, framebufferWidth: 1000, height: 800)
        XCTAssertTrue(c.pixel == (999, 0))  // fractions accumulate inside the last pixel
        c.move(dx: -0.8, dy: 0.3, framebufferWidth: 1000, height: 800)
        XCTAssertTrue(c.pixel == (998, 1))
        // the desktop shrank under the cursor
        c.clamp(framebufferWidth: 640, height: 480)
        XCTAssertTrue(c.pixel == (639, 1))
        c.clamp(framebufferWidth: 0, height: 0)
        XCTAssertTrue(c.pixel == (0, 0))
    }

    func testWindowPointWithHiDPIAndBars() {
        var v = Viewport()
        v.resize(framebuffer: 1000, 800, window: 600, 400, output: 1200, 800)  // fit 1: bars 100 px each side
        var c = SoftCursor()
        c.set(x: 100, y: 60, framebufferWidth: 1000, height: 800)
        XCTAssertEqual(c.outputPoint(in: v), ViewPoint(x: 200, y: 60))
        XCTAssertEqual(c.windowPoint(in: v), ViewPoint(x: 100, y: 30))
    }

    func zoomed() -> Viewport {
        var v = Viewport(mode: .zoom(2))  // 2000x1600 content in 500x400: margins 50 and 40
        v.resize(framebuffer: 1000, 800, window: 500, 400, output: 500, 400)
        return v
    }

    func testFollowKeepsTheCursorOutOfTheMargins() {
        var v = zoomed()
        var c = SoftCursor()
        c.set(x: 100, y: 100, framebufferWidth: 1000, height: 800)  // output 200,200: inside
        XCTAssertFalse(c.follow(&v))
        c.set(x: 240, y: 190, framebufferWidth: 1000, height: 800)  // output 480,380: right, bottom
        XCTAssertTrue(c.follow(&v))
        XCTAssertEqual(v.panX, 30); XCTAssertEqual(v.panY, 20)
        XCTAssertEqual(c.outputPoint(in: v), ViewPoint(x: 450, y: 360))
        v.setPan(x: 100, y: 100)
        c.set(x: 40, y: 60, framebufferWidth: 1000, height: 800)  // output -20,20: left, top
        XCTAssertTrue(c.follow(&v))
        XCTAssertEqual(v.panX, 30); XCTAssertEqual(v.panY, 80)
        XCTAssertEqual(c.outputPoint(in: v), ViewPoint(x: 50, y: 40))
    }

    func testFollowStopsAtThePanLimits() {
        var v = zoomed()
        var c = SoftCursor()
        c.set(x: 999, y: 799, framebufferWidth: 1000, height: 800)
        XCTAssertTrue(c.follow(&v))
        XCTAssertEqual(v.panX, v.maxPanX); XCTAssertEqual(v.panY, v.maxPanY)
        XCTAssertFalse(c.follow(&v))  // nothing further to scroll
        c.set(x: 0, y: 0, framebufferWidth: 1000, height: 800)
        XCTAssertTrue(c.follow(&v))
        XCTAssertEqual(v.panX, 0); XCTAssertEqual(v.panY, 0)
    }

    func testNoFollowWhenTheDesktopFits() {
        var v = Viewport()
        v.resize(framebuffer: 1000, 800, window: 500, 400, output: 500, 400)
        var c = SoftCursor()
        c.set(x: 999, y: 799, framebufferWidth: 1000, height: 800)
        XCTAssertFalse(c.follow(&v))
        XCTAssertEqual(v.content, ViewRect(x: 0, y: 0, w: 500, h: 400))
    }
}
