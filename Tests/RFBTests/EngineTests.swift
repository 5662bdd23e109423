import XCTest
@testable import RFB

/// Server-side byte builders.
enum S {
    static func version(_ v: String) -> [UInt8] { Array("RFB \(v)\n".utf8) }
    static let none38: [UInt8] = [1, 1] + be32(0)          // one type (None), SecurityResult OK
    static func serverInit(w: Int, h: Int, name: String = "test", pf: PixelFormat = .native) -> [UInt8] {
        be16(w) + be16(h) + pf.wireBytes + be32(name.utf8.count) + Array(name.utf8)
    }
    static func update(_ rects: [[UInt8]], count: Int? = nil) -> [UInt8] {
        [0, 0] + be16(count ?? rects.count) + rects.flatMap { $0 }
    }
    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ enc: Int32, _ body: [UInt8] = []) -> [UInt8] {
        be16(x) + be16(y) + be16(w) + be16(h) + be32(Int(UInt32(bitPattern: enc))) + body
    }
    /// Handshake up to and including ServerInit, RFB 3.8, security None.
    static func hello(w: Int = 8, h: Int = 4) -> [UInt8] { version("003.008") + none38 + serverInit(w: w, h: h) }
}

final class EngineTests: XCTestCase {
    /// Feeds `bytes` whole and one byte at a time; both runs must agree. Returns the whole-fed engine.
    @discardableResult
    func run(_ bytes: [UInt8], settings: ClientSettings = ClientSettings(), dripToo: Bool = true,
             file: StaticString = #filePath, line: UInt = #line) throws -> (ClientEngine, [EngineEvent]) {
        let e = ClientEngine(settings: settings)
        try e.feed(bytes)
        let ev = e.takeEvents()
        if dripToo {
            let d = ClientEngine(settings: settings)
            var dev: [EngineEvent] = []
            for b in bytes { try d.feed([b]); dev += d.takeEvents() }
            XCTAssertEqual(ev, dev, "drip-fed events differ", file: file, line: line)
            XCTAssertEqual(e.framebuffer?.snapshotPixels(), d.framebuffer?.snapshotPixels(), "drip-fed pixels differ", file: file, line: line)
            XCTAssertEqual(e.pendingOutput, d.pendingOutput, "drip-fed output differs", file: file, line: line)
        }
        return (e, ev)
    }

    func assertFails(_ bytes: [UInt8], _ fragment: String, settings: ClientSettings = ClientSettings(),
                     file: StaticString = #filePath, line: UInt = #line) {
        let e = ClientEngine(settings: settings)
        XCTAssertThrowsError(try e.feed(bytes), file: file, line: line) { err in
            XCTAssertTrue("\(err)".contains(fragment), "error '\(err)' lacks '\(fragment)'", file: file, line: line)
            XCTAssertTrue(err is ProtocolError, file: file, line: line)
        }
        XCTAssertEqual(e.phase, .failed, file: file, line: line)
        // and drip-fed: the same error, never a crash
        let d = ClientEngine(settings: settings)
        var failed = false
        for b in bytes { do { try d.feed([b]) } catch { failed = true; break } }
        XCTAssertTrue(failed, "drip-fed input did not fail", file: file, line: line)
    }

    // MARK: versions

    func testVersionNegotiation() throws {
        for (banner, reply) in [("003.003", "003.003"), ("003.005", "003.003"), ("003.007", "003.007"),
                                ("003.008", "003.008"), ("003.889", "003.008"), ("004.001", "003.008"),
                                ("005.000", "003.008")] {
            let e = ClientEngine(settings: ClientSettings())
            try e.feed(S.version(banner))
            XCTAssertEqual(String(decoding: e.takeOutput(), as: UTF8.self), "RFB \(reply)\n", banner)
        }
        assertFails(S.version("002.009"), "older than 3.3")
        assertFails(Array("HTTP/1.1 400".utf8), "not an RFB server")
    }

    func testHandshake38NoneAndServerInit() throws {
        let (e, ev) = try run(S.hello(w: 8, h: 4))
        XCTAssertEqual(ev, [.securityChosen(1), .ready(name: "test", width: 8, height: 4)])
        let out = e.takeOutput()
        // version, chosen type, ClientInit(shared), SetPixelFormat, SetEncodings, full request
        XCTAssertEqual(Array(out[0..<12]), Array("RFB 003.008\n".utf8))
        XCTAssertEqual(out[12], 1)
        XCTAssertEqual(out[13], 1)
        XCTAssertEqual(Array(out[14..<34]), ClientMessage.setPixelFormat(.native))
        let encs = ClientSettings().encodingList
        XCTAssertEqual(Array(out[34..<(38 + 4 * encs.count)]), ClientMessage.setEncodings(encs))
        XCTAssertEqual(Array(out.suffix(10)), [3, 0, 0, 0, 0, 0, 0, 8, 0, 4])
        XCTAssertEqual(e.phase, .normal)
    }

