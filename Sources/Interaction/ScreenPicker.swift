// The monitor picker as plain logic: which of the server's screens (ExtendedDesktopSize) the
// viewer shows, the to-scale miniature the front end draws, hit testing, keyboard navigation,
// cycling without the picker, and what becomes of a choice when the server's layout changes.
// No SDL and no I/O, so every rule is a unit test.
//
// Display numbers: screens are numbered from 1 in reading order of their top-left corners (by y,
// then x, then id for exact ties), so "screen 1" is the top-left-most one. The server's screen
// ids are arbitrary (often 0 or large numbers) and mean nothing to a user; the numbers are what
// the miniature shows, the digit keys pick and `--monitor N` takes. A choice itself is stored by
// id, because ids survive a layout change that renumbers the screens.

import RFB

/// What the viewer shows of a multi-screen desktop.
public enum MonitorChoice: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The whole framebuffer (every screen).
    case all
    /// One screen, by the server's screen id.
    case screen(id: UInt32)

    public var description: String {
        switch self {
        case .all: return "all screens"
        case .screen(let id): return "screen id \(id)"
        }
    }
}

/// The keys the open picker understands; the front end maps its key events onto these.
public enum PickerKey: Equatable, Sendable {
    case left, right, up, down
    /// A digit key: 1-9 choose that screen, 0 chooses all screens.
    case digit(Int)
    case enter, escape
    /// The "all screens" key (`a`).
    case all
}

/// What a key or click did to the open picker.
public enum PickerOutcome: Equatable, Sendable {
    /// Nothing changed (a key with no meaning here, a digit past the last screen).
    case none
    /// The highlight moved: draw the picker again.
    case highlightChanged
    /// Show this and close the picker.
    case chosen(MonitorChoice)
    /// Close the picker and keep what was shown.
    case cancelled
}

/// `--monitor N` does not name a screen of this layout.
public struct MonitorArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where the open picker's parts are, in window points.
public struct PickerGeometry: Equatable, Sendable {
    /// One screen of the miniature.
    public struct Tile: Equatable, Sendable {
        public var screen: Screen
        /// The display number drawn on the tile (1-based).
        public var number: Int
        /// To scale, shrunk by half the gap on each side so neighbouring screens stay apart.
        public var rect: ViewRect
        public var choice: MonitorChoice { .screen(id: screen.id) }
    }

    /// The box the picker was laid out in (clicks outside it close the picker).
    public var box: ViewRect
    /// In display-number order, which is also the drawing order (later tiles on top).
    public var tiles: [Tile]
    /// The "All screens" button, centred under the miniature.
    public var allButton: ViewRect
    /// Window points per framebuffer pixel in the miniature.
    public var scale: Double

    /// The choice under a window point, or nil. Screens that overlap (clones) go to the one drawn
    /// last, the one the user sees.
    public func choice(at p: ViewPoint) -> MonitorChoice? {
        if let t = tiles.last(where: { $0.rect.contains(p) }) { return t.choice }
        return allButton.contains(p) ? .all : nil
    }
}

/// The monitor picker over one screen layout: miniature geometry, hit testing and keyboard
/// navigation while it is open, cycling while it is closed. A new layout makes a new picker.
public struct ScreenPicker: Equatable, Sendable {
    public let layout: ScreenLayout
    /// The layout's screens in display-number order: `screens[0]` is screen 1.
    public let screens: [Screen]
    /// What the viewer shows now (the front end marks it); `.all` when the given choice is not
    /// a screen of this layout.
    public let current: MonitorChoice
    /// The keyboard highlight; starts on `current`.
    public private(set) var highlight: MonitorChoice

    public init(layout: ScreenLayout, current: MonitorChoice = .all) {
        self.layout = layout
        let ordered = ScreenPicker.displayOrder(layout.screens)
        screens = ordered
        let valid: MonitorChoice
        if case .screen(let id) = current, ordered.contains(where: { $0.id == id }) { valid = current } else { valid = .all }
        self.current = valid
        highlight = valid
    }

    /// Reading order of the top-left corners: by y, then x; the id breaks exact ties so the
    /// numbering never depends on the order the server listed its screens in.
    public static func displayOrder(_ screens: [Screen]) -> [Screen] {
        screens.sorted { ($0.y, $0.x, $0.id) < ($1.y, $1.x, $1.id) }
    }

    /// The display number (1-based) of a screen id, nil when the layout has no such screen.
    public func number(ofScreen id: UInt32) -> Int? {
        screens.firstIndex { $0.id == id }.map { $0 + 1 }
    }

    /// Screen `n` (1-based display number), nil when out of range.
    public func screen(number n: Int) -> Screen? {
        n >= 1 && n <= screens.count ? screens[n - 1] : nil
    }

    /// What the user reads for a choice: "Screen 2", "All screens".
    public func label(for choice: MonitorChoice) -> String {
        switch choice {
        case .all: return "All screens"
        case .screen(let id):
            if let n = number(ofScreen: id) { return "Screen \(n)" }
            return "Screen id \(id)"
        }
    }

