import Foundation
import XCTest

/// mutter's screen and touch for tests: no screencopy (grim) and no virtual touch protocol there,
/// so its ScreenCast API gives the monitor as a PipeWire stream (scripts/wayland/mutter-screen.c
/// holds the session; gst-launch's pipewiresrc takes one frame as PNG), and RemoteDesktop's touch
/// calls, tied to such a stream, touch the screen. PipeWire runs beside mutter
/// (scripts/wayland-session.sh); all of it as the compositor's user on its session bus.
enum MutterScreen {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: String?

    /// mutter-screen, built once per test run (skips without cc or GIO's headers).
    static func path() throws -> String {
        try lock.withLock {
            if let built { return built }
            let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-mscreen-\(getpid())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let exe = try WaylandDesktop.buildTool("mutter-screen", "gio-2.0", dir).path
            built = exe
            return exe
        }
    }

    /// The monitor's picture now (device pixels).
    static func capture(_ desktop: WaylandDesktop, in dir: URL) throws -> RGBImage {
        try run(desktop, input: false, ["sleep", "20000"], in: dir) { node, work in
            let png = work.appendingPathComponent("cast.png").path
            try asUser(desktop, ["gst-launch-1.0", "-q", "pipewiresrc", "path=\(node)", "num-buffers=1", "!", "videoconvert",
                                 "!", "video/x-raw,format=RGB", "!", "pngenc", "!", "filesink", "location=\(png)"], in: dir)
            return try PNG.read(path: png)
        }
    }

    /// Touches the screen and moves the pointer in the monitor's pixels: `down SLOT X Y`,
    /// `move SLOT X Y`, `up SLOT`, `point X Y`, `btn CODE 0|1`, `sleep MS`. The session's devices
    /// are new: the pointer's a moment before the steps, and before touches a first touch in
    /// the top-left corner (mutter makes its touchscreen then, and clients bind wl_touch only
    /// after, so that one reaches a client only when it binds in time: a tap at (1,1) under a
    /// full-screen window, about 1 run in 20 on CI).
    static func input(_ desktop: WaylandDesktop, _ steps: [String], in dir: URL) throws {
        let words = steps.flatMap { $0.split(separator: " ").map(String.init) }
        let warm = ["sleep", "500"] + (words.contains("down") ? ["down", "0", "1", "1", "sleep", "30", "up", "0", "sleep", "700"] : [])
        _ = try run(desktop, input: true, warm + words, in: dir) { _, _ in () }
    }

    /// A keyboard on mutter's seat while the returned process runs (stop it when done): headless
    /// mutter has none, and clients that take the focus with a surface of their own (wl-copy,
    /// wl-paste without wlr-data-control) refuse a seat without one. mutter makes the
    /// RemoteDesktop session's keyboard at its first key: a Shift press and release.
    static func holdKeyboard(_ desktop: WaylandDesktop, in dir: URL) throws -> ChildProcess {
        guard let bus = desktop.sessionBus() else { throw HarnessError("no session bus in mutter's environment") }
        let work = dir.appendingPathComponent("mutter-keyboard-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: work.path)
        let node = work.appendingPathComponent("node")
        let p = try ChildProcess(name: "mutter-keyboard", executable: InteropTools.need("setpriv"),
                                 arguments: userPrefix(desktop, bus) + [try path(), "--input", node.path,
                                                                        "sleep", "300", "keysym", "0xffe1", "1", "keysym", "0xffe1", "0", "sleep", "600000"],
                                 logURL: work.appendingPathComponent("tool.log"))
        guard poll(timeout: 10, interval: 0.05, { FileManager.default.fileExists(atPath: node.path) || !p.isRunning }), p.isRunning else {
            p.stop()
            throw HarnessError("mutter's remote desktop session did not start: \(p.logTail())")
        }
        Thread.sleep(forTimeInterval: 0.8)   // the key, and the seat's new keyboard reaching the clients
        return p
    }

    /// Where `part` appears whole in `image` (top-left corner), nil when it does not.
    static func find(_ part: RGBImage, in image: RGBImage) -> (x: Int, y: Int)? {
        guard part.width <= image.width, part.height <= image.height, part.width > 1 else { return nil }
        // a candidate must match the part's whole first row before the rest is compared
        let row = part.pixels[0..<part.width]
        for y in 0...(image.height - part.height) {
            for x in 0...(image.width - part.width) where image.pixels[y * image.width + x] == row.first {
                guard image.pixels[(y * image.width + x)..<(y * image.width + x + part.width)].elementsEqual(row) else { continue }
                if compareImages(image.crop(x: x, y: y, width: part.width, height: part.height), part).isEqual { return (x, y) }
            }
        }
        return nil
    }

    /// Runs mutter-screen with `args` and `body` once its stream is up (with the node id and a
    /// directory the compositor's user may write); waits for the tool's commands to end.
    private static func run<T>(_ desktop: WaylandDesktop, input: Bool, _ args: [String], in dir: URL,
                               _ body: (String, URL) throws -> T) throws -> T {
        guard desktop.compositor == .mutter else { throw HarnessError("mutter-screen is for mutter") }
        guard let bus = desktop.sessionBus() else { throw HarnessError("no session bus in mutter's environment") }
        let tool = try path()
        let work = dir.appendingPathComponent("mutter-screen-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: work.path)
        defer { try? FileManager.default.removeItem(at: work) }
        let nodeFile = work.appendingPathComponent("node")
        let p = try ChildProcess(name: "mutter-screen", executable: InteropTools.need("setpriv"),
                                 arguments: userPrefix(desktop, bus) + [tool] + (input ? ["--input"] : []) + [nodeFile.path] + args,
                                 logURL: work.appendingPathComponent("tool.log"))
        defer { p.stop() }
        guard poll(timeout: 10, interval: 0.05, { FileManager.default.fileExists(atPath: nodeFile.path) || !p.isRunning }),
              let node = try? String(contentsOf: nodeFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              !node.isEmpty else {
            throw HarnessError("mutter's screen cast did not start: \(p.logTail())\n\(desktop.logTail())")
        }
        let result = try body(node, work)
        if !input { return result }
        // the touch commands run in the tool: wait for them
        guard poll(timeout: 60, interval: 0.05, { !p.isRunning }) else { throw HarnessError("mutter-screen did not finish") }
        return result
    }

    private static func userPrefix(_ desktop: WaylandDesktop, _ bus: String) -> [String] {
        let runtime = desktop.wayland["XDG_RUNTIME_DIR"] ?? ""
        return ["--reuid", "farcast-wl", "--regid", "farcast-wl", "--init-groups", "env", "-i", "PATH=/usr/bin:/bin",
                "HOME=\(runtime)", "XDG_RUNTIME_DIR=\(runtime)", "DBUS_SESSION_BUS_ADDRESS=\(bus)"]
    }

    private static func asUser(_ desktop: WaylandDesktop, _ command: [String], in dir: URL) throws {
        guard let bus = desktop.sessionBus() else { throw HarnessError("no session bus in mutter's environment") }
        try runTool("setpriv", userPrefix(desktop, bus) + command, in: dir, timeout: 20)
    }
}
