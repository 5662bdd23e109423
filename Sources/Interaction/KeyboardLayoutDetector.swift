// Which keyboard layout the local user types on, so that keys are translated the way the
// local desktop would: --keyboard, then the running X session, then XKB_DEFAULT_*, then the
// console's /etc/default/keyboard (a Raspberry Pi without a desktop), then "us".
import Foundation

public enum KeyboardLayoutDetector {
    /// Order: `override` ("layout[,variant]" or "layout(variant)" from --keyboard) > the running
    /// X session (when DISPLAY is set: `setxkbmap -query`, or the root window's
    /// _XKB_RULES_NAMES through `xprop`) > XKB_DEFAULT_RULES/MODEL/LAYOUT/VARIANT/OPTIONS
    /// environment > /etc/default/keyboard (XKBMODEL/XKBLAYOUT/XKBVARIANT/XKBOPTIONS) > "us".
    /// Returns the spec and a short description of where it came from (for --verbose).
    /// Runs helper processes (at most a couple of seconds each) when `querySession` is set.
    public static func detect(override: String?, environment: [String: String],
                              defaultKeyboardPath: String = "/etc/default/keyboard",
                              querySession: Bool = true) -> (KeyboardLayoutSpec, source: String) {
        if let override, let spec = parseOverride(override) {
            return (spec, "--keyboard \(override.trimmingCharacters(in: .whitespaces))")
        }
        if querySession, let display = environment["DISPLAY"], !display.isEmpty {
            if let out = run("setxkbmap", ["-query"], environment: environment),
               let spec = parseSetxkbmapQuery(out) {
                return (spec, "X session on \(display) (setxkbmap -query)")
            }
            if let out = run("xprop", ["-root", "_XKB_RULES_NAMES"], environment: environment),
               let spec = parseXKBRulesNames(out) {
                return (spec, "X session on \(display) (root window _XKB_RULES_NAMES)")
            }
        }
        if let layout = nonEmpty(environment["XKB_DEFAULT_LAYOUT"]) {
            let spec = KeyboardLayoutSpec(rules: nonEmpty(environment["XKB_DEFAULT_RULES"]) ?? "evdev",
                                          model: nonEmpty(environment["XKB_DEFAULT_MODEL"]) ?? "pc105",
                                          layout: layout,
                                          variant: environment["XKB_DEFAULT_VARIANT"] ?? "",
                                          options: environment["XKB_DEFAULT_OPTIONS"] ?? "")
            return (spec, "XKB_DEFAULT_* environment")
        }
        if let text = try? String(contentsOfFile: defaultKeyboardPath, encoding: .utf8),
           let spec = parseDefaultKeyboard(text) {
            return (spec, defaultKeyboardPath)
        }
        return (KeyboardLayoutSpec(), "default (us)")
    }

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
        guard let layout = nonEmpty(fields["layout"]) else { return nil }
        return KeyboardLayoutSpec(rules: nonEmpty(fields["rules"]) ?? "evdev",
                                  model: nonEmpty(fields["model"]) ?? "pc105",
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
        guard values.count >= 3, let layout = nonEmpty(values[2]) else { return nil }
        return KeyboardLayoutSpec(rules: nonEmpty(values[0]) ?? "evdev",
                                  model: nonEmpty(values[1]) ?? "pc105",
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
        guard let layout = nonEmpty(vars["XKBLAYOUT"]) else { return nil }
        return KeyboardLayoutSpec(rules: "evdev", model: nonEmpty(vars["XKBMODEL"]) ?? "pc105",
                                  layout: layout, variant: vars["XKBVARIANT"] ?? "",
                                  options: vars["XKBOPTIONS"] ?? "")
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let t = s?.trimmingCharacters(in: .whitespaces), !t.isEmpty else { return nil }
        return t
    }

    /// Runs a tool found on PATH and returns its standard output, nil if it is missing,
    /// fails, or takes longer than `timeout` seconds (then it is terminated).
    static func run(_ tool: String, _ args: [String], environment: [String: String],
                    timeout: TimeInterval = 2) -> String? {
        let path = environment["PATH"].flatMap(nonEmpty) ?? "/usr/local/bin:/usr/bin:/bin"
        guard let exe = path.split(separator: ":").map({ "\($0)/\(tool)" })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.environment = environment
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)   // our own child, stuck (X server not answering)
            p.waitUntilExit()
            return nil
        }
        // The answers are a few hundred bytes: they fit the pipe, so the tool never blocks.
        let data = out.fileHandleForReading.readDataToEndOfFile()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
