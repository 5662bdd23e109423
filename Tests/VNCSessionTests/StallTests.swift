import Foundation
import RFB
@testable import VNCSession
import XCTest

/// A server that stops in the middle of something is given up; one with nothing to send is not.
final class StallTests: XCTestCase {
    typealias Watcher = SessionTests.Watcher

    func session(_ t: MemoryTransport, _ live: LivenessPolicy, reconnect: ReconnectPolicy = ReconnectPolicy()) -> Session {
        let queue = TransportQueue([t])
        return Session(spec: "memory", settings: ClientSettings(), reconnect: reconnect, liveness: live) { _ in
            guard let t = queue.next() else { throw TransportError("no more test transports") }
            return t
        }
    }

    /// Short windows, and no liveness probe to confuse the figures.
    func quickPolicy() -> LivenessPolicy {
        var live = LivenessPolicy()
        live.stallWindow = 1.0
        live.handshakeSilence = 1.0
        live.probeAfter = 60
        return live
    }

    func failure(_ st: Session.State) -> String? {
        switch st {
        case .failed(let r): return r
        case .waiting(let r, _, _): return r
        default: return nil
        }
    }

    /// An update trickling in at about 100 bytes a second is a stall, reported as one.
    func testTricklingUpdateIsGivenUp() throws {
        let t = MemoryTransport()
        let s = session(t, quickPolicy())
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 100, height: 100))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        // one Raw rect of 100x100 (40 000 bytes), sent 10 bytes at a time
        let header: [UInt8] = [0, 0] + FakeServer.be16(1) + FakeServer.be16(0) + FakeServer.be16(0)
            + FakeServer.be16(100) + FakeServer.be16(100) + FakeServer.be32(0)
        t.serverSend(header)
        let started = Date()
        let trickle = Thread {
            while Date().timeIntervalSince(started) < 4, s.state == .ready {
                t.serverSend([UInt8](repeating: 0x55, count: 10))
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        trickle.start()
        XCTAssertTrue(w.wait(5) { _, st in self.failure(st) != nil }, "\(s.state)")
        let reason = failure(s.state) ?? ""
        XCTAssertTrue(reason.contains("stalled in the middle of an update"), reason)
        let took = Date().timeIntervalSince(started)
        XCTAssertTrue(took >= 0.9 && took < 3.5, "given up after \(took) s, window 1 s")
    }

    /// The stall follows the reconnect policy like any dropped connection.
    func testStallIsRetriedWhenThePolicySaysSo() throws {
        let t = MemoryTransport()
        let s = session(t, quickPolicy(), reconnect: ReconnectPolicy(mode: .always))
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 100, height: 100))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        t.serverSend([0, 0] + FakeServer.be16(1) + [0, 0, 0, 0, 0, 100, 0, 100] + FakeServer.be32(0) + [1, 2, 3])
        XCTAssertTrue(w.wait(5) { _, st in if case .waiting = st { return true }; return false }, "\(s.state)")
        XCTAssertTrue((failure(s.state) ?? "").contains("stalled"), "\(s.state)")
    }

    /// A fast update is not a stall, and an idle server (between messages) is not one either,
    /// however long it says nothing.
    func testIdleServerIsNotAStall() throws {
        let t = MemoryTransport()
        let s = session(t, quickPolicy())
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 64, height: 32))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        t.serverSend(FakeServer.rreFill(width: 64, height: 32, pixel: 0x123456))
        XCTAssertTrue(w.wait { ev, _ in ev.contains(.updateEnded(rects: 1)) })
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(s.state, .ready)
    }

    /// A handshake that goes silent is given up after `handshakeSilence`, well before the
    /// whole-handshake timeout.
    func testSilentHandshakeIsGivenUp() throws {
        let t = MemoryTransport()
        let s = session(t, quickPolicy())
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        let started = Date()
        t.serverSend(Array("RFB 003.008\n".utf8))
        XCTAssertNotNil(t.serverReceive(12))
        XCTAssertTrue(w.wait(5) { _, st in self.failure(st) != nil }, "\(s.state)")
        let reason = failure(s.state) ?? ""
        XCTAssertTrue(reason.contains("stopped answering during the handshake"), reason)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    /// Updates already read but not yet decoded are the viewer's work, not the server's
    /// silence: a backlog that takes longer than probeAfter + deadAfter to decode must not be
    /// called a dead connection (a flood of huge fills in one read did that).
    func testBufferedBacklogIsNotADeadLink() throws {
        var live = LivenessPolicy()
        live.probeAfter = 0.1
        live.deadAfter = 0.2
        let t = MemoryTransport()
        let s = session(t, live)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 1024, height: 1024))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        // one read's worth (under 64 KiB) of whole-screen fills, then silence
        let n = 2000
        var batch: [UInt8] = []
        for i in 0..<n { batch += FakeServer.rreFill(width: 1024, height: 1024, pixel: UInt32(i * 40503) & 0xffffff) }
        XCTAssertLessThan(batch.count, 65536)
        let started = Date()
        t.serverSend(batch)
        let done = w.wait(60) { ev, st in
            st != .ready || ev.filter { $0 == .updateEnded(rects: 1) }.count >= n
        }
        let took = Date().timeIntervalSince(started)
        XCTAssertTrue(done)
        XCTAssertEqual(s.state, .ready, "after \(took) s of decoding")
        if took < live.probeAfter + live.deadAfter {
            throw XCTSkip("the backlog took only \(took) s to decode: too fast to show anything here")
        }
    }
}
