import Foundation

/// The size limit of a recording (`SessionRecorder.maxBytes`) as users give it
/// (`--recording-max-size`, kiosk.conf's `recording-max-size`) and read it back in notices.
/// The recorder itself only takes bytes.
public enum RecordingLimit {
    /// The limit when none is given: hours of a busy desktop, and no full disk from a
    /// recording nobody stopped.
    public static let defaultMaxBytes = 1 << 30
    /// The smallest limit taken: less does not hold one full picture of a small desktop.
    public static let minimumMaxBytes = 64 << 10

    /// A limit as `parseSize` reads it back: "1 GiB", "200 MiB", "64 KiB", else bytes.
    public static func sizeText(_ n: Int) -> String {
        for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] where n >= 1 << shift && n % (1 << shift) == 0 {
            return "\(n >> shift) \(unit)"
        }
        return "\(n) bytes"
    }

    /// "200M", "1G", "512K" or plain bytes (K, M, G: 1024-based; "MiB" and "MB" read alike).
    public static func parseSize(_ text: String) -> Int? {
        var t = text.trimmingCharacters(in: .whitespaces).uppercased()
        for suffix in ["IB", "B"] where t.hasSuffix(suffix) && t.count > suffix.count { t.removeLast(suffix.count); break }
        var shift = 0
        if let last = t.last, let i = ["K", "M", "G", "T"].firstIndex(of: String(last)) { shift = 10 * (i + 1); t.removeLast() }
        guard let n = Int(t.trimmingCharacters(in: .whitespaces)), n > 0, n <= Int.max >> shift else { return nil }
        return n << shift
    }
}
