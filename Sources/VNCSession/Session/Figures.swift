/// Figures for log lines and the info panel, written without `String(format:)`: its first call
/// in a process scans the protocol conformances for CVarArg (0.7 ms under `perf`, inside the
/// first update of every `viewer snapshot`).
public enum Figures {
    /// `value` rounded to `places` decimals (at most 6), e.g. fixed(2.345, 1) == "2.3".
    public static func fixed(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        let places = max(0, min(6, places))
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 1e17 else { return "\(value)" }
        let n = Int(scaled)
        var s = value < 0 && n != 0 ? "-" : ""
        s += String(n / scale)
        if places > 0 {
            let frac = String(n % scale)
            s += "." + String(repeating: "0", count: places - frac.count) + frac
        }
        return s
    }

    /// Lower-case hex of `bytes`, two digits each.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