    func testHandshake37NoneHasNoSecurityResult() throws {
        let (e, _) = try run(S.version("003.007") + [1, 1] + S.serverInit(w: 2, h: 2))
        XCTAssertEqual(e.phase, .normal)
    }

    func testHandshake33() throws {
        let (e, _) = try run(S.version("003.003") + be32(1) + S.serverInit(w: 2, h: 2))
        XCTAssertEqual(e.phase, .normal)
        XCTAssertEqual(e.server.minorVersion, 3)
        assertFails(S.version("003.003") + be32(0) + be32(6) + Array("banned".utf8), "refused the connection: banned")
        assertFails(S.version("003.003") + be32(16), "does not support")
    }

    func testVNCAuth() throws {
        var s = ClientSettings()
        s.password = Array("secret".utf8)
        let challenge = (0..<16).map { UInt8($0 * 7 & 0xff) }
        let e = ClientEngine(settings: s)
        try e.feed(S.version("003.008") + [2, 1, 2] + challenge)
        XCTAssertEqual(e.phase, .authenticating)
        let out = e.takeOutput()
        XCTAssertEqual(out[12], 2, "chose VncAuth over None")
        XCTAssertEqual(Array(out[13...]), VNCAuth.response(challenge: challenge, password: Array("secret".utf8)))
        try e.feed(be32(0) + S.serverInit(w: 1, h: 1))
        XCTAssertEqual(e.phase, .normal)
        // wrong password: 3.8 gives a reason
        assertFails(S.version("003.008") + [1, 2] + challenge + be32(1) + be32(21) + Array("Authentication failure".utf8).prefix(21),
                    "authentication failed", settings: s)
        // no password configured: the engine asks (an event) and waits; the answer is sent
        let q = ClientEngine(settings: ClientSettings())
        try q.feed(S.version("003.008") + [1, 2] + challenge)
        XCTAssertEqual(q.phase, .awaitingCredentials)
        XCTAssertTrue(q.takeEvents().contains(.credentialsRequired(CredentialRequest(method: "VncAuth", needsUsername: false, server: ":5900"))))
        _ = q.takeOutput()
        try q.provideCredentials(Credentials(password: Array("late".utf8)))
        XCTAssertEqual(q.takeOutput(), VNCAuth.response(challenge: challenge, password: Array("late".utf8)))
        XCTAssertEqual(q.phase, .authenticating)
    }

    func testNoCommonSecurityType() {
        assertFails(S.version("003.008") + [2, 16, 99], "no common security type: server offers Tight, type 99")
        var s = ClientSettings()
        s.securityTypes = [SecurityType.vncAuth]
        assertFails(S.version("003.008") + [1, 1], "server offers None", settings: s)
        assertFails(S.version("003.008") + [0] + be32(4) + Array("nope".utf8), "refused the connection: nope")
    }

    // MARK: limits on lengths

    func testHugeLengthsAreRefusedBeforeAllocation() {
        assertFails(S.version("003.008") + [0] + be32(0xffff_fff0), "over the")
        assertFails(S.version("003.008") + S.none38 + be16(8) + be16(8) + PixelFormat.native.wireBytes + be32(0x7fff_ffff), "desktop name is")
        assertFails(S.version("003.008") + S.none38 + S.serverInit(w: 65535, h: 65535), "over the 16384x16384")
        assertFails(S.hello() + S.update([S.rect(0, 0, 0, 0, Encoding.desktopName, be32(0x7fff_0000))]), "DesktopName is")
    }

    func testOversizedCutTextIsSkippedNotBuffered() throws {
        let e = ClientEngine(settings: ClientSettings())
        let huge = Limits.maxCutTextLength + 100_000
        try e.feed(S.hello() + [3, 0, 0, 0] + be32(huge))
        XCTAssertTrue(e.takeEvents().contains(.cutTextSkipped(length: huge)))
        let chunk = [UInt8](repeating: 0x41, count: 65536)
        var sent = 0
        while sent + chunk.count <= huge { try e.feed(chunk); sent += chunk.count }
        try e.feed([UInt8](repeating: 0x41, count: huge - sent) + [2])   // rest, then a Bell
        XCTAssertEqual(e.takeEvents(), [.bell])
    }

    func testCutTextLatin1() throws {
        let (_, ev) = try run(S.hello() + [3, 0, 0, 0] + be32(4) + [0x63, 0x61, 0x66, 0xe9])
        XCTAssertEqual(ev.last, .cutText("café"))
    }

