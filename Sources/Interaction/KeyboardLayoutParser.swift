// What the local keyboard layout tools and files say, parsed: `--keyboard`'s value,
// `setxkbmap -query`, the root window's _XKB_RULES_NAMES, XKB_DEFAULT_* values and Debian's
// /etc/default/keyboard. Plain strings in, a spec out; running the tools and reading the files
// and the environment is the command line's (viewer/KeyboardLayoutDetector.swift).
import Foundation

public enum KeyboardLayoutParser {
    /// "de", "de,nodeadkeys", "de(nodeadkeys)"; nil for an empty string.
    public static func parseOverride(_ s: String) -> KeyboardLayoutSpec? {
        let t = s.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        var layout = t
        var variant = ""
        if let open = t.firstIndex(of: "("), t.hasSuffix(")") {
            layout = String(t[..<open])
            variant = String(t[t.index(after: open)..<t.index(before: t.endIndex)])
        } else if let comma = t.firstIndex(of: ",") {
            layout = String(t[..<comma])
            variant = String(t[t.index(after: comma)...])
        }
        layout = layout.trimmingCharacters(in: .whitespaces)
        variant = variant.trimmingCharacters(in: .whitespaces)
        guard !layout.isEmpty else { return nil }
        return KeyboardLayoutSpec(layout: layout, variant: variant)
    }

    /// `setxkbmap -query` output: "rules:      evdev" / "model: pc105" / "layout: us,de" / ...
    public static func parseSetxkbmapQuery(_ text: String) -> KeyboardLayoutSpec? {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            fields[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let layout = nonEmptyValue(fields["layout"]) else { return nil }
        return KeyboardLayoutSpec(rules: nonEmptyValue(fields["rules"]) ?? "evdev",
                                  model: nonEmptyValue(fields["model"]) ?? "pc105",
                                  layout: layout, variant: fields["variant"] ?? "",
                                  options: fields["options"] ?? "")
    }

    /// `xprop -root _XKB_RULES_NAMES`: `_XKB_RULES_NAMES(STRING) = "evdev", "pc105", "us", "", ""`.
    public static func parseXKBRulesNames(_ text: String) -> KeyboardLayoutSpec? {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        var values: [String] = []
        var current: String?
        var escaped = false
        for ch in text[text.index(after: eq)...] {
            if var c = current {
                if escaped { c.append(ch); escaped = false; current = c }
                else if ch == "\\" { escaped = true }
                else if ch == "\"" { values.append(c); current = nil }
                else { c.append(ch); current = c }
            } else if ch == "\"" {
                current = ""
            }
        }
        guard values.count >= 3, let layout = nonEmptyValue(values[2]) else { return nil }
        return KeyboardLayoutSpec(rules: nonEmptyValue(values[0]) ?? "evdev",
                                  model: nonEmptyValue(values[1]) ?? "pc105",
                                  layout: layout,
                                  variant: values.count > 3 ? values[3] : "",
                                  options: values.count > 4 ? values[4] : "")
    }

    /// Debian's /etc/default/keyboard (shell assignments, values optionally quoted).
    public static func parseDefaultKeyboard(_ text: String) -> KeyboardLayoutSpec? {
        var vars: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || line.isEmpty { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<eq]).trimmingCharacters(in: .whitespaces)
            var value = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            if let q = value.first, q == "\"" || q == "'" {
                value.removeFirst()
                if let end = value.firstIndex(of: q) { value = String(value[..<end]) }
            } else if let hash = value.firstIndex(of: "#") {
                value = String(value[..<hash]).trimmingCharacters(in: .whitespaces)
            }
            vars[key] = value
        }
        guard let layout = nonEmptyValue(vars["XKBLAYOUT"]) else { return nil }
        return KeyboardLayoutSpec(rules: "evdev", model: nonEmptyValue(vars["XKBMODEL"]) ?? "pc105",
                                  layout: layout, variant: vars["XKBVARIANT"] ?? "",
                                  options: vars["XKBOPTIONS"] ?? "")
    }


    /// XKB_DEFAULT_RULES/MODEL/LAYOUT/VARIANT/OPTIONS, as given (nil without a layout).
    public static func parseXKBDefaults(_ values: [String: String]) -> KeyboardLayoutSpec? {
        guard let layout = nonEmptyValue(values["XKB_DEFAULT_LAYOUT"]) else { return nil }
        return KeyboardLayoutSpec(rules: nonEmptyValue(values["XKB_DEFAULT_RULES"]) ?? "evdev",
                                  model: nonEmptyValue(values["XKB_DEFAULT_MODEL"]) ?? "pc105",
                                  layout: layout,
                                  variant: values["XKB_DEFAULT_VARIANT"] ?? "",
                                  options: values["XKB_DEFAULT_OPTIONS"] ?? "")
    }

    /// nil for nil or blanks, else trimmed.
    public static func nonEmptyValue(_ s: String?) -> String? {
        guard let t = s?.trimmingCharacters(in: .whitespaces), !t.isEmpty else { return nil }
        return t
    }
}
