import FarcastTools
import Foundation
import Interaction
import RFB
import VNCSession

/// `/etc/farcast/kiosk.conf`: one `key = value` per line, `#` starts a comment. Every key
/// is checked, and a mistake is reported with its line number and what would be right: a kiosk
/// that silently ignores a typo is a kiosk that shows the wrong thing on a wall.
struct KioskConfig: Equatable, Sendable {
    var host = ""
    var passwordFile: String?
    var username: String?
    var security: String?
    var input = "touch"
    var monitor: Int?
    var scale = "fit"
    var quality: Int?
    /// `quality = lossless`: no JPEG at all (the window's default is JPEG quality 8).
    var lossless = false
    var rotate = 0
    var onScreenKeyboard = false
    var menu = MenuLock.locked
    var viewOnly = false
    /// Screenshots and recording (the menu's entries, Ctrl+Alt+S and Ctrl+Alt+R, where the
    /// menu lets them): off unless asked for; they go to the state directory.
    var screenshots = false
    var recording = false
    /// Where a recording stops (bytes).
    var recordingMaxBytes = RecordingLimit.defaultMaxBytes

    static let defaultPath = "/etc/farcast/kiosk.conf"
    static let keys = ["host", "password-file", "username", "security", "input", "monitor", "scale", "quality",
                       "rotate", "on-screen-keyboard", "menu", "pin", "view-only", "screenshots", "recording",
                       "recording-max-size"]

    init() {}

    static func load(path: String) throws -> KioskConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError("cannot read \(path) (\(String(cString: strerror(errno)))); it names the server the kiosk shows")
        }
        let c = try parse(String(decoding: data, as: UTF8.self), file: path)
        // a PIN every user can read is no lock
        if case .pin = c.menu { try c.refuseIfOthersCanRead(path, holding: "the menu's PIN", owner: "root:farcast-kiosk", mode: "0640") }
        if let f = c.passwordFile { try c.refuseIfOthersCanRead(f, holding: "the server's password", owner: "root:farcast-kiosk", mode: "0640") }
        return c
    }

    /// A file holding a secret that users other than its owner and group can read (or write)
    /// is refused, saying how to put it right. A file that is missing is left to whoever reads it.
    func refuseIfOthersCanRead(_ path: String, holding what: String, owner: String, mode: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        let others = st.st_mode & (S_IROTH | S_IWOTH)
        guard others != 0 else { return }
        let now = String(st.st_mode & 0o7777, radix: 8)
        throw ConfigError("\(path) holds \(what) and every user can \((others & S_IROTH) != 0 ? "read" : "write") it (mode 0\(now)): "
                          + "make it the kiosk's only: sudo chown \(owner) \(path) && sudo chmod \(mode) \(path)")
    }

    static func parse(_ text: String, file: String = "kiosk.conf") throws -> KioskConfig {
        var c = KioskConfig()
        var menu: String?, pin: String?
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            func fail(_ why: String) -> ConfigError { ConfigError("\(file) line \(i + 1): \(why)") }
            guard let eq = trimmed.firstIndex(of: "=") else { throw fail("expected 'key = value', got '\(trimmed)'") }
            let key = trimmed[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let value = trimmed[trimmed.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            func yesNo() throws -> Bool {
                switch value.lowercased() {
                case "yes", "true", "on", "1": return true
                case "no", "false", "off", "0": return false
                default: throw fail("\(key) takes yes or no, not '\(value)'")
                }
            }
            switch key {
            case "host": c.host = value
            case "password-file": c.passwordFile = value.isEmpty ? nil : value
            case "username": c.username = value.isEmpty ? nil : value
            case "security": c.security = value.isEmpty ? nil : value
            case "input":
                guard ["touch", "trackpad"].contains(value) else { throw fail("input takes touch or trackpad, not '\(value)'") }
                c.input = value
            case "monitor":
                guard let n = Int(value), n >= 1 else { throw fail("monitor takes a remote screen number from 1, not '\(value)'") }
                c.monitor = n
            case "scale": c.scale = value
            case "quality":
                if value.lowercased() == "lossless" { c.lossless = true; c.quality = nil; continue }
                guard let q = Int(value), (0...9).contains(q) else { throw fail("quality takes 0 to 9 or lossless, not '\(value)'") }
                c.quality = q; c.lossless = false
            case "rotate":
                guard let r = Int(value), [0, 90, 180, 270].contains(r) else { throw fail("rotate takes 0, 90, 180 or 270, not '\(value)'") }
                c.rotate = r
            case "on-screen-keyboard": c.onScreenKeyboard = try yesNo()
            case "view-only": c.viewOnly = try yesNo()
            case "screenshots": c.screenshots = try yesNo()
            case "recording": c.recording = try yesNo()
            case "recording-max-size":
                guard let n = RecordingLimit.parseSize(value), n >= RecordingLimit.minimumMaxBytes else {
                    throw fail("recording-max-size takes a size from 64K, such as 200M or 2G, not '\(value)'")
                }
                c.recordingMaxBytes = n
            case "menu": menu = value.lowercased()
            case "pin": pin = value
            default:
                throw fail("unknown key '\(key)' (known: \(keys.joined(separator: ", ")))")
            }
        }
        guard !c.host.isEmpty else { throw ConfigError("\(file): no host given (e.g. host = 192.168.1.10:0)") }
        switch menu ?? "locked" {
        case "open": c.menu = .open
        case "locked": c.menu = .locked
        case "pin":
            guard let p = pin, p.count >= 4, p.count <= 12, p.allSatisfy(\.isASCII), p.allSatisfy(\.isNumber) else {
                throw ConfigError("\(file): menu = pin needs pin = 4 to 12 digits")
            }
            c.menu = .pin(p)
        case let m: throw ConfigError("\(file): menu takes open, locked or pin, not '\(m)'")
        }
        return c
    }
}
