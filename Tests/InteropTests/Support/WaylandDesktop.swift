import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A headless Wayland compositor for window tests: sway (wlroots, pixman), weston or mutter, with
/// no GPU, started by scripts/wayland-session.sh as the unprivileged user farcast-wl (sway refuses
/// root). Clients such as the viewer run as root against its socket. sway also gives the picture
/// (grim, wlr-screencopy) and typed input (wtype, the virtual-keyboard protocol); weston and mutter
/// offer neither (see the script's header).
final class WaylandDesktop: @unchecked Sendable {
    enum Compositor: String, Sendable { case sway, weston, mutter, cage }

    let compositor: Compositor
    let width: Int, height: Int
    let scale: Double
    /// The session's directory (FARCAST_WL_DIR): the compositor's log is `compositor.log` there.
    let sessionDir: String
    /// XDG_RUNTIME_DIR and WAYLAND_DISPLAY: what a client needs to reach the compositor.
    let wayland: [String: String]
    /// XWayland's DISPLAY (":N") when started with `xwayland: true` (sway only).
    let xDisplay: String?
    private let lock = NSLock()
    private var stopped = false

    private init(compositor: Compositor, width: Int, height: Int, scale: Double, sessionDir: String,
                 wayland: [String: String], xDisplay: String?) {
        self.compositor = compositor; self.width = width; self.height = height; self.scale = scale
        self.sessionDir = sessionDir; self.wayland = wayland; self.xDisplay = xDisplay
    }

    deinit { stop() }

    static var script: String { InteropTools.repoRoot.appendingPathComponent("scripts/wayland-session.sh").path }

    /// The programs a test on `compositor` needs besides the compositor (e.g. ["grim", "wtype"]);
    /// skips, or fails with FARCAST_INTEROP_REQUIRED=1, when one is missing.
    static func skipUnlessAvailable(_ compositor: Compositor = .sway, tools: [String] = []) throws {
        var need = [compositor.rawValue, "wayland-info", "setpriv"] + tools
        if compositor == .mutter { need.append("dbus-run-session") }
        let missing = need.filter { InteropTools.path($0) == nil }
        guard !missing.isEmpty else { return }
        let msg = "Wayland tests on \(compositor.rawValue) need \(missing.joined(separator: ", ")): run scripts/install-deps.sh"
        if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
        throw XCTSkip(msg)
    }

    /// Starts the compositor with one output of `width`x`height` device pixels at `scale`
    /// (sway, weston, and mutter through its DisplayConfig API: integer scales), XWayland too
    /// when asked (sway, mutter).
    /// Returns once a client sees its globals. `dir` receives the script's output.
    static func start(_ compositor: Compositor = .sway, width: Int = 1024, height: Int = 768,
                      scale: Double = 1, xwayland: Bool = false, mutterPlugin: String? = nil, dir: URL,
                      timeout: TimeInterval = 40) throws -> WaylandDesktop {
        var args = ["start", "--compositor", compositor.rawValue, "--size", "\(width)x\(height)",
                    "--scale", scale == scale.rounded() ? String(Int(scale)) : String(scale)]
        if xwayland { args.append("--xwayland") }
        if let mutterPlugin { args += ["--mutter-plugin", mutterPlugin] }
        let r = try runTool(script, args, in: dir, timeout: timeout)
        // one line: export XDG_RUNTIME_DIR=... WAYLAND_DISPLAY=... FARCAST_WL_DIR=... FARCAST_WL_COMPOSITOR=... [DISPLAY=:N]
        var vars: [String: String] = [:]
        for word in String(decoding: r.stdout, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            guard let eq = word.firstIndex(of: "=") else { continue }
            vars[String(word[..<eq])] = String(word[word.index(after: eq)...])
        }
        guard let runtime = vars["XDG_RUNTIME_DIR"], let display = vars["WAYLAND_DISPLAY"],
              let session = vars["FARCAST_WL_DIR"] else {
            throw HarnessError("wayland-session.sh start printed no environment: \(r.stderr)")
        }
        return WaylandDesktop(compositor: compositor, width: width, height: height, scale: scale,
                              sessionDir: session,
                              wayland: ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": display],
                              xDisplay: vars["DISPLAY"])
    }

