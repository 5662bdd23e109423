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
        let xvfb = try ChildProcess(name: "Xvfb", executable: InteropTools.need("Xvfb"),
                                    arguments: [":\(local)", "-screen", "0", "\(size)x24", "-nolisten", "tcp"],
                                    logURL: dir.appendingPathComponent("xvfb.log"))
        addTeardownBlock { xvfb.stop(); XDisplays.removeLeftovers(display: local, pid: xvfb.pid) }
        XCTAssertTrue(poll(timeout: 15) { FileManager.default.fileExists(atPath: XDisplays.socketPath(local)) }, "Xvfb up",
                      file: file, line: line)
        return local
    }
}
