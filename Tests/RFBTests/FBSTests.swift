import FarcastTools
import XCTest
@testable import RFB

/// FBS files written and read back, and what a recording keeps of the stream the engine's
/// recording hook gives it.
final class FBSTests: XCTestCase {
    /// The engine's recording hook through what a recording keeps (`RecordingFilter`).
    final class Tap: RecordingObserver {
        var started: [(Int, Int, String)] = []
        var bytes: [UInt8] = []
        lazy var filter = RecordingFilter { [unowned self] in bytes += $0 }
        func recordingStarted(at offset: Int, width: Int, height: Int, name: String, format: PixelFormat) {
            filter.start(at: offset)
            started.append((width, height, name))
        }
        func parsed(_ unit: ServerUnit, from: Int, to: Int) { filter.parsed(unit, from: from, to: to) }
        func consumed(_ b: UnsafeRawBufferPointer, at offset: Int) { filter.consumed(b, at: offset) }
    }

    func fill(_ pixel: UInt32) -> [UInt8] {
        S.update([S.rect(0, 0, 8, 4, 2, be32(0) + px(pixel))])
    }

    /// An update as a recording has it: count unknown, ended by LastRect.
    func recorded(_ update: [UInt8]) -> [UInt8] {
        [0, 0, 0xff, 0xff] + update.dropFirst(4) + [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x20]
    }

    func testBlocksRoundTripWithTheirTimes() throws {
        let file = FBSEncoder.header + FBSEncoder.block([1, 2, 3], ms: 0) + FBSEncoder.block([4, 5, 6, 7, 8], ms: 40)
            + FBSEncoder.block([9], ms: 41) + [0, 0, 0, 9, 1]   // a block cut short: dropped
        let r = try RecordedStream(fbs: file)
        XCTAssertEqual(r.stream, [1, 2, 3, 4, 5, 6, 7, 8, 9])
        XCTAssertEqual(r.blockEnds, [3, 8, 9])
        XCTAssertEqual(r.blockTimes, [0, 40, 41])
        XCTAssertEqual(r.blocks(upTo: 39), 1)
        XCTAssertEqual(r.blocks(upTo: 40), 2)
        XCTAssertEqual(r.blocks(upTo: 1000), 3)
        XCTAssertEqual(r.durationMs, 41)
        XCTAssertThrowsError(try RecordedStream(fbs: Array("RFB 003.008\n".utf8)))
    }

