import FarcastTools
import Foundation
@testable import VNCSession
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Files made for the user alone: exclusively, no link followed, mode 0600 whatever the umask.
final class PrivateFileTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "farcast-private-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func mode(_ path: String) -> (isRegular: Bool, mode: mode_t)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return ((st.st_mode & S_IFMT) == S_IFREG, st.st_mode & 0o777)
    }

    /// A recording's file, made as `viewer record -o` makes it, at a path where a link was
    /// planted (to a file that does not exist yet, and to one that does): the link is not
    /// followed, neither target is created or truncated.
    /// Before, the recorder's open followed the link (O_CREAT|O_TRUNC, no O_NOFOLLOW).
    func testRecorderDoesNotFollowALink() throws {
        let victim = dir + "/victim", existing = dir + "/existing"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: existing))
        for (link, target) in [(dir + "/a.fbs", victim), (dir + "/b.fbs", existing)] {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            XCTAssertThrowsError(try PrivateFile.create(link, replacingRegularFile: true)) { XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: victim))
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep")
    }

    /// `-o FILE` replaces a regular file there, and makes it 0600 under a permissive umask.
    func testRecorderReplacesARegularFilePrivately() throws {
        let path = dir + "/r.fbs"
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let old = umask(0)
        defer { umask(old) }
        let r = SessionRecorder(path: path, fileDescriptor: try PrivateFile.create(path, replacingRegularFile: true))
        r.close()
        XCTAssertEqual(mode(path)?.isRegular, true)
        XCTAssertEqual(mode(path)?.mode, 0o600)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(12), Data("FBS 001.000\n".utf8))
    }

    /// A fresh file takes the next free name; a planted link (dangling or not) is a taken name,
    /// never written through.
    func testFreshFileSkipsLinksAndIsPrivate() throws {
        let victim = dir + "/victim"
        try FileManager.default.createSymbolicLink(atPath: dir + "/shot.png", withDestinationPath: victim)
        let old = umask(0)
        defer { umask(old) }
        let path = try PrivateFile.writeFresh(in: dir, name: "shot.png", [1, 2, 3])
        XCTAssertEqual(path, dir + "/shot (2).png")
        XCTAssertEqual(mode(path)?.mode, 0o600)
        XCTAssertFalse(FileManager.default.fileExists(atPath: victim))
        XCTAssertEqual(try PrivateFile.writeFresh(in: dir, name: "shot.png", [4]), dir + "/shot (3).png")
    }

    /// `snapshot -o`: replaced atomically, 0600; a link there is refused, its target untouched.
    func testReplaceOnlyRegularFile() throws {
        let path = dir + "/out.png", link = dir + "/link.png", target = dir + "/target"
        try PrivateFile.replace(path, with: [1], makeDirectory: false, onlyRegularFile: true)
        try PrivateFile.replace(path, with: [2, 3], makeDirectory: false, onlyRegularFile: true)
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), [2, 3])
        XCTAssertEqual(mode(path)?.mode, 0o600)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        XCTAssertThrowsError(try PrivateFile.replace(link, with: [9], makeDirectory: false, onlyRegularFile: true))
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
        XCTAssertThrowsError(try PrivateFile.replace(dir + "/missing-dir/x.png", with: [1], makeDirectory: false))
    }
}
