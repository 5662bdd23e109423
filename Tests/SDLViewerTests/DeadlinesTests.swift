@testable import SDLViewer
import XCTest

/// The window loop's wait: the earliest deadline of every running timer, none hiding another;
/// nothing timed waits for events. No SDL.
final class DeadlinesTests: XCTestCase {
    func testNothingTimedWaitsForEvents() {
        var d = Deadlines()
        XCTAssertNil(d.earliest)
        XCTAssertNil(d.waitMilliseconds(now: 10))
        d.set(.notice, nil)
        d.every(.info, 0.5, running: false, now: 10)
        XCTAssertNil(d.waitMilliseconds(now: 10))
        XCTAssertEqual(d.takeDue(now: 1e9), [])
    }

    func testEarliestWinsWhicheverTimerItIs() {
        // the old if/else let a pending present hide a nearer notice, and the countdown hide
        // the info panel: every order of setting gives the nearest
        var d = Deadlines()
        d.set(.present, 10.5)
        d.set(.notice, 10.02)
        d.every(.countdown, 0.25, running: true, now: 10)
        d.every(.info, 0.5, running: true, now: 10)
        XCTAssertEqual(d.earliest?.timer, .notice)
        XCTAssertEqual(d.waitMilliseconds(now: 10), 20)
        var e = Deadlines()
        e.every(.info, 0.5, running: true, now: 10)
        e.set(.remoteResize, 10.3)
        e.every(.gestures, 1.0 / 60, running: true, now: 10)
        XCTAssertEqual(e.earliest?.timer, .gestures)
        XCTAssertEqual(e.waitMilliseconds(now: 10), 17, "rounded up: the loop wakes at or after the deadline")
    }

    func testPassedDeadlinePollsAndIsTaken() {
        var d = Deadlines()
        d.set(.present, 9)
        d.set(.notice, 12)
        XCTAssertEqual(d.waitMilliseconds(now: 10), 0)
        XCTAssertEqual(d.takeDue(now: 10), [.present])
        XCTAssertEqual(d.earliest?.timer, .notice)
        XCTAssertEqual(d.takeDue(now: 12), [.notice])
        XCTAssertNil(d.earliest)
    }

    func testRepeatingTimerIsNotPushedBackByEvents() {
        // events every 0.1 s must not keep the countdown from being redrawn every 0.25 s
        var d = Deadlines()
        var fired = 0
        var now = 0.0
        while now < 1.0 {
            d.every(.countdown, 0.25, running: true, now: now)
            now += 0.1
            if d.takeDue(now: now).contains(.countdown) { fired += 1 }
        }
        XCTAssertEqual(fired, 3, "at 0.3, 0.6 and 0.9 (the turn after each 0.25 s passed)")
        d.every(.countdown, 0.25, running: false, now: now)
        XCTAssertNil(d.earliest, "stopped: no deadline left")
    }

    func testOneShotFollowsItsOwner() {
        var d = Deadlines()
        d.set(.remoteResize, 5)
        d.set(.remoteResize, 7)
        XCTAssertEqual(d.earliest?.at, 7)
        d.set(.remoteResize, nil)
        XCTAssertNil(d.earliest)
    }
}
