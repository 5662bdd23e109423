import XCTest
import CZlib
@testable import RFB

final class ExtendedClipboardTests: XCTestCase {
    typealias EC = ExtendedClipboard

    static let samples = ["hello", "Grüße, ñ, ÿ", "日本語のテキスト 中文 한국어", "emoji 😀👍🏽🇫🇷 👨‍👩‍👧",
                          "שלום עולם مرحبا بالعالم", "line 1\nline 2\n\nline 4\n", "tab\tand\r\nCRLF", ""]

    // MARK: messages

    func testEveryActionRoundTrips() throws {
        let msgs: [EC.Message] = [
            .caps(formats: [.text, .html], actions: [.request, .peek, .notify, .provide], sizes: [20_000, 5000]),
            .caps(formats: [], actions: [.notify], sizes: []),
            .request(.text), .peek, .notify(.text), .notify([]),
            .provide([.init(format: .text, data: EC.wireText("hi"))]),
            .provide([.init(format: .text, data: EC.wireText("a")), .init(format: .html, data: Array("<b>a</b>".utf8))]),
            .provide([]),
        ]
        for m in msgs {
            XCTAssertEqual(try EC.parse(EC.payload(m)), m, "\(m)")
        }
    }

    func testWireBytes() throws {
        XCTAssertEqual(EC.payload(.request(.text)), [0x02, 0, 0, 0x01])
        XCTAssertEqual(EC.payload(.peek), [0x04, 0, 0, 0])
        XCTAssertEqual(EC.payload(.notify(.text)), [0x08, 0, 0, 0x01])
        XCTAssertEqual(EC.payload(.caps(formats: .text, actions: [.request, .notify, .provide], sizes: [0x0102_0304])),
                       [0x1b, 0, 0, 0x01, 1, 2, 3, 4])
        // ClientCutText with length -4
        XCTAssertEqual(EC.clientMessage(.peek), [6, 0, 0, 0, 0xff, 0xff, 0xff, 0xfc, 0x04, 0, 0, 0])
        // Provide: flags, then one zlib stream of (u32 length, data) per format
        let p = EC.payload(.provide([.init(format: .text, data: [0x61, 0])]))
        XCTAssertEqual(Array(p.prefix(4)), [0x10, 0, 0, 0x01])
        XCTAssertEqual(p[4], 0x78)  // a zlib header
    }

    func testProvideFromAnotherDeflater() throws {
        // a flushed (never finished) stream, as a server's long-lived deflater writes it
        let raw = be32(6) + Array("abc\r\n".utf8) + [0]
        let payload = be32(0x1000_0001) + Deflater().compress(raw)
        guard case .provide(let items) = try EC.parse(payload) else { return XCTFail("not a provide") }
        XCTAssertEqual(try EC.text(fromWire: items[0].data), "abc\n")
    }

    func testText() throws {
        XCTAssertEqual(EC.wireText("a\nb\r\nc\rd"), Array("a\r\nb\r\nc\r\nd".utf8) + [0])
        XCTAssertEqual(try EC.text(fromWire: Array("a\r\nb\r\n".utf8) + [0]), "a\nb\n")
        XCTAssertEqual(try EC.text(fromWire: Array("no nul".utf8)), "no nul")
        XCTAssertEqual(try EC.text(fromWire: Array("stop".utf8) + [0] + Array("junk".utf8)), "stop")
        for s in Self.samples {
            let back = try EC.text(fromWire: EC.wireText(s))
            XCTAssertEqual(back, s.replacingOccurrences(of: "\r\n", with: "\n"), s)
        }
        XCTAssertThrowsError(try EC.text(fromWire: [0x61, 0xff, 0xfe, 0])) { XCTAssertTrue("\($0)".contains("UTF-8")) }
    }

    // MARK: malformed

