import Foundation
import RFB

/// The launcher's address book: `$XDG_CONFIG_HOME/farcast/connections`, a text file meant to
/// be edited by hand as well: global `key = value` lines, then one `[name]` section per
/// connection with its `key = value` lines (`#` starts a comment line).
public struct SavedConnectionsFile: Equatable, Sendable {
    /// When a session ends the launcher comes back; `no` exits as the viewer always did.
    public var returnToLauncher = true
    public var connections: [SavedConnection] = []
    public init() {}

    public static let header = """
        # Farcast saved connections (the launcher writes this file; editing it by hand is fine).
        # One [name] section per connection; keys: \(SavedConnection.keys.joined(separator: ", ")).
        # Passwords are never kept here: remember-password = yes keeps them in the Secret Service.

        """

    /// Limits: a hand-edited file is still bounded (a pasted log is refused, not loaded).
    static let maxBytes = 1 << 20
    static let maxConnections = 1000

    public static func parse(_ text: String, file: String = "connections") throws -> SavedConnectionsFile {
        var out = SavedConnectionsFile()
        var current: SavedConnection?
        var hasAddress = false
        var names = Set<String>()
        func finish(_ line: Int) throws {
            guard let c = current else { return }
            guard hasAddress else { throw ConfigError("\(file): [\(c.name)] has no address (line \(line))") }
            out.connections.append(c)
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (i, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            func fail(_ why: String) -> ConfigError { ConfigError("\(file) line \(i + 1): \(why)") }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { throw fail("expected [name], got '\(line)'") }
                try finish(i + 1)
                let name = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw fail("a connection needs a name") }
                guard names.insert(name.lowercased()).inserted else { throw fail("a second connection named '\(name)'") }
                guard out.connections.count < maxConnections else { throw fail("more than \(maxConnections) connections") }
                current = SavedConnection(name: name, address: "localhost")
                hasAddress = false
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw fail("expected 'key = value', got '\(line)'") }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let value = String(line[line.index(after: eq)...])
            if current == nil {
                guard key == "return-to-launcher" else { throw fail("unknown setting '\(key)' before the first [name] (known: return-to-launcher)") }
                var probe = SavedConnection(name: "", address: "localhost")
                do { try probe.set("view-only", value) } catch { throw fail("return-to-launcher takes yes or no, not '\(value.trimmingCharacters(in: .whitespaces))'") }
                out.returnToLauncher = probe.viewOnly
                continue
            }
            do { try current?.set(key, value) } catch { throw fail("\(error)") }
            if key == "address" { hasAddress = true }
        }
        try finish(lines.count)
        return out
    }

    public func serialized() -> String {
        var s = SavedConnectionsFile.header
        s += "return-to-launcher = \(returnToLauncher ? "yes" : "no")\n"
        let defaults = SavedConnection(name: "", address: "").values
        for c in connections {
            s += "\n[\(c.name)]\n"
            let v = c.values
            for k in SavedConnection.keys {
                // address always; the rest only when it says something
                guard let x = v[k], k == "address" || (!x.isEmpty && x != defaults[k]) else { continue }
                s += "\(k) = \(x)\n"
            }
        }
        return s
    }
}

/// The file on disk. A file that cannot be read as connections is reported and kept: nothing
/// is written over it until the user has fixed or moved it. Main thread (the launcher) only.
public final class SavedConnectionStore {
    public let path: String
    public private(set) var contents = SavedConnectionsFile()
    /// Why the file could not be used; while set, `save` refuses.
    public private(set) var problem: String?

    public static func defaultPath(env: [String: String]) -> String {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return config + "/farcast/connections"
    }

    public init(path: String) {
        self.path = path
        reload()
    }

    public func reload() {
        problem = nil
        guard FileManager.default.fileExists(atPath: path) else { contents = SavedConnectionsFile(); return }
        guard let data = FileManager.default.contents(atPath: path) else {
            problem = "cannot read \(path); it is left as it is"
            return
        }
        guard data.count <= SavedConnectionsFile.maxBytes else {
            problem = "\(path) is larger than \(SavedConnectionsFile.maxBytes / 1024) KiB; it is left as it is"
            return
        }
        guard let text = String(data: data, encoding: .utf8) else {
            problem = "\(path) is not UTF-8 text; it is left as it is"
            return
        }
        do { contents = try SavedConnectionsFile.parse(text, file: path) } catch {
            problem = "\(error) — the file is left as it is until fixed"
        }
    }

    /// Writes atomically (a temporary file renamed over the old one).
    public func save(_ new: SavedConnectionsFile) throws {
        if let problem { throw ConfigError("not saved: \(problem)") }
        try PrivateFile.replace(path, with: new.serialized())
        contents = new
    }
}

/// Addresses connected to without saving them (quick connect): `$XDG_STATE_HOME/farcast/recent`,
/// one `DATE ADDRESS` line each, newest first.
public struct RecentConnections: Sendable {
    public let path: String
    public static let limit = 12

    public static func defaultPath(env: [String: String]) -> String {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let state = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/state"
        return state + "/farcast/recent"
    }

    public init(path: String) { self.path = path }

    public func load() -> [(address: String, date: Date)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var out: [(String, Date)] = []
        for line in text.split(separator: "\n").prefix(RecentConnections.limit) {
            let f = line.split(separator: " ", maxSplits: 1)
            guard f.count == 2, let d = SavedConnection.parseDate(String(f[0])) else { continue }
            out.append((String(f[1]), d))
        }
        return out
    }

    public func add(_ address: String, at date: Date = Date()) throws {
        guard !address.contains("\n") else { return }
        let rest = load().filter { $0.address != address }
        let all = [(address, date)] + rest.map { ($0.address, $0.date) }
        let text = all.prefix(RecentConnections.limit).map { "\(SavedConnection.formatDate($0.1)) \($0.0)\n" }.joined()
        try PrivateFile.replace(path, with: text)
    }
}

/// A small picture of a session's last screen, per address: `$XDG_CACHE_HOME/farcast/thumbnails`.
public enum SessionThumbnails {
    public static func directory(env: [String: String]) -> String { CacheDirectory.path(env: env) + "/thumbnails" }

    /// FNV-1a of the address: a file name that says nothing about the host to a directory listing.
    public static func path(for address: String, env: [String: String]) -> String {
        path(for: address, in: directory(env: env))
    }

    /// The file for `address` in `directory` (as `directory(env:)` gives it).
    public static func path(for address: String, in directory: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in address.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return directory + "/" + String(h, radix: 16) + ".png"
    }
}
