import Foundation
import RFB

/// Connections from other viewers' files: TigerVNC's `.tigervnc` (vncviewer's "Save as") and
/// Remmina's `.remmina` VNC profiles. What has no Farcast equivalent is named in `notCarried`,
/// so the launcher can say it rather than drop it silently.
public enum ConnectionImport {
    public struct Result: Equatable, Sendable {
        public var connection: SavedConnection
        /// Settings of the file that were not carried over, as "Key (why)".
        public var notCarried: [String]
    }

    public static let tigerVNCHeader = "TigerVNC Configuration file Version 1.0"
    static let maxBytes = 256 * 1024

    public static func load(path: String) throws -> Result {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SavedConnection.Invalid("cannot read \(path)")
        }
        guard data.count <= maxBytes, let text = String(data: data, encoding: .utf8) else {
            throw SavedConnection.Invalid("\(path) is not a connection file (too large or not UTF-8 text)")
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        if text.hasPrefix(tigerVNCHeader) { return try tigerVNC(text, name: name) }
        if text.contains("[remmina]") { return try remmina(text, name: name) }
        throw SavedConnection.Invalid("\(path) is neither a TigerVNC (.tigervnc) nor a Remmina (.remmina) file")
    }

    /// `key=value` lines after the header; values escaped as vncviewer writes them (\n, \r, \\).
    public static func tigerVNC(_ text: String, name: String) throws -> Result {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard lines.first?.trimmingCharacters(in: .whitespaces) == tigerVNCHeader else {
            throw SavedConnection.Invalid("not a TigerVNC file: the first line is not '\(tigerVNCHeader)'")
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
            throw SavedConnection.Invalid("the TigerVNC file names no server (ServerName=)")
        }
        var c = SavedConnection(name: name.isEmpty ? server : name, address: "localhost")
        var notCarried: [String] = []
        do { try c.set("address", server) } catch { throw SavedConnection.Invalid("ServerName: \(error)") }
        if let v = value("via"), !v.isEmpty { try? c.set("via", v) }
        if let s = value("SecurityTypes"), !s.isEmpty {
            // DH, MSLogonII and the like are not ours: keep the ones we know, in order
            let known = s.split(separator: ",").filter { (try? SecurityMethod.parseList(String($0))) != nil }
            let unknown = s.split(separator: ",").filter { (try? SecurityMethod.parseList(String($0))) == nil }
            if !known.isEmpty { try? c.set("security", known.joined(separator: ",")) }
            if !unknown.isEmpty { notCarried.append("SecurityTypes \(unknown.joined(separator: ",")) (not supported)") }
        }
        if let v = on("ViewOnly") { c.viewOnly = v }
        if let v = on("FullScreen") { c.fullscreen = v }
        let accept = on("AcceptClipboard") ?? true, send = on("SendClipboard") ?? true
        c.clipboard = accept && send ? "both" : accept ? "receive" : send ? "send" : "off"
        if on("NoJPEG") == true {
            c.lossless = true
        } else if on("AutoSelect") == false, let q = value("QualityLevel").flatMap(Int.init), (0...9).contains(q) {
            c.quality = q
        }
        let handled: Set<String> = ["servername", "via", "securitytypes", "viewonly", "fullscreen", "acceptclipboard",
                                    "sendclipboard", "nojpeg", "autoselect", "qualitylevel"]
        for (k, v) in kv where !handled.contains(k.lowercased()) && !v.isEmpty {
            notCarried.append("\(k)=\(v)")
        }
        return Result(connection: c, notCarried: notCarried)
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
            throw SavedConnection.Invalid("the Remmina profile is not a VNC one (protocol=\(proto.isEmpty ? "none" : proto))")
        }
        guard let server = kv["server"], !server.isEmpty else { throw SavedConnection.Invalid("the Remmina profile names no server (server=)") }
        let title = kv["name"].flatMap { $0.isEmpty ? nil : $0 } ?? (name.isEmpty ? server : name)
        var c = SavedConnection(name: title, address: "localhost")
        var notCarried: [String] = []
        do { try c.set("address", server) } catch { throw SavedConnection.Invalid("server: \(error)") }
        if let u = kv["username"], !u.isEmpty { c.username = u }
        if let p = kv["password"], !p.isEmpty {
            notCarried.append("password (Remmina's own encryption; type it once with Remember password on)")
        }
        if kv["viewonly"] == "1" { c.viewOnly = true }
        if kv["disableclipboard"] == "1" { c.clipboard = "off" }
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
                try? c.set("via", user.isEmpty ? gw : "\(user)@\(gw)")
            }
        }
        if let d = kv["colordepth"], !d.isEmpty, d != "32", d != "24" { notCarried.append("colordepth=\(d) (Farcast asks for 32 bpp)") }
        for k in ["group", "keymap", "showcursor", "scale", "viewmode", "disableencryption", "proxy", "vncencodings",
                  "ssh_tunnel_auth", "ssh_tunnel_privatekey", "precommand", "postcommand", "notes_text"] {
            if let v = kv[k], !v.isEmpty, v != "0" { notCarried.append("\(k)=\(v)") }
        }
        return Result(connection: c, notCarried: notCarried)
    }
}
