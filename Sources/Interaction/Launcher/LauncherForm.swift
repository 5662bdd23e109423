/// The launcher's add/edit form as plain values: fields keyed as the saved-connections file
/// keys them, so the front end hands `values` to the store, which checks them.
public struct LauncherForm: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case text
        /// One of these values, cycled with ←/→, Space or a tap ("" shows as "default").
        case choice([String])
        case toggle
    }

    public struct Field: Equatable, Sendable {
        public var key: String
        public var label: String
        public var kind: Kind
        public var value: String
    }

    public enum Button: String, Equatable, Sendable, CaseIterable { case save = "Save", cancel = "Cancel", duplicate = "Duplicate", delete = "Delete" }

    public var title: String
    /// The saved name being edited; nil for a new connection (or a duplicate).
    public var originalName: String?
    public var fields: [Field]
    public var buttons: [Button]
    /// Index into fields, then buttons.
    public var focus = 0
    /// Why the last save was refused, shown under the title.
    public var error: String?

    /// The form for a connection given as the file's `key → text` values (plus its name).
    public init(title: String, name: String, values: [String: String], originalName: String?) {
        self.title = title
        self.originalName = originalName
        buttons = originalName == nil ? [.save, .cancel] : [.save, .cancel, .duplicate, .delete]
        func f(_ key: String, _ label: String, _ kind: Kind) -> Field {
            var k = kind
            // a key not given starts at its first choice (the file's default), a toggle off
            var first = ""
            if case .choice(let options) = kind { first = options.first ?? "" }
            let v = key == "name" ? name : values[key] ?? first
            // a value not offered (a hand-written 125%) is offered too, so cycling keeps it
            if case .choice(let options) = kind, !options.contains(v) { k = .choice(options + [v]) }
            return Field(key: key, label: label, kind: k, value: v.isEmpty && kind == .toggle ? "no" : v)
        }
        fields = [
            f("name", "Name", .text),
            f("address", "Address", .text),
            f("colour", "Colour tag", .choice(["none", "red", "orange", "yellow", "green", "blue", "purple", "grey"])),
            f("username", "User name", .text),
            f("remember-password", "Remember password", .toggle),
            f("input", "Touch input", .choice(["touch", "trackpad"])),
            f("quality", "Quality", .choice([""] + (0...9).map(String.init) + ["lossless"])),
            f("scale", "Scaling", .choice(["fit", "1:1", "50%", "150%", "200%"])),
            f("monitor", "Remote screen", .choice(["", "1", "2", "3", "4"])),
            f("view-only", "View only", .toggle),
            f("clipboard", "Clipboard", .choice(["both", "send", "receive", "off"])),
            f("fullscreen", "Full screen", .toggle),
            f("via", "SSH gateway (--via)", .text),
            f("security", "Security types", .text),
        ]
    }

    public var name: String { fields.first { $0.key == "name" }?.value ?? "" }

    /// Every field but the name, as the store takes them.
    public var values: [String: String] {
        var v: [String: String] = [:]
        for f in fields where f.key != "name" { v[f.key] = f.value }
        return v
    }

    public var focusedField: Field? { focus < fields.count ? fields[focus] : nil }
    public var focusedButton: Button? { focus >= fields.count ? buttons[safe: focus - fields.count] : nil }
    public var focusIsText: Bool { focusedField?.kind == .text }

    mutating func moveFocus(_ d: Int) {
        let n = fields.count + buttons.count
        focus = ((focus + d) % n + n) % n
    }

    /// Cycles a choice or flips a toggle at `i`.
    mutating func cycle(_ i: Int, by d: Int) {
        guard fields.indices.contains(i) else { return }
        switch fields[i].kind {
        case .toggle: fields[i].value = fields[i].value == "yes" ? "no" : "yes"
        case .choice(let options):
            let at = options.firstIndex(of: fields[i].value) ?? 0
            fields[i].value = options[((at + d) % options.count + options.count) % options.count]
        case .text: break
        }
    }

    mutating func type(_ s: String) {
        guard focusIsText else { return }
        // one line, bounded: a pasted novel is cut, not stored
        let clean = s.filter { $0 != "\n" && $0 != "\r" }
        fields[focus].value = String((fields[focus].value + clean).prefix(LauncherForm.maxFieldLength))
    }

    mutating func backspace() {
        guard focusIsText, !fields[focus].value.isEmpty else { return }
        fields[focus].value.removeLast()
    }

    static let maxFieldLength = 256

    /// What a field shows: choices' empty value as "default".
    public static func display(_ f: Field) -> String {
        if case .choice = f.kind, f.value.isEmpty { return "default" }
        return f.value
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
