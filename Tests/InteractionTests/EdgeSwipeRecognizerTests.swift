import XCTest
@testable import Interaction

/// Edge swipes in a 640x480 window, as timestamped plain-value touch sequences.
final class EdgeSwipeRecognizerTests: XCTestCase {
    let area = (w: 640.0, h: 480.0)
    let all = Set(ScreenEdge.allCases)

    func T(_ f: Int64, _ p: TouchEvent.Phase, _ x: Double, _ y: Double, _ t: Double) -> TouchEvent {
        TouchEvent(finger: f, p, x: x, y: y, time: t)
    }

    /// Feeds events; returns each result.
    func run(_ r: inout EdgeSwipeRecognizer, _ evs: [TouchEvent], edges: Set<ScreenEdge>? = nil,
             canStart: Bool = true) -> [EdgeSwipeResult] {
        evs.map { r.handle($0, area: area, edges: edges ?? all, canStart: canStart) }
    }

    func testASwipeInFromEachEdge() {
        let cases: [(start: (Double, Double), step: (Double, Double), want: EdgeSwipe)] = [
            ((320, 3), (0, 30), .openMenu),
            ((320, 476), (0, -30), .showKeyboard),
            ((636, 240), (-30, 0), .nextScreen),
            ((4, 240), (30, 0), .previousScreen),
        ]
        for c in cases {
            var r = EdgeSwipeRecognizer()
            let (x, y) = c.start, (dx, dy) = c.step
            let out = run(&r, [T(1, .down, x, y, 1.0), T(1, .move, x + dx, y + dy, 1.1), T(1, .move, x + 2 * dx, y + 2 * dy, 1.2)])
            XCTAssertEqual(out, [.forward([]), .forward([]), .swipe(c.want, finger: 1)], "\(c.want)")
            XCTAssertFalse(r.isHolding)
            // the finger's later events are not the recogniser's business (the router consumes them)
            XCTAssertEqual(run(&r, [T(2, .down, 320, 240, 1.3)]), [.forward([T(2, .down, 320, 240, 1.3)])])
        }
    }

    func testTooSlowIsReplayedWithItsOwnTimestamps() {
        var r = EdgeSwipeRecognizer()
        let evs = [T(1, .down, 320, 2, 1.0), T(1, .move, 320, 20, 1.3), T(1, .move, 320, 70, 1.7)]
        let out = run(&r, evs)
        XCTAssertEqual(out, [.forward([]), .forward([]), .forward(evs)])
        XCTAssertFalse(r.isHolding)
    }

    func testTooShortIsATapAtTheEdge() {
        var r = EdgeSwipeRecognizer()
        let evs = [T(1, .down, 320, 2, 1.0), T(1, .move, 321, 10, 1.05), T(1, .up, 321, 10, 1.1)]
        XCTAssertEqual(run(&r, evs), [.forward([]), .forward([]), .forward(evs)])
    }

    func testSidewaysIsNotASwipe() {
        var r = EdgeSwipeRecognizer()
        // along the top edge: the across distance passes the swipe distance first
        let evs = [T(1, .down, 100, 2, 1.0), T(1, .move, 160, 10, 1.1)]
        XCTAssertEqual(run(&r, evs), [.forward([]), .forward(evs)])
        // diagonal with more across than inward: held, then replayed when it lifts
        var d = EdgeSwipeRecognizer()
        let diag = [T(1, .down, 320, 2, 1.0), T(1, .move, 360, 40, 1.1), T(1, .up, 360, 40, 1.2)]
        XCTAssertEqual(run(&d, diag), [.forward([]), .forward([]), .forward(diag)])
    }

    /// A finger that started on the edge but a second finger came: a normal gesture (a pinch),
    /// replayed to the recogniser in order, each with its own timestamp.
    func testASecondFingerReplaysTheFirst() {
        var r = EdgeSwipeRecognizer()
        let a = T(1, .down, 320, 5, 2.0), b = T(1, .move, 322, 12, 2.05), c = T(2, .down, 400, 200, 2.1)
        XCTAssertEqual(run(&r, [a, b, c]), [.forward([]), .forward([]), .forward([a, b, c])])
        // from there on everything passes straight through
        let d = T(1, .move, 300, 30, 2.2)
        XCTAssertEqual(run(&r, [d]), [.forward([d])])
    }

    func testOnlyEnabledEdgesAndOnlyWhenIdle() {
        var r = EdgeSwipeRecognizer()
        // the sides are off (one remote screen), the bottom is off (keyboard up)
        for e in [T(1, .down, 3, 240, 1), T(2, .down, 637, 240, 1), T(3, .down, 320, 478, 1)] {
            XCTAssertEqual(r.handle(e, area: area, edges: [.top], canStart: true), .forward([e]))
        }
        // another finger is being followed: a touch at the top is a gesture finger
        let top = T(4, .down, 320, 1, 1)
        XCTAssertEqual(r.handle(top, area: area, edges: all, canStart: false), .forward([top]))
        // an unknown window size: only the top and left edges can be measured
        XCTAssertEqual(EdgeSwipeRecognizer.edge(at: ViewPoint(x: 320, y: 479), area: (0, 0), edges: all), nil)
        XCTAssertEqual(EdgeSwipeRecognizer.edge(at: ViewPoint(x: 320, y: 1), area: (0, 0), edges: all), .top)
        // a corner is the top edge first
        XCTAssertEqual(EdgeSwipeRecognizer.edge(at: ViewPoint(x: 1, y: 1), area: area, edges: all), .top)
    }

    func testResetForgetsTheHeldFinger() {
        var r = EdgeSwipeRecognizer()
        _ = run(&r, [T(1, .down, 320, 2, 1)])
        XCTAssertTrue(r.isHolding)
        r.reset()
        XCTAssertFalse(r.isHolding)
        let m = T(1, .move, 320, 80, 1.1)
        XCTAssertEqual(run(&r, [m]), [.forward([m])])
    }
}
