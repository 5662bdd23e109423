import Foundation
import RFB
@testable import VNCSession
import XCTest

/// The launcher's address book file, recent connections, and imports from TigerVNC and Remmina.
final class SavedConnectionsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "farcast-saved-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func full() throws -> SavedConnection {
        var c = SavedConnection(name: "Office [2nd floor]", address: "office.example:1")
        for (k, v) in [("colour", "blue"), ("last-connected", "2026-11-24T02:15:00Z"), ("input", "trackpad"),
                       ("quality", "5"), ("monitor", "2"), ("view-only", "yes"), ("clipboard", "receive"),
                       ("scale", "150%"), ("fullscreen", "yes"), ("via", "me@gw.example:2222"),
                       ("security", "X509Plain,RA2"), ("username", "ann"), ("remember-password", "yes")] {
            try c.set(k, v)
        }
        return c
    }

    func testRoundTripKeepsEverySetting() throws {
        var f = SavedConnectionsFile()
        f.returnToLauncher = false
        f.connections = [try full(), SavedConnection(name: "Pi", address: "vnc://pi@raspberrypi.local"),
                         SavedConnection(name: "Socket", address: "unix:/tmp/x.sock")]
        f.connections[1].lossless = true
        let text = f.serialized()
        XCTAssertEqual(try SavedConnectionsFile.parse(text), f)
        XCTAssertTrue(text.contains("[Pi]\naddress = vnc://pi@raspberrypi.local\nquality = lossless\n"), text)
        XCTAssertFalse(text.contains("[Socket]\naddress = unix:/tmp/x.sock\ncolour"), "defaults are not written")

        let store = SavedConnectionStore(path: dir + "/farcast/connections")
        XCTAssertNil(store.problem)
        XCTAssertEqual(store.contents.connections, [])
        try store.save(f)
        let again = SavedConnectionStore(path: store.path)
        XCTAssertEqual(again.contents, f)
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/farcast"), ["connections"], "no temporary file left")
    }

    /// The fields are the enums the viewer uses; the file spells them as it always did.
    func testTypedFieldsReadAndWriteTheSameText() throws {
        var c = SavedConnection(name: "a", address: "h")
        XCTAssertEqual(c.input, .touch)
        XCTAssertEqual(c.clipboard, .both)
        XCTAssertEqual(c.scale, .fit)
        for (text, scale) in [("fit", ScalingMode.fit), ("1:1", .zoom(1)), ("150%", .zoom(1.5)), ("12.5%", .zoom(0.125)),
                              ("FIT", .fit), ("1600%", .zoom(16)), ("10%", .zoom(0.1))] {
            try c.set("scale", text)
            XCTAssertEqual(c.scale, scale, text)
            XCTAssertEqual(c.values["scale"], text.lowercased(), text)
        }
        for bad in ["2", "0.5", "9%", "1601%", "big", "nan%"] {
            XCTAssertThrowsError(try c.set("scale", bad), bad) {
                XCTAssertEqual("\($0)", "scale takes fit, 1:1 or a zoom from 10% to 1600%, not '\(bad)'")
            }
        }
        try c.set("input", "Trackpad")
        XCTAssertEqual(c.input, .trackpad)
        XCTAssertEqual(c.values["input"], "trackpad")
        try c.set("clipboard", "send")
        XCTAssertEqual(c.clipboard, .send)
        XCTAssertThrowsError(try c.set("clipboard", "sideways")) {
            XCTAssertEqual("\($0)", "clipboard takes both, send, receive, off, not 'sideways'")
        }
        XCTAssertThrowsError(try c.set("input", "mouse")) { XCTAssertEqual("\($0)", "input takes touch, trackpad, not 'mouse'") }
    }

    func testHandEditedFileIsReadAndMistakesNameTheLine() throws {
        let f = try SavedConnectionsFile.parse("""
            # mine
            [Lab]
              address = lab:2
            COLOR = Green
            ; a comment too
            """)
        XCTAssertTrue(f.returnToLauncher)
        XCTAssertEqual(f.connections.first?.colour, "green")
        func fails(_ text: String, _ fragment: String, line: UInt = #line) {
            XCTAssertThrowsError(try SavedConnectionsFile.parse(text), line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", line: line)
            }
        }
        fails("[a]\naddress = h\npassword = secret", "line 3: passwords are never kept in this file")
        fails("[a]\naddress = h\nquality = 12", "line 3: quality takes 0 to 9 or lossless")
        fails("[a]\ncolour = red", "[a] has no address")
        fails("[a]\naddress = h\n[A]\naddress = g", "line 3: a second connection named 'A'")
        fails("[a]\naddress = h\nspeed = 3", "line 3: unknown key 'speed'")
        fails("address = h", "line 1: unknown setting 'address' before the first [name]")
        fails("[a]\naddress = -h", "cannot start with '-'")
        fails("[a]\naddress = vnc://u:pw@h", "address:")
        fails("[a]\nwords", "line 2: expected 'key = value'")
    }

    /// A file that cannot be read as connections is reported and never written over.
    func testCorruptFileIsReportedAndKept() throws {
        let path = dir + "/connections"
        let text = "[Lab]\naddress = lab:2\nquality = eleven\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let store = SavedConnectionStore(path: path)
        XCTAssertEqual(store.problem?.contains("line 3: quality takes 0 to 9"), true, store.problem ?? "")
        XCTAssertEqual(store.problem?.contains("left as it is"), true)
        XCTAssertThrowsError(try store.save(SavedConnectionsFile()))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), text, "untouched")

        try Data([0xff, 0xfe, 0x00]).write(to: URL(fileURLWithPath: path))
        store.reload()
        XCTAssertEqual(store.problem?.contains("not UTF-8"), true)
        try Data(repeating: 0x61, count: SavedConnectionsFile.maxBytes + 1).write(to: URL(fileURLWithPath: path))
        store.reload()
        XCTAssertEqual(store.problem?.contains("larger than"), true)
        XCTAssertThrowsError(try store.save(SavedConnectionsFile()))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, SavedConnectionsFile.maxBytes + 1)
    }

    /// The example in the README is a file the launcher reads.
    func testReadmeExampleParses() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let a = text.range(of: "```ini\n"), let b = text.range(of: "```", range: a.upperBound..<text.endIndex) else {
            return XCTFail("no ini example in the README")
        }
        let f = try SavedConnectionsFile.parse(String(text[a.upperBound..<b.lowerBound]))
        XCTAssertEqual(f.connections.first?.via, "me@gateway.example.com")
        XCTAssertEqual(f.connections.first?.lossless, true)
    }

    func testRecentKeepsNewestFirstWithoutRepeats() throws {
        let r = RecentConnections(path: dir + "/state/recent")
        XCTAssertTrue(r.load().isEmpty)
        for (i, a) in ["a:1", "b:2", "a:1"].enumerated() { try r.add(a, at: Date(timeIntervalSince1970: Double(1_700_000_000 + i))) }
        XCTAssertEqual(r.load().map(\.address), ["a:1", "b:2"])
        for i in 0..<20 { try r.add("h\(i)") }
        XCTAssertEqual(r.load().count, RecentConnections.limit)
    }

    func testThumbnailPathsAreStablePerAddress() {
        let env = ["HOME": "/home/u", "XDG_CACHE_HOME": "/c"]
        let p = SessionThumbnails.path(for: "host:1", env: env)
        XCTAssertTrue(p.hasPrefix("/c/farcast/thumbnails/") && p.hasSuffix(".png"), p)
        XCTAssertEqual(p, SessionThumbnails.path(for: "host:1", env: env))
        XCTAssertNotEqual(p, SessionThumbnails.path(for: "host:2", env: env))
        XCTAssertFalse(p.contains("host"))
    }
}
