import CSDL2
import Interaction
@testable import SDLViewer
import XCTest

/// Layout and drawing as separate passes: geometry comes from the layout functions, drawing
/// puts pixels where the layout said and changes no geometry.
final class OverlayLayoutTests: XCTestCase {
    /// The playback bar's track and hit area, as the bar drew and returned them before.
    func testTimelineGeometry() {
        let l = Overlay.layoutTimeline(outputWidth: 800, outputHeight: 600, scale: 1)
        XCTAssertEqual([l.bar.x, l.bar.y, l.bar.w, l.bar.h], [0, 536, 800, 64])
        XCTAssertEqual([l.track.x, l.track.y, l.track.w, l.track.h], [12, 580, 776, 4])
        XCTAssertEqual([l.hit.x, l.hit.y, l.hit.w, l.hit.h], [12, 560, 776, 44], "taller than drawn, for fingers")
        let hi = Overlay.layoutTimeline(outputWidth: 1600, outputHeight: 1200, scale: 2)
        XCTAssertEqual(hi.hit.h, 88)
        XCTAssertEqual(hi.bar.y, 1072)
    }

    /// The PIN pad's keys lie in its panel, in `PinPad.keys` order, and the draw pass paints
    /// the OK key where the layout put it.
    func testPinPadDrawnWhereLaidOut() throws {
        let c = try XCTUnwrap(Canvas(640, 720))
        let ov = Overlay(renderer: c.renderer)
        let l = ov.layoutPinPad(outputWidth: 640, outputHeight: 720, scale: 1)
        XCTAssertEqual(l.keys.count, PinPad.keys.count)
        for k in l.keys {
            XCTAssertTrue(k.x >= l.frame.x && k.y >= l.frame.y && k.x + k.w <= l.frame.x + l.frame.w
                          && k.y + k.h <= l.frame.y + l.frame.h, "key inside the panel")
        }
        SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
        SDL_RenderClear(c.renderer)
        ov.pinPad(PinPad(pin: "1234"), l, scale: 1)
        let px = c.read()
        let okIndex = try XCTUnwrap(PinPad.keys.firstIndex(of: .ok))
        let ok = l.keys[okIndex]
        // the key's left edge, mid-height, away from the label and the rounded corners
        XCTAssertEqual(px[Int(ok.y + ok.h / 2) * 640 + Int(ok.x) + 3], 0x466ebe)
        XCTAssertEqual(px[0], 0, "nothing outside the panel")
    }

    /// The draw pass with nothing in the layout draws nothing.
    func testEmptyLayoutDrawsNothing() throws {
        let c = try XCTUnwrap(Canvas(200, 100))
        let ov = Overlay(renderer: c.renderer)
        let fr = FrameRenderer(renderer: c.renderer)
        SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
        SDL_RenderClear(c.renderer)
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: 200, 100, window: 200, 100, output: 200, 100)
        ov.draw(OverlayLayout(), vp, thumbnails: fr)
        XCTAssertFalse(c.read().contains { $0 != 0 })
    }
}
