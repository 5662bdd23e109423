import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's count of wrong PINs, kept in its state directory so that a restart (systemd
/// starts it again; the plug pulled) does not give a fresh count:
/// `$XDG_STATE_HOME/farcast/pin-failures`, which `farcast kiosk` points at the unit's
/// StateDirectory (/var/lib/farcast-kiosk/farcast/pin-failures, next to known_hosts).
///
/// Two lines, replaced atomically (mode 0600) after every PIN checked:
///     failures = 5
///     locked-until = 1767225600
/// (wrong PINs in a row; wall-clock seconds since 1970 until which the pad refuses every PIN).
/// A file that cannot be read or makes no sense is an error the caller answers by locking:
/// deleting the file is for the administrator, never for a passer-by.
public struct PinFailureFile: Sendable {
    public struct Record: Equatable, Sendable {
        public var failures: Int
        public var lockedUntil: Double
        public init(failures: Int, lockedUntil: Double) { self.failures = failures; self.lockedUntil = lockedUntil }
    }

    public let path: String
    /// Far larger than the two lines written: anything bigger is not this file.
    static let maxSize = 4096

    public init(path: String) { self.path = path }

    /// `$XDG_STATE_HOME/farcast/pin-failures`, else `~/.local/state/farcast/pin-failures`.
    public static func standard(environment env: [String: String]) -> PinFailureFile {
        let base = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return PinFailureFile(path: (base as NSString).appendingPathComponent("farcast/pin-failures"))
    }

    /// The saved count; nil when there is no file (no wrong PIN since the last right one).
    public func load() throws -> Record? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw ProtocolError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: PinFailureFile.maxSize + 1)
        var n = 0
        while n < bytes.count {
            let r = bytes[n...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if r < 0 && errno == EINTR { continue }
            if r < 0 { throw ProtocolError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if r == 0 { break }
            n += r
        }
        guard n <= PinFailureFile.maxSize else { throw ProtocolError("\(path) is larger than \(PinFailureFile.maxSize) bytes") }
        return try PinFailureFile.parse(String(decoding: bytes.prefix(n), as: UTF8.self), file: path)
    }

    static func parse(_ text: String, file: String) throws -> Record {
        var failures: Int?, until: Double?
        for line in text.split(separator: "\n") {
            let l = line.trimmingCharacters(in: .whitespaces)
            if l.isEmpty || l.hasPrefix("#") { continue }
            let kv = l.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2 else { throw ProtocolError("\(file): unreadable line '\(l.prefix(40))'") }
            switch kv[0] {
            case "failures": failures = Int(kv[1]).flatMap { $0 >= 0 ? $0 : nil }
            case "locked-until": until = Double(kv[1]).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            default: throw ProtocolError("\(file): unknown key '\(kv[0].prefix(40))'")
            }
        }
        guard let failures, let until else { throw ProtocolError("\(file): needs failures = N and locked-until = SECONDS") }
        return Record(failures: failures, lockedUntil: until)
    }

    /// Replaces the file (atomically, mode 0600; its directory made 0700 when missing).
    public func save(_ r: Record) throws {
        let until = r.lockedUntil.isFinite ? max(0, r.lockedUntil) : 0
        try PrivateFile.replace(path, with: """
            # Farcast kiosk: wrong PINs in a row, and until when (seconds since 1970) the PIN pad is locked.
            # Written by the kiosk; delete it to unlock (sudo rm, then systemctl restart farcast-kiosk).
            failures = \(max(0, r.failures))
            locked-until = \(Int(until.rounded(.up)))

            """)
    }
}
