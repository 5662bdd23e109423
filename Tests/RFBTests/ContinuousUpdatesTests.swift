import XCTest
@testable import RFB

/// ContinuousUpdates and Fence: byte vectors, whole and drip-fed.
final class ContinuousUpdatesTests: XCTestCase {
    static let eocu: [UInt8] = [150]
    static func fence(_ flags: UInt32, _ payload: [UInt8]) -> [UInt8] {
        [248, 0, 0, 0] + be32(Int(flags)) + [UInt8(payload.count)] + payload
    }
    /// One raw 1x1 rect at (x, 0) in the native format (BGRX little-endian).
    static func raw32(_ x: Int, _ v: UInt32) -> [UInt8] { S.update([S.rect(x, 0, 1, 1, Encoding.raw, px(v))]) }
    /// The same in rgb565 (little-endian, 16 bpp).
    static func raw16(_ x: Int, _ v: UInt16) -> [UInt8] { S.update([S.rect(x, 0, 1, 1, Encoding.raw, [UInt8(v & 0xff), UInt8(v >> 8)])]) }

    /// Feeds `chunks` in order (each whole, or one byte at a time), calling `between` after
    /// each chunk; resumes parsing paused on a fence. Returns engine, events, everything sent.
    func drive(_ chunks: [[UInt8]], drip: Bool, between: (Int, ClientEngine) -> Void = { _, _ in })
        throws -> (ClientEngine, [EngineEvent], [UInt8]) {
        let e = ClientEngine(settings: ClientSettings())
        var ev: [EngineEvent] = [], out: [UInt8] = []
        for (i, c) in chunks.enumerated() {
            if drip { for b in c { try e.feed([b]); while e.hasDeferredWork { out += e.takeOutput(); try e.resume() } } }
            else { try e.feed(c); while e.hasDeferredWork { out += e.takeOutput(); try e.resume() } }
            ev += e.takeEvents()
            out += e.takeOutput()
            between(i, e)
            ev += e.takeEvents()
            out += e.takeOutput()
        }
        return (e, ev, out)
    }

    func bothWays(_ chunks: [[UInt8]], between: (Int, ClientEngine) -> Void = { _, _ in },
                  file: StaticString = #filePath, line: UInt = #line) throws -> (ClientEngine, [EngineEvent], [UInt8]) {
        let whole = try drive(chunks, drip: false, between: between)
        let drip = try drive(chunks, drip: true, between: between)
        XCTAssertEqual(whole.1, drip.1, "drip-fed events differ", file: file, line: line)
        XCTAssertEqual(whole.2, drip.2, "drip-fed output differs", file: file, line: line)
        XCTAssertEqual(whole.0.framebuffer?.snapshotPixels(), drip.0.framebuffer?.snapshotPixels(), file: file, line: line)
        return whole
    }

    func contains(_ out: [UInt8], _ msg: [UInt8]) -> Bool {
        guard out.count >= msg.count else { return false }
        for i in 0...(out.count - msg.count) where Array(out[i..<(i + msg.count)]) == msg { return true }
        return false
    }

    func testBothPseudoEncodingsAreOffered() {
        let l = ClientSettings().encodingList
        XCTAssertTrue(l.contains(-313) && l.contains(-312))
        var s = ClientSettings(); s.wantContinuousUpdates = false
        XCTAssertFalse(s.encodingList.contains(-313) || s.encodingList.contains(-312))
    }

    func testClientMessagesBytes() {
        XCTAssertEqual(ClientMessage.enableContinuousUpdates(true, Rect(x: 1, y: 2, w: 640, h: 480)),
                       [150, 1, 0, 1, 0, 2, 2, 128, 1, 224])
        XCTAssertEqual(ClientMessage.fence(flags: 0x8000_0003, payload: [9, 8]), [248, 0, 0, 0, 0x80, 0, 0, 3, 2, 9, 8])
    }

