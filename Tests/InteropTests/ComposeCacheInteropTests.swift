import Foundation
import XCTest

/// libX11's Compose table compiled once (ComposeCache): the real viewer, as an unprivileged user
/// (libX11 keeps no cache for root), under Xvfb against a real Xvnc. The first start writes the
/// compiled table into $XDG_CACHE_HOME/farcast/compose; the second maps it and writes nothing.
final class ComposeCacheInteropTests: XCTestCase {
    /// scripts/wayland-session.sh's unprivileged user, made the same way when missing.
    static let user = "farcast-wl"

    func testTheSecondStartUsesTheCompiledComposeTable() throws {
        guard getuid() == 0 else { throw XCTSkip("running the viewer as another user needs root") }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-compose-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        if getpwnam(Self.user) == nil {
            _ = try runTool("useradd", ["--system", "--no-create-home", "--home-dir", "/nonexistent",
                                        "--shell", "/usr/sbin/nologin", Self.user], in: dir)
        }
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        _ = try runTool("chown", [Self.user, home.path], in: dir)
        let server = try startServer(.xvnc, VNCServer.Options())
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let env = ["HOME": home.path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "LANG": "C.UTF-8"]
        let cache = home.appendingPathComponent("cache/farcast/compose").path

        func start(_ name: String) throws -> [String: Date] {
            let v = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, name: name,
                                          environment: env, user: Self.user)
            v.stop()
            let files = (try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []
            var out: [String: Date] = [:]
            for f in files {
                out[f] = (try FileManager.default.attributesOfItem(atPath: cache + "/" + f))[.modificationDate] as? Date
            }
            return out
        }
        let first = try start("viewer-first")
        XCTAssertEqual(first.count, 1, "the first start wrote libX11's compiled table: \(first)")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o700)
        let second = try start("viewer-second")
        XCTAssertEqual(second, first, "the second start read it and wrote nothing")
    }
}
