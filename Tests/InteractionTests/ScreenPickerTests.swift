import XCTest
import RFB
@testable import Interaction

final class ScreenPickerTests: XCTestCase {
    // Layouts used throughout; ids deliberately not in display order.
    /// Two 1920x1080 side by side; the server lists the right one first.
    let pair = ScreenLayout(width: 3840, height: 1080, screens: [
        Screen(id: 7, x: 1920, y: 0, width: 1920, height: 1080),
        Screen(id: 3, x: 0, y: 0, width: 1920, height: 1080),
    ])
    /// An L: A top-left, B to its right, C under A.
    let ell = ScreenLayout(width: 3840, height: 2160, screens: [
        Screen(id: 30, x: 0, y: 1080, width: 1920, height: 1080),  // C
        Screen(id: 10, x: 0, y: 0, width: 1920, height: 1080),     // A
        Screen(id: 20, x: 1920, y: 0, width: 1920, height: 1080),  // B
    ])
    /// A laptop panel under-and-right of a taller portrait screen, with unused framebuffer.
    let mixed = ScreenLayout(width: 5000, height: 3000, screens: [
        Screen(id: 1, x: 100, y: 200, width: 1080, height: 1920),   // portrait
        Screen(id: 2, x: 1180, y: 1040, width: 1280, height: 800),  // laptop, bottoms aligned
    ])

