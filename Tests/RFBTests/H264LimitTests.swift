import Foundation
import XCTest
@testable import RFB

/// What one Open H.264 rect or update may make us do, and when H.264 is decoded at all.
final class H264LimitTests: XCTestCase {
    override func setUpWithError() throws { try FFmpeg.require() }
    override class func tearDown() { FFmpeg.cleanUp() }

    /// An IDR then skipped P-frames of a still picture: the cheapest pictures a server can send.
    private func still(frames: Int) throws -> H264Stream {
        try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: frames, name: "still\(frames)",
                          x264: ["-vf", "trim=end_frame=1,loop=loop=-1:size=1", "-x264-params", "keyint=infinite"])
    }

    private func expectError(_ session: [UInt8], settings: ClientSettings = .offeringH264, _ fragment: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try runEngine(session, settings: settings), file: file, line: line) {
            XCTAssertTrue("\($0)".contains(fragment), "\($0)", file: file, line: line)
        }
    }

    func testPicturesPerRectAreCapped() throws {
        let s = try still(frames: 66)
        let r = Rect(x: 0, y: 0, w: 64, h: 48)
        let n = H264Decoder.maxPicturesPerRect
        XCTAssertEqual(n, 64)
        // 64 pictures in a rect: the last one shown
        let fb = Framebuffer(width: 64, height: 48)
        try runDecoder(H264Decoder(), rect: r, bytes: OpenH264.payload(s.joined(0..<n)), fb: fb)
        XCTAssertEqual(fb.snapshotPixels(), s.reference[n - 1])
        // 65: the connection ends, naming the limit; nothing of the rect is shown
        let session = OpenH264.session(width: 64, height: 48, [OpenH264.update([OpenH264.rect(r, s.joined(0..<(n + 1)))])])
        expectError(session, "H.264 rect 64x48+0+0: more than 64 pictures in one rect, the limit (a server sends one a rect; more is work for nothing)")
    }

    func testPicturesPerUpdateAreCapped() throws {
        // two rects of the same context, 64 pictures each: 128 framebuffers of pictures in one
        // update, twice the limit; the same rects in two updates are fine
        let s = try still(frames: 128)
        let r = Rect(x: 0, y: 0, w: 64, h: 48)
        let first = OpenH264.rect(r, s.joined(0..<64)), second = OpenH264.rect(r, s.joined(64..<128))
        let two = try runEngine(OpenH264.session(width: 64, height: 48, [OpenH264.update([first]), OpenH264.update([second])]))
        XCTAssertEqual(try XCTUnwrap(two.framebuffer).snapshotPixels(), s.reference[127])
        expectError(OpenH264.session(width: 64, height: 48, [OpenH264.update([first, second])]),
                    "H.264 rect 64x48+0+0: this update has decoded 64 framebuffers of pictures, the limit of 64 (a server sends each picture once)")
    }

    func testEveryPictureCountsAgainstTheWorkBudget() throws {
        // a budget of 8 rect areas: a rect of 10 pictures spends it, so parsing stops after it
        // with the next update still buffered; a rect of one picture does not
        let s = try still(frames: 12)
        let r = Rect(x: 0, y: 0, w: 64, h: 48)
        for (pictures, stops) in [(10, true), (1, false)] {
            let session = OpenH264.session(width: 64, height: 48, [OpenH264.update([OpenH264.rect(r, s.joined(0..<pictures))]),
                                                                   OpenH264.update([OpenH264.rect(r, s.joined(pictures..<(pictures + 1)))])])
            let e = ClientEngine(settings: .offeringH264)
            e.workBudgetPixels = 8 * r.area
            try e.feed(session)
            XCTAssertEqual(e.hasDeferredWork, stops, "\(pictures) pictures")
            XCTAssertEqual(e.stats.updates, stops ? 1 : 2)
            try e.resume()
            XCTAssertEqual(e.stats.updates, 2)
            XCTAssertEqual(try XCTUnwrap(e.framebuffer).snapshotPixels(), s.reference[pictures])
        }
    }

    func testCancelledBetweenPictures() throws {
        // a session's stop() cancels the engine: a rect of many pictures ends at the next one
        let s = try still(frames: 40)
        let r = Rect(x: 0, y: 0, w: 64, h: 48)
        final class CancelAfter: LibraryProbe {
            var engine: ClientEngine?
            var calls = 0
            func enter(_ library: ProbedLibrary) -> UInt64 {
                calls += 1
                if calls == 3 { engine?.cancellation.cancel() }
                return 0
            }
            func leave(_ library: ProbedLibrary, _ token: UInt64) {}
        }
        let probe = CancelAfter()
        let e = ClientEngine(settings: .offeringH264, probe: probe)
        probe.engine = e
        XCTAssertThrowsError(try e.feed(OpenH264.session(width: 64, height: 48, [OpenH264.update([OpenH264.rect(r, s.joined(0..<40))])]))) {
            XCTAssertEqual("\($0)", "H.264 rect 64x48+0+0: stopped")
        }
        XCTAssertEqual(probe.calls, 3)
        probe.engine = nil
    }

    /// Told when libavcodec runs: whether the framebuffer lock was free then.
    final class LockProbe: LibraryProbe {
        weak var engine: ClientEngine?
        var calls = 0, lockedCalls = 0
        func enter(_ library: ProbedLibrary) -> UInt64 {
            guard library == .avcodec, let fb = engine?.framebuffer else { return 0 }
            calls += 1
            // from this (the decoding) thread: taken alone only if no decoder holds it
            if fb.lock.withReaderLockIfFree({ true }) == nil { lockedCalls += 1 }
            return 0
        }
        func leave(_ library: ProbedLibrary, _ token: UInt64) {}
    }

    func testLibavcodecRunsOutsideTheFramebufferLock() throws {
        let s = try FFmpeg.encode("testsrc2", w: 32, h: 32, frames: 3, name: "unlocked")
        let r = Rect(x: 0, y: 0, w: 32, h: 32)
        let probe = LockProbe()
        let e = ClientEngine(settings: .offeringH264, probe: probe)
        probe.engine = e
        try e.feed(OpenH264.session(width: 32, height: 32, [OpenH264.update([OpenH264.rect(r, s.joined(0..<2))]),
                                                            OpenH264.update([OpenH264.rect(r, s.frames[2])])]))
        XCTAssertEqual(probe.calls, 3)
        XCTAssertEqual(probe.lockedCalls, 0)
        XCTAssertEqual(try XCTUnwrap(e.framebuffer).snapshotPixels(), s.reference[2])
    }

    func testDecodedOnlyWhereOffered() throws {
        let s = try FFmpeg.encode("testsrc2", w: 32, h: 32, frames: 2, name: "offered")
        let r = Rect(x: 0, y: 0, w: 32, h: 32)
        let session = OpenH264.session(width: 32, height: 32, [OpenH264.update([OpenH264.rect(r, s.frames[0])])])
        // lossless (a snapshot without --quality): never offered, refused
        XCTAssertFalse(ClientSettings().encodingList.contains(Encoding.h264))
        expectError(session, settings: ClientSettings(),
                    "server sent a rectangle in h264, which this connection never offered (it is lossy, offered only with a quality or when named in the encodings)")
        // named by the user: offered and decoded, lossless or not
        var named = ClientSettings()
        named.encodings = [Encoding.h264, Encoding.raw]; named.encodingsNamedByUser = true
        XCTAssertEqual(try XCTUnwrap(try runEngine(session, settings: named).framebuffer).snapshotPixels(), s.reference[0])
        // offered once, then a lossless list (the window's lossless refresh): rects already on
        // their way in H.264 still decode
        let e = ClientEngine(settings: .offeringH264)
        try e.feed(OpenH264.session(width: 32, height: 32, []))
        e.changeEncodings(jpegQuality: nil, compressLevel: nil)
        XCTAssertFalse(e.settings.encodingList.contains(Encoding.h264))
        try e.feed(OpenH264.update([OpenH264.rect(r, s.frames[0])]))
        XCTAssertEqual(try XCTUnwrap(e.framebuffer).snapshotPixels(), s.reference[0])
        // a replay decodes what the recorded session negotiated
        var replay = ClientSettings()
        replay.refusesUnoffered = false
        XCTAssertEqual(try XCTUnwrap(try runEngine(session, settings: replay).framebuffer).snapshotPixels(), s.reference[0])
    }
}
