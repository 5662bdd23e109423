import Foundation
@testable import VNCSession
import XCTest

/// The one child-process helper: lookup on a search path, exit status, bounded output, timeout.
final class ChildProcessTests: XCTestCase {
    func tempDir() throws -> String {
        let d = NSTemporaryDirectory() + "farcast-child-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    func script(_ dir: String, _ name: String, _ body: String, mode: mode_t = 0o755) throws -> String {
        let p = dir + "/" + name
        try "#!/bin/sh\n\(body)\n".write(toFile: p, atomically: true, encoding: .utf8)
        chmod(p, mode)
        return p
    }

    func testLookupTakesTheFirstExecutableOnTheSearchPath() throws {
        let a = try tempDir(), b = try tempDir()
        _ = try script(a, "tool", "exit 0", mode: 0o644)      // not executable: passed over
        let second = try script(b, "tool", "exit 0")
        XCTAssertEqual(ChildProcess.find("tool", searchPath: "/nonexistent:\(a):\(b)"), second)
        XCTAssertNil(ChildProcess.find("tool", searchPath: a))
        XCTAssertNil(ChildProcess.find("tool", searchPath: ""))
        XCTAssertEqual(ChildProcess.find("sh", searchPath: "/bin"), "/bin/sh")
    }

    func testExitStatusOutputAndInput() throws {
        let d = try tempDir()
        let t = try script(d, "t", "cat; echo \"$1\"; echo err >&2; exit 3")
        let msg = Array("from stdin\n".utf8)
        var out: [UInt8] = []
        let o = msg.withUnsafeBytes { ChildProcess.run(t, ["an argument"], input: $0, maxOutput: 1 << 16) { out += $0 } }
        XCTAssertEqual(o, ChildProcess.Outcome(status: 3, truncated: false))
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "from stdin\nan argument\n", "stdout only")
        XCTAssertEqual(ChildProcess.output(try script(d, "ok", "exit 0"), [], maxOutput: 16)?.outcome.status, 0)
        XCTAssertNil(ChildProcess.run(d + "/missing", [], maxOutput: 16) { _ in }, "cannot start")
    }

    func testEnvironmentIsTheOneGiven() throws {
        let d = try tempDir()
        let t = try script(d, "t", "printf '%s' \"$FARCAST_CHILD_TEST\"")
        XCTAssertEqual(ChildProcess.output(t, [], environment: ["FARCAST_CHILD_TEST": "given"], maxOutput: 64)?.bytes,
                       Array("given".utf8))
    }

    /// Output past the bound is read and dropped: the child finishes, nothing more is kept.
    func testOutputIsBounded() throws {
        let d = try tempDir()
        let t = try script(d, "t", "head -c 300000 /dev/zero; exit 0")
        let r = try XCTUnwrap(ChildProcess.output(t, [], timeout: 20, maxOutput: 1000))
        XCTAssertEqual(r.bytes.count, 1000)
        XCTAssertEqual(r.outcome, ChildProcess.Outcome(status: 0, truncated: true))
    }

    /// A child that outlives its timeout is killed, whether it is silent or still writing.
    func testTimeoutKillsTheChild() throws {
        let d = try tempDir()
        for body in ["exec sleep 30", "echo partial; exec sleep 30", "while :; do echo y; done"] {
            let t = try script(d, "t", body)
            let start = Date()
            let r = try XCTUnwrap(ChildProcess.output(t, [], timeout: 0.3, maxOutput: 100))
            XCTAssertTrue(r.outcome.timedOut, body)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, body)
        }
    }

    func testStartLeavesTheProcessToItsOwner() throws {
        let d = try tempDir()
        let t = try script(d, "t", "echo \"$1\" >&2; exit 4")
        let err = Pipe()
        let p = try ChildProcess.start(t, ["to stderr"], stderr: .pipe(err))
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 4)
        XCTAssertEqual(String(decoding: err.fileHandleForReading.availableData, as: UTF8.self), "to stderr\n")
        XCTAssertThrowsError(try ChildProcess.start(d + "/missing", []))
    }
}