    func testFenceRequestIsAnsweredAtOnceWithSupportedFlags() throws {
        // Request | BlockBefore | SyncNext | an unknown bit: the answer keeps BlockBefore only
        let (e, _, out) = try bothWays([S.hello(), Self.fence(0x8000_0105, [1, 2, 3])])
        XCTAssertEqual(Array(out.suffix(12)), ClientMessage.fence(flags: 1, payload: [1, 2, 3]))
        XCTAssertTrue(e.server.supportsFence)
        XCTAssertEqual(e.counters.fencesAnswered, 1)
    }

    func testOversizedFenceIsAProtocolError() {
        let e = ClientEngine(settings: ClientSettings())
        XCTAssertThrowsError(try e.feed(S.hello() + [248, 0, 0, 0, 0x80, 0, 0, 0, 65] + [UInt8](repeating: 0, count: 65))) {
            XCTAssertTrue("\($0)".contains("at most 64"), "\($0)")
        }
        XCTAssertEqual(e.phase, .failed)
    }

    func testBlockAfterPausesParsingUntilTheAnswerIsTaken() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        _ = e.takeOutput()
        try e.feed(Self.fence(0x8000_0002, [7]) + Self.raw32(0, 0x112233))
        XCTAssertTrue(e.hasDeferredWork, "the update waits for the answer to go out")
        XCTAssertEqual(e.takeOutput(), ClientMessage.fence(flags: 2, payload: [7]))
        XCTAssertEqual(e.stats.updates, 0)
        try e.resume()
        XCTAssertEqual(e.stats.updates, 1)
    }

    func testContinuousUpdatesEnabledAfterFirstUpdateAndNoRequestsAfter() throws {
        let chunks = [S.hello(w: 8, h: 4) + Self.eocu, Self.raw32(0, 0xff0000), Self.raw32(1, 0x00ff00), Self.raw32(2, 0x0000ff)]
        let (e, ev, out) = try bothWays(chunks)
        XCTAssertTrue(e.continuousUpdatesActive)
        XCTAssertTrue(ev.contains(.continuousUpdates(enabled: true)))
        XCTAssertTrue(contains(out, ClientMessage.enableContinuousUpdates(true, Rect(x: 0, y: 0, w: 8, h: 4))))
        // the handshake's full request and the one pipelined as the first update began; none after
        XCTAssertEqual(e.counters.requests, 2)
        XCTAssertEqual(e.counters.requestsWhileContinuous, 0)
        XCTAssertEqual(e.framebuffer?.snapshotPixels()[2], 0x0000ff)
    }

    func testWithoutContinuousUpdatesEveryUpdateRequestsTheNext() throws {
        let (e, _, _) = try bothWays([S.hello(), Self.raw32(0, 1), Self.raw32(0, 2), Self.raw32(0, 3)])
        XCTAssertFalse(e.continuousUpdatesActive)
        XCTAssertEqual(e.counters.requests, 4)
    }

    func testRegionFollowsADesktopResize() throws {
        let resize = S.update([S.rect(0, 0, 16, 8, Encoding.desktopSize)])
        let (_, _, out) = try bothWays([S.hello(w: 8, h: 4) + Self.eocu, Self.raw32(0, 1), resize])
        XCTAssertEqual(Array(out.suffix(10)), ClientMessage.enableContinuousUpdates(true, Rect(x: 0, y: 0, w: 16, h: 8)))
    }

    func testUnaskedEndOfContinuousUpdatesFallsBackToRequests() throws {
        let (e, ev, out) = try bothWays([S.hello() + Self.eocu, Self.raw32(0, 1), Self.eocu])
        XCTAssertFalse(e.continuousUpdatesActive)
        XCTAssertTrue(ev.contains(.continuousUpdates(enabled: false)))
        XCTAssertEqual(Array(out.suffix(10)), ClientMessage.updateRequest(incremental: true, Rect(x: 0, y: 0, w: 8, h: 4)))
    }

    /// With continuous updates: disable, SetPixelFormat, enable; rects before the server's
    /// EndOfContinuousUpdates are 32 bpp, after it 16 bpp.
    func testPixelFormatChangeWithContinuousUpdates() throws {
        let chunks = [S.hello() + Self.eocu, Self.raw32(0, 0x010203),
                      Self.raw32(1, 0xff0000) + Self.eocu + Self.raw16(2, 0xf800)]
        let (e, ev, out) = try bothWays(chunks) { i, e in if i == 1 { e.changePixelFormat(.rgb565) } }
        let fb = Rect(x: 0, y: 0, w: 8, h: 4)
        let seq = ClientMessage.enableContinuousUpdates(false, fb) + ClientMessage.setPixelFormat(.rgb565)
            + ClientMessage.enableContinuousUpdates(true, fb)
        XCTAssertTrue(contains(out, seq))
        XCTAssertTrue(ev.contains(.pixelFormatChanged(.rgb565)))
        let p = try XCTUnwrap(e.framebuffer?.snapshotPixels())
        XCTAssertEqual(p[1], 0xff0000, "decoded in the old format")
        XCTAssertEqual(p[2] & 0xf80000, 0xf80000, "decoded in the new format")
        XCTAssertEqual(e.pixelFormat, .rgb565)
    }

    /// Request path without fences (QEMU, x11vnc): the next update does not pipeline a request,
    /// and when it ends SetPixelFormat goes out before the next request.
    func testPixelFormatChangeOnTheRequestPath() throws {
        let chunks = [S.hello(), Self.raw32(0, 0x010203), Self.raw32(1, 0xff0000), Self.raw16(2, 0x07e0)]
        let (e, _, out) = try bothWays(chunks) { i, e in if i == 1 { e.changePixelFormat(.rgb565) } }
        let fb = Rect(x: 0, y: 0, w: 8, h: 4)
        XCTAssertTrue(contains(out, ClientMessage.setPixelFormat(.rgb565) + ClientMessage.updateRequest(incremental: true, fb)))
        let p = try XCTUnwrap(e.framebuffer?.snapshotPixels())
        XCTAssertEqual(p[1], 0xff0000)
        XCTAssertEqual(p[2] & 0x00fc00, 0x00fc00)
    }

    /// Fences without continuous updates: a SyncNext fence before SetPixelFormat; its answer
    /// marks the switch.
    func testPixelFormatChangeMarkedByAFence() throws {
        let answer = Self.fence(0x0000_0005, [FlowControl.formatFenceTag])
        let chunks = [S.hello() + Self.fence(0x8000_0000, []), Self.raw32(0, 1),
                      Self.raw32(1, 0xff0000) + answer + Self.raw16(2, 0x001f)]
        let (e, _, out) = try bothWays(chunks) { i, e in if i == 1 { e.changePixelFormat(.rgb565) } }
        XCTAssertTrue(contains(out, ClientMessage.fence(flags: 0x8000_0005, payload: [FlowControl.formatFenceTag])
                                 + ClientMessage.setPixelFormat(.rgb565)))
        let p = try XCTUnwrap(e.framebuffer?.snapshotPixels())
        XCTAssertEqual(p[1], 0xff0000)
        XCTAssertEqual(p[2] & 0x0000f8, 0x0000f8)
    }

    func testRoundTripFence() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        XCTAssertFalse(e.sendRoundTripFence([1]), "no fence before the server shows it has them")
        try e.feed(Self.fence(0x8000_0000, []))
        _ = e.takeOutput()
        XCTAssertTrue(e.sendRoundTripFence([0, 0, 0, 5]))
        XCTAssertEqual(e.takeOutput(), ClientMessage.fence(flags: 0x8000_0001, payload: [0x52, 0, 0, 0, 5]))
        _ = e.takeEvents()
        try e.feed(Self.fence(1, [0x52, 0, 0, 0, 5]))
        XCTAssertEqual(e.takeEvents(), [.fenceReturned([0x52, 0, 0, 0, 5])])
    }

    func testQualityChangeSendsSetEncodings() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        _ = e.takeOutput()
        e.changeEncodings(jpegQuality: 5, compressLevel: 2)
        let out = e.takeOutput()
        XCTAssertEqual(out, ClientMessage.setEncodings(e.settings.encodingList))
        XCTAssertTrue(e.settings.encodingList.contains(Encoding.jpegQuality0 + 5))
    }
}
