import XCTest
@testable import RFB

/// ExtendedDesktopSize rectangles (every reason and status, bad layouts) and SetDesktopSize.
final class ExtendedDesktopSizeTests: XCTestCase {

    /// One screen entry: id u32, x y w h u16, flags u32.
    func screen(_ id: Int, _ x: Int, _ y: Int, _ w: Int, _ h: Int, flags: Int = 0) -> [UInt8] {
        be32(id) + be16(x) + be16(y) + be16(w) + be16(h) + be32(flags)
    }
    /// An ExtendedDesktopSize rect: reason in x, status in y.
    func eds(reason: Int, status: Int = 0, _ w: Int, _ h: Int, _ screens: [[UInt8]], count: Int? = nil) -> [UInt8] {
        S.rect(reason, status, w, h, Encoding.extendedDesktopSize, [UInt8(count ?? screens.count), 0, 0, 0] + screens.flatMap { $0 })
    }

    /// Feeds whole and one byte at a time; events, pixels and output must agree.
    @discardableResult
    func run(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> (ClientEngine, [EngineEvent]) {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(bytes)
        let ev = e.takeEvents()
        let d = ClientEngine(settings: ClientSettings())
        var dev: [EngineEvent] = []
        for b in bytes { try d.feed([b]); dev += d.takeEvents() }
        XCTAssertEqual(ev, dev, "drip-fed events differ", file: file, line: line)
        XCTAssertEqual(e.pendingOutput, d.pendingOutput, "drip-fed output differs", file: file, line: line)
        XCTAssertEqual(e.server.screenLayout, d.server.screenLayout, file: file, line: line)
        return (e, ev)
    }

    func assertFails(_ bytes: [UInt8], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        let e = ClientEngine(settings: ClientSettings())
        XCTAssertThrowsError(try e.feed(bytes), file: file, line: line) { err in
            XCTAssertTrue(err is ProtocolError, file: file, line: line)
            XCTAssertTrue("\(err)".contains(fragment), "error '\(err)' lacks '\(fragment)'", file: file, line: line)
        }
        XCTAssertEqual(e.phase, .failed, file: file, line: line)
        let d = ClientEngine(settings: ClientSettings())
        var message = ""
        for b in bytes { do { try d.feed([b]) } catch { message = "\(error)"; break } }
        XCTAssertTrue(message.contains(fragment), "drip-fed: '\(message)' lacks '\(fragment)'", file: file, line: line)
    }

    func testAdvertisedByDefault() {
        XCTAssertTrue(ClientSettings().encodingList.contains(Encoding.extendedDesktopSize))
        XCTAssertTrue(ClientSettings().encodingList.contains(Encoding.desktopSize))
        var s = ClientSettings()
        s.wantExtendedDesktopSize = false
        XCTAssertFalse(s.encodingList.contains(Encoding.extendedDesktopSize))
    }

    func testServerAnnouncesTwoScreens() throws {
        let (e, ev) = try run(S.hello(w: 8, h: 4) + S.update([eds(reason: 0, 20, 10, [screen(1, 0, 0, 10, 10), screen(7, 10, 2, 10, 8, flags: 5)])]))
        let layout = ScreenLayout(width: 20, height: 10, screens: [Screen(id: 1, x: 0, y: 0, width: 10, height: 10),
                                                                   Screen(id: 7, x: 10, y: 2, width: 10, height: 8, flags: 5)])
        XCTAssertEqual(Array(ev.suffix(4)), [.updateBegan, .resized(width: 20, height: 10),
                                             .screenLayout(layout, reason: .server), .updateEnded(rects: 1)])
        XCTAssertEqual(e.server.screenLayout, layout)
        XCTAssertTrue(e.server.supportsSetDesktopSize)
        XCTAssertEqual(e.framebuffer?.width, 20)
    }

    func testSameSizeLayoutChangeDoesNotResize() throws {
        let (_, ev) = try run(S.hello(w: 8, h: 4) + S.update([eds(reason: 0, 8, 4, [screen(0, 0, 0, 8, 4)]),
                                                               eds(reason: 2, 8, 4, [screen(0, 0, 0, 4, 4), screen(1, 4, 0, 4, 4)])]))
        XCTAssertFalse(ev.contains { if case .resized = $0 { return true } else { return false } })
        XCTAssertEqual(ev.last { if case .screenLayout = $0 { return true } else { return false } },
                       .screenLayout(ScreenLayout(width: 8, height: 4, screens: [Screen(id: 0, x: 0, y: 0, width: 4, height: 4),
                                                                                 Screen(id: 1, x: 4, y: 0, width: 4, height: 4)]),
                                     reason: .otherClient))
    }

    func testReplyToOurRequestEveryStatus() throws {
        let ok = try run(S.hello(w: 8, h: 4) + S.update([eds(reason: 1, status: 0, 16, 4, [screen(0, 0, 0, 8, 4), screen(1, 8, 0, 8, 4)])])).1
        XCTAssertEqual(Array(ok.suffix(4)), [.resized(width: 16, height: 4),
                                             .screenLayout(ScreenLayout(width: 16, height: 4, screens: [Screen(id: 0, x: 0, y: 0, width: 8, height: 4),
                                                                                                        Screen(id: 1, x: 8, y: 0, width: 8, height: 4)]),
                                                           reason: .thisClient),
                                             .desktopSizeRequestResult(status: .ok, message: DesktopSizeStatus.ok.message),
                                             .updateEnded(rects: 1)])
        for (code, status, word) in [(1, DesktopSizeStatus.prohibited, "prohibited"), (2, .outOfResources, "out of resources"),
                                     (3, .invalidLayout, "invalid"), (9, .unknown(9), "status 9")] {
            // A refusal carries the current layout (or anything): it changes nothing.
            let (e, ev) = try run(S.hello(w: 8, h: 4) + S.update([eds(reason: 1, status: code, 16, 4, [screen(0, 0, 0, 8, 4)])]))
            XCTAssertEqual(Array(ev.suffix(2)), [.desktopSizeRequestResult(status: status, message: status.message), .updateEnded(rects: 1)])
            XCTAssertTrue(status.message.contains(word), status.message)
            XCTAssertEqual(e.framebuffer?.width, 8)
            XCTAssertNil(e.server.screenLayout)
            XCTAssertTrue(e.server.supportsSetDesktopSize, "a reply shows support too")
        }
        // A refusal may come with no screens at all.
        let (_, ev) = try run(S.hello(w: 8, h: 4) + S.update([eds(reason: 1, status: 1, 0, 0, [])]))
        XCTAssertTrue(ev.contains(.desktopSizeRequestResult(status: .prohibited, message: DesktopSizeStatus.prohibited.message)))
    }

    func testFollowedByPixelsInTheNewSize() throws {
        let (e, _) = try run(S.hello(w: 8, h: 4) + S.update([eds(reason: 0, 16, 9, [screen(0, 0, 0, 16, 9)]),
                                                              S.rect(15, 8, 1, 1, Encoding.raw, px(0xabcdef))]))
        XCTAssertEqual(e.framebuffer?.pixels[16 * 9 - 1], 0xabcdef)
    }

    func testBadLayouts() {
        let h = S.hello(w: 8, h: 4)
        assertFails(h + S.update([eds(reason: 0, 8, 4, [screen(0, 4, 0, 5, 4)])]), "outside the 8x4 framebuffer")
        assertFails(h + S.update([eds(reason: 0, 8, 4, [screen(0, 0, 1, 8, 4)])]), "outside the 8x4 framebuffer")
        assertFails(h + S.update([eds(reason: 2, 8, 4, [])]), "has no screens")
        assertFails(h + S.update([eds(reason: 1, status: 0, 8, 4, [])]), "has no screens")
        assertFails(h + S.update([eds(reason: 0, 8, 4, [screen(0, 0, 0, 0, 4)])]), "empty screen 0")
        assertFails(h + S.update([eds(reason: 0, 8, 4, [screen(3, 0, 0, 4, 4), screen(3, 4, 0, 4, 4)])]), "screen id 3 twice")
        let many = (0...Limits.maxScreens).map { screen($0, 0, 0, 1, 1) }
        assertFails(h + S.update([eds(reason: 0, 8, 4, many)]), "\(Limits.maxScreens + 1) screens, over the limit of \(Limits.maxScreens)")
        assertFails(h + S.update([eds(reason: 0, 8, 4, [], count: 255)]), "255 screens, over the limit")
        assertFails(h + S.update([eds(reason: 3, 8, 4, [screen(0, 0, 0, 8, 4)])]), "reason 3")
        assertFails(h + S.update([eds(reason: 0, 40000, 4, [screen(0, 0, 0, 8, 4)])]), "over the 16384x16384")
    }

    func testTruncatedWaitsThenParses() throws {
        let full = S.hello(w: 8, h: 4) + S.update([eds(reason: 0, 8, 4, [screen(0, 0, 0, 4, 4), screen(1, 4, 0, 4, 4)])])
        let e = ClientEngine(settings: ClientSettings())
        for cut in [full.count - 1, full.count - 16, full.count - 33] {
            let t = ClientEngine(settings: ClientSettings())
            try t.feed(Array(full.prefix(cut)))
            XCTAssertNil(t.server.screenLayout, "cut at \(cut): nothing applied from a partial rect")
            XCTAssertNotEqual(t.phase, .failed)
        }
        try e.feed(full)
        XCTAssertEqual(e.server.screenLayout?.screens.count, 2)
    }

    func testDesktopSizeStillWorks() throws {
        let (e, ev) = try run(S.hello(w: 8, h: 4) + S.update([S.rect(0, 0, 16, 9, Encoding.desktopSize)]))
        XCTAssertTrue(ev.contains(.resized(width: 16, height: 9)))
        XCTAssertEqual(e.framebuffer?.height, 9)
        XCTAssertFalse(e.server.supportsSetDesktopSize)
    }

    // MARK: SetDesktopSize

    func testSetDesktopSizeEncoding() {
        let b = ClientMessage.setDesktopSize(width: 3840, height: 1080, screens: [
            Screen(id: 1, x: 0, y: 0, width: 1920, height: 1080), Screen(id: 0x01020304, x: 1920, y: 0, width: 1920, height: 1080, flags: 7)])
        XCTAssertEqual(b, [251, 0, 0x0f, 0x00, 0x04, 0x38, 2, 0,
                           0, 0, 0, 1, 0, 0, 0, 0, 0x07, 0x80, 0x04, 0x38, 0, 0, 0, 0,
                           1, 2, 3, 4, 0x07, 0x80, 0, 0, 0x07, 0x80, 0x04, 0x38, 0, 0, 0, 7])
    }

    func testRequestNeedsSupport() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello(w: 8, h: 4))
        _ = e.takeOutput()
        XCTAssertThrowsError(try e.requestDesktopSize(width: 16, height: 4)) {
            XCTAssertTrue("\($0)".contains("does not support"), "\($0)")
        }
        XCTAssertFalse(e.hasOutput, "nothing sent")
    }

    func testRequestAfterSupport() throws {
        let e = ClientEngine(settings: ClientSettings())
        e.pipelineRequests = false
        try e.feed(S.hello(w: 8, h: 4) + S.update([eds(reason: 0, 8, 4, [screen(5, 0, 0, 8, 4, flags: 0)])]))
        _ = e.takeOutput()
        try e.requestDesktopSize(width: 16, height: 4)
        XCTAssertEqual(e.takeOutput(), ClientMessage.setDesktopSize(width: 16, height: 4, screens: [Screen(id: 5, x: 0, y: 0, width: 16, height: 4)]))
        let two = [Screen(id: 0, x: 0, y: 0, width: 8, height: 4), Screen(id: 1, x: 8, y: 0, width: 8, height: 4)]
        try e.requestDesktopSize(width: 16, height: 4, screens: two)
        XCTAssertEqual(e.takeOutput(), ClientMessage.setDesktopSize(width: 16, height: 4, screens: two))
        // Our own bad layouts are refused before sending.
        for (w, h, s, why) in [(16, 4, [Screen(id: 0, x: 10, y: 0, width: 8, height: 4)], "outside"),
                               (16, 4, [], "no screens"), (0, 4, nil, "cannot request"), (70000, 4, nil, "cannot request")] {
            XCTAssertThrowsError(try e.requestDesktopSize(width: w, height: h, screens: s)) {
                XCTAssertTrue("\($0)".contains(why), "\($0)")
            }
        }
        XCTAssertFalse(e.hasOutput)
    }
}
