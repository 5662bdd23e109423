import XCTest
@testable import RFB

/// FBS files written and read back, and the engine's message tap that recordings use.
final class FBSTests: XCTestCase {
    final class Tap: MessageTap {
        var started: [(Int, Int, String)] = []
        var bytes: [UInt8] = []
        func tapStarted(width: Int, height: Int, name: String, format: PixelFormat) { started.append((width, height, name)) }
        func tapped(_ b: UnsafeRawBufferPointer) { bytes += b }
    }

    func fill(_ pixel: UInt32) -> [UInt8] {
        S.update([S.rect(0, 0, 8, 4, 2, be32(0) + px(pixel))])
    }

    func testBlocksRoundTripWithTheirTimes() throws {
        let file = FBSEncoder.header + FBSEncoder.block([1, 2, 3], ms: 0) + FBSEncoder.block([4, 5, 6, 7, 8], ms: 40)
            + FBSEncoder.block([9], ms: 41) + [0, 0, 0, 9, 1]   // a block cut short: dropped
        let r = try FBSRecording(bytes: file)
        XCTAssertEqual(r.stream, [1, 2, 3, 4, 5, 6, 7, 8, 9])
        XCTAssertEqual(r.blockEnds, [3, 8, 9])
        XCTAssertEqual(r.blockTimes, [0, 40, 41])
        XCTAssertEqual(r.blocks(upTo: 39), 1)
        XCTAssertEqual(r.blocks(upTo: 40), 2)
        XCTAssertEqual(r.blocks(upTo: 1000), 3)
        XCTAssertEqual(r.durationMs, 41)
        XCTAssertThrowsError(try FBSRecording(bytes: Array("RFB 003.008\n".utf8)))
    }

    /// A tap set before ServerInit gets every message byte, whole and drip-fed.
    func testTapFromTheStartGetsEveryMessage() throws {
        let messages = fill(0x112233) + fill(0x445566)
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings()), tap = Tap()
            e.startTap(tap)
            let all = S.hello() + messages
            if drip { for b in all { try e.feed([b]) } } else { try e.feed(all) }
            XCTAssertEqual(tap.bytes, messages, "drip \(drip)")
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
        e.startTap(tap)
        try e.feed(Array(first.dropFirst(9)) + second)
        XCTAssertEqual(tap.bytes, second)
        e.stopTap()
        try e.feed(first)
        XCTAssertEqual(tap.bytes, second, "nothing after stopTap")
    }

    /// Clipboard messages (classic and Extended) stay out of a recording; the rest is whole.
    func testTapLeavesClipboardMessagesOut() throws {
        let cut: [UInt8] = [3, 0, 0, 0] + be32(5) + Array("hello".utf8)
        let caps: [UInt8] = [3, 0, 0, 0] + be32(-8 & 0xffff_ffff) + be32(0x0100_0001) + be32(1024)   // Extended Clipboard caps
        let a = fill(0x112233), b = fill(0x445566)
        for drip in [false, true] {
            let e = ClientEngine(settings: ClientSettings()), tap = Tap()
            e.startTap(tap)
            let all = S.hello() + caps + a + cut + b + cut
            if drip { for x in all { try e.feed([x]) } } else { try e.feed(all) }
            XCTAssertEqual(tap.bytes, a + b, "drip \(drip)")
        }
    }

    /// Capability acknowledgements are recorded as a no-op Raw 0x0 rect of the same length.
    func testAcknowledgementRectsAreNeutralInTheRecording() throws {
        let ack = S.update([S.rect(0, 0, 8, 4, -258)])
        let e = ClientEngine(settings: ClientSettings()), tap = Tap()
        e.startTap(tap)
        try e.feed(S.hello() + ack + fill(0x010203))
        XCTAssertTrue(e.qemuKeyEvents, "the engine itself saw the acknowledgement")
        XCTAssertEqual(tap.bytes, S.update([S.rect(0, 0, 0, 0, 0)]) + fill(0x010203))
    }
}
