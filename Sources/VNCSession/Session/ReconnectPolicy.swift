import Foundation
import RFB

/// When a connection drops (or cannot be made), whether and how soon to try again.
public struct ReconnectPolicy: Sendable, Equatable {
    public enum Mode: Sendable, Equatable { case never, always, times(Int) }
    public var mode: Mode = .never
    /// Backoff: first delay, doubling per attempt up to `maxDelay`, each ± `jitter` (fraction).
    public var initialDelay = 1.0
    public var maxDelay = 30.0
    public var jitter = 0.2

    public init(mode: Mode = .never) { self.mode = mode }

    /// `--reconnect never|always|N`
    public static func parse(_ s: String) throws -> ReconnectPolicy {
        switch s.lowercased() {
        case "never", "no", "0": return ReconnectPolicy(mode: .never)
        case "always", "forever": return ReconnectPolicy(mode: .always)
        default:
            guard let n = Int(s), n > 0 else {
                throw ConfigError("--reconnect takes never, always or a number of attempts (got '\(s)')")
            }
            return ReconnectPolicy(mode: .times(n))
        }
    }

    /// Whether attempt number `attempt` (1-based) may happen.
    public func allows(attempt: Int) -> Bool {
        switch mode {
        case .never: return false
        case .always: return true
        case .times(let n): return attempt <= n
        }
    }

    /// Delay before attempt `attempt` (1-based); `unit` is a random number in 0..<1.
    public func delay(attempt: Int, unit: Double) -> Double {
        let base = min(maxDelay, initialDelay * pow(2, Double(max(0, attempt - 1))))
        return max(0.1, base * (1 + jitter * (2 * unit - 1)))
    }
}

/// How a silent connection is checked: after `probeAfter` seconds without a byte from the server
/// a non-incremental 1x1 update request goes out (servers must answer those); no byte within
/// `deadAfter` seconds of it means the link is dead (half-open, server stopped).
public struct LivenessPolicy: Sendable, Equatable {
    public var probeAfter = 5.0
    public var deadAfter = 10.0
    /// From TCP connected to ServerInit.
    public var handshakeTimeout = 30.0
    /// A handshake with no byte from the server for this long is given up.
    public var handshakeSilence = 15.0
    /// Mid-message, fewer than `stallMinimumRate` bytes a second over this long is a stall.
    public var stallWindow = 15.0
    public var stallMinimumRate = 1024.0
    public init() {}
}

