import Foundation

/// The desktop's well-known folders (xdg-user-dirs): where screenshots and recordings go.
public enum UserDirectories {
    /// `kind` is PICTURES or VIDEOS. From `$XDG_CONFIG_HOME/user-dirs.dirs` (as written by
    /// xdg-user-dirs-update), else `~/Pictures` / `~/Videos`.
    public static func path(_ kind: String, env: [String: String]) -> String {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        if let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8),
           let p = parse(text, key: "XDG_\(kind)_DIR", home: home) {
            return p
        }
        return home + (kind == "VIDEOS" ? "/Videos" : "/Pictures")
    }

    /// `XDG_PICTURES_DIR="$HOME/Pictures"` lines; only `$HOME/...` or absolute paths are valid.
    static func parse(_ text: String, key: String, home: String) -> String? {
        for line in text.split(separator: "\n") {
            let l = line.trimmingCharacters(in: .whitespaces)
            guard l.hasPrefix(key + "=") else { continue }
            var v = String(l.dropFirst(key.count + 1))
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            if v.hasPrefix("$HOME") { v = home + v.dropFirst(5) }
            // "$HOME/" alone means the folder is disabled: fall back
            guard v.hasPrefix("/"), v != home, v != home + "/" else { return nil }
            return v
        }
        return nil
    }

    /// A time-stamped file name safe on any file system: "Farcast NAME 2026-11-23 22.51.46.EXT".
    public static func stampedName(_ name: String, ext: String, date: Date = Date()) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH.mm.ss"
        let clean = String(name.unicodeScalars.map { s -> Character in
            CharacterSet.alphanumerics.contains(s) || "-_.".unicodeScalars.contains(s) ? Character(s) : "-"
        }.prefix(60))
        return "Farcast \(clean.isEmpty ? "desktop" : clean) \(f.string(from: date)).\(ext)"
    }
}
