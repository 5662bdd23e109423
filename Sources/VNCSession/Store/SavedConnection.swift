import Foundation
import RFB

/// One saved connection of the launcher: a name, an address in any syntax the command line
/// takes, and settings that map one to one onto `viewer view` options. No secret is ever held
/// here: `rememberPassword` only asks the session to save what was typed (`--save-password`).
public struct SavedConnection: Equatable, Sendable {
    public var name: String
    public var address: String
    public var colour = "none"
    public var lastConnected: Date?
    /// touch or trackpad (`--touch` / `--trackpad`).
    public var input = TouchInputMode.touch
    /// 0-9, or nil for the window's default (8); `lossless` leaves JPEG out.
    public var quality: Int?
    public var lossless = false
    /// Remote screen number from 1 (`--monitor`).
    public var monitor: Int?
    public var viewOnly = false
    /// both, send, receive or off (`--clipboard`).
    public var clipboard = ClipboardDirection.both
    /// fit, 1:1 or N% (`--scale`); the file spells it as `scaleText` does.
    public var scale = ScalingMode.fit
    public var fullscreen = false
    /// `--via [user@]gateway[:port]`.
    public var via: String?
    /// `--security` list, vncviewer's names.
    public var security: String?
    public var username: String?
    public var rememberPassword = false

    public init(name: String, address: String) { self.name = name; self.address = address }

    public static let colours = ["none", "red", "orange", "yellow", "green", "blue", "purple", "grey"]
    public static let inputs = TouchInputMode.allCases.map(\.rawValue)
    public static let clipboards = ClipboardDirection.allCases.map(\.rawValue)
    /// Keys in the order they are written; `name` is the section header, not a key.
    public static let keys = ["address", "colour", "last-connected", "input", "quality", "monitor", "view-only",
                              "clipboard", "scale", "fullscreen", "via", "security", "username", "remember-password"]

    /// Every setting as `key → text`, as the file and the edit form show them (empty: not set).
    public var values: [String: String] {
        [
            "address": address, "colour": colour,
            "last-connected": lastConnected.map(SavedConnection.formatDate) ?? "",
            "input": input.rawValue, "quality": lossless ? "lossless" : quality.map(String.init) ?? "",
            "monitor": monitor.map(String.init) ?? "", "view-only": yesNo(viewOnly),
            "clipboard": clipboard.rawValue, "scale": SavedConnection.scaleText(scale), "fullscreen": yesNo(fullscreen),
            "via": via ?? "", "security": security ?? "", "username": username ?? "",
            "remember-password": yesNo(rememberPassword),
        ]
    }

