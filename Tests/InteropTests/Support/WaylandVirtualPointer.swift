import Foundation
import XCTest

/// A virtual pointer on a wlroots compositor (zwlr_virtual_pointer_v1): scripts/wayland/virtual-pointer.c,
/// built once per test run with wayland-scanner and cc from the protocol XML committed beside it
/// (no Debian 12 package has a client for it: wlrctl is not packaged, ydotool needs uinput and a
/// libinput backend, which headless sway does not have).
enum WaylandVirtualPointer {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: String?

    /// The program's path, built into a directory of its own the first time; skips when
    /// wayland-scanner or cc is missing (fails with FARCAST_INTEROP_REQUIRED=1).
    static func path() throws -> String {
        try lock.withLock {
            if let built { return built }
            let missing = ["wayland-scanner", "cc"].filter { InteropTools.path($0) == nil }
            if !missing.isEmpty {
                let msg = "the virtual pointer needs \(missing.joined(separator: ", ")): run scripts/install-deps.sh"
                if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
                throw XCTSkip(msg)
            }
            let src = InteropTools.repoRoot.appendingPathComponent("scripts/wayland")
            let xml = src.appendingPathComponent("protocols/wlr-virtual-pointer-unstable-v1.xml").path
            let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-vpointer-\(getpid())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try runTool("wayland-scanner", ["client-header", xml, dir.appendingPathComponent("wlr-virtual-pointer-unstable-v1-client-protocol.h").path], in: dir)
            try runTool("wayland-scanner", ["private-code", xml, dir.appendingPathComponent("protocol.c").path], in: dir)
            let exe = dir.appendingPathComponent("virtual-pointer").path
            try runTool("cc", ["-O1", "-I", dir.path, "-o", exe, src.appendingPathComponent("virtual-pointer.c").path,
                               dir.appendingPathComponent("protocol.c").path, "-lwayland-client"], in: dir, timeout: 60)
            built = exe
            return exe
        }
    }

    /// Runs the steps (`move X Y`, `click B`, `down B`, `up B`, `wheel N`, `rel DX DY`, `sleep MS`)
    /// on `desktop`'s output (its logical size).
    static func run(_ desktop: WaylandDesktop, _ steps: [String], in dir: URL) throws {
        let w = Int(Double(desktop.width) / desktop.scale), h = Int(Double(desktop.height) / desktop.scale)
        try runTool(path(), ["\(w)", "\(h)"] + steps.flatMap { $0.split(separator: " ").map(String.init) },
                    in: dir, environment: desktop.wayland, timeout: 20)
    }
}