    // MARK: miniature

    /// Lays the picker out in `box` (window points, e.g. the middle of the window): inside a
    /// `margin`, the screens to one uniform scale, centred, with `gap` between neighbours and
    /// between the miniature and the "All screens" button under it. The button shrinks to fit a
    /// small box; the miniature takes what is left.
    public func geometry(in box: ViewRect, margin: Double = 24, gap: Double = 8,
                         buttonWidth: Double = 160, buttonHeight: Double = 32) -> PickerGeometry {
        let inner = ViewRect(x: box.x + margin, y: box.y + margin,
                             w: max(0, box.w - 2 * margin), h: max(0, box.h - 2 * margin))
        let g = max(0, gap)
        // the button never takes more than a third of the height: the miniature is the point
        let bh = max(0, min(buttonHeight, inner.h / 3))
        let bw = max(0, min(buttonWidth, inner.w))
        let bounds = screensBounds
        let availH = max(0, inner.h - g - bh)
        var scale = 0.0
        if bounds.w > 0, bounds.h > 0 {
            scale = max(0, min(inner.w / Double(bounds.w), availH / Double(bounds.h)))
        }
        let mw = Double(bounds.w) * scale, mh = Double(bounds.h) * scale
        // the miniature and the button are centred together as one group
        let top = inner.y + (inner.h - (mh + g + bh)) / 2
        let left = inner.x + (inner.w - mw) / 2
        var tiles: [PickerGeometry.Tile] = []
        for (i, s) in screens.enumerated() {
            let r = ViewRect(x: left + Double(s.x - bounds.x) * scale, y: top + Double(s.y - bounds.y) * scale,
                             w: Double(s.width) * scale, h: Double(s.height) * scale)
            // half the gap per side separates touching screens; a tiny tile keeps most of itself
            let inset = max(0, min(g / 2, r.w / 4, r.h / 4))
            tiles.append(.init(screen: s, number: i + 1,
                               rect: ViewRect(x: r.x + inset, y: r.y + inset, w: r.w - 2 * inset, h: r.h - 2 * inset)))
        }
        let button = ViewRect(x: inner.x + (inner.w - bw) / 2, y: top + mh + g, w: bw, h: bh)
        return PickerGeometry(box: box, tiles: tiles, allButton: button, scale: scale)
    }

    /// The union of the screens (framebuffer pixels): the miniature shows this, not the whole
    /// framebuffer, so unused framebuffer area does not shrink it.
    var screensBounds: Rect {
        screens.reduce(Rect(x: 0, y: 0, w: 0, h: 0)) { $0.union($1.rect) }
    }

    /// The pointer moved over the open picker: the highlight follows it onto a screen or the button.
    public mutating func hover(at p: ViewPoint, in g: PickerGeometry) -> PickerOutcome {
        guard let c = g.choice(at: p), c != highlight else { return .none }
        highlight = c
        return .highlightChanged
    }

    /// A click on the open picker: a screen or the button chooses it; elsewhere inside the box
    /// nothing happens (a near miss should not close it); outside the box cancels, like any popup.
    public mutating func click(at p: ViewPoint, in g: PickerGeometry) -> PickerOutcome {
        if let c = g.choice(at: p) { highlight = c; return .chosen(c) }
        return g.box.contains(p) ? .none : .cancelled
    }

    // MARK: keyboard

    /// One key while the picker is open. Arrows move the highlight to the nearest screen in that
    /// direction (see `move`); 1-9 choose that screen and 0 or `a` all screens at once; Enter
    /// chooses the highlight; Escape cancels.
    public mutating func handle(_ key: PickerKey) -> PickerOutcome {
        switch key {
        case .escape: return .cancelled
        case .enter: return .chosen(highlight)
        case .all, .digit(0):
            highlight = .all
            return .chosen(.all)
        case .digit(let n):
            guard (1...9).contains(n), let s = screen(number: n) else { return .none }
            highlight = .screen(id: s.id)
            return .chosen(highlight)
        case .left: return move(dx: -1, dy: 0)
        case .right: return move(dx: 1, dy: 0)
        case .up: return move(dx: 0, dy: -1)
        case .down: return move(dx: 0, dy: 1)
        }
    }