    /// A tap set before ServerInit gets every message byte, whole and drip-fed.
    func testTapFromTheStartGetsEveryMessage() throws {
        let messages = fill(0x112233) + fill(0x445566)
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings()), tap = Tap()
            e.startRecording(tap)
            let all = S.hello() + messages
            if drip { for b in all { try e.feed([b]) } } else { try e.feed(all) }
            XCTAssertEqual(tap.bytes, recorded(fill(0x112233)) + recorded(fill(0x445566)), "drip \(drip)")
            XCTAssertEqual(tap.started.count, 1)
            XCTAssertEqual(tap.started.first?.0, 8)
            // the handshake we write and the tapped messages decode to the same picture
            let copy = ClientEngine(settings: ClientSettings())
            try copy.feed(FBSEncoder.handshake(width: 8, height: 4, format: .native, name: "x") + tap.bytes)
            XCTAssertEqual(copy.framebuffer?.snapshotPixels(), e.framebuffer?.snapshotPixels())
        }
    }

    /// Armed in the middle of an update, the tap starts at the next message, not inside this one.
    func testTapArmedMidMessageStartsAtTheNextBoundary() throws {
        let first = fill(0x112233), second = fill(0x445566)
        let e = ClientEngine(settings: ClientSettings()), tap = Tap()
        try e.feed(S.hello() + Array(first.prefix(9)))
        e.startRecording(tap)
        try e.feed(Array(first.dropFirst(9)) + second)
        XCTAssertEqual(tap.bytes, recorded(second))
        e.stopRecording()
        try e.feed(first)
        XCTAssertEqual(tap.bytes, recorded(second), "nothing after stopRecording")
    }

    /// Clipboard messages (classic and Extended) stay out of a recording; the rest is whole.
    func testTapLeavesClipboardMessagesOut() throws {
        let cut: [UInt8] = [3, 0, 0, 0] + be32(5) + Array("hello".utf8)
        let caps: [UInt8] = [3, 0, 0, 0] + be32(-8 & 0xffff_ffff) + be32(0x0100_0001) + be32(1024)   // Extended Clipboard caps
        let a = fill(0x112233), b = fill(0x445566)
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings()), tap = Tap()
            e.startRecording(tap)
            let all = S.hello() + caps + a + cut + b + cut
            if drip { for x in all { try e.feed([x]) } } else { try e.feed(all) }
            XCTAssertEqual(tap.bytes, recorded(a) + recorded(b), "drip \(drip)")
        }
    }

    /// Pseudo-encodings the reference tools do not know are left out of the recording (the
    /// update's count is unknown, so nothing else changes); the engine itself still saw them.
    func testUnknownPseudoRectsAreLeftOut() throws {
        let mixed = S.update([S.rect(0, 0, 8, 4, -258), S.rect(0, 0, 0, 0, -261, [4]),
                              S.rect(0, 0, 8, 4, 2, be32(0) + px(0x010203)), S.rect(0, 0, 0, 0, -257)])
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings()), tap = Tap()
            e.startRecording(tap)
            let all = S.hello() + mixed + fill(0x040506)
            var events: [EngineEvent] = []
            if drip { for x in all { try e.feed([x]); events += e.takeEvents() } } else { try e.feed(all); events = e.takeEvents() }
            XCTAssertTrue(e.server.supportsQEMUKeyEvents, "the engine itself saw the acknowledgement")
            XCTAssertTrue(events.contains(.lockLights(LockLights(scroll: false, num: false, caps: true))))
            XCTAssertTrue(events.contains(.pointerMode(relative: true)))
            XCTAssertEqual(tap.bytes, recorded(S.update([S.rect(0, 0, 8, 4, 2, be32(0) + px(0x010203))])) + recorded(fill(0x040506)),
                           "drip \(drip)")
            // and the recording decodes to the same picture
            let copy = ClientEngine(settings: ClientSettings())
            try copy.feed(FBSEncoder.handshake(width: 8, height: 4, format: .native, name: "x") + tap.bytes)
            XCTAssertEqual(copy.framebuffer?.snapshotPixels(), e.framebuffer?.snapshotPixels())
        }
    }

    /// A server's own LastRect update passes as it is (no second LastRect).
    func testServersLastRectUpdateIsKept() throws {
        let update = S.update([S.rect(0, 0, 8, 4, 2, be32(0) + px(0x0a0b0c)), S.rect(0, 0, 0, 0, -224)], count: 0xffff)
        let e = ClientEngine(settings: ClientSettings()), tap = Tap()
        e.startRecording(tap)
        try e.feed(S.hello() + update)
        XCTAssertEqual(tap.bytes, update)
    }
}

extension FBSTests {
    /// Armed mid-session, with the kinds of rects Xvnc sends after a full update request.
    func testMidSessionTapWithDroppedRectsDecodes() throws {
        let eds = S.rect(0, 0, 8, 4, -308, [1, 0, 0, 0] + be32(7) + be16(0) + be16(0) + be16(8) + be16(4) + be32(0))
        let alpha = S.rect(1, 1, 2, 2, -314, be32(0) + [UInt8](repeating: 0x80, count: 16))
        let led = S.rect(0, 0, 0, 0, -261, [2])
        let raw = S.rect(0, 0, 8, 4, 0, [UInt8](repeating: 0x40, count: 8 * 4 * 4))
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings()), tap = Tap()
            try e.feed(S.hello() + fill(0x111111))
            e.startRecording(tap)
            let rest = S.update([eds]) + S.update([eds, alpha, led, raw]) + fill(0x222222) + S.update([alpha, raw])
                + S.update([raw, led])
            if drip { for x in rest { try e.feed([x]) } } else { try e.feed(rest) }
            let copy = ClientEngine(settings: ClientSettings())
            XCTAssertNoThrow(try copy.feed(FBSEncoder.handshake(width: 8, height: 4, format: .native, name: "x") + tap.bytes), "drip \(drip)")
            XCTAssertEqual(copy.framebuffer?.snapshotPixels(), e.framebuffer?.snapshotPixels(), "drip \(drip)")
        }
    }
}

extension FBSTests {
    /// QEMU's audio stays out of recordings, like the clipboard.
    func testTapLeavesAudioOut() throws {
        let audio: [UInt8] = [255, 1, 0, 1] + [255, 1, 0, 2] + be32(3) + [9, 9, 9] + [255, 1, 0, 0]
        let a = fill(0x0a0a0a)
        let e = ClientEngine(settings: ClientSettings()), tap = Tap()
        e.startRecording(tap)
        try e.feed(S.hello())
        e.setAudio(enabled: true)
        _ = e.takeOutput()
        try e.feed(audio + a + audio)
        XCTAssertEqual(tap.bytes, recorded(a))
    }
}
