/// The launcher (`viewer` with no host) as plain values: the list of saved, recent and
/// discovered connections, the quick-connect field that also filters it, the add/edit form and
/// the delete confirmation. The front end feeds keys and taps and carries out the commands.
public struct LauncherItem: Equatable, Sendable {
    public enum Kind: Int, Equatable, Sendable, Comparable {
        case saved, recent, discovered
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
        public var heading: String {
            switch self {
            case .saved: return "Saved connections"
            case .recent: return "Recent"
            case .discovered: return "On this network"
            }
        }
    }
    public var kind: Kind
    /// The saved name, or the address (recent), or the service name (discovered).
    public var title: String
    public var address: String
    /// A second line: last connected, the service type.
    public var detail: String
    public var colour: String
    public init(kind: Kind, title: String, address: String, detail: String = "", colour: String = "none") {
        self.kind = kind; self.title = title; self.address = address; self.detail = detail; self.colour = colour
    }
}

/// Keys the launcher reacts to (the front end maps SDL keys and on-screen keyboard keysyms).
public enum LauncherKey: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, shiftTab, space, backspace, delete
    /// Ctrl+N, Ctrl+E (or F2), Ctrl+D.
    case newConnection, edit, duplicate
    case text(String)
}

public enum LauncherAction: Equatable, Sendable {
    case connect(LauncherItem)
    /// The quick-connect field's text, in any syntax the command line takes.
    case quickConnect(String)
    /// Save the form (the front end checks it and either returns to the list or sets its error).
    case save(LauncherForm)
    case delete(name: String)
    case quit
    /// Focus went to a text field, or away from one: show or hide the on-screen keyboard when
    /// the last input was a finger.
    case textFocus(Bool)
}

public struct Launcher: Equatable, Sendable {
    public enum Mode: Equatable, Sendable {
        case list
        case form(LauncherForm)
        case confirmDelete(LauncherItem)
    }

    public enum Row: Equatable, Sendable {
        case item(LauncherItem)
        case quickConnect(String)
    }

    public var mode: Mode = .list
    public private(set) var items: [LauncherItem] = []
    /// The quick-connect text; typing filters the list.
    public private(set) var query = ""
    /// Index into `rows`.
    public internal(set) var selected = 0
    /// A line for the user (a corrupt file, an import's leftovers, a failed launch).
    public var notice: String?
    /// Geometry from the last `layout` (window points), for taps.
    public internal(set) var layout = LauncherLayout()
    /// Scroll offsets in points; a moved selection or focus scrolls into view once, so the
    /// wheel can scroll away from it.
    public internal(set) var listScroll = 0.0, formScroll = 0.0
    var scrolledTo = -1, scrolledFocus = -1

    public init() {}

    /// Replaces the items (store reloaded, a service came or went), keeping the selection on
    /// the same entry where it still exists.
    public mutating func setItems(_ new: [LauncherItem]) {
        let was = rows[safe: selected]
        items = new.sorted { $0.kind < $1.kind }
        if let was, let i = rows.firstIndex(of: was) { selected = i } else { selected = min(selected, max(0, rows.count - 1)) }
    }

    /// What the list shows: the items matching the query (name or address, any case), then
    /// a "connect to" row for the query itself.
    public var rows: [Row] {
        let q = query.lowercased()
        let matching = q.isEmpty ? items : items.filter { $0.title.lowercased().contains(q) || $0.address.lowercased().contains(q) }
        var r = matching.map(Row.item)
        if !query.trimmingCharacters(in: .whitespaces).isEmpty { r.append(.quickConnect(query.trimmingCharacters(in: .whitespaces))) }
        return r
    }

    public var selectedItem: LauncherItem? {
        if case .item(let it)? = rows[safe: selected] { return it }
        return nil
    }

    public mutating func key(_ k: LauncherKey) -> LauncherAction? {
        switch mode {
        case .list: return listKey(k)
        case .form(var f):
            let cmd = formKey(k, &f)
            if case .form = mode { mode = .form(f) }
            return cmd
        case .confirmDelete(let it):
            switch k {
            case .enter, .delete, .text("y"), .text("Y"):
                mode = .list
                return .delete(name: it.title)
            case .escape, .text("n"), .text("N"):
                mode = .list
            default: break
            }
            return nil
        }
    }

    private mutating func listKey(_ k: LauncherKey) -> LauncherAction? {
        let n = rows.count
        switch k {
        case .up: selected = max(0, selected - 1)
        case .down: selected = max(0, min(n - 1, selected + 1))
        case .pageUp: selected = max(0, selected - layout.rowsPerPage)
        case .pageDown: selected = max(0, min(n - 1, selected + layout.rowsPerPage))
        case .home: selected = 0
        case .end: selected = max(0, n - 1)
        case .enter: return activate(selected)
        case .delete:
            if let it = selectedItem, it.kind == .saved { mode = .confirmDelete(it) }
        case .escape:
            if query.isEmpty { return .quit }
            setQuery("")
        case .backspace:
            if !query.isEmpty { setQuery(String(query.dropLast())) }
        case .text(let s): setQuery(String((query + s.filter { $0 != "\n" && $0 != "\r" }).prefix(LauncherForm.maxFieldLength)))
        case .space: setQuery(query + " ")
        case .newConnection: return openNew()
        case .edit: return openEdit(duplicate: false)
        case .duplicate: return openEdit(duplicate: true)
        case .tab, .shiftTab, .left, .right: break
        }
        return nil
    }

