import Foundation
import RFB

/// Trust on first use for server identities no authority vouches for (self-signed or otherwise
/// unverifiable certificates, RSA-AES server keys), like ssh's known_hosts.
/// One line per server and kind: `host:port kind sha256-hex`; `#` starts a comment.
public final class KnownHosts: Sendable {
    public let path: String
    private static let lock = NSLock()

    public init(path: String = KnownHosts.defaultPath) { self.path = path }

    /// $XDG_CONFIG_HOME/farcast/known_hosts, else ~/.config/farcast/known_hosts.
    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config")
        return (base as NSString).appendingPathComponent("farcast/known_hosts")
    }

    public enum Lookup: Equatable, Sendable {
        case unknown
        case match
        /// Known with another fingerprint (or another kind of key), remembered on `line`.
        case mismatch(remembered: String, line: Int)
        /// The file exists and cannot be read: nothing can be checked, so nothing is trusted.
        case unreadable(String)
    }

    /// The lines (numbered from 1) whose first field may be `server`: a byte comparison picks
    /// them before the fields are split. Splitting every line of a file of 1300 hosts by
    /// characters took milliseconds, twice per connection, as the first update came in.
    static func lines(of text: String, naming server: String) -> [(number: Int, line: Substring)] {
        let want = Array(server.utf8)
        var out: [(number: Int, line: Substring)] = []
        var text = text
        text.withUTF8 { b in
            // as split(separator: "\n", omittingEmptySubsequences: false) numbers them
            var start = 0, number = 1
            while start <= b.count {
                var end = start
                while end < b.count && b[end] != UInt8(ascii: "\n") { end += 1 }
                var first = start
                while first < end && b[first] == UInt8(ascii: " ") { first += 1 }
                if end - first >= want.count && want.indices.allSatisfy({ b[first + $0] == want[$0] }) {
                    out.append((number, Substring(String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self))))
                }
                number += 1
                start = end + 1
            }
        }
        return out
    }

    static func hex(_ b: [UInt8]) -> String { Figures.hex(b) }

    /// "ab12…" → "AB:12:…", the form fingerprints are shown in, so two can be compared by eye.
    static func colon(_ hex: String) -> String {
        var out: [String] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            out.append(hex[i..<j].uppercased())
            i = j
        }
        return out.joined(separator: ":")
    }

    /// A remembered "kind hex" as "kind SHA-256 AB:CD:…".
    static func describe(_ remembered: String) -> String {
        let f = remembered.split(separator: " ")
        guard f.count == 2 else { return remembered }
        return "\(f[0]) SHA-256 \(colon(String(f[1])))"
    }

    public func lookup(_ id: ServerIdentity) -> Lookup {
        KnownHosts.lock.withLock {
            guard FileManager.default.fileExists(atPath: path) else { return .unknown }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                return .unreadable("cannot read the known-hosts file \(path); no certificate or key can be checked against it")
            }
            let want = KnownHosts.hex(id.fingerprint)
            for (number, line) in KnownHosts.lines(of: text, naming: id.server) {
                let f = line.split(separator: " ")
                // identity lines only (kind x509 or rsa); other records share the file
                guard f.count >= 3, !f[0].hasPrefix("#"), f[0] == id.server,
                      ServerIdentity.Kind(rawValue: String(f[1])) != nil else { continue }
                // another kind of key than before is a change too
                return f[1] == id.kind.rawValue && f[2] == want ? .match : .mismatch(remembered: "\(f[1]) \(f[2])", line: number)
            }
            return .unknown
        }
    }

    /// Appends the identity (the file and its directory are created private to the user).
    public func remember(_ id: ServerIdentity) throws {
        try KnownHosts.lock.withLock {
            try appendLocked("\(id.server) \(id.kind.rawValue) \(KnownHosts.hex(id.fingerprint))\n")
        }
    }

    private func append(_ line: String) throws {
        try KnownHosts.lock.withLock { try appendLocked(line) }
    }

    /// Appends a line (the file and its directory are created private to the user).
    private func appendLocked(_ line: String) throws {
        do {
            let dir = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: Data("# Farcast known hosts: host:port kind sha256 (kind x509 or rsa); host:port security METHOD is the strongest method used\n".utf8),
                                                   attributes: [.posixPermissions: 0o600])
            }
            guard let h = FileHandle(forWritingAtPath: path) else { throw ProtocolError("cannot write \(path)") }
            defer { try? h.close() }
            try h.seekToEnd()
            try h.write(contentsOf: Data(line.utf8))
        }
    }

    /// The strongest security method `server` was reached with (a `host security NAME` line).
    public func strongestSecurity(server: String) -> SecurityMethod? {
        KnownHosts.lock.withLock {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            var best: SecurityMethod?
            for (_, line) in KnownHosts.lines(of: text, naming: server) {
                let f = line.split(separator: " ")
                guard f.count >= 3, f[0] == server, f[1] == "security",
                      let m = try? SecurityMethod.parseList(String(f[2])).first else { continue }
                if best.map({ m.strength > $0.strength }) ?? true { best = m }
            }
            return best
        }
    }

    /// Remembers that `server` was reached with `method`, when it is stronger than before.
    /// An unencrypted method is not written: nothing is weaker, so its line could never refuse
    /// anything (it only grew the file, one line per port, and cost every connection a write).
    public func rememberSecurity(server: String, _ method: SecurityMethod) {
        if method.strength == .open { return }
        if let before = strongestSecurity(server: server), before.strength >= method.strength { return }
        try? append("\(server) security \(method.listName)\n")
    }

    /// The decision without asking: known and equal → accept; known and different → refuse
    /// loudly; unknown → accept and remember with `acceptNew`, else nil (ask the user).
    public func decision(_ id: ServerIdentity, acceptNew: Bool) -> TrustDecision? {
        let what = id.kind == .x509 ? "certificate" : "RSA-AES server key"
        switch lookup(id) {
        case .match:
            return .accept
        case .mismatch(let old, let line):
            return .reject("""
                WARNING: THE \(what.uppercased()) OF \(id.server) HAS CHANGED. Someone may be intercepting \
                the connection, or the server got a new \(what). Now: \(id.kind.rawValue) SHA-256 \
                \(KnownHosts.colon(KnownHosts.hex(id.fingerprint))); remembered (\(path) line \(line)): \
                \(KnownHosts.describe(old)). Refusing to connect. If the change is expected, delete that line.
                """)
        case .unreadable(let why):
            return .reject(why)
        case .unknown:
            return acceptNew ? acceptAndRemember(id) : nil
        }
    }

    /// The user accepted `id`: remembered, or refused when it cannot be.
    public func acceptAndRemember(_ id: ServerIdentity) -> TrustDecision {
        let what = id.kind == .x509 ? "certificate" : "RSA-AES server key"
        do { try remember(id) } catch { return .reject("cannot remember the \(what) in \(path): \(error)") }
        return .accept
    }

    /// The refusal of an unknown identity the user did not accept.
    public static func notTrusted(_ id: ServerIdentity) -> TrustDecision {
        let what = id.kind == .x509 ? "certificate" : "RSA-AES server key"
        return .reject("the \(what) of \(id.server) is not trusted (\(id.verifyError ?? "no authority vouches for it")); fingerprint \(id.displayFingerprint). \(id.remedy)")
    }

    /// A complete evaluator: `decision`, else `ask` (a prompt or a test's answer), remembered
    /// when accepted. Called on the front end's thread.
    public func evaluator(ask: @escaping @Sendable (ServerIdentity) -> Bool) -> TrustEvaluator {
        { [self] id in
            if let d = decision(id, acceptNew: false) { return d }
            return ask(id) ? acceptAndRemember(id) : KnownHosts.notTrusted(id)
        }
    }
}
