import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// Connections from other viewers' files: TigerVNC's `.tigervnc` (vncviewer's "Save as") and
/// Remmina's `.remmina` VNC profiles. Every value is checked as the launcher's form checks it
/// (`SavedConnection.set`, `checkName`); what is refused is named in `refused`, with why, and
/// what has no Farcast equivalent in `notCarried`, so the launcher says it rather than drop it
/// silently. A file is someone else's text: what is shown of it has no control characters, and
/// the value of a key that looks like a secret is never shown.
public enum ConnectionImport {
    public struct Result: Equatable, Sendable {
        public var connection: SavedConnection
        /// Settings of the file that were not carried over, as "Key=value" or "Key (why)".
        public var notCarried: [String]
        /// Values of the file the form would refuse, as "Key: why"; the connection has the
        /// default (or, for the name, the file's name) instead.
        public var refused: [String] = []
    }

    public static let tigerVNCHeader = "TigerVNC Configuration file Version 1.0"
    /// vncviewer writes about 1 KiB; a file larger than this is not one of its files.
    static let maxBytes = 256 * 1024
    /// What is shown of one key or value of the file.
    static let maxShown = 80

    /// Reads at most `maxBytes` (and one more, to know it was too large) of a regular file: a
    /// FIFO or a device would otherwise be read without end.
    static func read(path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ConfigError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw ConfigError("\(path) is not a regular file")
        }
        var buf = [UInt8](repeating: 0, count: maxBytes + 1)
        var got = 0
        while got < buf.count {
            let n = buf.withUnsafeMutableBytes { b in Glibc.read(fd, b.baseAddress.map { $0 + got }, b.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ConfigError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            got += n
        }
        guard got <= maxBytes else { throw ConfigError("\(path) is not a connection file (larger than \(maxBytes / 1024) KiB)") }
        return Data(buf.prefix(got))
    }

    public static func load(path: String) throws -> Result {
        let data = try read(path: path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError("\(path) is not a connection file (not UTF-8 text)")
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        if text.hasPrefix(tigerVNCHeader) { return try tigerVNC(text, name: name) }
        if text.contains("[remmina]") { return try remmina(text, name: name) }
        throw ConfigError("\(path) is neither a TigerVNC (.tigervnc) nor a Remmina (.remmina) file")
    }

    /// `key=value` lines after the header; values escaped as vncviewer writes them (\n, \r, \\).
    public static func tigerVNC(_ text: String, name: String) throws -> Result {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard lines.first?.trimmingCharacters(in: .whitespaces) == tigerVNCHeader else {
            throw ConfigError("not a TigerVNC file: the first line is not '\(tigerVNCHeader)'")
        }
        lines.removeFirst()
        var kv: [(String, String)] = []
        for l in lines {
            let t = l.trimmingCharacters(in: .whitespaces)
            guard !t.isEmpty, !t.hasPrefix("#"), let eq = t.firstIndex(of: "=") else { continue }
            kv.append((String(t[..<eq]), unescape(String(t[t.index(after: eq)...]))))
        }
        func value(_ k: String) -> String? { kv.last { $0.0.lowercased() == k.lowercased() }?.1 }
        func on(_ k: String) -> Bool? { value(k).map { ["1", "true", "yes", "on"].contains($0.lowercased()) } }
        guard let server = value("ServerName"), !server.isEmpty else {
            throw ConfigError("the TigerVNC file names no server (ServerName=)")
        }
        var c = SavedConnection(name: "localhost", address: "localhost")
        var notCarried: [String] = [], refused: [String] = []
        do { try c.set("address", server) } catch { throw ConfigError("ServerName: \(shown("\(error)", limit: 300))") }
        c.name = importedName(name, fallback: c.address, file: "the file's name", refused: &refused)
        if let v = value("via"), !v.isEmpty { apply("via", v, as: "via", to: &c, refused: &refused) }
        if let s = value("SecurityTypes"), !s.isEmpty {
            // DH, MSLogonII and the like are not ours: keep the ones we know, in order
            let known = s.split(separator: ",").filter { (try? SecurityMethod.parseList(String($0))) != nil }
            let unknown = s.split(separator: ",").filter { (try? SecurityMethod.parseList(String($0))) == nil }
            if !known.isEmpty { apply("security", known.joined(separator: ","), as: "SecurityTypes", to: &c, refused: &refused) }
            if !unknown.isEmpty { notCarried.append("SecurityTypes \(shown(unknown.joined(separator: ","))) (not supported)") }
        }
        if let v = on("ViewOnly") { c.viewOnly = v }
        if let v = on("FullScreen") { c.fullscreen = v }
        let accept = on("AcceptClipboard") ?? true, send = on("SendClipboard") ?? true
        c.clipboard = accept && send ? .both : accept ? .receive : send ? .send : .off
        if on("NoJPEG") == true {
            c.lossless = true
        } else if on("AutoSelect") == false, let q = value("QualityLevel").flatMap(Int.init), (0...9).contains(q) {
            c.quality = q
        }
        let handled: Set<String> = ["servername", "via", "securitytypes", "viewonly", "fullscreen", "acceptclipboard",
                                    "sendclipboard", "nojpeg", "autoselect", "qualitylevel"]
        for (k, v) in kv where !handled.contains(k.lowercased()) && !v.isEmpty {
            notCarried.append(unhandled(k, v))
        }
        return Result(connection: c, notCarried: notCarried, refused: refused)
    }

    /// A key the import does not take, as it is shown: no control characters, bounded, and
    /// only the key of one that looks like a secret.
    static func unhandled(_ key: String, _ value: String) -> String {
        looksSecret(key) ? "\(shown(key)) (its value is not shown)" : "\(shown(key))=\(shown(value))"
    }

    /// Passwords, passphrases, private keys and tokens, whatever the program calls them
    /// (not every "key": TigerVNC's MenuKey and Remmina's keymap are settings).
    static func looksSecret(_ key: String) -> Bool {
        let k = key.lowercased()
        return ["pass", "pwd", "secret", "privatekey", "private_key", "apikey", "token", "credential", "cookie"].contains { k.contains($0) }
    }

    /// Text of the file as shown to the user.
    static func shown(_ s: String, limit: Int = maxShown) -> String { ServerText.printable(s, limit: limit) }

    /// Sets `key` as the form would, or notes why it was refused (the value shown cleaned).
    static func apply(_ key: String, _ value: String, as fileKey: String, to c: inout SavedConnection, refused: inout [String]) {
        do { try c.set(key, value) } catch {
            refused.append("\(fileKey)=\(looksSecret(fileKey) ? "…" : shown(value)): \(error)")
        }
    }

    /// The name if the form would take it, else `fallback` (noted as refused), else a plain
    /// one (an IPv6 address has brackets, which a name cannot).
    static func importedName(_ name: String, fallback: String, file: String, refused: inout [String]) -> String {
        let safeFallback = (try? SavedConnection.checkName(fallback)) == nil ? "Imported connection" : fallback
        let n = name.trimmingCharacters(in: .whitespaces)
        if n.isEmpty { return safeFallback }
        do { try SavedConnection.checkName(n); return n } catch {
            refused.append("\(file) '\(shown(n))': \(error); named \(safeFallback) instead")
            return safeFallback
        }
    }

    static func unescape(_ s: String) -> String {
        var out = "", esc = false
        for ch in s {
            if esc {
                out.append(ch == "n" ? "\n" : ch == "r" ? "\r" : ch)
                esc = false
            } else if ch == "\\" { esc = true } else { out.append(ch) }
        }
        return out
    }

    /// An INI file with a `[remmina]` group; only `protocol=VNC` profiles are connections for us.
    public static func remmina(_ text: String, name: String) throws -> Result {
        var kv: [String: String] = [:], inGroup = false
        for l in text.split(whereSeparator: \.isNewline) {
            let t = l.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("[") { inGroup = t == "[remmina]"; continue }
            guard inGroup, !t.hasPrefix("#"), let eq = t.firstIndex(of: "=") else { continue }
            kv[t[..<eq].trimmingCharacters(in: .whitespaces).lowercased()] = t[t.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        }
        let proto = kv["protocol"] ?? ""
        guard proto.uppercased() == "VNC" else {
            throw ConfigError("the Remmina profile is not a VNC one (protocol=\(proto.isEmpty ? "none" : shown(proto)))")
        }
        guard let server = kv["server"], !server.isEmpty else { throw ConfigError("the Remmina profile names no server (server=)") }
        var c = SavedConnection(name: "localhost", address: "localhost")
        var notCarried: [String] = [], refused: [String] = []
        do { try c.set("address", server) } catch { throw ConfigError("server: \(shown("\(error)", limit: 300))") }
        let fileName = importedName(name, fallback: c.address, file: "the file's name", refused: &refused)
        c.name = importedName(kv["name"] ?? "", fallback: fileName, file: "name", refused: &refused)
        if let u = kv["username"], !u.isEmpty { apply("username", u, as: "username", to: &c, refused: &refused) }
        if let p = kv["password"], !p.isEmpty {
            notCarried.append("password (Remmina's own encryption; type it once with Remember password on)")
        }
        if kv["viewonly"] == "1" { c.viewOnly = true }
        if kv["disableclipboard"] == "1" { c.clipboard = .off }
        switch kv["quality"] {
        case "0": c.quality = 2
        case "1": c.quality = 5
        case "2": c.quality = 7
        case "9": c.lossless = true
        default: break
        }
        if kv["ssh_tunnel_enabled"] == "1" || kv["ssh_enabled"] == "1" {
            let gw = kv["ssh_tunnel_server"] ?? kv["ssh_server"] ?? ""
            let user = kv["ssh_tunnel_username"] ?? kv["ssh_username"] ?? ""
            if gw.isEmpty {
                notCarried.append("SSH tunnel (no gateway named)")
            } else {
                apply("via", user.isEmpty ? gw : "\(user)@\(gw)", as: "ssh_tunnel_server", to: &c, refused: &refused)
            }
        }
        if let d = kv["colordepth"], !d.isEmpty, d != "32", d != "24" { notCarried.append("colordepth=\(shown(d)) (Farcast asks for 32 bpp)") }
        for k in ["group", "keymap", "showcursor", "scale", "viewmode", "disableencryption", "proxy", "vncencodings",
                  "ssh_tunnel_auth", "ssh_tunnel_privatekey", "precommand", "postcommand", "notes_text"] {
            if let v = kv[k], !v.isEmpty, v != "0" { notCarried.append(unhandled(k, v)) }
        }
        return Result(connection: c, notCarried: notCarried, refused: refused)
    }
}
