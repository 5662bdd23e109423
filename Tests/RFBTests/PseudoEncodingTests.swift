import XCTest
@testable import RFB

/// Cursor shapes, lock lights, pointer mode and position, xvp: byte vectors, whole and drip-fed.
final class PseudoEncodingTests: XCTestCase {
    /// `audio`: sound is asked for (`setAudio`) once the connection is up.
    func events(_ bytes: [UInt8], audio: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> [EngineEvent] {
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        if audio { e.setAudio(enabled: true) }
        try e.feed(bytes)
        let whole = e.takeEvents().filter { if case .ready = $0 { return false }; return true }
        let d = ClientEngine(settings: ClientSettings())
        var drip: [EngineEvent] = []
        try d.feed(S.hello())
        if audio { d.setAudio(enabled: true) }
        for b in bytes { try d.feed([b]); drip += d.takeEvents() }
        XCTAssertEqual(whole, drip.filter { if case .ready = $0 { return false }; return true }, "drip-fed differs", file: file, line: line)
        return whole.filter {
            switch $0 {
            case .updateBegan, .updateEnded, .securityChosen: return false
            default: return true
            }
        }
    }

    func testXCursorTwoColoursAndMask() throws {
        // 2x2: row 0 = fg, bg; row 1 = masked out, fg
        let body: [UInt8] = [255, 0, 0, 0, 0, 255] + [0b1000_0000, 0b0100_0000] + [0b1100_0000, 0b0100_0000]
        let ev = try events(S.update([S.rect(1, 0, 2, 2, -240, body)]))
        XCTAssertEqual(ev, [.cursor(CursorImage(width: 2, height: 2, hotX: 1, hotY: 0,
                                                 argb: [0xffff_0000, 0xff00_00ff, 0, 0xffff_0000]))])
    }

    func testCursorWithAlphaIsUnpremultiplied() throws {
        // one pixel: red at half alpha, premultiplied (128, 0, 0, 128); one transparent
        let body: [UInt8] = be32(0) + [128, 0, 0, 128] + [0, 0, 0, 0]
        let ev = try events(S.update([S.rect(0, 0, 2, 1, -314, body)]))
        XCTAssertEqual(ev, [.cursor(CursorImage(width: 2, height: 1, hotX: 0, hotY: 0, argb: [0x80ff_0000, 0]))])
        let e = ClientEngine(settings: ClientSettings())
        XCTAssertThrowsError(try e.feed(S.hello() + S.update([S.rect(0, 0, 1, 1, -314, be32(7) + [0])]))) {
            XCTAssertTrue("\($0)".contains("only Raw"), "\($0)")
        }
        XCTAssertThrowsError(try ClientEngine(settings: ClientSettings()).feed(S.hello() + S.update([S.rect(0, 0, 2000, 2, -314, be32(0))]))) {
            XCTAssertTrue("\($0)".contains("over the 1024x1024 limit"), "\($0)")
        }
    }

    func testVMwareCursorTypes() throws {
        let alpha = S.rect(0, 0, 1, 1, 0x574d_5664, [1, 0] + [0, 255, 0, 255])
        XCTAssertEqual(try events(S.update([alpha])), [.cursor(CursorImage(width: 1, height: 1, hotX: 0, hotY: 0, argb: [0xff00_ff00]))])
        // classic: AND 0 shows the XOR pixel; AND set with XOR 0 is transparent
        let classic = S.rect(0, 0, 2, 1, 0x574d_5664, [0, 0] + px(0) + px(0xffffff) + px(0x123456) + px(0))
        XCTAssertEqual(try events(S.update([classic])), [.cursor(CursorImage(width: 2, height: 1, hotX: 0, hotY: 0, argb: [0xff12_3456, 0]))])
        XCTAssertThrowsError(try ClientEngine(settings: ClientSettings()).feed(S.hello() + S.update([S.rect(0, 0, 1, 1, 0x574d_5664, [5, 0])]))) {
            XCTAssertTrue("\($0)".contains("type 5"), "\($0)")
        }
    }

    func testLockLightsPointerModeAndPosition() throws {
        let ev = try events(S.update([S.rect(0, 0, 0, 0, -261, [0b101]), S.rect(0, 0, 0, 0, 0x574d_5668, be32(2)),
                                      S.rect(0, 0, 0, 0, -257), S.rect(1, 0, 0, 0, -257), S.rect(5, 6, 0, 0, -232)]))
        XCTAssertEqual(ev, [.lockLights(LockLights(scroll: true, num: false, caps: true)),
                            .lockLights(LockLights(scroll: false, num: true, caps: false)),
                            .pointerMode(relative: true), .pointerMode(relative: false), .pointerMoved(x: 5, y: 6)])
    }

    func testXvp() throws {
        XCTAssertEqual(try events([250, 0, 1, 1]), [.powerControl(available: true)])
        XCTAssertEqual(try events([250, 0, 1, 0]), [.powerControlFailed])
        XCTAssertThrowsError(try ClientEngine(settings: ClientSettings()).feed(S.hello() + [250, 0, 1, 9])) {
            XCTAssertTrue("\($0)".contains("code 9"), "\($0)")
        }
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        _ = e.takeOutput()
        e.sendPowerAction(.reboot)
        XCTAssertEqual(e.takeOutput(), [250, 0, 1, 3])
    }

    func testEncodingsAreOffered() {
        let l = ClientSettings().encodingList
        for enc in [-314, 0x574d_5664, -239, -240, -261, 0x574d_5668, -257, -309, -232, 0x574d_5666] as [Int32] {
            XCTAssertTrue(l.contains(enc), "\(enc) offered")
        }
        XCTAssertLessThan(l.firstIndex(of: -314) ?? 99, l.firstIndex(of: -239) ?? 0, "the alpha cursor before RichCursor")
    }
}

extension PseudoEncodingTests {
    /// QEMU acknowledges the audio encoding with an empty rect when its machine has sound (found
    /// against QEMU with a PC speaker: the viewer took it for an unknown encoding and left).
    func testQEMUAudioAcknowledgementIsAccepted() throws {
        XCTAssertEqual(try events(S.update([S.rect(0, 0, 720, 400, -259, []), S.rect(0, 0, 0, 0, -257, [])])),
                       [.pointerMode(relative: true)])
    }