    private mutating func setQuery(_ q: String) {
        query = q
        // the first match is chosen; with none, the "connect to" row
        selected = 0
    }

    /// Connects to row `i`.
    mutating func activate(_ i: Int) -> LauncherAction? {
        switch rows[safe: i] {
        case .item(let it)?: return .connect(it)
        case .quickConnect(let a)?: return .quickConnect(a)
        case nil: return nil
        }
    }

    /// Ctrl+N: a new connection; the address is what was typed, if anything.
    public mutating func openNew() -> LauncherAction? {
        let addr = query.trimmingCharacters(in: .whitespaces)
        showForm(LauncherForm(title: "New connection", name: "", values: ["address": addr], originalName: nil))
        return .textFocus(true)
    }

    /// Ctrl+E edits the selected saved connection (a recent or discovered one is saved anew);
    /// Ctrl+D duplicates it.
    public mutating func openEdit(duplicate: Bool, values: [String: String]? = nil) -> LauncherAction? {
        guard let it = selectedItem else { return nil }
        let v = values ?? editValues[it.title] ?? ["address": it.address]
        if it.kind == .saved && !duplicate {
            showForm(LauncherForm(title: "Edit \(it.title)", name: it.title, values: v, originalName: it.title))
        } else if it.kind == .saved {
            showForm(LauncherForm(title: "Duplicate \(it.title)", name: uniqueName(it.title + " (copy)"), values: v, originalName: nil))
        } else {
            showForm(LauncherForm(title: "Save connection", name: uniqueName(it.title), values: v, originalName: nil))
        }
        return .textFocus(true)
    }

    mutating func showForm(_ f: LauncherForm) {
        mode = .form(f)
        formScroll = 0
        scrolledFocus = -1
    }

    /// The saved connections' settings by name, for the edit form (set by the front end).
    public var editValues: [String: [String: String]] = [:]

    func uniqueName(_ base: String) -> String {
        let taken = Set(items.filter { $0.kind == .saved }.map { $0.title.lowercased() })
        var name = base, n = 2
        while taken.contains(name.lowercased()) { name = "\(base) \(n)"; n += 1 }
        return name
    }

    private mutating func formKey(_ k: LauncherKey, _ f: inout LauncherForm) -> LauncherAction? {
        let wasText = f.focusIsText
        switch k {
        case .up, .shiftTab: f.moveFocus(-1)
        case .down, .tab: f.moveFocus(1)
        case .left: f.cycle(f.focus, by: -1)
        case .right: f.cycle(f.focus, by: 1)
        case .space:
            if f.focusIsText { f.type(" ") } else if f.focusedButton != nil { return press(f.focusedButton, &f) } else { f.cycle(f.focus, by: 1) }
        case .text(let s): f.type(s)
        case .backspace: f.backspace()
        case .enter:
            if let b = f.focusedButton { return press(b, &f) }
            return .save(f)
        case .escape: return press(.cancel, &f)
        case .newConnection: return .save(f)
        case .delete, .edit, .duplicate, .pageUp, .pageDown, .home, .end: break
        }
        return wasText != f.focusIsText ? .textFocus(f.focusIsText) : nil
    }

    /// A form button, from a key or a tap.
    mutating func press(_ b: LauncherForm.Button?, _ f: inout LauncherForm) -> LauncherAction? {
        switch b {
        case .save?: return .save(f)
        case .cancel?:
            mode = .list
            return .textFocus(false)
        case .duplicate?:
            let d = LauncherForm(title: "Duplicate \(f.originalName ?? f.name)", name: uniqueName(f.name + " (copy)"), values: f.values, originalName: nil)
            showForm(d)
            f = d
        case .delete?:
            if let name = f.originalName, let it = items.first(where: { $0.kind == .saved && $0.title == name }) {
                mode = .confirmDelete(it)
            }
        case nil: break
        }
        return nil
    }

    /// The front end saved the form: back to the list, on the saved entry.
    public mutating func saved(name: String) {
        mode = .list
        query = ""
        if let i = rows.firstIndex(where: { if case .item(let it) = $0 { return it.kind == .saved && it.title == name }; return false }) {
            selected = i
        }
    }

    /// The front end refused the form: say why in it.
    public mutating func formRefused(_ why: String) {
        if case .form(var f) = mode { f.error = why; mode = .form(f) }
    }
}

extension LauncherKey {
    /// What an on-screen keyboard key (an X keysym) means in the launcher's text fields.
    public init?(keysym: UInt32, shifted: Bool = false) {
        switch keysym {
        case 0xff08: self = .backspace
        case 0xff0d: self = .enter
        case 0xff09: self = shifted ? .shiftTab : .tab
        case 0xff1b: self = .escape
        case 0xffff: self = .delete
        case 0xff51: self = .left
        case 0xff52: self = .up
        case 0xff53: self = .right
        case 0xff54: self = .down
        case 0x20: self = .space
        case 0x21...0x7e: self = .text(String(UnicodeScalar(UInt8(keysym))))
        default: return nil
        }
    }
}
