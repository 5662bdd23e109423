import Foundation
import XCTest
@testable import SDLViewer

/// Where libX11 is told to keep its compiled Compose table (ComposeCache): ours, made 0700,
/// unless there is no X display or the user already has a cache of their own.
final class ComposeCacheTests: XCTestCase {
    func home() throws -> String {
        let d = NSTemporaryDirectory() + "farcast-compose-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    func testOursUnderTheCacheDirectoryMadePrivate() throws {
        let h = try home()
        let dir = ComposeCache.directory(env: ["HOME": h, "DISPLAY": ":5"])
        XCTAssertEqual(dir, h + "/.cache/farcast/compose")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: h + "/.cache/farcast/compose")[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o700, "libX11 uses only a directory nobody else can write")
        XCTAssertEqual(ComposeCache.directory(env: ["HOME": h, "XDG_CACHE_HOME": h + "/c", "DISPLAY": ":5"]), h + "/c/farcast/compose")
    }

    func testTheUsersOwnCacheOrNoDisplayLeaveItAlone() throws {
        let h = try home()
        XCTAssertNil(ComposeCache.directory(env: ["HOME": h]), "no X display: nothing made")
        XCTAssertNil(ComposeCache.directory(env: ["HOME": h, "DISPLAY": ":5", "XCOMPOSECACHE": h + "/mine"]))
        XCTAssertNil(ComposeCache.directory(env: ["HOME": h, "DISPLAY": ":5", "XCOMPOSECACHE": ""]), "set empty: the user's choice")
        try FileManager.default.createDirectory(atPath: h + "/.compose-cache", withIntermediateDirectories: false)
        XCTAssertNil(ComposeCache.directory(env: ["HOME": h, "DISPLAY": ":5"]), "libX11's own ~/.compose-cache")
        XCTAssertFalse(FileManager.default.fileExists(atPath: h + "/.cache/farcast/compose"))
    }
}
