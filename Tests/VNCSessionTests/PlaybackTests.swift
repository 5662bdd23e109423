import FarcastTools
import Foundation
import RFB
@testable import VNCSession
import XCTest

/// Recording a session and playing recordings back: pause, speed, seek, pacing.
final class PlaybackTests: XCTestCase {
    typealias Watcher = SessionTests.Watcher

    final class FakeNow: @unchecked Sendable {
        private let lock = NSLock()
        private var t = 100.0
        var now: Double { lock.withLock { t } }
        func advance(_ s: Double) { lock.withLock { t += s } }
    }

    /// 8x4 desktop; at 100 ms steps a fill of colour 1, 2, ... `count`.
    static func recording(count: Int, stepMs: UInt32 = 100) throws -> RecordedStream {
        var file = FBSEncoder.header + FBSEncoder.block(FBSEncoder.handshake(width: 8, height: 4, format: .native, name: "rec"), ms: 0)
        for i in 1...count {
            file += FBSEncoder.block(FakeServer.rreFill(width: 8, height: 4, pixel: UInt32(i)), ms: UInt32(i) * stepMs)
        }
        return try RecordedStream(fbs: file)
    }

    func pixel(_ s: Session) -> UInt32? { s.withFramebuffer { $0?.pixels[0] } }

    func testClockPausesSpeedsAndSeeks() {
        let t = FakeNow()
        let c = PlaybackClock(now: { t.now })
        t.advance(1)
        XCTAssertEqual(c.position, 1000, accuracy: 0.001)
        c.setSpeed(2); t.advance(1)
        XCTAssertEqual(c.position, 3000, accuracy: 0.001)
        c.setPaused(true); t.advance(5)
        XCTAssertEqual(c.position, 3000, accuracy: 0.001)
        XCTAssertEqual(c.secondsUntil(4000), .infinity)
        c.setPaused(false)
        XCTAssertEqual(c.secondsUntil(4000), 0.5, accuracy: 0.001)
        c.seek(toMs: 250); c.setSpeed(0.25); t.advance(1)
        XCTAssertEqual(c.position, 500, accuracy: 0.001)
        c.setSpeed(100)
        XCTAssertEqual(c.speed, 8, "clamped to 8x")
    }

    /// A seek shows exactly the frame a straight decode reaches at that time, forwards and back.
    func testSeekShowsTheFrameOfThatTime() throws {
        let t = FakeNow()
        let p = Player(recording: try Self.recording(count: 10), name: "rec", clock: PlaybackClock(now: { t.now }))
        p.clock.setPaused(true)
        let w = Watcher(p.session)
        p.session.start()
        defer { p.session.stop(); p.session.waitUntilStopped(timeout: 2) }
        for (ms, colour) in [(450.0, UInt32(4)), (50, 0), (1000, 10), (120, 1), (999, 9)] {
            p.seek(toMs: ms)
            XCTAssertTrue(w.wait { _, st in st == .ready && self.pixel(p.session) == colour }, "at \(ms) ms: \(String(describing: pixel(p.session)))")
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertEqual(pixel(p.session), colour, "paused at \(ms) ms nothing more arrives")
        }
    }

