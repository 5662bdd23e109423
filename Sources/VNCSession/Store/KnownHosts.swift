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
        /// Known with another fingerprint, remembered on `line`.
        case mismatch(remembered: String, line: Int)
    }

    static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    public func lookup(_ id: ServerIdentity) -> Lookup {
        KnownHosts.lock.withLock {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return .unknown }
            let want = KnownHosts.hex(id.fingerprint)
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let f = line.split(separator: " ")
                guard f.count >= 3, !f[0].hasPrefix("#"), f[0] == id.server, f[1] == id.kind.rawValue else { continue }
                return f[2] == want ? .match : .mismatch(remembered: String(f[2]), line: i + 1)
            }
            return .unknown
        }
    }

    /// Appends the identity (the file and its directory are created private to the user).
    public func remember(_ id: ServerIdentity) throws {
        try KnownHosts.lock.withLock {
            let dir = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let line = "\(id.server) \(id.kind.rawValue) \(KnownHosts.hex(id.fingerprint))\n"
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: Data("# Farcast known hosts: host:port kind sha256\n".utf8),
                                                   attributes: [.posixPermissions: 0o600])
            }
            guard let h = FileHandle(forWritingAtPath: path) else { throw ProtocolError("cannot write \(path)") }
            defer { try? h.close() }
            try h.seekToEnd()
            try h.write(contentsOf: Data(line.utf8))
        }
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
                the connection, or the server got a new \(what). Now: \(id.displayFingerprint); remembered \
                (\(path) line \(line)): \(old). Refusing to connect. If the change is expected, delete that line.
                """)
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