    func testMalformed() {
        func fails(_ p: [UInt8], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try EC.parse(p), file: file, line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", file: file, line: line)
            }
        }
        fails([], "too short")
        fails([0x10, 0], "too short")
        fails([0x01, 0, 0, 0x03, 0, 0, 0, 1], "caps list 2 formats")
        fails([0x10, 0, 0, 0x01], "zlib data ends")
        fails([0x10, 0, 0, 0x01, 0x78, 0x9c, 0xff, 0xff, 0xff], "corrupt zlib")
        fails([0x10, 0, 0, 0x01, 0x12, 0x34], "bad zlib header")
        // announced 100 bytes of text, the stream holds 3
        fails(be32(0x1000_0001) + EC.deflate(be32(100) + [1, 2, 3]), "ends after 3 of the 100")
        // unknown actions are ignored
        XCTAssertEqual(try EC.parse([0x40, 0, 0, 0]), .unknown(flags: 0x4000_0000))
    }

    func testOversizedProvideRefusedBeforeAllocating() {
        // claims 4 GiB of text in a few bytes
        let p = be32(0x1000_0001) + EC.deflate(be32(0xffff_ffff))
        XCTAssertThrowsError(try EC.parse(p, maxItemSize: 1000)) { e in
            XCTAssertEqual(e as? EC.TooLarge, EC.TooLarge(format: .text, length: 0xffff_ffff, limit: 1000))
        }
    }

    /// Within the cap, a length alone is not allocated: the buffer grows as inflate fills it
    /// (a few bytes claiming 10 MiB used to allocate and clear 10 MiB per format).
    func testClaimedLengthIsNotAllocatedUpFront() throws {
        let claimed = be32(0x1000_0001) + EC.deflate(be32(10 << 20) + [1, 2, 3])
        XCTAssertThrowsError(try EC.parse(claimed, maxItemSize: 10 << 20)) {
            XCTAssertTrue("\($0)".contains("ends after 3 of the 10485760 bytes"), "\($0)")
        }
        // data over several chunks arrives whole
        let text = (0..<(3 * 64 * 1024 + 123)).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        let p = EC.payload(.provide([.init(format: .text, data: text), .init(format: .html, data: [9])]))
        XCTAssertEqual(try EC.parse(p, maxItemSize: 1 << 20), .provide([.init(format: .text, data: text), .init(format: .html, data: [9])]))
    }

    // MARK: through the engine

    static let serverCaps = EC.serverMessage(.caps(formats: .text, actions: [.request, .peek, .notify, .provide], sizes: [1 << 20]))

    func engine(_ settings: ClientSettings = ClientSettings()) throws -> ClientEngine {
        let e = ClientEngine(settings: settings)
        try e.feed(S.hello())
        _ = e.takeOutput(); _ = e.takeEvents()
        return e
    }

    /// Feeds whole and drip-fed to fresh engines (after `prefix`), returns events and output of the whole run.
    func through(_ bytes: [UInt8], prefix: [UInt8] = serverCaps, settings: ClientSettings = ClientSettings(),
                 file: StaticString = #filePath, line: UInt = #line) throws -> ([EngineEvent], [UInt8]) {
        let e = try engine(settings)
        try e.feed(prefix); _ = e.takeOutput(); _ = e.takeEvents()
        try e.feed(bytes)
        let d = try engine(settings)
        try d.feed(prefix); _ = d.takeOutput(); _ = d.takeEvents()
        var dev: [EngineEvent] = []
        for b in bytes { try d.feed([b]); dev += d.takeEvents() }
        let ev = e.takeEvents()
        XCTAssertEqual(ev, dev, "drip-fed events differ", file: file, line: line)
        let out = e.takeOutput()
        XCTAssertEqual(out, d.takeOutput(), "drip-fed output differs", file: file, line: line)
        return (ev, out)
    }

    func testEncodingAdvertised() {
        XCTAssertTrue(ClientSettings().encodingList.contains(Int32(bitPattern: 0xC0A1_E5CE)))
        var s = ClientSettings(); s.wantExtendedClipboard = false
        XCTAssertFalse(s.encodingList.contains(EC.encoding))
    }

    func testCapsExchange() throws {
        let (ev, out) = try through(Self.serverCaps, prefix: [])
        XCTAssertEqual(ev, [.extendedClipboardSupported])
        XCTAssertEqual(out, EC.clientMessage(.caps(formats: .text, actions: [.request, .peek, .notify, .provide],
                                                   sizes: [UInt32(Limits.maxCutTextLength + 1)])))
    }

    func testNotifyThenProvide() throws {
        for s in Self.samples {
            // the server announces text: we request it
            let (ev1, out1) = try through(EC.serverMessage(.notify(.text)))
            XCTAssertEqual(ev1, [])
            XCTAssertEqual(out1, EC.clientMessage(.request(.text)))
            // and it provides
            let (ev2, _) = try through(EC.serverMessage(.provide([.init(format: .text, data: EC.wireText(s))])))
            XCTAssertEqual(ev2, [.cutText(s.replacingOccurrences(of: "\r\n", with: "\n"))])
        }
    }

    func testLocalTextNotifiedThenProvidedOnRequest() throws {
        let e = try engine()
        try e.feed(Self.serverCaps); _ = e.takeOutput(); _ = e.takeEvents()
        XCTAssertTrue(e.server.supportsExtendedClipboard)
        XCTAssertEqual(e.sendCutText("日本 😀\nx"), 0)
        XCTAssertEqual(e.takeOutput(), EC.clientMessage(.notify(.text)))
        try e.feed(EC.serverMessage(.request(.text)))
        let out = e.takeOutput()
        XCTAssertEqual(Array(out.prefix(4)), [6, 0, 0, 0])
        let n = -Int(Int32(bitPattern: UInt32(out[4]) << 24 | UInt32(out[5]) << 16 | UInt32(out[6]) << 8 | UInt32(out[7])))
        XCTAssertEqual(n, out.count - 8)
        XCTAssertEqual(try EC.parse(Array(out[8...])), .provide([.init(format: .text, data: Array("日本 😀\r\nx".utf8) + [0])]))
        // the same text is provided once: a server repeating its Request gets nothing more
        // (each would queue the whole text again, up to 10 MiB)
        for _ in 0..<5 { try e.feed(EC.serverMessage(.request(.text))) }
        XCTAssertEqual(e.takeOutput(), [])
        // a new local text is provided again when asked
        e.sendCutText("second")
        _ = e.takeOutput()
        try e.feed(EC.serverMessage(.request(.text)) + EC.serverMessage(.request(.text)))
        let again = e.takeOutput()
        XCTAssertEqual(try EC.parse(Array(again[8...])), .provide([.init(format: .text, data: Array("second".utf8) + [0])]))
        // a peek is answered with a notify
        try e.feed(EC.serverMessage(.peek))
        XCTAssertEqual(e.takeOutput(), EC.clientMessage(.notify(.text)))
        // once the server owns the clipboard, a request gets nothing
        try e.feed(EC.serverMessage(.notify([])))
        XCTAssertEqual(e.takeOutput(), [])
        try e.feed(EC.serverMessage(.request(.text)))
        XCTAssertEqual(e.takeOutput(), [])
    }

    /// A text prepared off the engine (as the session does on a worker) gives the same bytes
    /// as one handed over raw; one prepared for another cap is prepared again for the engine's.
    func testPreparedTextSameAsRaw() throws {
        for caps in [Self.serverCaps, EC.serverMessage(.caps(formats: .text, actions: [.provide], sizes: [1000]))] {
            let a = try engine(), b = try engine()
            for e in [a, b] { try e.feed(caps); _ = e.takeOutput(); _ = e.takeEvents() }
            let text = "prepared é 日本 😀\nline"
            XCTAssertEqual(a.sendCutText(text), b.sendCutText(OutgoingCutText(text, limit: ClientSettings().clipboardByteLimit)))
            XCTAssertEqual(a.takeOutput(), b.takeOutput())
            try a.feed(EC.serverMessage(.request(.text))); try b.feed(EC.serverMessage(.request(.text)))
            XCTAssertEqual(a.takeOutput(), b.takeOutput())
            // prepared for a cap it is over: prepared again for the engine's, so still sent
            XCTAssertEqual(b.sendCutText(OutgoingCutText(text, limit: 3)), a.sendCutText(text))
            XCTAssertEqual(a.takeOutput(), b.takeOutput())
        }
        var small = ClientSettings(); small.clipboardLimit = 5
        let c = try engine(small)
        try c.feed(Self.serverCaps); _ = c.takeOutput(); _ = c.takeEvents()
        c.sendCutText(OutgoingCutText("0123456789", limit: 1000))
        XCTAssertEqual(c.takeEvents(), [.cutTextNotSent(length: 10, limit: 5)])
    }

    func testProvideWithoutNotifyWhenServerLacksIt() throws {
        let caps = EC.serverMessage(.caps(formats: .text, actions: [.provide], sizes: [100]))
        let e = try engine()
        try e.feed(caps); _ = e.takeOutput(); _ = e.takeEvents()
        // LibVNCServer (x11vnc) announces no notify and drops provides: classic first, then the provide
        XCTAssertEqual(e.sendCutText("ok é 日"), 1)
        XCTAssertEqual(e.takeOutput(), ClientMessage.clientCutText(latin1: Array("ok é ".unicodeScalars.map { UInt8($0.value) }))
                       + EC.clientMessage(.provide([.init(format: .text, data: EC.wireText("ok é 日"))])))
        // over the server's announced 100 bytes: no provide (never truncated); the classic message carries it
        e.sendCutText(String(repeating: "x", count: 200))
        XCTAssertEqual(e.takeOutput(), ClientMessage.clientCutText(latin1: Array(repeating: UInt8(ascii: "x"), count: 200)))
        XCTAssertEqual(e.takeEvents(), [])
    }

    func testRequestedTextNotBoundByUnsolicitedSize() throws {
        // TigerVNC announces 0 for text: nothing unsolicited, everything on request
        let caps = EC.serverMessage(.caps(formats: .text, actions: [.request, .peek, .notify, .provide], sizes: [0]))
        let e = try engine()
        try e.feed(caps); _ = e.takeOutput(); _ = e.takeEvents()
        e.sendCutText("requested")
        XCTAssertEqual(e.takeOutput(), EC.clientMessage(.notify(.text)))
        try e.feed(EC.serverMessage(.request(.text)))
        XCTAssertEqual(e.takeOutput(), EC.clientMessage(.provide([.init(format: .text, data: EC.wireText("requested"))])))
        XCTAssertEqual(e.takeEvents(), [])
    }

    func testOurCap() throws {
        var s = ClientSettings(); s.clipboardLimit = 10
        let e = try engine(s)
        try e.feed(Self.serverCaps); _ = e.takeOutput(); _ = e.takeEvents()
        e.sendCutText("0123456789ab")
        XCTAssertEqual(e.takeEvents(), [.cutTextNotSent(length: 12, limit: 10)])
        XCTAssertEqual(e.takeOutput(), EC.clientMessage(.notify([])))
        // the server's oversized text: skipped with an event, the connection goes on
        let big = EC.serverMessage(.provide([.init(format: .text, data: EC.wireText("0123456789abcdef"))]))
        let (ev, _) = try through(big + [2], settings: s)
        XCTAssertEqual(ev, [.cutTextSkipped(length: 17), .bell])
        // classic too
        let e2 = try engine(s)
        e2.sendCutText("0123456789ab")
        XCTAssertEqual(e2.takeOutput(), [])
        XCTAssertEqual(e2.takeEvents(), [.cutTextNotSent(length: 12, limit: 10)])
    }

    func testHugeMessageSkippedAsItArrives() throws {
        var s = ClientSettings(); s.clipboardLimit = 1000
        let n = Limits.maxCompressedLength(rawSize: 1001) + 1
        let msg: [UInt8] = [3, 0, 0, 0] + be32(Int(UInt32(bitPattern: -Int32(n)))) + [0x10, 0, 0, 1]
            + [UInt8](repeating: 0xaa, count: n - 4) + [2]
        let e = try engine(s)
        try e.feed(msg)
        XCTAssertEqual(e.takeEvents(), [.cutTextSkipped(length: n), .bell])
        // Int32.min: 2 GiB claimed
        let e2 = try engine(s)
        try e2.feed([3, 0, 0, 0, 0x80, 0, 0, 0])
        XCTAssertEqual(e2.takeEvents(), [.cutTextSkipped(length: 1 << 31)])
    }

    func testMalformedThroughEngineFails() throws {
        for (bytes, fragment) in [([3, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe, 0, 0], "too short"),
                                  ([3, 0, 0, 0, 0xff, 0xff, 0xff, 0xf8, 0x10, 0, 0, 1, 0x78, 0x9c, 0xff, 0xff], "corrupt zlib"),
                                  (EC.serverMessage(.provide([.init(format: .text, data: [0xc3, 0x28, 0])])), "UTF-8")] as [([UInt8], String)] {
            let e = try engine()
            XCTAssertThrowsError(try e.feed(bytes)) { XCTAssertTrue("\($0)".contains(fragment), "\($0)") }
            XCTAssertEqual(e.phase, .failed)
        }
    }

    func testClassicStillLatin1WithoutExtension() throws {
        let e = try engine()
        XCTAssertEqual(e.sendCutText("café 日本"), 2)
        XCTAssertEqual(e.takeOutput(), ClientMessage.clientCutText(latin1: Array("café ".unicodeScalars.map { UInt8($0.value) })))
        try e.feed([3, 0, 0, 0, 0, 0, 0, 2, 0xe9, 0x41])
        XCTAssertEqual(e.takeEvents(), [.cutText("éA")])
    }

    func testLargeTextRoundTrip() throws {
        let big = String(repeating: "lorem ipsum 日本 😀\n", count: 40_000)  // ~1 MiB
        let e = try engine()
        try e.feed(Self.serverCaps); _ = e.takeOutput(); _ = e.takeEvents()
        try e.feed(EC.serverMessage(.provide([.init(format: .text, data: EC.wireText(big))])))
        XCTAssertEqual(e.takeEvents(), [.cutText(big)])
    }
}
