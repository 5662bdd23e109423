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
