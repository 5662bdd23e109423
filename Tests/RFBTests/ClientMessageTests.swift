import XCTest
@testable import RFB

/// The client messages byte for byte, as RFC 6143 and the extensions lay them out (most other
/// tests compare the engine's output with these builders).
final class ClientMessageTests: XCTestCase {
    func testUpdateRequestAndContinuousUpdates() {
        XCTAssertEqual(ClientMessage.updateRequest(incremental: true, Rect(x: 0x102, y: 3, w: 1920, h: 1080)),
                       [3, 1, 0x01, 0x02, 0, 3, 0x07, 0x80, 0x04, 0x38])
        // fields clamp to 0...65535
        XCTAssertEqual(ClientMessage.updateRequest(incremental: false, Rect(x: -5, y: 70000, w: 1, h: 0)),
                       [3, 0, 0, 0, 0xff, 0xff, 0, 1, 0, 0])
        var out: [UInt8] = [9]
        ClientMessage.updateRequest(incremental: true, Rect(x: 1, y: 2, w: 3, h: 4), into: &out)
        XCTAssertEqual(out, [9, 3, 1, 0, 1, 0, 2, 0, 3, 0, 4])
        XCTAssertEqual(ClientMessage.enableContinuousUpdates(true, Rect(x: 0, y: 1, w: 0x300, h: 2)),
                       [150, 1, 0, 0, 0, 1, 3, 0, 0, 2])
    }

    func testInput() {
        XCTAssertEqual(ClientMessage.pointerEvent(x: 0x1234, y: 5, buttons: 0x81), [5, 0x81, 0x12, 0x34, 0, 5])
        XCTAssertEqual(ClientMessage.pointerEvent(x: 1, y: 2, buttons: 0x181, extended: true), [5, 0x81, 0, 1, 0, 2, 0x03])
        XCTAssertEqual(ClientMessage.pointerEvent(x: 1, y: 2, buttons: 0x7f, extended: true), [5, 0x7f, 0, 1, 0, 2])
        var out: [UInt8] = []
        ClientMessage.pointerEvent(x: 1, y: 2, buttons: 4, into: &out)
        XCTAssertEqual(out, [5, 4, 0, 1, 0, 2])
        XCTAssertEqual(ClientMessage.keyEvent(keysym: 0xff0d, down: true), [4, 1, 0, 0, 0, 0, 0xff, 0x0d])
        XCTAssertEqual(ClientMessage.qemuKeyEvent(keysym: 0xffe4, keycode: 0xe01d, down: false),
                       [255, 0, 0, 0, 0, 0, 0xff, 0xe4, 0, 0, 0, 0x9d])
    }

    func testEncodingsCutTextAndFence() {
        XCTAssertEqual(ClientMessage.setEncodings([16, -239]), [2, 0, 0, 2, 0, 0, 0, 16, 0xff, 0xff, 0xff, 0x11])
        XCTAssertEqual(ClientMessage.clientCutText(latin1: [0x41, 0xe9]), [6, 0, 0, 0, 0, 0, 0, 2, 0x41, 0xe9])
        XCTAssertEqual(ClientMessage.fence(flags: 0x8000_0003, payload: [9, 8]), [248, 0, 0, 0, 0x80, 0, 0, 3, 2, 9, 8])
    }
}