    private func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }

    /// The longest name or value kept (the form takes no more either).
    public static let maxValueLength = 256

    /// A connection's name as the form takes it: not empty, no brackets (the file's section
    /// headers), no control characters, at most `maxValueLength` characters.
    public static func checkName(_ name: String) throws {
        guard !name.isEmpty else { throw ConfigError("give the connection a name") }
        guard !name.contains("]"), !name.hasPrefix("[") else { throw ConfigError("a name cannot contain [ or ]") }
        guard !hasControlCharacters(name) else { throw ConfigError("a name cannot hold control characters") }
        guard name.count <= maxValueLength else { throw ConfigError("a name is at most \(maxValueLength) characters") }
    }

    /// C0 (but tab), DEL, C1 and the Unicode line and paragraph separators: a value holding one
    /// would end its line in the file or in a terminal.
    static func hasControlCharacters(_ s: String) -> Bool {
        s.unicodeScalars.contains { u in
            (u.value < 0x20 && u.value != 0x09) || (0x7f...0x9f).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
        }
    }

    /// Sets one key from its text, checked as the command line would check it.
    public mutating func set(_ key: String, _ raw: String) throws {
        let v = raw.trimmingCharacters(in: .whitespaces)
        guard !SavedConnection.hasControlCharacters(v) else { throw ConfigError("\(key) cannot hold control characters") }
        guard v.count <= SavedConnection.maxValueLength else { throw ConfigError("\(key) is longer than \(SavedConnection.maxValueLength) characters") }
        func choice(_ allowed: [String]) throws -> String {
            guard allowed.contains(v.lowercased()) else { throw ConfigError("\(key) takes \(allowed.joined(separator: ", ")), not '\(v)'") }
            return v.lowercased()
        }
        func yes() throws -> Bool {
            switch v.lowercased() {
            case "yes", "true", "on", "1": return true
            case "no", "false", "off", "0", "": return false
            default: throw ConfigError("\(key) takes yes or no, not '\(v)'")
            }
        }
        func optional() -> String? { v.isEmpty ? nil : v }
        switch key {
        case "address":
            guard !v.isEmpty else { throw ConfigError("address is empty (e.g. host:1 or vnc://host)") }
            // an address the command line would read as an option is refused here
            guard !v.hasPrefix("-") else { throw ConfigError("address '\(v)' cannot start with '-'") }
            do { _ = try ConnectionTarget.parse(v) } catch { throw ConfigError("address: \(error)") }
            address = v
        case "colour", "color": colour = try choice(SavedConnection.colours)
        case "last-connected":
            if v.isEmpty { lastConnected = nil; return }
            guard let d = SavedConnection.parseDate(v) else { throw ConfigError("last-connected takes a date such as 2026-11-24T02:15:00Z, not '\(v)'") }
            lastConnected = d
        case "input":
            guard let m = TouchInputMode(rawValue: try choice(SavedConnection.inputs)) else { throw ConfigError("\(key) takes \(SavedConnection.inputs.joined(separator: ", ")), not '\(v)'") }
            input = m
        case "quality":
            if v.isEmpty { quality = nil; lossless = false; return }
            if v.lowercased() == "lossless" { quality = nil; lossless = true; return }
            guard let q = Int(v), (0...9).contains(q) else { throw ConfigError("quality takes 0 to 9 or lossless, not '\(v)'") }
            quality = q; lossless = false
        case "monitor":
            if v.isEmpty { monitor = nil; return }
            guard let n = Int(v), n >= 1 else { throw ConfigError("monitor takes a remote screen number from 1, not '\(v)'") }
            monitor = n
        case "view-only": viewOnly = try yes()
        case "clipboard":
            guard let d = ClipboardDirection(rawValue: try choice(SavedConnection.clipboards)) else { throw ConfigError("\(key) takes \(SavedConnection.clipboards.joined(separator: ", ")), not '\(v)'") }
            clipboard = d
        case "scale":
            guard SavedConnection.validScale(v), let m = ScalingMode(parsing: v) else { throw ConfigError("scale takes fit, 1:1 or a zoom from 10% to 1600%, not '\(v)'") }
            scale = m
        case "fullscreen": fullscreen = try yes()
        case "via":
            if !v.isEmpty {
                do { try SocketTransport.checkGateway(v) } catch { throw ConfigError("via takes [user@]gateway[:port], not '\(ServerText.printable(v, limit: 200))'") }
            }
            via = optional()
        case "security":
            if v.isEmpty { security = nil; return }
            do { _ = try SecurityMethod.parseList(v) } catch { throw ConfigError("security: \(error)") }
            security = v
        case "username": username = optional()
        case "remember-password": rememberPassword = try yes()
        case "password", "password-file":
            throw ConfigError("passwords are never kept in this file; set remember-password = yes and the Secret Service keeps it")
        default:
            throw ConfigError("unknown key '\(key)' (known: \(SavedConnection.keys.joined(separator: ", ")))")
        }
    }

    /// A scale as the file and `--scale` spell it: `fit`, `1:1`, else the zoom in percent with
    /// no more digits than it needs (`150%`, `12.5%`). What was read is written back meaning
    /// the same (a hand-written `100%` comes back as `1:1`).
    public static func scaleText(_ m: ScalingMode) -> String {
        guard case .zoom(let z) = m, z != 1 else { return m.description }
        var t = String(format: "%.4f", z * 100)
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t + "%"
    }

    /// The spellings the file takes (a plain factor, which `--scale` also takes, is refused).
    static func validScale(_ v: String) -> Bool {
        let l = v.lowercased()
        if l == "fit" || l == "1:1" { return true }
        guard l.hasSuffix("%"), let n = Double(l.dropLast()) else { return false }
        return n >= 10 && n <= 1600
    }

    static func formatDate(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: d)
    }

    static func parseDate(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: s)
    }
}
