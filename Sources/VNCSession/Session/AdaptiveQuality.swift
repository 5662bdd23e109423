import RFB

/// What adaptive quality asks the server for.
public struct QualityChoice: Equatable, Sendable, CustomStringConvertible {
    /// Tight JPEG quality; nil is lossless.
    public var jpegQuality: Int?
    public var compressLevel: Int?
    /// 8-bit colour (BGR233) for the slowest links, as TigerVNC's AutoSelect below 256 kbit/s.
    public var lowColour: Bool
    public init(jpegQuality: Int?, compressLevel: Int?, lowColour: Bool) {
        self.jpegQuality = jpegQuality; self.compressLevel = compressLevel; self.lowColour = lowColour
    }
    public var description: String {
        (jpegQuality.map { "JPEG quality \($0)" } ?? "lossless") + (compressLevel.map { ", compression \($0)" } ?? "")
            + (lowColour ? ", 8-bit colour" : "")
    }
}

/// Chooses quality from the measured link rate, as TigerVNC's AutoSelect
/// (CConn::autoSelectFormatAndEncoding) but faster and without oscillating: a slower tier is
/// taken once the rate has stayed below its floor for `downHold` (well within 1 s); a faster
/// one only when the rate has stayed clearly above (`upMargin`) for `upHold`, which doubles
/// each time a rise is undone soon after (a link whose rate sits on a boundary settles).
/// Time is passed in (session thread; tests feed a fake clock). What the user pinned stays.
public struct AdaptiveQuality: Sendable {
    /// Pinned by the user: `--quality` (or `--encodings`), `--compress`, `--pixel-format`.
    public struct Pins: Sendable, Equatable {
        public var quality: Int?, compress: Int?, colour: Bool
        public init(quality: Int? = nil, compress: Int? = nil, colour: Bool = false) {
            self.quality = quality; self.compress = compress; self.colour = colour
        }
    }

    /// Tiers from the fastest link down: the floor in bits/s and what is asked above it.
    public static let tiers: [(floor: Double, choice: QualityChoice)] = [
        (80e6, QualityChoice(jpegQuality: nil, compressLevel: 1, lowColour: false)),
        (10e6, QualityChoice(jpegQuality: 8, compressLevel: 2, lowColour: false)),
        (3e6, QualityChoice(jpegQuality: 6, compressLevel: 4, lowColour: false)),
        (1e6, QualityChoice(jpegQuality: 4, compressLevel: 6, lowColour: false)),
        (256e3, QualityChoice(jpegQuality: 2, compressLevel: 9, lowColour: false)),
        (0, QualityChoice(jpegQuality: nil, compressLevel: 9, lowColour: true)),
    ]
    /// Below the floor by this factor counts as below (noise just under a floor does not).
    public static let downMargin = 0.85
    /// Above the next floor by this factor counts as above.
    public static let upMargin = 1.3
    public static let downHold = 0.4
    public static let initialUpHold = 1.0
    public static let maxUpHold = 16.0
    /// A fall this soon after a rise means the rise was wrong: the next rise waits longer.
    public static let flapWindow = 10.0
    /// Stable this long at one tier: the wait for a rise goes back to its start.
    public static let calmAfter = 30.0

    public let pins: Pins
    public private(set) var tier: Int
    private var below: Double?, above: Double?
    private var upHold = AdaptiveQuality.initialUpHold
    private var lastRise: Double?
    private var lastChange = 0.0

    /// Starts at JPEG quality 8 (the window's old fixed default) until the link is measured.
    public init(pins: Pins, startTier: Int = 1) {
        self.pins = pins
        tier = max(0, min(AdaptiveQuality.tiers.count - 1, startTier))
    }

    /// What to ask for now, pins applied.
    public var choice: QualityChoice {
        var c = AdaptiveQuality.tiers[tier].choice
        if let q = pins.quality { c.jpegQuality = q }
        if let z = pins.compress { c.compressLevel = z }
        if pins.colour { c.lowColour = false }
        return c
    }

    /// Feeds the measured rate (bytes/s; nil when nothing was measured, which changes nothing)
    /// at time `t`. Returns the new choice when it changed.
    public mutating func observe(bytesPerSecond rate: Double?, at t: Double) -> QualityChoice? {
        guard let rate else { below = nil; above = nil; return nil }
        let bits = rate * 8
        let before = choice
        if t - lastChange > AdaptiveQuality.calmAfter { upHold = AdaptiveQuality.initialUpHold }
        // falling: below this tier's floor
        if bits < AdaptiveQuality.tiers[tier].floor * AdaptiveQuality.downMargin {
            above = nil
            let since = below ?? t
            below = since
            if t - since >= AdaptiveQuality.downHold {
                var target = tier
                while target < AdaptiveQuality.tiers.count - 1 && bits < AdaptiveQuality.tiers[target].floor * AdaptiveQuality.downMargin { target += 1 }
                if let r = lastRise, t - r < AdaptiveQuality.flapWindow { upHold = min(AdaptiveQuality.maxUpHold, upHold * 2) }
                move(to: target, at: t)
            }
        } else if tier > 0 && bits >= AdaptiveQuality.tiers[tier - 1].floor * AdaptiveQuality.upMargin {
            below = nil
            let since = above ?? t
            above = since
            if t - since >= upHold {
                var target = tier - 1
                while target > 0 && bits >= AdaptiveQuality.tiers[target - 1].floor * AdaptiveQuality.upMargin { target -= 1 }
                lastRise = t
                move(to: target, at: t)
            }
        } else {
            below = nil; above = nil
        }
        let after = choice
        return after != before ? after : nil
    }

    private mutating func move(to target: Int, at t: Double) {
        tier = target
        lastChange = t
        below = nil; above = nil
    }
}