    /// Speed and pause with a fake clock: what is shown follows the media time.
    func testSpeedAndPauseFollowTheClock() throws {
        let t = FakeNow()
        let p = Player(recording: try Self.recording(count: 10), name: "rec", clock: PlaybackClock(now: { t.now }))
        let w = Watcher(p.session)
        p.session.start()
        defer { p.session.stop(); p.session.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(w.wait { _, st in st == .ready })
        p.clock.setSpeed(4)
        t.advance(0.1)                                      // 400 ms of media
        XCTAssertTrue(w.wait { _, _ in self.pixel(p.session) == 4 })
        p.setPaused(true)
        t.advance(10)
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertEqual(pixel(p.session), 4, "paused")
        p.setPaused(false)
        t.advance(0.15)                                     // 600 more at 4x: 1000
        XCTAssertTrue(w.wait { _, _ in self.pixel(p.session) == 10 })
        p.tick()
        XCTAssertTrue(p.paused, "held at the end")
        p.loop = true; p.setPaused(false)                   // from the start again
        XCTAssertTrue(w.wait { _, _ in self.pixel(p.session) == 0 || self.pixel(p.session) == 1 })
    }

    /// Real time at 1x: each update is shown within 50 ms of its recorded time (taken on the
    /// session thread as it publishes, so the test thread's scheduling does not count).
    func testPacingFollowsTheRecordedTimes() throws {
        final class Seen: @unchecked Sendable {
            let lock = NSLock(); var at: [UInt32: Double] = [:]
        }
        let p = Player(recording: try Self.recording(count: 6), name: "rec")
        let s = p.session, seen = Seen()
        let start = monotonicSeconds()
        p.clock.seek(toMs: 0)
        s.wake = { [s] in
            let now = monotonicSeconds()
            guard let v = s.withFramebuffer({ $0?.pixels[0] }), v > 0 else { return }
            seen.lock.withLock { if seen.at[v] == nil { seen.at[v] = now - start } }
        }
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        // on a loaded machine two updates can land in one read (the first is then never shown
        // on its own): every update that is shown must be on time, and most must be shown
        _ = poll(2) { seen.lock.withLock { seen.at.count } == 6 }
        XCTAssertGreaterThanOrEqual(seen.lock.withLock { seen.at.count }, 4, "\(seen.lock.withLock { seen.at })")
        for (v, at) in seen.lock.withLock({ seen.at }) {
            XCTAssertEqual(at, Double(v) * 0.1, accuracy: 0.05, "update \(v) shown at \(at) s")
        }
    }

    func poll(_ timeout: Double, _ cond: () -> Bool) -> Bool {
        let until = monotonicSeconds() + timeout
        while monotonicSeconds() < until { if cond() { return true }; usleep(5000) }
        return cond()
    }

    /// A live session recorded to a file decodes, through a fresh engine, to what the session showed.
    func testRecordedSessionDecodesToTheSamePicture() throws {
        let t = MemoryTransport()
        let s = Session(spec: "memory", settings: ClientSettings()) { _ in t }
        let path = NSTemporaryDirectory() + "farcast-rec-\(UUID().uuidString.prefix(6)).fbs"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rec = SessionRecorder(path: path, fileDescriptor: try PrivateFile.create(path, replacingRegularFile: true))
        defer { rec.close() }
        s.startRecording(rec)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 64, height: 32))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        for v in [0x102030, 0x405060] as [UInt32] {
            t.serverSend(FakeServer.rreFill(width: 64, height: 32, pixel: v))
            XCTAssertTrue(w.wait { _, _ in self.pixel(s) == v })
        }
        s.stopRecording()
        XCTAssertGreaterThan(rec.bytes, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        let r = try RecordedStream(fbs: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(r.stream)
        XCTAssertEqual(e.framebuffer?.pixels[64 * 32 - 1], 0x405060)
        XCTAssertEqual(e.server.name, "fake")
    }
}

extension PlaybackTests {
    /// A recording with a size limit stops at the block that would cross it: the file stays
    /// within the limit, holds whole blocks (it plays to that point), and `onStop` says so once.
    func testRecordingStopsAtItsSizeLimit() throws {
        let t = MemoryTransport()
        let s = Session(spec: "memory", settings: ClientSettings()) { _ in t }
        let path = NSTemporaryDirectory() + "farcast-cap-\(UUID().uuidString.prefix(6)).fbs"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let limit = 20_000
        let rec = SessionRecorder(path: path, fileDescriptor: try PrivateFile.create(path, replacingRegularFile: true), maxBytes: limit)
        final class Count: @unchecked Sendable { let lock = NSLock(); var n = 0 }
        let stops = Count()
        rec.onStop = { stops.lock.withLock { stops.n += 1 } }
        s.startRecording(rec)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 64, height: 32))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        // raw 64x32 updates, 8 KiB each: the third would cross 20 000 bytes
        for v in 1...5 as ClosedRange<UInt32> {
            var update: [UInt8] = [0, 0, 0, 1] + FakeServer.be16(0) + FakeServer.be16(0) + FakeServer.be16(64) + FakeServer.be16(32) + FakeServer.be32(0)
            for _ in 0..<(64 * 32) { update += [UInt8(v), 0, 0, 0] }
            t.serverSend(update)
            XCTAssertTrue(w.wait { _, _ in self.pixel(s) == v })
        }
        XCTAssertTrue(rec.limitReached)
        XCTAssertTrue(rec.stopped)
        XCTAssertNil(rec.failure)
        XCTAssertEqual(stops.lock.withLock { stops.n }, 1, "onStop once")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertLessThanOrEqual(size, limit)
        XCTAssertEqual(size, rec.fileBytes)
        XCTAssertGreaterThan(size, 8192, "the first update is in")
        let r = try RecordedStream(fbs: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let e = ClientEngine(settings: ClientSettings())
        XCTAssertNoThrow(try e.feed(r.stream))
        XCTAssertEqual(e.framebuffer?.pixels[0], 2, "whole blocks: it plays to the second update")
        s.stopRecording()

        XCTAssertEqual(RecordingLimit.parseSize("200M"), 200 << 20)
        XCTAssertEqual(RecordingLimit.parseSize("2G"), 2 << 30)
        XCTAssertEqual(RecordingLimit.parseSize("512KiB"), 512 << 10)
        XCTAssertEqual(RecordingLimit.parseSize("1 MB"), 1 << 20)
        XCTAssertEqual(RecordingLimit.parseSize("65536"), 65536)
        XCTAssertEqual(RecordingLimit.sizeText(2 << 20), "2 MiB")
        XCTAssertEqual(RecordingLimit.sizeText(1 << 30), "1 GiB")
        XCTAssertEqual(RecordingLimit.sizeText(1536 << 10), "1536 KiB")
        for bad in ["", "M", "-1G", "0", "1.5G", "ten", "99999999999999999999G"] { XCTAssertNil(RecordingLimit.parseSize(bad), bad) }
    }

