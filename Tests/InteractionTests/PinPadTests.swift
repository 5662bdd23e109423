import Interaction
import XCTest

final class PinPadTests: XCTestCase {
    func type(_ p: inout PinPad, _ digits: String, now: Double = 0, _ l: inout PinLockout) -> PinPad.Outcome {
        for c in digits { _ = p.press(.digit(Int(String(c)) ?? 0), now: now, lockout: &l) }
        return p.press(.ok, now: now, lockout: &l)
    }

    func testRightPinOpensWrongOneSaysSo() {
        var p = PinPad(pin: "2468"), l = PinLockout()
        XCTAssertEqual(type(&p, "2469", &l), .rejected(lockSeconds: 0))
        XCTAssertEqual(p.message, "Wrong PIN")
        XCTAssertEqual(p.entered, "", "cleared after each try")
        XCTAssertEqual(type(&p, "246", &l), .rejected(lockSeconds: 0), "a prefix is not the PIN")
        XCTAssertEqual(type(&p, "24689", &l), .rejected(lockSeconds: 0), "nor is a longer one")
        _ = p.press(.digit(2), now: 0, lockout: &l); _ = p.press(.digit(5), now: 0, lockout: &l); _ = p.press(.delete, now: 0, lockout: &l)
        XCTAssertEqual(p.entered, "2")
        XCTAssertEqual(type(&p, "468", &l), .accepted)
        XCTAssertEqual(l, PinLockout(), "the right PIN clears the count")
        XCTAssertEqual(p.press(.cancel, now: 0, lockout: &l), .cancelled)
    }

    func testFiveWrongLockForAMinute() {
        var p = PinPad(pin: "2468"), l = PinLockout()
        for _ in 0..<PinLockout.freeTries { XCTAssertEqual(type(&p, "0000", now: 10, &l), .rejected(lockSeconds: 0)) }
        XCTAssertEqual(type(&p, "0000", now: 10, &l), .rejected(lockSeconds: 60))
        XCTAssertTrue(p.message?.contains("locked for 60 s") == true, p.message ?? "")
        XCTAssertEqual(type(&p, "2468", now: 30, &l), .none, "the right PIN waits out the lock too")
        XCTAssertTrue(p.message?.contains("try again in 40 s") == true, p.message ?? "")
        XCTAssertEqual(type(&p, "2468", now: 71, &l), .accepted)
    }

    /// The count is the lockout's, not the pad's: four wrong on one pad, Cancel, a new pad,
    /// and the next wrong PIN locks (each F8 or swipe makes a new pad).
    func testCountGoesAcrossPads() {
        var l = PinLockout()
        var first = PinPad(pin: "2468", lockout: l, now: 0)
        for _ in 0..<4 { _ = type(&first, "1111", now: 1, &l) }
        XCTAssertEqual(first.press(.cancel, now: 2, lockout: &l), .cancelled)
        var second = PinPad(pin: "2468", lockout: l, now: 3)
        XCTAssertNil(second.message, "not locked yet")
        XCTAssertEqual(type(&second, "1357", now: 4, &l), .rejected(lockSeconds: 60))
        let third = PinPad(pin: "2468", lockout: l, now: 10)
        XCTAssertEqual(third.message, "Too many wrong PINs: try again in 54 s", "a pad opened while locked says so at once")
    }

    /// After the first lock each wrong PIN doubles it, up to an hour; the right PIN starts again.
    func testBackoffDoublesToAnHour() {
        XCTAssertEqual((1...13).map { PinLockout.lockSeconds(afterFailures: $0) },
                       [0, 0, 0, 0, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
        XCTAssertEqual(PinLockout.lockSeconds(afterFailures: PinLockout.maxFailures), 3600)
        var l = PinLockout(), p = PinPad(pin: "2468")
        var now = 1000.0
        for _ in 0..<5 { _ = type(&p, "9", now: now, &l) }
        now += 61
        XCTAssertEqual(type(&p, "9", now: now, &l), .rejected(lockSeconds: 120))
        XCTAssertTrue(p.message?.contains("locked for 2 min") == true, p.message ?? "")
        now += 121
        XCTAssertEqual(type(&p, "2468", now: now, &l), .accepted)
        XCTAssertEqual(l.failures, 0)
    }

    /// A count read back from a file: clamped; a lock from a clock set back is no longer than
    /// the count allows.
    func testLockoutFromAFileIsClamped() {
        XCTAssertEqual(PinLockout(failures: -3, lockedUntil: -1), PinLockout())
        XCTAssertEqual(PinLockout(failures: Int.max).failures, PinLockout.maxFailures)
        XCTAssertEqual(PinLockout(failures: 5, lockedUntil: .infinity).lockedUntil, 0)
        // locked until next year, by a clock that was wrong: 60 s, as five failures allow
        let l = PinLockout(failures: 5, lockedUntil: 1_000_000_000)
        XCTAssertEqual(l.remaining(now: 1000), 60)
        XCTAssertEqual(PinLockout(failures: 2, lockedUntil: 5000).remaining(now: 1000), 0, "no lock below five")
    }

    func testKeysAreHitWhereLaidOut() {
        var p = PinPad(pin: "1234")
        p.keyFrames = PinPad.keys.indices.map { i in ViewRect(x: Double(i % 3) * 80, y: Double(i / 3) * 80, w: 72, h: 72) }
        XCTAssertEqual(p.key(at: ViewPoint(x: 10, y: 10)), .digit(1))
        XCTAssertEqual(p.key(at: ViewPoint(x: 170, y: 250)), .ok)
        XCTAssertNil(p.key(at: ViewPoint(x: 75, y: 10)), "the gap between keys")
    }
}
