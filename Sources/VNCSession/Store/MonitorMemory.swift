import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// The monitor last chosen for each server, so a reconnect shows the same screen. One line per
/// server, most recent last: `all <server>` or `screen:<id> <server>`, where the server is the
/// connection's description (the rest of the line, so it may contain spaces). Comment lines start
/// with `#`. A missing, unreadable or partly garbled file only loses what it cannot say: bad
/// lines are skipped on reading and dropped on the next write. At most `limit` servers are kept
/// (the least recently chosen go first), so the file cannot grow without bound.
public final class MonitorMemory: Sendable {
    /// What is remembered for a server; the viewer maps it onto its own monitor choice (this
    /// module does not depend on the one that defines the picker).
    public enum Choice: Equatable, Sendable {
        case all
        /// The server's screen id (ids survive renumbering when screens are added or removed).
        case screen(id: UInt32)
    }

    public let url: URL
    /// Servers kept: enough for anyone's address book, small enough to rewrite on every choice.
    public let limit: Int
    // one lock for every instance: two windows of one process may share the file
    private static let lock = NSLock()

    public init(url: URL, limit: Int = 200) {
        self.url = url
        self.limit = max(1, limit)
    }

    /// $XDG_STATE_HOME/farcast/monitors, else ~/.local/state/farcast/monitors (state, not
    /// configuration: it is what happened last, not a setting the user wrote; `env`: the
    /// command line's environment).
    public static func defaultURL(env: [String: String]) -> URL {
        let base = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return URL(fileURLWithPath: (base as NSString).appendingPathComponent("farcast/monitors"))
    }

    static let header = "# Farcast: the monitor last chosen per server (all, or screen:ID), most recent last.\n"

    /// The remembered choice for `server`, nil when there is none.
    public func choice(for server: String) -> Choice? {
        MonitorMemory.lock.withLock { entries().last { $0.server == server }?.choice }
    }

    /// Remembers `choice` for `server` as the most recent entry. A server name with a line break
    /// cannot be stored in a line-based file and is not remembered.
    public func remember(_ choice: Choice, for server: String) throws {
        guard !server.isEmpty, !server.contains(where: { $0.isNewline }) else { return }
        try MonitorMemory.lock.withLock {
            var all = entries().filter { $0.server != server }
            all.append(Entry(server: server, choice: choice))
            if all.count > limit { all.removeFirst(all.count - limit) }
            try PrivateFile.replace(url.path, with: MonitorMemory.header + all.map { MonitorMemory.encode($0) + "\n" }.joined())
        }
    }

    struct Entry: Equatable { var server: String; var choice: Choice }

    static func encode(_ e: Entry) -> String {
        switch e.choice {
        case .all: return "all \(e.server)"
        case .screen(let id): return "screen:\(id) \(e.server)"
        }
    }

    static func decode(_ line: Substring) -> Entry? {
        guard !line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { return nil }
        let head = line[..<space], server = String(line[line.index(after: space)...])
        guard !server.isEmpty else { return nil }
        if head == "all" { return Entry(server: server, choice: .all) }
        guard head.hasPrefix("screen:"), let id = UInt32(head.dropFirst("screen:".count)) else { return nil }
        return Entry(server: server, choice: .screen(id: id))
    }

    /// Every readable entry, a server's later line replacing its earlier one (a hand-edited file
    /// may repeat a server). Unreadable or non-UTF-8 files read as empty.
    func entries() -> [Entry] {
        guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else { return [] }
        var out: [Entry] = []
        for line in text.split(whereSeparator: { $0.isNewline }) {
            guard let e = MonitorMemory.decode(line) else { continue }
            out.removeAll { $0.server == e.server }
            out.append(e)
        }
        return out
    }
}