    func assertRect(_ r: ViewRect, _ x: Double, _ y: Double, _ w: Double, _ h: Double,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.x, x, accuracy: 1e-9, "x", file: file, line: line)
        XCTAssertEqual(r.y, y, accuracy: 1e-9, "y", file: file, line: line)
        XCTAssertEqual(r.w, w, accuracy: 1e-9, "w", file: file, line: line)
        XCTAssertEqual(r.h, h, accuracy: 1e-9, "h", file: file, line: line)
    }

    // MARK: numbering and geometry

    func testDisplayNumbersFollowReadingOrder() {
        let p = ScreenPicker(layout: ell)
        XCTAssertEqual(p.screens.map(\.id), [10, 20, 30])
        XCTAssertEqual(p.number(ofScreen: 10), 1)
        XCTAssertEqual(p.number(ofScreen: 20), 2)
        XCTAssertEqual(p.number(ofScreen: 30), 3)
        XCTAssertNil(p.number(ofScreen: 99))
        XCTAssertEqual(p.label(for: .screen(id: 20)), "Screen 2")
        XCTAssertEqual(p.label(for: .all), "All screens")
        // y first: a screen 1 px higher comes first even when it is to the right
        let skew = ScreenLayout(width: 4000, height: 1100, screens: [
            Screen(id: 0, x: 0, y: 1, width: 1920, height: 1080), Screen(id: 1, x: 1920, y: 0, width: 1920, height: 1080),
        ])
        XCTAssertEqual(ScreenPicker(layout: skew).screens.map(\.id), [1, 0])
        // exact ties (clones) by id, whatever the server's order
        let clones = ScreenLayout(width: 800, height: 600, screens: [
            Screen(id: 9, x: 0, y: 0, width: 800, height: 600), Screen(id: 4, x: 0, y: 0, width: 800, height: 600),
        ])
        XCTAssertEqual(ScreenPicker(layout: clones).screens.map(\.id), [4, 9])
    }

    func testGeometrySingleScreen() {
        let p = ScreenPicker(layout: .single(width: 1600, height: 900))
        // inner box 800-48 x 600-48 = 752x552; miniature height 552-8-32 = 512 → scale 0.47 by width
        let g = p.geometry(in: ViewRect(x: 0, y: 0, w: 800, h: 600))
        XCTAssertEqual(g.scale, 752.0 / 1600, accuracy: 1e-12)
        XCTAssertEqual(g.tiles.count, 1)
        XCTAssertEqual(g.tiles[0].number, 1)
        let mh = 900 * g.scale, top = 24 + (552 - (mh + 8 + 32)) / 2
        assertRect(g.tiles[0].rect, 24 + 4, top + 4, 752 - 8, mh - 8)
        assertRect(g.allButton, 400 - 80, top + mh + 8, 160, 32)
    }

    func testGeometrySideBySideIsToScaleAndCentred() {
        let p = ScreenPicker(layout: pair)
        let box = ViewRect(x: 100, y: 50, w: 1000, h: 700)
        let g = p.geometry(in: box, margin: 20, gap: 10, buttonWidth: 200, buttonHeight: 40)
        // inner 960x660; by width 960/3840 = 0.25, by height (660-50)/1080 ≈ 0.56
        XCTAssertEqual(g.scale, 0.25)
        XCTAssertEqual(g.tiles.map(\.screen.id), [3, 7])
        XCTAssertEqual(g.tiles.map(\.number), [1, 2])
        // miniature 960x270, group 270+10+40 = 320 high, centred in 660 → top 70+170
        assertRect(g.tiles[0].rect, 120 + 5, 240 + 5, 480 - 10, 270 - 10)
        assertRect(g.tiles[1].rect, 600 + 5, 240 + 5, 480 - 10, 270 - 10)
        assertRect(g.allButton, 600 - 100, 240 + 270 + 10, 200, 40)
        // the group is centred in the box
        XCTAssertEqual((g.tiles[0].rect.x - 5) - box.x, box.x + box.w - (g.tiles[1].rect.x + g.tiles[1].rect.w + 5))
    }

    func testGeometryLShapeAndOffsets() {
        let g = ScreenPicker(layout: ell).geometry(in: ViewRect(x: 0, y: 0, w: 448, h: 348), margin: 24, gap: 0,
                                                   buttonWidth: 100, buttonHeight: 20)
        // inner 400x300; by width 400/3840, by height 280/2160: width wins (0.1041..)
        let s = 400.0 / 3840
        XCTAssertEqual(g.scale, s, accuracy: 1e-12)
        let top = 24 + (300 - (2160 * s + 20)) / 2
        assertRect(g.tiles[0].rect, 24, top, 1920 * s, 1080 * s)             // A
        assertRect(g.tiles[1].rect, 24 + 1920 * s, top, 1920 * s, 1080 * s)  // B
        assertRect(g.tiles[2].rect, 24, top + 1080 * s, 1920 * s, 1080 * s)  // C
        // unused framebuffer does not count: the miniature is the screens' bounding box
        let m = ScreenPicker(layout: mixed).geometry(in: ViewRect(x: 0, y: 0, w: 2360 / 4 + 48, h: 1920 / 4 + 48 + 8 + 32))
        XCTAssertEqual(m.scale, 0.25, accuracy: 1e-12)
        assertRect(m.tiles[0].rect, 24 + 4, 24 + 4, 270 - 8, 480 - 8)
        assertRect(m.tiles[1].rect, 24 + 270 + 4, 24 + 210 + 4, 320 - 8, 200 - 8)
        assertRect(m.allButton, (2360 / 4 + 48) / 2 - 80, 24 + 480 + 8, 160, 32)
    }

    func testGeometryDegenerateBoxesDoNotGoNegative() {
        let g = ScreenPicker(layout: pair).geometry(in: ViewRect(x: 0, y: 0, w: 10, h: 10))
        XCTAssertEqual(g.scale, 0)
        for t in g.tiles { XCTAssertGreaterThanOrEqual(t.rect.w, 0); XCTAssertGreaterThanOrEqual(t.rect.h, 0) }
        XCTAssertGreaterThanOrEqual(g.allButton.w, 0)
        let empty = ScreenPicker(layout: ScreenLayout(width: 100, height: 100, screens: []))
        let e = empty.geometry(in: ViewRect(x: 0, y: 0, w: 400, h: 300))
        XCTAssertTrue(e.tiles.isEmpty)
        XCTAssertEqual(e.choice(at: ViewPoint(x: 200, y: 150)), .all)  // the button alone, centred
    }

    // MARK: hit testing

    func testHitTesting() {
        var p = ScreenPicker(layout: pair, current: .screen(id: 7))
        let box = ViewRect(x: 100, y: 50, w: 1000, h: 700)
        let g = p.geometry(in: box, margin: 20, gap: 10, buttonWidth: 200, buttonHeight: 40)
        XCTAssertEqual(g.choice(at: ViewPoint(x: 300, y: 300)), .screen(id: 3))
        XCTAssertEqual(g.choice(at: ViewPoint(x: 900, y: 300)), .screen(id: 7))
        XCTAssertEqual(g.choice(at: ViewPoint(x: 600, y: 530)), .all)
        XCTAssertNil(g.choice(at: ViewPoint(x: 600, y: 300)), "the gap between the screens")
        XCTAssertNil(g.choice(at: ViewPoint(x: 110, y: 60)))
        // hover moves the highlight, clicks choose, outside the box cancels
        XCTAssertEqual(p.highlight, .screen(id: 7))
        XCTAssertEqual(p.hover(at: ViewPoint(x: 300, y: 300), in: g), .highlightChanged)
        XCTAssertEqual(p.highlight, .screen(id: 3))
        XCTAssertEqual(p.hover(at: ViewPoint(x: 310, y: 300), in: g), .none)
        XCTAssertEqual(p.hover(at: ViewPoint(x: 600, y: 300), in: g), .none)
        XCTAssertEqual(p.highlight, .screen(id: 3))
        XCTAssertEqual(p.click(at: ViewPoint(x: 600, y: 530), in: g), .chosen(.all))
        XCTAssertEqual(p.click(at: ViewPoint(x: 110, y: 60), in: g), .none)
        XCTAssertEqual(p.click(at: ViewPoint(x: 10, y: 10), in: g), .cancelled)
        // overlapping screens: the one drawn last (higher number) takes the click
        let over = ScreenLayout(width: 2000, height: 1000, screens: [
            Screen(id: 1, x: 0, y: 0, width: 1200, height: 1000), Screen(id: 2, x: 800, y: 0, width: 1200, height: 1000),
        ])
        let og = ScreenPicker(layout: over).geometry(in: ViewRect(x: 0, y: 0, w: 2048, h: 1088), gap: 0)
        XCTAssertEqual(og.choice(at: ViewPoint(x: 24 + 1000, y: 100)), .screen(id: 2))
        XCTAssertEqual(og.choice(at: ViewPoint(x: 24 + 700, y: 100)), .screen(id: 1))
    }

    // MARK: keyboard

    func testArrowsInLShape() {
        var p = ScreenPicker(layout: ell, current: .screen(id: 10))  // A
        XCTAssertEqual(p.handle(.right), .highlightChanged); XCTAssertEqual(p.highlight, .screen(id: 20))  // A → B
        XCTAssertEqual(p.handle(.right), .none); XCTAssertEqual(p.highlight, .screen(id: 20))             // nothing right of B
        XCTAssertEqual(p.handle(.up), .none)
        XCTAssertEqual(p.handle(.down), .highlightChanged); XCTAssertEqual(p.highlight, .screen(id: 30))   // B → C (half-plane)
        XCTAssertEqual(p.handle(.left), .none)
        XCTAssertEqual(p.handle(.up), .highlightChanged); XCTAssertEqual(p.highlight, .screen(id: 10))     // C → A (straight up)
        XCTAssertEqual(p.handle(.left), .none)
        XCTAssertEqual(p.handle(.down), .highlightChanged); XCTAssertEqual(p.highlight, .screen(id: 30))   // A → C
        XCTAssertEqual(p.handle(.right), .highlightChanged); XCTAssertEqual(p.highlight, .screen(id: 20))  // C → B
        p = ScreenPicker(layout: ell, current: .screen(id: 30))
        XCTAssertEqual(p.handle(.down), .highlightChanged); XCTAssertEqual(p.highlight, .all)  // below C: the button
        XCTAssertEqual(p.handle(.down), .none)
        XCTAssertEqual(p.handle(.up), .highlightChanged)
        // from the button (bottom middle, x = 1920) up goes to the nearest centre, at any angle:
        // C (960,1620), though A and B are more nearly straight up
        XCTAssertEqual(p.highlight, .screen(id: 30))
    }

    func testArrowTiesAreDeterministic() {
        // from the button under a side-by-side pair, both centres are equally far: screen 1 wins
        var p = ScreenPicker(layout: pair)
        XCTAssertEqual(p.handle(.up), .highlightChanged)
        XCTAssertEqual(p.highlight, .screen(id: 3))
        // three in a row above-left/above-right at equal distances from the middle one's centre
        let row = ScreenLayout(width: 3000, height: 2000, screens: [
            Screen(id: 5, x: 0, y: 0, width: 1000, height: 1000),
            Screen(id: 6, x: 2000, y: 0, width: 1000, height: 1000),
            Screen(id: 4, x: 1000, y: 1000, width: 1000, height: 1000),
        ])
        for _ in 0..<3 {
            var q = ScreenPicker(layout: row, current: .screen(id: 4))
            XCTAssertEqual(q.handle(.up), .highlightChanged)
            XCTAssertEqual(q.highlight, .screen(id: 5), "screen 1 (top-left) wins the tie")
        }
        // the cone is preferred over a nearer screen that is mostly sideways
        let cone = ScreenLayout(width: 4000, height: 3000, screens: [
            Screen(id: 1, x: 0, y: 0, width: 1000, height: 1000),       // start, centre (500,500)
            Screen(id: 2, x: 1000, y: 950, width: 600, height: 900),    // centre (1300,1400): nearer, but more down than right
            Screen(id: 3, x: 1700, y: 0, width: 1000, height: 1000),    // centre (2200,500): straight right, farther
        ])
        var c = ScreenPicker(layout: cone, current: .screen(id: 1))
        XCTAssertEqual(c.handle(.right), .highlightChanged)
        XCTAssertEqual(c.highlight, .screen(id: 3))
    }

    func testDigitsEnterEscape() {
        var p = ScreenPicker(layout: ell, current: .screen(id: 20))
        XCTAssertEqual(p.handle(.enter), .chosen(.screen(id: 20)))
        XCTAssertEqual(p.handle(.digit(1)), .chosen(.screen(id: 10)))
        XCTAssertEqual(p.handle(.digit(3)), .chosen(.screen(id: 30)))
        XCTAssertEqual(p.highlight, .screen(id: 30))
        XCTAssertEqual(p.handle(.digit(4)), .none, "no screen 4")
        XCTAssertEqual(p.handle(.digit(12)), .none)
        XCTAssertEqual(p.handle(.digit(-1)), .none)
        XCTAssertEqual(p.handle(.digit(0)), .chosen(.all))
        XCTAssertEqual(p.handle(.all), .chosen(.all))
        XCTAssertEqual(p.handle(.escape), .cancelled)
        XCTAssertEqual(p.current, .screen(id: 20), "the picker does not change what is shown by itself")
        // a current choice the layout lacks starts on all screens
        let q = ScreenPicker(layout: ell, current: .screen(id: 99))
        XCTAssertEqual(q.current, .all)
        XCTAssertEqual(q.highlight, .all)
        var r = q
        XCTAssertEqual(r.handle(.enter), .chosen(.all))
    }

    // MARK: cycling

    func testCycling() {
        let p = ScreenPicker(layout: ell)
        XCTAssertEqual(p.next(after: .all), .screen(id: 10))
        XCTAssertEqual(p.next(after: .screen(id: 10)), .screen(id: 20))
        XCTAssertEqual(p.next(after: .screen(id: 20)), .screen(id: 30))
        XCTAssertEqual(p.next(after: .screen(id: 30)), .screen(id: 10), "wraps")
        XCTAssertEqual(p.previous(before: .all), .screen(id: 30))
        XCTAssertEqual(p.previous(before: .screen(id: 10)), .screen(id: 30), "wraps")
        XCTAssertEqual(p.previous(before: .screen(id: 30)), .screen(id: 20))
        XCTAssertEqual(p.next(after: .screen(id: 99)), .screen(id: 10), "an unknown screen counts as all")
        XCTAssertEqual(p.previous(before: .screen(id: 99)), .screen(id: 30))
        let one = ScreenPicker(layout: .single(width: 800, height: 600))
        XCTAssertEqual(one.next(after: .screen(id: 0)), .screen(id: 0))
        let none = ScreenPicker(layout: ScreenLayout(width: 800, height: 600, screens: []))
        XCTAssertEqual(none.next(after: .all), .all)
        XCTAssertEqual(none.previous(before: .screen(id: 1)), .all)
    }

    // MARK: layout changes and --monitor

    func testResolveKeepsAnExistingScreenEvenWhenItMoved() {
        var moved = pair
        moved.screens[0] = Screen(id: 7, x: 1920, y: 0, width: 1280, height: 720)
        let r = ScreenPicker.resolve(choice: .screen(id: 7), in: moved, previous: pair)
        XCTAssertEqual(r.choice, .screen(id: 7))
        XCTAssertNil(r.notice)
        let a = ScreenPicker.resolve(choice: .all, in: moved)
        XCTAssertEqual(a.choice, .all)
        XCTAssertNil(a.notice)
    }

    func testResolveFallsBackToAllWithANotice() {
        let single = ScreenLayout(width: 1920, height: 1080, screens: [Screen(id: 3, x: 0, y: 0, width: 1920, height: 1080)])
        let r = ScreenPicker.resolve(choice: .screen(id: 7), in: single, previous: pair)
        XCTAssertEqual(r.choice, .all)
        XCTAssertEqual(r.notice, "Screen 2 is gone; showing all screens")
        // without the old layout the id is all there is to name it by
        let n = ScreenPicker.resolve(choice: .screen(id: 7), in: single)
        XCTAssertEqual(n.choice, .all)
        XCTAssertEqual(n.notice, "The screen that was shown (id 7) is gone; showing all screens")
        // a screen wholly outside the framebuffer shows nothing: gone as well
        let broken = ScreenLayout(width: 1920, height: 1080, screens: [Screen(id: 7, x: 1920, y: 0, width: 1920, height: 1080)])
        XCTAssertEqual(ScreenPicker.resolve(choice: .screen(id: 7), in: broken, previous: pair).choice, .all)
    }

    func testMonitorArgument() throws {
        XCTAssertEqual(try ScreenPicker.choice(forMonitor: 1, in: pair), .screen(id: 3))
        XCTAssertEqual(try ScreenPicker.choice(forMonitor: 2, in: pair), .screen(id: 7))
        XCTAssertEqual(try ScreenPicker.choice(forMonitor: 3, in: ell), .screen(id: 30))
        XCTAssertThrowsError(try ScreenPicker.choice(forMonitor: 3, in: pair)) {
            XCTAssertEqual(($0 as? MonitorArgumentError)?.message, "the server has 2 screens; --monitor 3 is not one of them")
        }
        XCTAssertThrowsError(try ScreenPicker.choice(forMonitor: 2, in: .single(width: 800, height: 600))) {
            XCTAssertEqual("\($0)", "the server has 1 screen; --monitor 2 is not one of them")
        }
        XCTAssertThrowsError(try ScreenPicker.choice(forMonitor: 0, in: pair)) {
            XCTAssertEqual("\($0)", "--monitor counts screens from 1 (screen 1 is the top-left one); the server has 2 screens")
        }
        XCTAssertThrowsError(try ScreenPicker.choice(forMonitor: 1, in: ScreenLayout(width: 8, height: 8, screens: []))) {
            XCTAssertEqual("\($0)", "the server reports no screens; --monitor 1 is not one of them")
        }
    }

    func testFramebufferRegion() {
        XCTAssertEqual(framebufferRegion(for: .all, in: pair), Rect(x: 0, y: 0, w: 3840, h: 1080))
        XCTAssertEqual(framebufferRegion(for: .screen(id: 7), in: pair), Rect(x: 1920, y: 0, w: 1920, h: 1080))
        XCTAssertEqual(framebufferRegion(for: .screen(id: 30), in: ell), Rect(x: 0, y: 1080, w: 1920, h: 1080))
        XCTAssertEqual(framebufferRegion(for: .screen(id: 99), in: pair), Rect(x: 0, y: 0, w: 3840, h: 1080))
        // clipped to the framebuffer; wholly outside → everything
        let odd = ScreenLayout(width: 1000, height: 1000, screens: [
            Screen(id: 1, x: 500, y: 500, width: 1000, height: 1000), Screen(id: 2, x: 2000, y: 0, width: 10, height: 10),
        ])
        XCTAssertEqual(framebufferRegion(for: .screen(id: 1), in: odd), Rect(x: 500, y: 500, w: 500, h: 500))
        XCTAssertEqual(framebufferRegion(for: .screen(id: 2), in: odd), Rect(x: 0, y: 0, w: 1000, h: 1000))
    }
}