    /// Recording started mid-session, with an update of ExtendedDesktopSize alone arriving in
    /// pieces (as Xvnc sends after a full update request).
    func testMidSessionRecordingDecodes() throws {
        let t = MemoryTransport()
        let s = Session(spec: "memory", settings: ClientSettings()) { _ in t }
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 8, height: 4))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        // an update ended by the server's LastRect before the recording starts
        t.serverSend([0, 0, 0xff, 0xff] + Array(FakeServer.rreFill(width: 8, height: 4, pixel: 1).dropFirst(4))
                     + [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x20])
        XCTAssertTrue(w.wait { _, _ in self.pixel(s) == 1 })
        let path = NSTemporaryDirectory() + "farcast-mid-\(UUID().uuidString.prefix(6)).fbs"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rec = SessionRecorder(path: path, fileDescriptor: try PrivateFile.create(path, replacingRegularFile: true))
        defer { rec.close() }
        s.startRecording(rec)
        Thread.sleep(forTimeInterval: 0.2)
        let eds: [UInt8] = FakeServer.be16(0) + FakeServer.be16(0) + FakeServer.be16(8) + FakeServer.be16(4) + FakeServer.be32(-308 & 0xffff_ffff)
            + [1, 0, 0, 0] + FakeServer.be32(7) + FakeServer.be16(0) + FakeServer.be16(0) + FakeServer.be16(8) + FakeServer.be16(4) + FakeServer.be32(0)
        for piece in [[0], [0, 0, 1], eds] as [[UInt8]] { t.serverSend(piece); Thread.sleep(forTimeInterval: 0.05) }
        t.serverSend(FakeServer.rreFill(width: 8, height: 4, pixel: 2))
        XCTAssertTrue(w.wait { _, _ in self.pixel(s) == 2 })
        s.stopRecording()
        let r = try RecordedStream(fbs: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let e = ClientEngine(settings: ClientSettings())
        XCTAssertNoThrow(try e.feed(r.stream), "\(r.blockEnds)")
        XCTAssertEqual(e.framebuffer?.pixels[0], 2)
    }
}