    /// Stops the compositor (its whole process group) and removes its directory. Idempotent.
    func stop() {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        lock.unlock()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: WaylandDesktop.script)
        p.arguments = ["stop", sessionDir]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        if (try? p.run()) != nil { p.waitUntilExit() }
    }

    /// The environment for the viewer as a native Wayland client: SDL's Wayland driver, no X
    /// display to fall back to.
    var nativeClient: [String: String] {
        wayland.merging(["SDL_VIDEODRIVER": "wayland", "DISPLAY": ""]) { $1 }
    }

    /// The environment for the viewer through XWayland (nil without `xwayland: true`).
    var xwaylandClient: [String: String]? {
        xDisplay.map { wayland.merging(["SDL_VIDEODRIVER": "x11", "DISPLAY": $0]) { $1 } }
    }

    /// What the compositor printed (for failure messages).
    var log: String {
        (try? String(contentsOfFile: sessionDir + "/compositor.log", encoding: .utf8)) ?? ""
    }

    func logTail(_ n: Int = 20) -> String { log.split(separator: "\n").suffix(n).joined(separator: "\n") }

    /// The whole output in device pixels: grim's screenshot on sway, a frame of mutter's screen
    /// cast on mutter (MutterScreen).
    func screenshot(in dir: URL, name: String = "grim") throws -> RGBImage {
        if compositor == .mutter { return try MutterScreen.capture(self, in: dir) }
        guard compositor == .sway else { throw HarnessError("\(compositor.rawValue) has no screencopy for grim (cage has, but does not show a full-screen client's later frames headless)") }
        let path = dir.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(6)).png").path
        try runTool("grim", ["-t", "png", "-l", "0", path], in: dir, environment: wayland, timeout: 20)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try PNG.read(path: path)
    }

    /// Waits until grim's screenshot satisfies `ok` (the window is drawn a moment after it maps);
    /// returns the last screenshot taken.
    func waitForScreen(in dir: URL, timeout: TimeInterval = 15, _ ok: (RGBImage) -> Bool) throws -> RGBImage {
        var last: RGBImage?
        _ = poll(timeout: timeout, interval: 0.2) {
            guard let img = try? screenshot(in: dir) else { return false }
            last = img
            return ok(img)
        }
        guard let last else { throw HarnessError("grim gave no screenshot in \(timeout) s: \(logTail())") }
        return last
    }

    /// Types `text` through the compositor's virtual keyboard (wtype, sway only) to the focused
    /// window. The pause before the first key lets a client take the new keymap, `enter` and
    /// `modifiers` first, as a real keyboard gives them (the key held in `enter` is what crashes
    /// SDL 2.26 without the viewer's xkb guards: see docs/design/wayland-findings.md 2(c)).
    func type(_ text: String, pauseMilliseconds: Int = 300, in dir: URL) throws {
        try wtype(["-s", String(pauseMilliseconds), text], in: dir)
    }

    /// wtype with its own arguments (`-M shift`, `-k Return`, `-d MS`, ...).
    func wtype(_ args: [String], in dir: URL) throws {
        guard compositor == .sway else { throw HarnessError("\(compositor.rawValue) has no virtual keyboard for wtype") }
        try runTool("wtype", args, in: dir, environment: wayland, timeout: 20)
    }

    /// Runs `tool` as the compositor's user on mutter's session bus (dbus-run-session's, read
    /// from mutter's environment): its org.gnome.Mutter.RemoteDesktop API, mutter's only way in
    /// for input (scripts/wayland/mutter-type.c, mutter-pointer.c).
    func runOnSessionBus(_ tool: String, _ args: [String], in dir: URL) throws {
        guard compositor == .mutter else { throw HarnessError("the RemoteDesktop API is mutter's") }
        guard let bus = sessionBus() else { throw HarnessError("no session bus in mutter's environment") }
        try runTool("setpriv", ["--reuid", "farcast-wl", "--regid", "farcast-wl", "--init-groups",
                                "env", "DBUS_SESSION_BUS_ADDRESS=\(bus)", tool] + args, in: dir, timeout: 30)
    }

    /// The session bus of this desktop's mutter.
    func sessionBus() -> String? {
        guard let m = mutter() else { return nil }
        return m.environment.first(where: { $0.hasPrefix("DBUS_SESSION_BUS_ADDRESS=") })
            .map { String($0.dropFirst("DBUS_SESSION_BUS_ADDRESS=".count)) }
    }

    /// This desktop's mutter process (the one whose runtime directory is ours) and its environment.
    func mutter() -> (pid: Int32, environment: [String])? {
        let runtime = wayland["XDG_RUNTIME_DIR"] ?? ""
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(pid) != nil {
            guard (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("mutter") == true,
                  let env = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { continue }
            let vars = env.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if vars.contains("XDG_RUNTIME_DIR=\(runtime)"), let p = Int32(pid) { return (p, vars) }
        }
        return nil
    }

    /// scripts/wayland/NAME.c compiled into `dir` with pkg-config's `packages` (a program, or
    /// NAME.so with `sharedObject`), usable by the compositor's user (skips when it does not
    /// build: a -dev package missing).
    static func buildTool(_ name: String, _ packages: String, _ dir: URL, sharedObject: Bool = false) throws -> URL {
        let out = dir.appendingPathComponent(sharedObject ? name + ".so" : name)
        let src = InteropTools.repoRoot.appendingPathComponent("scripts/wayland/\(name).c").path
        let flags = sharedObject ? "-shared -fPIC " : ""
        let r = try runTool("sh", ["-c", "cc \(flags)-o '\(out.path)' '\(src)' $(pkg-config --cflags --libs \(packages))"],
                            in: dir, timeout: 120, allowFailure: true)
        guard r.status == 0 else {
            let msg = "\(name) does not build (\(packages) headers): \(r.stderr)"
            if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
            throw XCTSkip(msg)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        return out
    }

    /// swaymsg to this sway (IPC through the socket sway put in its runtime directory).
    @discardableResult
    func swaymsg(_ args: [String], in dir: URL) throws -> String {
        guard compositor == .sway else { throw HarnessError("swaymsg needs sway") }
        let run = wayland["XDG_RUNTIME_DIR"] ?? ""
        let sock = (try? FileManager.default.contentsOfDirectory(atPath: run))?
            .first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
        guard let sock else { throw HarnessError("no sway IPC socket in \(run)") }
        let r = try runTool("swaymsg", ["-s", run + "/" + sock] + args, in: dir, environment: wayland, timeout: 10)
        return String(decoding: r.stdout, as: UTF8.self)
    }
}

extension XCTestCase {
    /// A compositor for this test, stopped in teardown.
    func startWaylandDesktop(_ compositor: WaylandDesktop.Compositor = .sway, width: Int = 1024, height: Int = 768,
                             scale: Double = 1, xwayland: Bool = false, mutterPlugin: String? = nil, dir: URL) throws -> WaylandDesktop {
        let d = try WaylandDesktop.start(compositor, width: width, height: height, scale: scale,
                                         xwayland: xwayland, mutterPlugin: mutterPlugin, dir: dir)
        addTeardownBlock { d.stop() }
        return d
    }
}

extension XCTestCase {
    /// The real viewer as a client of `desktop` (native Wayland, or through XWayland with
    /// `xwayland: true`), connected to the harness server on `port` with Raw (exact pixels),
    /// `-v` and FARCAST_TRACE=1, stopped in teardown. Returns once the window has presented and,
    /// on sway, carries the harness desktop's name (the session is ready).
    func startViewerOnWayland(_ desktop: WaylandDesktop, port: Int, dir: URL, _ args: [String] = [],
                              xwayland: Bool = false, name: String = "viewer",
                              environment: [String: String] = [:],
                              file: StaticString = #filePath, line: UInt = #line) throws -> ChildProcess {
        guard let client = xwayland ? desktop.xwaylandClient : desktop.nativeClient else {
            throw HarnessError("XWayland was not started on this \(desktop.compositor.rawValue)")
        }
        let env = client.merging(["FARCAST_TRACE": "1"]) { $1 }.merging(environment) { $1 }
        let v = try ChildProcess(name: name, executable: viewerPath,
                                 arguments: ["127.0.0.1::\(port)", "--encodings", "raw", "-v"] + args,
                                 logURL: dir.appendingPathComponent("\(name).log"), environment: env)
        addTeardownBlock { v.stop() }
        let ready = poll(timeout: 25, interval: 0.1) {
            guard v.isRunning, v.log.contains("viewer: trace present") else { return !v.isRunning }
            guard desktop.compositor == .sway else { return true }
            return ((try? desktop.swaymsg(["-t", "get_tree"], in: dir)) ?? "").contains("farcast-interop")
        }
        XCTAssertTrue(ready && v.isRunning, "viewer on \(desktop.compositor.rawValue)\(xwayland ? " (XWayland)" : "") ready: "
                      + "\(v.logTail(30))\ncompositor: \(desktop.logTail(10))", file: file, line: line)
        return v
    }
}
