/// A window edge a finger can swipe in from.
public enum ScreenEdge: Equatable, Hashable, Sendable, CaseIterable { case top, bottom, left, right }

/// What a finished edge swipe asks for.
public enum EdgeSwipe: Equatable, Sendable {
    /// Down from the top: the menu (a keyboard-less kiosk has no F8).
    case openMenu
    /// Up from the bottom: the on-screen keyboard.
    case showKeyboard
    /// In from the right: the next remote screen, as pages turn.
    case nextScreen
    /// In from the left: the previous remote screen.
    case previousScreen

    init(_ e: ScreenEdge) {
        switch e {
        case .top: self = .openMenu
        case .bottom: self = .showKeyboard
        case .right: self = .nextScreen
        case .left: self = .previousScreen
        }
    }
}

/// What became of one finger event.
public enum EdgeSwipeResult: Equatable, Sendable {
    /// Give these to the gesture recogniser, in order (none: the event is held back for now).
    /// A touch that turned out not to be a swipe comes back whole, with its own timestamps.
    case forward([TouchEvent])
    /// A swipe; the finger is used up until it lifts (its later events are not gestures).
    case swipe(EdgeSwipe, finger: Int64)
}

/// Edge swipes, in plain values: a finger that lands within `zone` of an enabled edge is held
/// back until it goes `distance` inward within `time` (a swipe) or does not (then it is replayed
/// to the gesture recogniser, so a tap at the edge still clicks there).
public struct EdgeSwipeRecognizer: Sendable {
    /// Points from the window's edge where a swipe starts.
    public static let zone = 14.0
    /// How far (points) and how soon (s) a swipe must go inward.
    public static let distance = 48.0, time = 0.6

    private var held: (finger: Int64, edge: ScreenEdge, events: [TouchEvent])?

    public init() {}

    /// True while a finger on an edge is held back.
    public var isHolding: Bool { held != nil }

    /// Forgets a held finger without replaying it (focus lost, everything released).
    public mutating func reset() { held = nil }

    /// One finger event in window points.
    /// - area: the window in points (0 when unknown: the bottom and right edges are off).
    /// - edges: the edges that swipe now.
    /// - canStart: a new touch may start a swipe (no other finger is followed, nothing coasts).
    public mutating func handle(_ t: TouchEvent, area: (w: Double, h: Double), edges: Set<ScreenEdge>,
                                canStart: Bool) -> EdgeSwipeResult {
        if var h = held {
            // a second finger: not an edge swipe after all
            guard t.finger == h.finger else { return .forward(flush() + [t]) }
            h.events.append(t)
            held = h
            return progress(t)
        }
        if t.phase == .down && canStart, let e = EdgeSwipeRecognizer.edge(at: t.point, area: area, edges: edges) {
            held = (t.finger, e, [t])
            return .forward([])
        }
        return .forward([t])
    }

    /// The enabled edge under a point, top first, then bottom, left, right.
    static func edge(at p: ViewPoint, area: (w: Double, h: Double), edges: Set<ScreenEdge>) -> ScreenEdge? {
        let z = EdgeSwipeRecognizer.zone
        if edges.contains(.top) && p.y < z { return .top }
        if edges.contains(.bottom) && area.h > 0 && p.y >= area.h - z { return .bottom }
        if edges.contains(.left) && p.x < z { return .left }
        if edges.contains(.right) && area.w > 0 && p.x >= area.w - z { return .right }
        return nil
    }

    private mutating func progress(_ t: TouchEvent) -> EdgeSwipeResult {
        guard let h = held, let first = h.events.first else { return .forward([]) }
        let dy = t.y - first.y, dx = t.x - first.x
        let inward: Double, across: Double
        switch h.edge {
        case .top: inward = dy; across = dx
        case .bottom: inward = -dy; across = dx
        case .left: inward = dx; across = dy
        case .right: inward = -dx; across = dy
        }
        let elapsed = t.time - first.time
        if t.phase == .move && inward >= EdgeSwipeRecognizer.distance && abs(across) < inward && elapsed <= EdgeSwipeRecognizer.time {
            held = nil
            return .swipe(EdgeSwipe(h.edge), finger: t.finger)
        }
        if t.phase == .up || abs(across) >= EdgeSwipeRecognizer.distance || elapsed > EdgeSwipeRecognizer.time {
            return .forward(flush())
        }
        return .forward([])
    }

    private mutating func flush() -> [TouchEvent] {
        defer { held = nil }
        return held?.events ?? []
    }
}
