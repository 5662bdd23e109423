import Interaction
import XCTest

final class PinPadTests: XCTestCase {
    func type(_ p: inout PinPad, _ digits: String, now: Double = 0) -> PinPad.Outcome {
        for c in digits { _ = p.press(.digit(Int(String(c)) ?? 0), now: now) }
        return p.press(.ok, now: now)
    }

    func testRightPinOpensWrongOneSaysSo() {
        var p = PinPad(pin: "2468")
        XCTAssertEqual(type(&p, "2469"), .rejected)
        XCTAssertEqual(p.message, "Wrong PIN")
        XCTAssertEqual(p.entered, "", "cleared after each try")
        XCTAssertEqual(type(&p, "246"), .rejected, "a prefix is not the PIN")
        XCTAssertEqual(type(&p, "24689"), .rejected, "nor is a longer one")
        _ = p.press(.digit(2), now: 0); _ = p.press(.digit(5), now: 0); _ = p.press(.delete, now: 0)
        XCTAssertEqual(p.entered, "2")
        XCTAssertEqual(type(&p, "468"), .accepted)
        XCTAssertEqual(p.press(.cancel, now: 0), .cancelled)
    }

    func testFiveWrongLockForAMinute() {
        var p = PinPad(pin: "2468")
        for _ in 0..<PinPad.maxFailures { XCTAssertEqual(type(&p, "0000", now: 10), .rejected) }
        XCTAssertTrue(p.message?.contains("locked for 60 s") == true, p.message ?? "")
        XCTAssertEqual(type(&p, "2468", now: 30), .none, "the right PIN waits out the lock too")
        XCTAssertTrue(p.message?.contains("try again in 40 s") == true, p.message ?? "")
        XCTAssertEqual(type(&p, "2468", now: 71), .accepted)
    }

    func testKeysAreHitWhereLaidOut() {
        var p = PinPad(pin: "1234")
        p.keyFrames = PinPad.keys.indices.map { i in ViewRect(x: Double(i % 3) * 80, y: Double(i / 3) * 80, w: 72, h: 72) }
        XCTAssertEqual(p.key(at: ViewPoint(x: 10, y: 10)), .digit(1))
        XCTAssertEqual(p.key(at: ViewPoint(x: 170, y: 250)), .ok)
        XCTAssertNil(p.key(at: ViewPoint(x: 75, y: 10)), "the gap between keys")
    }
}
