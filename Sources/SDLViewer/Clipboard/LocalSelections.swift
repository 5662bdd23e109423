/// What one read of a local selection came to.
enum SelectionRead: Equatable, Sendable {
    case text(String)
    /// No owner, or the owner offers no text we read (X11: UTF8_STRING, STRING, TEXT; Wayland:
    /// text/plain;charset=utf-8, UTF8_STRING, text/plain, TEXT, STRING).
    case empty
    /// Owned by us: the text the bridge set.
    case ours
    /// Over the cap: not read further. At least this many bytes (exact unless sent in parts).
    case tooLarge(bytes: Int)
    case failed(String)
}

enum LocalSelectionTiming {
    /// Without progress for this long a transfer is given up (a broken owner never blocks us).
    static let stallTimeout = 2.0
}

/// Our own reader of the local selections, apart from SDL's calls: X11SelectionReader (its own
/// XCB connection) or WaylandSelections (its own data devices). Main thread only; the reading
/// itself happens on threads of the reader's own, and `notify` (given at creation) wakes the
/// main thread when `takeResults` has something.
protocol LocalSelections: AnyObject {
    /// Bytes read at most per selection: the engine's clipboard limit (more is refused).
    var cap: Int { get }
    /// Read these selections, unless nothing new was set since they were read.
    func request(_ sels: [ClipboardBridge.Selection])
    /// What was read since the last call, in order.
    func takeResults() -> [(ClipboardBridge.Selection, SelectionRead)]
    /// Ends transfers in progress and waits for the reader's threads at most `timeout` seconds.
    func stop(timeout: Double) -> Bool
}
