import Foundation
import RFB
@testable import VNCSession
import XCTest

/// The session with a server that has ContinuousUpdates and Fence, over the in-memory
/// transport: the fence is answered, continuous updates are enabled after the first update,
/// no request follows the pushed updates, and round-trip fences measure the link.
final class ContinuousUpdatesSessionTests: XCTestCase {
    /// Splits what the client sent into messages (type, bytes); nil on a type this test does not know.
    static func messages(_ b: [UInt8]) -> [(UInt8, [UInt8])]? {
        var out: [(UInt8, [UInt8])] = [], i = 0
        while i < b.count {
            let n: Int
            switch b[i] {
            case 0: n = 20
            case 2: guard i + 4 <= b.count else { return nil }; n = 4 + 4 * (Int(b[i + 2]) << 8 | Int(b[i + 3]))
            case 3, 150: n = 10
            case 248: guard i + 9 <= b.count else { return nil }; n = 9 + Int(b[i + 8])
            default: return nil
            }
            guard i + n <= b.count else { return nil }
            out.append((b[i], Array(b[i..<(i + n)])))
            i += n
        }
        return out
    }

    func testPushedUpdatesWithoutRequestsAndFencesAnswered() throws {
        let t = MemoryTransport()
        let s = Session(spec: "memory", settings: ClientSettings()) { _ in t }
        s.adaptiveQuality = AdaptiveQuality.Pins()
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 64, height: 32))
        XCTAssertTrue(poll(5) { s.state == .ready })
        // the opening: SetPixelFormat, SetEncodings (with -313 and -312), the full request
        XCTAssertTrue(poll(5) { (Self.messages(t.peekAll()) ?? []).contains { $0.0 == 3 } })
        let opening = Self.messages(t.serverReceiveAll()) ?? []
        let encs = try XCTUnwrap(opening.first { $0.0 == 2 }?.1)
        let list = stride(from: 4, to: encs.count, by: 4).map { Int32(bitPattern: UInt32(encs[$0]) << 24 | UInt32(encs[$0 + 1]) << 16 | UInt32(encs[$0 + 2]) << 8 | UInt32(encs[$0 + 3])) }
        XCTAssertTrue(list.contains(-313) && list.contains(-312))
        // what Xvnc does: EndOfContinuousUpdates and a fence request, then the first update
        t.serverSend([150] + [248, 0, 0, 0, 0x80, 0, 0, 0, 2, 7, 9] + FakeServer.rreFill(width: 64, height: 32, pixel: 0x102030))
        XCTAssertTrue(poll(5) { (Self.messages(t.peekAll()) ?? []).contains { $0.0 == 150 } }, "EnableContinuousUpdates sent")
        let after = Self.messages(t.serverReceiveAll()) ?? []
        XCTAssertTrue(after.contains { $0.1 == [248, 0, 0, 0, 0, 0, 0, 0, 2, 7, 9] }, "the fence answered: \(after.map(\.1))")
        XCTAssertTrue(after.contains { $0.1 == [150, 1, 0, 0, 0, 0, 0, 64, 0, 32] }, "enabled for the whole framebuffer")
        // pushed updates: no request goes out for them
        for px: UInt32 in [0x111111, 0x222222, 0x333333] {
            t.serverSend(FakeServer.rreFill(width: 64, height: 32, pixel: px))
        }
        XCTAssertTrue(poll(5) { s.withFramebuffer { $0?.pixels[0] } == 0x333333 })
        // a round-trip fence arrives within a probe interval: echo it
        XCTAssertTrue(poll(3) { (Self.messages(t.peekAll()) ?? []).contains { $0.0 == 248 } }, "a round-trip fence")
        let later = Self.messages(t.serverReceiveAll()) ?? []
        XCTAssertFalse(later.contains { $0.0 == 3 }, "no update request: \(later.map(\.1))")
        let probe = try XCTUnwrap(later.first { $0.0 == 248 }?.1)
        XCTAssertEqual(probe[4] & 0x80, 0x80, "a request")
        t.serverSend([248, 0, 0, 0, 0, 0, 0, 0] + Array(probe[8...]))
        XCTAssertTrue(poll(3) { s.link.roundTrip != nil }, "round trip measured: \(s.link.line)")
        XCTAssertTrue(s.link.continuousUpdates)
        XCTAssertTrue(s.link.adaptive)
        XCTAssertEqual(s.link.counters.requestsWhileContinuous, 0)
    }

    static func encodings(_ m: [UInt8]) -> [Int32] {
        stride(from: 4, to: m.count, by: 4).map { Int32(bitPattern: UInt32(m[$0]) << 24 | UInt32(m[$0 + 1]) << 16 | UInt32(m[$0 + 2]) << 8 | UInt32(m[$0 + 3])) }
    }

    /// Adaptive quality on a lossy setting: once the screen is still, the area updated lossily
    /// is asked for again without JPEG, and the quality comes back once that update is in.
    func testLosslessRefreshWhenTheScreenIsStill() throws {
        let t = MemoryTransport()
        var settings = ClientSettings()
        settings.jpegQuality = 8
        let s = Session(spec: "memory", settings: settings) { _ in t }
        s.adaptiveQuality = AdaptiveQuality.Pins()
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 64, height: 32))
        XCTAssertTrue(poll(5) { (Self.messages(t.peekAll()) ?? []).contains { $0.0 == 3 } })
        _ = t.serverReceiveAll()
        t.serverSend(FakeServer.rreFill(width: 64, height: 32, pixel: 0x445566))
        // the pipelined request as the update began, then (0.3 s later) the refresh
        XCTAssertTrue(poll(3) { (Self.messages(t.peekAll()) ?? []).contains { $0.0 == 3 && $0.1[1] == 0 } }, "a full request")
        let msgs = Self.messages(t.serverReceiveAll()) ?? []
        let set = try XCTUnwrap(msgs.last { $0.0 == 2 }?.1)
        XCTAssertFalse(Self.encodings(set).contains(Encoding.jpegQuality0 + 8), "lossless for the refresh")
        XCTAssertTrue(msgs.contains { $0.1 == [3, 0, 0, 0, 0, 0, 0, 64, 0, 32] }, "\(msgs.map(\.1))")
        t.serverSend(FakeServer.rreFill(width: 64, height: 32, pixel: 0x445566))
        XCTAssertTrue(poll(3) { (Self.messages(t.peekAll()) ?? []).contains { $0.0 == 2 } }, "the quality comes back")
        let back = try XCTUnwrap((Self.messages(t.serverReceiveAll()) ?? []).last { $0.0 == 2 }?.1)
        XCTAssertTrue(Self.encodings(back).contains(Encoding.jpegQuality0 + 8))
    }

    func poll(_ timeout: Double, _ cond: () -> Bool) -> Bool {
        let until = Date(timeIntervalSinceNow: timeout)
        while Date() < until { if cond() { return true }; Thread.sleep(forTimeInterval: 0.02) }
        return cond()
    }
}

extension MemoryTransport {
    /// What the session sent so far, left in place.
    func peekAll() -> [UInt8] { let b = serverReceiveAll(); putBack(b); return b }
}