    func testUnknownMessageTypeAndEncoding() {
        assertFails(S.hello() + [77], "unknown server message type 77")
        assertFails(S.hello() + S.update([S.rect(0, 0, 1, 1, 12345)]), "does not know")
    }

    // MARK: rectangles

    func testRectPastEdgeIsRejected() {
        for enc in [Encoding.raw, Encoding.copyRect] {
            assertFails(S.hello(w: 8, h: 4) + S.update([S.rect(7, 0, 2, 1, enc)]), "extends past the 8x4 framebuffer")
            assertFails(S.hello(w: 8, h: 4) + S.update([S.rect(0, 3, 1, 2, enc)]), "extends past")
            assertFails(S.hello(w: 8, h: 4) + S.update([S.rect(65535, 65535, 65535, 65535, enc)]), "extends past")
            assertFails(S.hello(w: 8, h: 4) + S.update([S.rect(1, 0, 65535, 1, enc)]), "extends past")
        }
    }

    func testZeroSizedRectsForEveryEncoding() throws {
        // Per encoding, the bytes a zero-sized rectangle carries.
        let bodies: [(Int32, [UInt8])] = [
            (Encoding.raw, []),
            (Encoding.copyRect, be16(0) + be16(0)),
            (Encoding.rre, be32(0) + px(0)),
            (Encoding.coRRE, be32(0) + px(0)),
            (Encoding.hextile, []),
            (Encoding.zlib, be32(0)),
            (Encoding.zrle, be32(0)),
            (Encoding.tight, [0x80, 1, 2, 3]),
        ]
        for (enc, body) in bodies where decoderFactories[enc] != nil {
            for (w, h) in [(0, 0), (0, 3), (5, 0)] {
                let (e, ev) = try run(S.hello() + S.update([S.rect(1, 1, w, h, enc, body)]) + [2])
                XCTAssertEqual(Array(ev.suffix(2)), [.updateEnded(rects: 1), .bell], "\(Encoding.name(enc)) \(w)x\(h)")
                XCTAssertEqual(e.framebuffer?.snapshotPixels(), [UInt32](repeating: 0, count: 32))
            }
        }
    }

    func testRawUpdateDamageAndPipelining() throws {
        let pixels = (0..<4).flatMap { px(UInt32($0) * 0x010101 + 0x102030) }
        let (e, ev) = try run(S.hello() + S.update([S.rect(2, 1, 2, 2, Encoding.raw, pixels)]))
        XCTAssertEqual(Array(ev.suffix(2)), [.updateBegan, .updateEnded(rects: 1)])
        let fb = try XCTUnwrap(e.framebuffer)
        XCTAssertEqual(fb.pixels[1 * 8 + 2], 0x102030)
        XCTAssertEqual(fb.pixels[2 * 8 + 3], 0x132333)
        XCTAssertEqual(fb.takeDamage(), [Rect(x: 2, y: 1, w: 2, h: 2)])
        // the next request went out as the update began
        XCTAssertEqual(Array(e.takeOutput().suffix(10)), [3, 1, 0, 0, 0, 0, 0, 8, 0, 4])
    }

    func testLastRectEndsUnknownCountUpdate() throws {
        let (_, ev) = try run(S.hello() + S.update([S.rect(0, 0, 1, 1, Encoding.raw, px(1)), S.rect(0, 0, 0, 0, Encoding.lastRect)], count: 0xffff) + [2])
        XCTAssertEqual(Array(ev.suffix(2)), [.updateEnded(rects: 1), .bell])
    }

    func testDesktopSizeAndName() throws {
        let (e, ev) = try run(S.hello(w: 8, h: 4) + S.update([S.rect(0, 0, 16, 9, Encoding.desktopSize),
                                                               S.rect(0, 0, 0, 0, Encoding.desktopName, be32(5) + Array("hello".utf8)),
                                                               S.rect(15, 8, 1, 1, Encoding.raw, px(0xabcdef))]))
        XCTAssertTrue(ev.contains(.resized(width: 16, height: 9)))
        XCTAssertTrue(ev.contains(.desktopName("hello")))
        XCTAssertEqual(e.framebuffer?.width, 16)
        XCTAssertEqual(e.framebuffer?.pixels[16 * 9 - 1], 0xabcdef)
        assertFails(S.hello() + S.update([S.rect(0, 0, 40000, 40000, Encoding.desktopSize)]), "over the 16384x16384")
    }

