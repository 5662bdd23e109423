import Foundation
import VNCSession

/// `FARCAST_TRACE=1`: one stderr line per present and when the menu first shows, with the
/// monotonic time (`viewer: trace NAME SECONDS`), so tests and people can measure what the
/// window does from outside (input to screen, presenting under load). Off: one bool test.
final class PresentTrace {
    let enabled: Bool
    private var menuShown = false

    init(enabled: Bool) { self.enabled = enabled }

    /// After a present: `menuUp` says whether it drew the menu.
    func presented(menuUp: Bool) {
        guard enabled else { return }
        let t = String(format: "%.6f", monotonicSeconds())
        var line = "viewer: trace present \(t)\n"
        if menuUp && !menuShown { line += "viewer: trace menu-shown \(t)\n" }
        menuShown = menuUp
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// A named moment (window closed, quit seen), same format.
    func mark(_ name: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("viewer: trace \(name) \(String(format: "%.6f", monotonicSeconds()))\n".utf8))
    }
}
