import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// Trust on first use for server identities no authority vouches for (self-signed or otherwise
/// unverifiable certificates, RSA-AES server keys), like ssh's known_hosts.
/// One line per server and kind: `host:port kind sha256-hex`; `#` starts a comment. Kind `x509`
/// or `rsa` is a pinned certificate or key; `x509-ca` says the host was reached with a
/// certificate an authority verified (the first one's fingerprint, for reference): from then
/// on any certificate or key nobody vouches for is a change, as a different pin is.
public final class KnownHosts: Sendable {
    public let path: String
    private static let lock = NSLock()

    public init(path: String) { self.path = path }

    /// $XDG_CONFIG_HOME/farcast/known_hosts, else ~/.config/farcast/known_hosts (`env`: the
    /// command line's environment).
    public static func defaultPath(env: [String: String]) -> String {
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

    /// A remembered "kind hex" as "kind SHA-256 AB:CD:…" (an x509-ca record as what it means).
    static func describe(_ remembered: String) -> String {
        let f = remembered.split(separator: " ")
        guard f.count == 2 else { return remembered }
        if f[0] == authorityKind { return "a certificate verified by a certificate authority (x509-ca, first SHA-256 \(colon(String(f[1]))))" }
        guard ServerIdentity.Kind(rawValue: String(f[0])) != nil else { return remembered }   // e.g. "security ARD"
        return "\(f[0]) SHA-256 \(colon(String(f[1])))"
    }

    /// The kind of an `x509-ca` record: the host proved itself with a certificate an authority verified.
    static let authorityKind = "x509-ca"

    /// The remembered identity `id` is checked against: a pin of the same kind and fingerprint
    /// is a match; another pin, a pin of another kind, or an `x509-ca` record is a change.
    public func lookup(_ id: ServerIdentity) -> Lookup {
        KnownHosts.lock.withLock {
            guard FileManager.default.fileExists(atPath: path) else { return .unknown }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                return .unreadable("cannot read the known-hosts file \(path); no certificate or key can be checked against it")
            }
            let want = KnownHosts.hex(id.fingerprint)
            var changed: Lookup?
            for (number, line) in KnownHosts.lines(of: text, naming: id.server) {
                let f = line.split(separator: " ")
                // identity lines only (x509, rsa, x509-ca); other records share the file
                guard f.count >= 3, !f[0].hasPrefix("#"), f[0] == id.server,
                      ServerIdentity.Kind(rawValue: String(f[1])) != nil || f[1] == KnownHosts.authorityKind else { continue }
                if f[1] == id.kind.rawValue && f[2] == want { return .match }
                // another kind of key than before is a change too
                if changed == nil { changed = .mismatch(remembered: "\(f[1]) \(f[2])", line: number) }
            }
            return changed ?? .unknown
        }
    }

    /// The first line recording anything of `server` (an identity, a security method): a host
    /// reached before. nil when there is none (or no file).
    func anyRecord(server: String) -> (line: Int, text: String)? {
        KnownHosts.lock.withLock {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            for (number, line) in KnownHosts.lines(of: text, naming: server) {
                let f = line.split(separator: " ")
                if f.count >= 3, f[0] == server { return (number, "\(f[1]) \(f[2])") }
            }
            return nil
        }
    }

    /// Remembers that `server` proved itself with a certificate an authority verified (once:
    /// later certificates may differ, as renewed ones do; what matters is that one verified).
    public func rememberVerified(server: String, fingerprint: [UInt8]) {
        guard !server.contains(" "), !server.contains("\n") else { return }
        let known: Bool = KnownHosts.lock.withLock {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            return KnownHosts.lines(of: text, naming: server).contains { _, line in
                let f = line.split(separator: " ")
                return f.count >= 3 && f[0] == server && f[1] == KnownHosts.authorityKind
            }
        }
        if !known { try? append("\(server) \(KnownHosts.authorityKind) \(KnownHosts.hex(fingerprint))\n") }
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

    static let header = "# Farcast known hosts: host:port kind sha256 (kind x509 or rsa: a pinned certificate or key; x509-ca: a certificate an authority verified); host:port security METHOD is the strongest method used\n"

    /// Appends a line (the file, made as `PrivateFile` makes files, and its directory are
    /// private to the user; a link there is not followed).
    private func appendLocked(_ line: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        var text = line
        if fd < 0 && errno == ENOENT {
            fd = try PrivateFile.create(path)
            text = KnownHosts.header + line
        }
        guard fd >= 0 else { throw ProtocolError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let ok = Array(text.utf8).withUnsafeBytes { PrivateFile.writeAll(fd, $0) }
        guard ok else { throw ProtocolError("cannot write \(path): \(String(cString: strerror(errno)))") }
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

    /// The decision without asking: known and equal → known (the channel is authenticated);
    /// known and different, or a host that proved itself through an authority before → refuse
    /// loudly; unknown → accept and remember with `acceptNew` when nothing at all is recorded
    /// of the host (a kiosk trusts a first key only for a host it never reached), else nil
    /// (ask the user).
    public func decision(_ id: ServerIdentity, acceptNew: Bool) -> TrustDecision? {
        let what = id.kind == .x509 ? "certificate" : "RSA-AES server key"
        switch lookup(id) {
        case .match:
            return .known
        case .mismatch(let old, let line):
            return .reject("""
                WARNING: THE \(what.uppercased()) OF \(id.server) HAS CHANGED. Someone may be intercepting \
                the connection, or the server got a new \(what). Now: \(id.kind.rawValue) SHA-256 \
                \(KnownHosts.colon(KnownHosts.hex(id.fingerprint))); remembered (\(path) line \(line)): \
                \(KnownHosts.describe(old)). Refusing to connect. \(old.hasPrefix(KnownHosts.authorityKind + " ")
                    ? "If the certificate was verified through --x509-ca then, give it again; if the change is expected, delete that line."
                    : "If the change is expected, delete that line.")
                """)
        case .unreadable(let why):
            return .reject(why)
        case .unknown:
            guard acceptNew else { return nil }
            if let (line, record) = anyRecord(server: id.server) {
                return .reject("""
                    the \(what) of \(id.server) is new (\(id.kind.rawValue) SHA-256 \(KnownHosts.colon(KnownHosts.hex(id.fingerprint)))), \
                    and this host was reached before (\(path) line \(line): \(KnownHosts.describe(record))): a new \(what) is \
                    trusted without asking only for a host never reached. Refusing to connect. If the server really has a new \
                    \(what), accept it once without --trust-new-certificate, or delete that host's lines.
                    """)
            }
            return acceptAndRemember(id)
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