    func testCursor() throws {
        // 2x2 cursor, hotspot (1,0); mask rows 0b10, 0b01
        let body = px(0xff0000) + px(0x00ff00) + px(0x0000ff) + px(0xffffff) + [0x80, 0x40]
        let (_, ev) = try run(S.hello() + S.update([S.rect(1, 0, 2, 2, Encoding.cursor, body)]))
        XCTAssertTrue(ev.contains(.cursor(CursorImage(width: 2, height: 2, hotX: 1, hotY: 0,
                                                      argb: [0xffff0000, 0, 0, 0xffffffff]))))
        assertFails(S.hello() + S.update([S.rect(0, 0, 60000, 60000, Encoding.cursor)]), "cursor of 60000x60000")
        // hotspot outside the image is clamped, not trusted
        let (_, ev2) = try run(S.hello() + S.update([S.rect(9000, 9000, 1, 1, Encoding.cursor, px(1) + [0x80])]))
        XCTAssertTrue(ev2.contains(.cursor(CursorImage(width: 1, height: 1, hotX: 0, hotY: 0, argb: [0xff000001]))))
    }

    func testQEMUExtendedKeyEvents() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        _ = e.takeOutput()
        e.sendKey(0x61, down: true, xtKeycode: 0x1e)
        XCTAssertEqual(e.takeOutput(), [4, 1, 0, 0, 0, 0, 0, 0x61], "classic until the server acknowledges")
        try e.feed(S.update([S.rect(0, 0, 0, 0, Encoding.qemuExtendedKeyEvent)]))
        XCTAssertTrue(e.takeEvents().contains(.qemuKeyEventsSupported))
        _ = e.takeOutput()
        e.sendKey(0xffe4, down: false, xtKeycode: 0xe01d)
        // Right Ctrl (XT 0xE01D) goes out as QEMU's qnum 0x9D
        XCTAssertEqual(e.takeOutput(), [255, 0, 0, 0, 0, 0, 0xff, 0xe4, 0, 0, 0, 0x9d])
        e.sendKey(0x62, down: true)
        XCTAssertEqual(e.takeOutput(), [4, 1, 0, 0, 0, 0, 0, 0x62], "no key code known: classic")
    }

    func testExtendedMouseButtons() throws {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        _ = e.takeOutput()
        // classic: button 8 (bit 7) fits the byte, button 9 cannot be sent
        e.sendPointer(x: 1, y: 2, buttons: 1 << 7 | 1)
        XCTAssertEqual(e.takeOutput(), [5, 0x81, 0, 1, 0, 2])
        e.sendPointer(x: 1, y: 2, buttons: 1 << 8)
        XCTAssertEqual(e.takeOutput(), [5, 0, 0, 1, 0, 2])
        try e.feed(S.update([S.rect(0, 0, 0, 0, Encoding.extendedMouseButtons)]))
        XCTAssertTrue(e.takeEvents().contains(.extendedMouseButtonsSupported))
        _ = e.takeOutput()
        // extended: bit 7 marks the extra byte; buttons 8 and 9 are its bits 0 and 1
        e.sendPointer(x: 1, y: 2, buttons: 1 << 8 | 1 << 7 | 4)
        XCTAssertEqual(e.takeOutput(), [5, 0x84, 0, 1, 0, 2, 0x03])
        e.sendPointer(x: 1, y: 2, buttons: 1)
        XCTAssertEqual(e.takeOutput(), [5, 1, 0, 1, 0, 2], "no extra byte when no extra button is down")
    }

    func testColourMapEntries() throws {
        var s = ClientSettings()
        s.pixelFormat = .colourMap8
        let entry = be16(0xffff) + be16(0x8000) + be16(0)
        let (e, ev) = try run(S.hello() + [1, 0] + be16(5) + be16(1) + entry + S.update([S.rect(0, 0, 1, 1, Encoding.raw, [5])]), settings: s)
        XCTAssertTrue(ev.contains(.colourMapChanged))
        XCTAssertEqual(e.framebuffer?.pixels[0], 0xff8000)
        assertFails(S.hello() + [1, 0] + be16(250) + be16(10) + [UInt8](repeating: 0, count: 60), "past the 256-entry colour map", settings: s)
    }

    func testDripFedMultiRectSession() throws {
        var rects: [[UInt8]] = []
        for i in 0..<4 { rects.append(S.rect(i * 2, 0, 2, 4, Encoding.raw, (0..<8).flatMap { px(UInt32(i * 8 + $0)) })) }
        rects.append(S.rect(0, 0, 2, 2, Encoding.copyRect, be16(6) + be16(2)))
        let (e, _) = try run(S.hello() + S.update(rects) + [2] + S.update([S.rect(0, 0, 1, 1, Encoding.raw, px(0xffffff))]))
        XCTAssertEqual(e.stats.updates, 2)
        XCTAssertEqual(e.framebuffer?.pixels[0], 0xffffff)
        XCTAssertEqual(e.framebuffer?.pixels[1], 3 * 8 + 5)
    }
}
