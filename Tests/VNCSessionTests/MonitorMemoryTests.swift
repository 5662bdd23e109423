import XCTest
@testable import VNCSession

final class MonitorMemoryTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("farcast-monitors-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    /// In a directory that does not exist yet: the first write creates it.
    var file: URL { dir.appendingPathComponent("state/farcast/monitors") }

    func testRoundTrip() throws {
        let m = MonitorMemory(url: file)
        XCTAssertNil(m.choice(for: "example.com::5900"), "no file yet")
        try m.remember(.screen(id: 7), for: "example.com::5900")
        try m.remember(.all, for: "unix:/tmp/my vnc.sock")
        try m.remember(.screen(id: 4_000_000_000), for: "[::1]::5901")
        // a second instance reads what the first wrote
        let n = MonitorMemory(url: file)
        XCTAssertEqual(n.choice(for: "example.com::5900"), .screen(id: 7))
        XCTAssertEqual(n.choice(for: "unix:/tmp/my vnc.sock"), .all, "spaces in the server are kept")
        XCTAssertEqual(n.choice(for: "[::1]::5901"), .screen(id: 4_000_000_000))
        XCTAssertNil(n.choice(for: "other::5900"))
        // replacing moves the server to the end (most recent last)
        try n.remember(.all, for: "example.com::5900")
        XCTAssertEqual(m.choice(for: "example.com::5900"), .all)
        let text = try String(contentsOf: file, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines, ["all unix:/tmp/my vnc.sock", "screen:4000000000 [::1]::5901", "all example.com::5900"])
        // private to the user, and no temporary file left behind
        let attrs = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path), ["monitors"])
    }

    func testServerNamesThatCannotBeStoredAreIgnored() throws {
        let m = MonitorMemory(url: file)
        try m.remember(.all, for: "evil\nscreen:1 injected")
        try m.remember(.all, for: "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertNil(m.choice(for: "evil\nscreen:1 injected"))
    }

    func testCorruptFileIsToleratedAndCleanedOnWrite() throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = """
            # a comment
            screen:2 good::5900
            screen:-1 negative::5900
            screen:99999999999 toobig::5900
            screen: empty::5900
            bogus line
            all
            screen:3
            all dup::5900
            screen:5 dup::5900
            \r
            """
        try Data(garbage.utf8).write(to: file)
        let m = MonitorMemory(url: file)
        XCTAssertEqual(m.choice(for: "good::5900"), .screen(id: 2))
        XCTAssertEqual(m.choice(for: "dup::5900"), .screen(id: 5), "the later line wins")
        for bad in ["negative::5900", "toobig::5900", "empty::5900", "line", ""] { XCTAssertNil(m.choice(for: bad), bad) }
        try m.remember(.all, for: "new::5900")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines, ["screen:2 good::5900", "screen:5 dup::5900", "all new::5900"])

        // not UTF-8 at all: read as empty, then replaced
        try Data([0xff, 0xfe, 0x00, 0x80, 0x0a, 0xc3]).write(to: file)
        XCTAssertNil(m.choice(for: "good::5900"))
        try m.remember(.screen(id: 1), for: "good::5900")
        XCTAssertEqual(m.choice(for: "good::5900"), .screen(id: 1))

        // a directory where the file should be: reads nothing, the write fails with a message
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        XCTAssertNil(m.choice(for: "good::5900"))
        XCTAssertThrowsError(try m.remember(.all, for: "good::5900")) {
            XCTAssertTrue("\($0)".contains("cannot write"), "\($0)")
        }
    }

    func testBoundedMostRecentLast() throws {
        let m = MonitorMemory(url: file, limit: 5)
        for i in 0..<8 { try m.remember(.screen(id: UInt32(i)), for: "host\(i)::5900") }
        XCTAssertNil(m.choice(for: "host0::5900"))
        XCTAssertNil(m.choice(for: "host2::5900"))
        XCTAssertEqual(m.choice(for: "host3::5900"), .screen(id: 3))
        // choosing again refreshes: host3 survives the next two, host4 and host5 do not
        try m.remember(.all, for: "host3::5900")
        try m.remember(.all, for: "host8::5900")
        try m.remember(.all, for: "host9::5900")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines, ["screen:6 host6::5900", "screen:7 host7::5900", "all host3::5900", "all host8::5900", "all host9::5900"])
        // the default bound
        XCTAssertEqual(MonitorMemory(url: file).limit, 200)
        let big = MonitorMemory(url: dir.appendingPathComponent("big"))
        for i in 0..<205 { try big.remember(.all, for: "h\(i)") }
        let n = try String(contentsOf: big.url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(n.count, 200)
        XCTAssertEqual(n.first, "all h5")
        XCTAssertEqual(n.last, "all h204")
    }

    func testDefaultLocationFollowsXDGStateHome() {
        XCTAssertEqual(MonitorMemory.defaultURL(env: ["XDG_STATE_HOME": "/s"]).path, "/s/farcast/monitors")
        XCTAssertEqual(MonitorMemory.defaultURL(env: ["XDG_STATE_HOME": ""]).path,
                       MonitorMemory.defaultURL(env: [:]).path, "empty is unset")
        // the shape with the test process's environment (not ours to change)
        let p = MonitorMemory.defaultURL(env: ProcessInfo.processInfo.environment).path
        XCTAssertTrue(p.hasSuffix("/farcast/monitors"), p)
        if let state = ProcessInfo.processInfo.environment["XDG_STATE_HOME"], !state.isEmpty {
            XCTAssertTrue(p.hasPrefix(state), p)
        } else {
            XCTAssertTrue(p.hasSuffix("/.local/state/farcast/monitors"), p)
        }
    }
}
