import Foundation
import XCTest

extension XCTestCase {
    /// The `viewer` executable built next to this test bundle (the tests drive it like a user).
    var viewerPath: String {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for d in [dir, dir.deletingLastPathComponent()] {
            let p = d.appendingPathComponent("viewer").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return InteropTools.repoRoot.appendingPathComponent(".build/debug/viewer").path
    }
}

extension XCTestCase {
    /// A local X display (Xvfb) for the viewer's real window, stopped in teardown. Returns its number.
    func startLocalXvfb(avoiding used: Set<Int>, size: String, dir: URL,
                        file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let local = try XDisplays.freeDisplay(avoiding: used)
        // -noreset: without it Xvfb resets when its last client leaves (the viewer's own
        // setxkbmap query), and a connection made during the reset fails ("x11 not available")
        let xvfb = try ChildProcess(name: "Xvfb", executable: InteropTools.need("Xvfb"),
                                    arguments: [":\(local)", "-screen", "0", "\(size)x24", "-nolisten", "tcp", "-noreset"],
                                    logURL: dir.appendingPathComponent("xvfb.log"))
        addTeardownBlock { xvfb.stop(); XDisplays.removeLeftovers(display: local, pid: xvfb.pid) }
        XCTAssertTrue(poll(timeout: 15) { FileManager.default.fileExists(atPath: XDisplays.socketPath(local)) }, "Xvfb up",
                      file: file, line: line)
        return local
    }
}

extension XCTestCase {
    /// The real viewer in an SDL window on X `display`, connected to the harness server on
    /// `port` with Raw (exact pixels), stopped in teardown. Returns once the window carries the
    /// harness desktop's name (the session is ready). `user`: run as that user (setpriv).
    func startViewerWindow(port: Int, display: String, dir: URL, _ args: [String] = [], name: String = "viewer",
                           environment: [String: String] = [:], user: String? = nil,
                           file: StaticString = #filePath, line: UInt = #line) throws -> ChildProcess {
        let env = ["DISPLAY": display, "SDL_VIDEODRIVER": "x11"].merging(environment) { $1 }
        let viewerArgs = ["127.0.0.1::\(port)", "--encodings", "raw", "-v"] + args
        let v = try user.map { u in
            try ChildProcess(name: name, executable: InteropTools.need("setpriv"),
                             arguments: ["--reuid", u, "--regid", u, "--init-groups", "--", viewerPath] + viewerArgs,
                             logURL: dir.appendingPathComponent("\(name).log"), environment: env)
        } ?? ChildProcess(name: name, executable: viewerPath, arguments: viewerArgs,
                          logURL: dir.appendingPathComponent("\(name).log"), environment: env)
        addTeardownBlock { v.stop() }
        let ready = poll(timeout: 20) {
            guard let r = try? runTool("xdotool", ["search", "--name", "farcast-interop"], in: dir,
                                       environment: ["DISPLAY": display], allowFailure: true) else { return false }
            return !r.stdout.isEmpty
        }
        var stacks = ""
        if !ready, v.isRunning, InteropTools.path("gdb") != nil {
            // where it is stuck, for the failure message
            stacks = (try? runTool("gdb", ["-p", "\(v.pid)", "-batch", "-ex", "thread apply all bt 14"], in: dir,
                                   timeout: 30, allowFailure: true)).map { String(decoding: $0.stdout, as: UTF8.self) } ?? ""
        }
        XCTAssertTrue(ready, "viewer window ready: \(v.logTail(30))\n\(stacks.suffix(8000))", file: file, line: line)
        return v
    }
}
