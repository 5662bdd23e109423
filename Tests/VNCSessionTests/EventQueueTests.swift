import Foundation
import RFB
@testable import VNCSession
import XCTest

/// The events waiting for a front end that reads slowly stay within their budget: only the
/// latest cursor (and clipboard text, layout, ...), sound bounded in bytes, a bounded count.
final class EventQueueTests: XCTestCase {
    func cursor(_ n: Int, size: Int = 64) -> EngineEvent {
        .cursor(CursorImage(width: size, height: size, hotX: 0, hotY: 0, argb: [UInt32](repeating: UInt32(n), count: size * size)))
    }

    func testOnlyTheLatestOfAKindWaits() {
        var q = EventQueue()
        q.append([cursor(1), .bell, cursor(2), .cutText("a")])
        q.append([.cutText("b"), cursor(3)])
        XCTAssertEqual(q.take(), [.bell, .cutText("b"), cursor(3)])
        XCTAssertEqual(q.count, 0)
    }

    func testSoundKeepsItsNewestBytes() {
        var q = EventQueue()
        let chunk = 64 * 1024
        for i in 0..<100 { q.append([.audioData([UInt8](repeating: UInt8(i), count: chunk))]) }
        XCTAssertLessThanOrEqual(q.audioBytes, EventQueue.maxAudioBytes)
        let sound = q.take().compactMap { if case .audioData(let d) = $0 { return d.first }; return nil }
        XCTAssertEqual(sound, Array(UInt8(100 - EventQueue.maxAudioBytes / chunk)..<100))
    }

    func testTheCountIsBoundedButQuestionsStay() {
        var q = EventQueue()
        q.append([.ready(name: "x", width: 1, height: 1)])
        for _ in 0..<3 { q.append((0..<EventQueue.maxEvents).flatMap { _ in [EngineEvent.updateBegan, .bell, .updateEnded(rects: 1)] }) }
        XCTAssertLessThanOrEqual(q.count, EventQueue.maxEvents)
        XCTAssertEqual(q.take().first, .ready(name: "x", width: 1, height: 1))
    }

    // MARK: through a session whose front end does not read

    func session(_ t: MemoryTransport) -> Session {
        Session(spec: "memory", settings: ClientSettings()) { _ in t }
    }

    /// Waits until the session has read everything the server sent, and a moment for it to
    /// parse the last read.
    func drained(_ t: MemoryTransport) -> Bool {
        let until = Date(timeIntervalSinceNow: 20)
        while t.unreadByServer > 0 && Date() < until { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.5)
        return t.unreadByServer == 0
    }

    func ready(_ t: MemoryTransport, _ s: Session) -> Bool {
        guard FakeServer.handshakeNone(t, width: 64, height: 64) else { return false }
        let until = Date(timeIntervalSinceNow: 5)
        while s.state != .ready && Date() < until { Thread.sleep(forTimeInterval: 0.01) }
        _ = t.serverReceiveAll()
        return s.state == .ready
    }

    /// 2,000 cursors of 128x128 (64 KiB each decoded) while nobody reads: one waits, the last.
    func testOnlyTheLatestCursorWaitsForASlowFrontEnd() throws {
        let t = MemoryTransport(), s = session(t)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(ready(t, s))
        let row = 16
        var bytes: [UInt8] = []
        for i in 0..<2000 {
            // every pixel the foreground colour, which tells the cursors apart
            let ones = [UInt8](repeating: 0xff, count: row * 128)
            bytes += [0, 0] + FakeServer.be16(1) + FakeServer.be16(0) + FakeServer.be16(0) + FakeServer.be16(128) + FakeServer.be16(128)
                + FakeServer.be32(-240 & 0xffff_ffff) + [UInt8(i & 0xff), UInt8(i >> 8), 0, 0, 0, 0] + ones + ones
        }
        t.serverSend(bytes)
        XCTAssertTrue(drained(t))
        let cursors = s.takeEvents().compactMap { if case .cursor(let c) = $0 { return c }; return nil }
        XCTAssertEqual(cursors.count, 1)
        XCTAssertEqual(cursors.last?.argb.first, 0xff00_0000 | UInt32(1999 & 0xff) << 16 | UInt32(1999 >> 8) << 8)
    }

    /// Sound asked for, then 200 chunks of 64 KiB (12.5 MiB) while nobody reads: at most
    /// `maxAudioBytes` wait, the newest.
    func testQueuedSoundIsBoundedInBytes() throws {
        let t = MemoryTransport(), s = session(t)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(ready(t, s))
        s.setAudio(true)
        XCTAssertNotNil(t.serverReceive(14), "enable sent")
        let chunk = 64 * 1024
        var bytes: [UInt8] = [255, 1, 0, 1]
        for i in 0..<200 { bytes += [255, 1, 0, 2] + FakeServer.be32(chunk) + [UInt8](repeating: UInt8(i), count: chunk) }
        t.serverSend(bytes)
        XCTAssertTrue(drained(t))
        let sound = s.takeEvents().compactMap { if case .audioData(let d) = $0 { return d }; return nil }
        XCTAssertLessThanOrEqual(sound.reduce(0) { $0 + $1.count }, EventQueue.maxAudioBytes)
        XCTAssertEqual(sound.last?.first, 199)
    }

    /// Sound never asked for ends the connection, saying why.
    func testUnaskedSoundEndsTheConnection() throws {
        let t = MemoryTransport(), s = session(t)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(ready(t, s))
        t.serverSend([255, 1, 0, 2] + FakeServer.be32(4) + [1, 2, 3, 4])
        let until = Date(timeIntervalSinceNow: 5)
        while Date() < until { if case .failed = s.state { break }; Thread.sleep(forTimeInterval: 0.01) }
        guard case .failed(let why) = s.state else { return XCTFail("\(s.state)") }
        XCTAssertTrue(why.contains("never asked for sound"), why)
    }
}
