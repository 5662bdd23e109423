import RFB
/// A server address as vncviewer takes it: `host`, `host:display` (port 5900+display),
/// `host::port`, `[v6addr]`, `[v6addr]:display`, `[v6addr]::port`; an unbracketed IPv6
/// literal (more than two colons, or a leading `::`) is an address on port 5900.
public struct HostSpec: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) { self.host = host; self.port = port }

    public static func parse(_ text: String) throws -> HostSpec {
        let s = text.trimmingWhitespace()
        guard !s.isEmpty else { throw ConfigError("empty host: give e.g. localhost:1, host::5901 or [::1]:0") }
        var host: String
        var rest: Substring
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else {
                throw ConfigError("'\(s)': an IPv6 address in brackets needs its ']' (e.g. [::1]:1)")
            }
            host = String(s[s.index(after: s.startIndex)..<close])
            rest = s[s.index(after: close)...]
            guard !host.isEmpty else { throw ConfigError("'\(s)': empty address inside [ ]") }
        } else {
            let colons = s.filter { $0 == ":" }.count
            if colons > 2 || (colons == 2 && s.hasPrefix("::")) || (colons == 2 && !s.contains("::")) {
                return HostSpec(host: s, port: 5900)    // bare IPv6 literal
            }
            if let i = s.firstIndex(of: ":") {
                host = String(s[..<i]); rest = s[i...]
            } else {
                host = s; rest = ""
            }
        }
        if host.isEmpty { host = "localhost" }
        if rest.isEmpty { return HostSpec(host: host, port: 5900) }
        if rest.hasPrefix("::") {
            let p = rest.dropFirst(2)
            guard let port = Int(p), (1...65535).contains(port) else {
                throw ConfigError("'\(s)': port '\(p)' after '::' must be a number from 1 to 65535")
            }
            return HostSpec(host: host, port: port)
        }
        let d = rest.dropFirst()
        guard let display = Int(d), display >= 0 else {
            throw ConfigError("'\(s)': display '\(d)' after ':' must be a number (host:1 is port 5901; use host::PORT for a port)")
        }
        // vncviewer's rule: small numbers are displays, large ones are ports
        if display < 100 { return HostSpec(host: host, port: 5900 + display) }
        guard display <= 65535 else { throw ConfigError("'\(s)': port \(display) is above 65535") }
        return HostSpec(host: host, port: display)
    }

    public var description: String { host.contains(":") ? "[\(host)]::\(port)" : "\(host)::\(port)" }
}

extension String {
    func trimmingWhitespace() -> String {
        var sub = Substring(self)
        while let f = sub.first, f.isWhitespace { sub = sub.dropFirst() }
        while let l = sub.last, l.isWhitespace { sub = sub.dropLast() }
        return String(sub)
    }
}
