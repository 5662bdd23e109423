import Foundation
@testable import RFB
import XCTest

/// Secrets zero their own storage as they go (the release hook reads it before it is freed),
/// and the engine lets the credentials go as soon as they were sent.
final class SecretTests: XCTestCase {
    /// What the release hook saw: each released secret's bytes, as they were then.
    final class Releases: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [[UInt8]] = []
        func add(_ b: UnsafeRawBufferPointer) { lock.withLock { seen.append(Array(b)) } }
        var all: [[UInt8]] { lock.withLock { seen } }
    }

    func watch() -> Releases {
        let r = Releases()
        Secret.setReleaseHook { r.add($0) }
        addTeardownBlock { Secret.setReleaseHook(nil) }
        return r
    }

    func testStorageIsZeroedWhenASecretGoes() {
        let r = watch()
        do {
            var s = Secret(capacity: 32)
            "Zq-unique-pw".utf8.withContiguousStorageIfAvailable { _ = s.append(UnsafeRawBufferPointer($0)) }
            XCTAssertEqual(s.count, 12)
            let d = s.duplicate()
            XCTAssertTrue(d.equals(s))
            s.removeLast(2)
            XCTAssertEqual(s.withBytes { String(decoding: $0, as: UTF8.self) }, "Zq-unique-")
        }
        XCTAssertEqual(r.all.count, 2, "the secret and its duplicate")
        XCTAssertEqual(r.all.map(\.count).sorted(), [12, 32], "each its own storage")
        XCTAssertTrue(r.all.allSatisfy { $0.allSatisfy { $0 == 0 } }, "zeroed before being freed: \(r.all)")
    }

    func testAppendNeverOutgrowsItsStorage() {
        var s = Secret(capacity: 4)
        XCTAssertTrue(s.append(byte: 1))
        XCTAssertTrue([UInt8]([2, 3, 4]).withUnsafeBytes { s.append($0) })
        XCTAssertFalse(s.append(byte: 5))
        XCTAssertFalse([UInt8]([6]).withUnsafeBytes { s.append($0) })
        XCTAssertEqual(s.withBytes { Array($0) }, [1, 2, 3, 4])
        s.wipe()
        XCTAssertTrue(s.isEmpty)
    }

    /// The password answered to VncAuth is let go (zeroed) once its response is queued, not kept
    /// until ServerInit or the end of the connection.
    func testTheEngineDropsAnsweredCredentialsOnceSent() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(Array("RFB 003.008\n".utf8) + [1, 2] + [UInt8](repeating: 9, count: 16))
        XCTAssertEqual(e.phase, .awaitingCredentials)
        let r = watch()
        try e.provideCredentials(Credentials(password: Array("Zq-answered".utf8)))
        XCTAssertTrue(r.all.contains { $0.count == 11 }, "released once sent: \(r.all.map(\.count))")
        XCTAssertTrue(r.all.allSatisfy { $0.allSatisfy { $0 == 0 } })
        XCTAssertEqual(e.takeOutput().suffix(16), VNCAuth.response(challenge: [UInt8](repeating: 9, count: 16), password: Array("Zq-answered".utf8)))
    }
}
