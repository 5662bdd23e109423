import Interaction
import XCTest

final class OnScreenKeyboardTests: XCTestCase {
    func laidOut(_ frame: ViewRect = ViewRect(x: 0, y: 300, w: 800, h: 200)) -> OnScreenKeyboard {
        var k = OnScreenKeyboard()
        k.layout(in: frame)
        return k
    }

    func center(_ k: OnScreenKeyboard, _ label: String) -> ViewPoint {
        guard let f = k.keyFrames.first(where: { OnScreenKeyboard.rows[$0.row][$0.index].label == label }) else {
            XCTFail("no key \(label)"); return ViewPoint(x: -1, y: -1)
        }
        return ViewPoint(x: f.rect.x + f.rect.w / 2, y: f.rect.y + f.rect.h / 2)
    }

    func testEveryKeyInsideTheFrameAndFoundByItsCentre() {
        let frame = ViewRect(x: 0, y: 300, w: 800, h: 200)
        let k = laidOut(frame)
        XCTAssertEqual(k.keyFrames.count, OnScreenKeyboard.rows.map(\.count).reduce(0, +))
        for f in k.keyFrames {
            XCTAssertGreaterThanOrEqual(f.rect.x, frame.x - 0.001)
            XCTAssertLessThanOrEqual(f.rect.x + f.rect.w, frame.x + frame.w + 0.001)
            XCTAssertGreaterThanOrEqual(f.rect.y, frame.y - 0.001)
            XCTAssertLessThanOrEqual(f.rect.y + f.rect.h, frame.y + frame.h + 0.001)
            let c = ViewPoint(x: f.rect.x + f.rect.w / 2, y: f.rect.y + f.rect.h / 2)
            XCTAssertEqual(k.key(at: c), OnScreenKeyboard.rows[f.row][f.index])
        }
        XCTAssertNil(k.key(at: ViewPoint(x: 400, y: 299)))
    }

    func testLatchedModifiersWrapTheNextKeyOnly() {
        var k = laidOut()
        XCTAssertEqual(k.press(at: center(k, "Ctrl"), id: 1), .latchChanged)
        XCTAssertEqual(k.press(at: center(k, "Shift"), id: 2), .latchChanged)
        XCTAssertEqual(k.label(OnScreenKeyboard.rows[1][1]), "Q")
        // Shift sends the shifted keysym (the server need not know our layout), Ctrl around it
        XCTAssertEqual(k.press(at: center(k, "q"), id: 3), .send([OnScreenKeyEvent(0xffe1, down: true), OnScreenKeyEvent(0xffe3, down: true),
                                                                   OnScreenKeyEvent(0x51, down: true)]))
        XCTAssertEqual(k.release(id: 3), [OnScreenKeyEvent(0x51, down: false), OnScreenKeyEvent(0xffe3, down: false), OnScreenKeyEvent(0xffe1, down: false)])
        XCTAssertTrue(k.latched.isEmpty)
        XCTAssertEqual(k.press(at: center(k, "q"), id: 4), .send([OnScreenKeyEvent(0x71, down: true)]))
        XCTAssertEqual(k.release(id: 4), [OnScreenKeyEvent(0x71, down: false)])
        XCTAssertEqual(k.release(id: 4), [])
        // tapping a latched modifier again unlatches it
        _ = k.press(at: center(k, "Alt"), id: 5)
        _ = k.press(at: center(k, "Alt"), id: 6)
        XCTAssertTrue(k.latched.isEmpty)
    }

    func testNamedKeysHideAndReleaseAll() {
        var k = laidOut()
        for (label, sym) in [("Esc", 0xff1b), ("Tab", 0xff09), ("Enter", 0xff0d), ("⌫", 0xff08), ("Space", 0x20), ("←", 0xff51), ("Del", 0xffff)] as [(String, UInt32)] {
            XCTAssertEqual(k.press(at: center(k, label), id: 1), .send([OnScreenKeyEvent(sym, down: true)]), label)
            _ = k.release(id: 1)
        }
        XCTAssertEqual(k.press(at: center(k, "Hide"), id: 2), .hide)
        _ = k.press(at: center(k, "a"), id: 3)
        _ = k.press(at: center(k, "b"), id: 4)
        XCTAssertEqual(Set(k.releaseAll().map(\.keysym)), [0x61, 0x62])
        XCTAssertFalse(k.isHolding)
    }

    func testPreferredHeightIsAThirdAtMostAndFingerSized() {
        XCTAssertEqual(OnScreenKeyboard.preferredHeight(windowWidth: 800, windowHeight: 480), 160, accuracy: 0.01)   // a third
        XCTAssertLessThanOrEqual(OnScreenKeyboard.preferredHeight(windowWidth: 1920, windowHeight: 300), 100)
    }
}
