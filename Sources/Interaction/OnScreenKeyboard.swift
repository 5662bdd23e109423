// The on-screen keyboard of a touch-only kiosk, as plain logic: the key layout, its geometry in a
// given frame, hit testing, and the key events (X keysyms) a press and release produce, with
// sticky modifiers. The SDL front end draws it and feeds it points; no SDL types here.

/// One key event for the server: an X keysym pressed or released.
public struct OnScreenKeyEvent: Equatable, Sendable, CustomStringConvertible {
    public var keysym: UInt32
    public var down: Bool
    public init(_ keysym: UInt32, down: Bool) { self.keysym = keysym; self.down = down }
    public var description: String { "0x\(String(keysym, radix: 16))\(down ? "↓" : "↑")" }
}

public struct OnScreenKeyboard: Sendable {
    public enum Modifier: CaseIterable, Sendable {
        case shift, control, alt, superKey
        public var keysym: UInt32 {
            switch self {
            case .shift: return 0xffe1      // Shift_L
            case .control: return 0xffe3    // Control_L
            case .alt: return 0xffe9        // Alt_L
            case .superKey: return 0xffeb   // Super_L
            }
        }
    }

    public struct Key: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            /// Sends `keysym` (or `shifted` while Shift is latched).
            case normal
            /// Latches for the next key (tap again to unlatch).
            case modifier(Modifier)
            /// Hides the keyboard; sends nothing.
            case hide
        }
        public var label: String
        public var shiftedLabel: String?
        public var keysym: UInt32
        public var shifted: UInt32?
        /// Width in key units (a letter is 1).
        public var width: Double
        public var kind: Kind

        static func char(_ c: Character, _ s: Character? = nil) -> Key {
            // printable ASCII keysyms are the character codes
            let k = UInt32(c.unicodeScalars.first?.value ?? 0x20)
            let sk = s.map { UInt32($0.unicodeScalars.first?.value ?? 0x20) }
            return Key(label: String(c), shiftedLabel: s.map(String.init), keysym: k, shifted: sk, width: 1, kind: .normal)
        }
        static func named(_ label: String, _ keysym: UInt32, _ width: Double = 1.5) -> Key {
            Key(label: label, shiftedLabel: nil, keysym: keysym, shifted: nil, width: width, kind: .normal)
        }
        static func mod(_ label: String, _ m: Modifier, _ width: Double) -> Key {
            Key(label: label, shiftedLabel: nil, keysym: m.keysym, shifted: nil, width: width, kind: .modifier(m))
        }
    }

    /// A US-style layout: the characters a remote desktop needs most, plus the keys a
    /// keyboard-less kiosk cannot otherwise send (Esc, Tab, Ctrl, Alt, Super, arrows).
    public static let rows: [[Key]] = {
        func chars(_ plain: String, _ shifted: String) -> [Key] {
            zip(plain, shifted).map { Key.char($0, $1) }
        }
        return [
            [Key.named("Esc", 0xff1b, 1.2)] + chars("1234567890-=", "!@#$%^&*()_+") + [Key.named("⌫", 0xff08, 1.8)],
            [Key.named("Tab", 0xff09, 1.5)] + chars("qwertyuiop[]\\", "QWERTYUIOP{}|"),
            [Key.mod("Ctrl", .control, 1.8)] + chars("asdfghjkl;'", "ASDFGHJKL:\"") + [Key.named("Enter", 0xff0d, 2.2)],
            [Key.mod("Shift", .shift, 2.3)] + chars("zxcvbnm,./`", "ZXCVBNM<>?~") + [Key.named("↑", 0xff52, 1), Key.named("Del", 0xffff, 1.7)],
            [Key.mod("Alt", .alt, 1.5), Key.mod("Super", .superKey, 1.5), Key.named("Space", 0x20, 6.5),
             Key.named("←", 0xff51, 1), Key.named("↓", 0xff54, 1), Key.named("→", 0xff53, 1),
             Key(label: "Hide", shiftedLabel: nil, keysym: 0, shifted: nil, width: 2.5, kind: .hide)],
        ]
    }()

    /// Modifiers latched for the next key.
    public private(set) var latched: Set<Modifier> = []
    /// Where each row's keys are, in the frame last laid out (window points).
    public private(set) var frame = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public private(set) var keyFrames: [(row: Int, index: Int, rect: ViewRect)] = []
    /// Keys held down (pointer or finger id → what its press sent), so each release matches.
    private var held: [Int64: (key: Key, sent: [UInt32])] = [:]

    public init() {}

    /// Height the keyboard wants for a window of this size: a third of it at most, and keys
    /// no shorter than a finger (about 36 points) when the window allows.
    public static func preferredHeight(windowWidth w: Double, windowHeight h: Double) -> Double {
        let rowsH = Double(rows.count)
        return min(h / 3, max(rowsH * 36, min(h * 0.3, w * 0.3)))
    }

    /// Lays the keys out in `frame` (window points), the widest row filling the width.
    public mutating func layout(in frame: ViewRect) {
        self.frame = frame
        keyFrames = []
        let units = OnScreenKeyboard.rows.map { $0.reduce(0) { $0 + $1.width } }.max() ?? 1
        let gap = max(1, (frame.w / units) * 0.08)
        let kw = frame.w / units
        let kh = frame.h / Double(OnScreenKeyboard.rows.count)
        for (r, row) in OnScreenKeyboard.rows.enumerated() {
            let rowUnits = row.reduce(0) { $0 + $1.width }
            var x = frame.x + (frame.w - rowUnits * kw) / 2
            for (i, k) in row.enumerated() {
                let w = k.width * kw
                keyFrames.append((r, i, ViewRect(x: x + gap / 2, y: frame.y + Double(r) * kh + gap / 2, w: w - gap, h: kh - gap)))
                x += w
            }
        }
    }

    public func contains(_ p: ViewPoint) -> Bool { frame.w > 0 && frame.contains(p) }

    /// The key under a point (a point in a gap goes to the nearest key of its row).
    public func key(at p: ViewPoint) -> Key? {
        guard contains(p) else { return nil }
        let candidates = keyFrames.filter { p.y >= $0.rect.y - 4 && p.y < $0.rect.y + $0.rect.h + 4 }
        let best = candidates.min { distance($0.rect, p) < distance($1.rect, p) }
        return best.map { OnScreenKeyboard.rows[$0.row][$0.index] }
    }

    private func distance(_ r: ViewRect, _ p: ViewPoint) -> Double {
        let dx = max(r.x - p.x, 0, p.x - (r.x + r.w)), dy = max(r.y - p.y, 0, p.y - (r.y + r.h))
        return dx * dx + dy * dy
    }

    public enum PressResult: Equatable, Sendable {
        case none
        /// Key events to send now.
        case send([OnScreenKeyEvent])
        /// A modifier was latched or unlatched: draw again.
        case latchChanged
        case hide
    }

    /// A pointer or finger (`id`) pressed at `p`. A normal key sends the latched modifiers'
    /// presses and its own press; its release (see `release`) sends the rest.
    public mutating func press(at p: ViewPoint, id: Int64) -> PressResult {
        guard let k = key(at: p) else { return .none }
        switch k.kind {
        case .hide:
            return .hide
        case .modifier(let m):
            if latched.contains(m) { latched.remove(m) } else { latched.insert(m) }
            return .latchChanged
        case .normal:
            let mods = Modifier.allCases.filter { latched.contains($0) }
            let sym = latched.contains(.shift) ? (k.shifted ?? k.keysym) : k.keysym
            held[id] = (k, mods.map(\.keysym) + [sym])
            latched = []
            return .send(mods.map { OnScreenKeyEvent($0.keysym, down: true) } + [OnScreenKeyEvent(sym, down: true)])
        }
    }

    /// The release of what `press` sent for `id` (key first, then the modifiers).
    public mutating func release(id: Int64) -> [OnScreenKeyEvent] {
        guard let h = held.removeValue(forKey: id) else { return [] }
        return h.sent.reversed().map { OnScreenKeyEvent($0, down: false) }
    }

    /// Releases everything held (keyboard hidden, focus lost).
    public mutating func releaseAll() -> [OnScreenKeyEvent] {
        let ids = held.keys.sorted()
        latched = []
        return ids.flatMap { release(id: $0) }
    }

    public var isHolding: Bool { !held.isEmpty }
    public func isHeld(_ k: Key) -> Bool { held.values.contains { $0.key == k } }

    /// The label to draw for a key with the current latches.
    public func label(_ k: Key) -> String {
        latched.contains(.shift) ? (k.shiftedLabel ?? k.label) : k.label
    }

    public func isLatched(_ k: Key) -> Bool {
        if case .modifier(let m) = k.kind { return latched.contains(m) }
        return false
    }
}
