import Foundation
import RFB

/// Where to connect, from the command line: host syntax (`host:1`, `host::5901`, `[::1]:0`),
/// `unix:/path`, or a `vnc://[user@]host[:port]` URI (RFC 7869: the port is a TCP port).
public enum ConnectionTarget: Equatable, Sendable, CustomStringConvertible {
    case tcp(HostSpec)
    case unix(String)

    public struct Parsed: Equatable, Sendable {
        public var target: ConnectionTarget
        /// User name from a vnc:// URI (for security types that take one).
        public var username: String?
    }

    public static func parse(_ text: String) throws -> Parsed {
        let s = text.trimmingWhitespace()
        if s.hasPrefix("unix:") {
            let path = String(s.dropFirst(5))
            guard !path.isEmpty else { throw ConfigError("'\(s)': give the socket's path, e.g. unix:/tmp/vnc.sock") }
            return Parsed(target: .unix(path), username: nil)
        }
        if s.lowercased().hasPrefix("vnc://") { return try parseURI(s) }
        return Parsed(target: .tcp(try HostSpec.parse(s)), username: nil)
    }

    /// RFC 7869: vnc://[userinfo@]host[:port][/][?params]. Passwords are refused: they would sit in
    /// argv and shell history.
    static func parseURI(_ s: String) throws -> Parsed {
        var rest = Substring(s.dropFirst(6))
        var query = ""
        if let q = rest.firstIndex(of: "?") { query = String(rest[rest.index(after: q)...]); rest = rest[..<q] }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/") else { throw ConfigError("'\(s)': a vnc:// URI has no path") }
        var user: String? = nil
        if let at = rest.lastIndex(of: "@") {
            let info = String(rest[..<at])
            if info.contains(":") {
                throw ConfigError("'\(s)': passwords are not accepted in a URI; use --password-file or VNC_PASSWORD")
            }
            user = info.removingPercentEncoding ?? info
            rest = rest[rest.index(after: at)...]
        }
        if query.split(separator: "&").contains(where: { $0.lowercased().hasPrefix("vncpassword=") }) {
            throw ConfigError("'\(s)': passwords are not accepted in a URI; use --password-file or VNC_PASSWORD")
        }
        var host: String
        var portText: Substring = ""
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw ConfigError("'\(s)': an IPv6 address needs its ']'") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw ConfigError("'\(s)': unexpected '\(after)' after the address")
            }
        } else if let c = rest.lastIndex(of: ":") {
            host = String(rest[..<c]); portText = rest[rest.index(after: c)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty else { throw ConfigError("'\(s)': no host in the URI") }
        var port = 5900
        if !portText.isEmpty {
            guard let p = Int(portText), (1...65535).contains(p) else {
                throw ConfigError("'\(s)': port '\(portText)' must be a number from 1 to 65535")
            }
            port = p
        }
        return Parsed(target: .tcp(HostSpec(host: host, port: port)), username: user)
    }

    public var description: String {
        switch self {
        case .tcp(let h): return h.description
        case .unix(let p): return "unix:\(p)"
        }
    }
}

/// How to reach a server: the target, and optionally an SSH gateway in front of it.
public struct ConnectionPlan: Sendable, CustomStringConvertible {
    public var target: ConnectionTarget
    /// `[user@]gateway[:port]` for `ssh -W`; the target's host is as seen from the gateway.
    public var via: String?
    /// The ssh client and its fixed options (the command line sets FARCAST_SSH's, e.g. "ssh -F ~/.ssh/other").
    public var sshCommand: [String] = ["ssh"]
    /// Where a command without a slash is looked for (the command line sets PATH's).
    public var searchPath = ChildProcess.defaultSearchPath
    public var connectTimeout = 10.0
    /// Reverse connection: wait on this port for the server to connect (`target` is ignored).
    public var listenPort: Int?
    /// With `listenPort`: accept on every interface, not only loopback.
    public var listenOnAllInterfaces = false

    public init(target: ConnectionTarget, via: String? = nil) {
        self.target = target
        self.via = via
    }

    /// `FARCAST_SSH`'s value as the ssh command: words split at spaces; nil or empty: `ssh`.
    public static func sshCommand(fromEnvironment value: String?) -> [String] {
        guard let value, !value.isEmpty else { return ["ssh"] }
        return value.split(separator: " ").map(String.init)
    }

    public func open(log: (String) -> Void = { _ in }) throws -> SocketTransport {
        if let port = listenPort {
            let l = try Listener(port: port, loopbackOnly: !listenOnAllInterfaces)
            log("listening on \(listenOnAllInterfaces ? "every interface" : "loopback"), port \(port), for a server to connect")
            return try l.accept()
        }
        if let gw = via {
            guard case .tcp(let spec) = target else {
                throw ConfigError("--via works with host names, not \(target)")
            }
            return try SocketTransport.connectVia(gateway: gw, target: spec, sshCommand: sshCommand, searchPath: searchPath, log: log)
        }
        switch target {
        case .tcp(let spec): return try SocketTransport.connect(spec, timeout: connectTimeout)
        case .unix(let path): return try SocketTransport.connectUnix(path: path)
        }
    }

    public var description: String {
        if let p = listenPort { return "servers connecting to port \(p)" }
        return via.map { "\(target) via \($0)" } ?? target.description
    }
}