    func testQEMUAudioMessages() throws {
        let data: [UInt8] = [255, 1, 0, 2] + be32(4) + [1, 2, 3, 4]
        XCTAssertEqual(try events([255, 1, 0, 1] + data + [255, 1, 0, 0], audio: true), [.audioBegan, .audioData([1, 2, 3, 4]), .audioEnded])
        let big = ClientEngine(settings: ClientSettings())
        try big.feed(S.hello())
        big.setAudio(enabled: true)
        XCTAssertThrowsError(try big.feed([255, 1, 0, 2] + be32(2 << 20))) {
            XCTAssertTrue("\($0)".contains("over the 1048576-byte limit"), "\($0)")
        }
        XCTAssertThrowsError(try ClientEngine(settings: ClientSettings()).feed(S.hello() + [255, 1, 0, 7])) {
            XCTAssertTrue("\($0)".contains("operation 7"), "\($0)")
        }
        XCTAssertThrowsError(try ClientEngine(settings: ClientSettings()).feed(S.hello() + [255, 2, 0, 0])) {
            XCTAssertTrue("\($0)".contains("submessage 2"), "\($0)")
        }
        let e = ClientEngine(settings: ClientSettings())
        try e.feed(S.hello())
        _ = e.takeOutput()
        e.setAudio(enabled: true)
        XCTAssertEqual(e.takeOutput(), [255, 1, 0, 2, 3, 2, 0, 0, 0xac, 0x44, 255, 1, 0, 0], "format s16 stereo 44100, then enable")
        e.setAudio(enabled: false)
        XCTAssertEqual(e.takeOutput(), [255, 1, 0, 1])
    }
}
