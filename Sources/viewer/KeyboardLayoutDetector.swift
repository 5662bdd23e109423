// Which keyboard layout the local user types on, so that keys are translated the way the
// local desktop would: --keyboard, then the running X session, then XKB_DEFAULT_*, then the
// console's /etc/default/keyboard (a Raspberry Pi without a desktop), then "us". The tools run
// and the files read here; what they print is parsed by Interaction's KeyboardLayoutParser.
import Foundation
import Interaction
import VNCSession

enum KeyboardLayoutDetector {
    /// Order: `override` ("layout[,variant]" or "layout(variant)" from --keyboard) > the running
    /// X session (when DISPLAY is set: `setxkbmap -query`, or the root window's
    /// _XKB_RULES_NAMES through `xprop`) > XKB_DEFAULT_RULES/MODEL/LAYOUT/VARIANT/OPTIONS
    /// environment > /etc/default/keyboard (XKBMODEL/XKBLAYOUT/XKBVARIANT/XKBOPTIONS) > "us".
    /// Returns the spec and a short description of where it came from (for --verbose).
    /// Runs helper processes (at most a couple of seconds each) when `querySession` is set.
    static func detect(override: String?, environment: [String: String],
                       defaultKeyboardPath: String = "/etc/default/keyboard",
                       querySession: Bool = true) -> (KeyboardLayoutSpec, source: String) {
        if let override, let spec = KeyboardLayoutParser.parseOverride(override) {
            return (spec, "--keyboard \(override.trimmingCharacters(in: .whitespaces))")
        }
        if querySession, let display = environment["DISPLAY"], !display.isEmpty {
            if let out = run("setxkbmap", ["-query"], environment: environment),
               let spec = KeyboardLayoutParser.parseSetxkbmapQuery(out) {
                return (spec, "X session on \(display) (setxkbmap -query)")
            }
            if let out = run("xprop", ["-root", "_XKB_RULES_NAMES"], environment: environment),
               let spec = KeyboardLayoutParser.parseXKBRulesNames(out) {
                return (spec, "X session on \(display) (root window _XKB_RULES_NAMES)")
            }
        }
        if let spec = KeyboardLayoutParser.parseXKBDefaults(environment) {
            return (spec, "XKB_DEFAULT_* environment")
        }
        if let text = try? String(contentsOfFile: defaultKeyboardPath, encoding: .utf8),
           let spec = KeyboardLayoutParser.parseDefaultKeyboard(text) {
            return (spec, defaultKeyboardPath)
        }
        return (KeyboardLayoutSpec(), "default (us)")
    }

    /// The answers are a few hundred bytes; more is not a layout.
    static let maxToolOutput = 64 * 1024

    /// Runs a tool found on `environment`'s PATH and returns its standard output, nil if it is
    /// missing, fails, or takes longer than `timeout` seconds (then it is killed).
    static func run(_ tool: String, _ args: [String], environment: [String: String],
                    timeout: TimeInterval = 2) -> String? {
        let path = KeyboardLayoutParser.nonEmptyValue(environment["PATH"]) ?? "/usr/local/bin:/usr/bin:/bin"
        guard let exe = ChildProcess.find(tool, searchPath: path),
              let r = ChildProcess.output(exe, args, environment: environment, timeout: timeout, maxOutput: maxToolOutput),
              r.outcome.status == 0 else { return nil }
        return String(decoding: r.bytes, as: UTF8.self)
    }
}