    /// Moves the highlight from the highlighted screen's centre (or, for "All screens", from the
    /// bottom middle of the layout, where its button is) to another screen whose centre lies in
    /// that direction: preferably within 45° of it, else anywhere in that half-plane; the nearest
    /// centre wins, the lower display number on a tie. Up from "All screens" goes to the nearest
    /// centre whatever its angle: the button is under the whole miniature, so up means "into it".
    /// Down from a screen with nothing below goes to "All screens". Screens sharing a centre
    /// (clones) are reached by digit, not by arrow.
    mutating func move(dx: Double, dy: Double) -> PickerOutcome {
        let bounds = screensBounds
        var from = (x: Double(bounds.x) + Double(bounds.w) / 2, y: Double(bounds.maxY))
        var fromID: UInt32?
        if case .screen(let id) = highlight, let s = screens.first(where: { $0.id == id }) {
            from = ScreenPicker.centre(s)
            fromID = id
        }
        var inCone: (d: Double, s: Screen)?, inHalf: (d: Double, s: Screen)?
        for s in screens where s.id != fromID {
            let c = ScreenPicker.centre(s)
            let vx = c.x - from.x, vy = c.y - from.y
            let along = vx * dx + vy * dy
            let across = abs(vx * dy - vy * dx)
            guard along > 0 else { continue }
            let d = along * along + across * across
            let upFromButton = fromID == nil && dy < 0
            // strict comparison: the earlier (lower-numbered) screen keeps a tie
            if across <= along || upFromButton, inCone.map({ d < $0.d }) ?? true { inCone = (d, s) }
            if inHalf.map({ d < $0.d }) ?? true { inHalf = (d, s) }
        }
        let target: MonitorChoice
        if let s = (inCone ?? inHalf)?.s {
            target = .screen(id: s.id)
        } else if dy > 0, fromID != nil {
            target = .all
        } else {
            return .none
        }
        guard target != highlight else { return .none }
        highlight = target
        return .highlightChanged
    }

    static func centre(_ s: Screen) -> (x: Double, y: Double) {
        (Double(s.x) + Double(s.width) / 2, Double(s.y) + Double(s.height) / 2)
    }

    // MARK: cycling (picker closed)

    /// The next screen in display-number order after `choice`, wrapping from the last to the
    /// first; from "All screens" (or a screen this layout lacks) the first. `.all` when the
    /// layout has no screens.
    public func next(after choice: MonitorChoice) -> MonitorChoice {
        step(from: choice, by: 1)
    }

    /// The previous screen in display-number order, wrapping from the first to the last; from
    /// "All screens" (or a screen this layout lacks) the last.
    public func previous(before choice: MonitorChoice) -> MonitorChoice {
        step(from: choice, by: -1)
    }

    func step(from choice: MonitorChoice, by d: Int) -> MonitorChoice {
        guard !screens.isEmpty else { return .all }
        let n = screens.count
        let i: Int
        if case .screen(let id) = choice, let k = screens.firstIndex(where: { $0.id == id }) {
            i = ((k + d) % n + n) % n
        } else {
            i = d > 0 ? 0 : n - 1
        }
        return .screen(id: screens[i].id)
    }

    // MARK: layout changes and the command line

    /// What to show after the server's layout changed: the same screen while its id exists (also
    /// when it moved or changed size), otherwise all screens with a sentence for the user. Give
    /// the `previous` layout so the sentence can use the number the user knew the screen by.
    public static func resolve(choice: MonitorChoice, in newLayout: ScreenLayout,
                               previous: ScreenLayout? = nil) -> (choice: MonitorChoice, notice: String?) {
        guard case .screen(let id) = choice else { return (.all, nil) }
        let whole = Rect(x: 0, y: 0, w: max(0, newLayout.width), h: max(0, newLayout.height))
        // a screen wholly outside the framebuffer (a broken layout) has nothing to show either
        if let s = newLayout.screens.first(where: { $0.id == id }), s.rect.intersects(whole) {
            return (choice, nil)
        }
        let name: String
        if let old = previous, let n = ScreenPicker(layout: old).number(ofScreen: id) {
            name = "Screen \(n)"
        } else {
            name = "The screen that was shown (id \(id))"
        }
        return (.all, "\(name) is gone; showing all screens")
    }

    /// `--monitor N` (1-based display number, screen 1 top-left) as a choice for this layout.
    public static func choice(forMonitor n: Int, in layout: ScreenLayout) throws -> MonitorChoice {
        let picker = ScreenPicker(layout: layout)
        let count = picker.screens.count
        let has = count == 0 ? "the server reports no screens"
            : "the server has \(count) screen\(count == 1 ? "" : "s")"
        guard n >= 1 else {
            throw MonitorArgumentError("--monitor counts screens from 1 (screen 1 is the top-left one); \(has)")
        }
        guard let s = picker.screen(number: n) else {
            throw MonitorArgumentError("\(has); --monitor \(n) is not one of them")
        }
        return .screen(id: s.id)
    }
}

/// The framebuffer rectangle a choice shows (for `Viewport.region`): the screen's rectangle
/// clipped to the framebuffer, or the whole framebuffer for `.all`, for a screen the layout does
/// not have, and for a screen wholly outside the framebuffer.
public func framebufferRegion(for choice: MonitorChoice, in layout: ScreenLayout) -> Rect {
    let whole = Rect(x: 0, y: 0, w: max(0, layout.width), h: max(0, layout.height))
    guard case .screen(let id) = choice, let s = layout.screens.first(where: { $0.id == id }) else { return whole }
    let r = s.rect.intersection(whole)
    return r.isEmpty ? whole : r
}
