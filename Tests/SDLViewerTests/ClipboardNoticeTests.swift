import XCTest
import CSDL2
import RFB
@testable import SDLViewer

/// The transient notice shown when a clipboard text is refused for size.
final class ClipboardNoticeTests: XCTestCase {
    func testNoticeText() {
        XCTAssertEqual(ViewerWindow.clipboardNotice(.cutTextNotSent(length: 12 << 20, limit: 10 << 20)),
                       "Clipboard text (12 MiB) is over the 10 MiB limit: not sent")
        XCTAssertEqual(ViewerWindow.clipboardNotice(.cutTextSkipped(length: 11 << 20 + 1 << 19)),
                       "Remote clipboard text (11.5 MiB) is over the clipboard limit: not taken")
        XCTAssertNil(ViewerWindow.clipboardNotice(.cutText("x")))
        XCTAssertEqual(ViewerWindow.byteSize(300), "300 bytes")
        XCTAssertEqual(ViewerWindow.byteSize(5000), "4 KiB")
    }

    func testNoticeDrawsABottomPanel() throws {
        let c = try XCTUnwrap(Canvas(480, 200))
        let ov = Overlay(renderer: c.renderer)
        try XCTSkipUnless(TextRenderer.fontCandidates.contains { FileManager.default.isReadableFile(atPath: $0) }, "no font installed")
        XCTAssertTrue(ov.text.available, "SDL2_ttf opened")
        SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
        SDL_RenderClear(c.renderer)
        let r = ov.notice("Clipboard text (12 MiB) is over the 10 MiB limit: not sent", outputWidth: 480, outputHeight: 200, scale: 1)
        XCTAssertGreaterThan(r.w, 100)
        XCTAssertGreaterThanOrEqual(r.x, 0)
        XCTAssertLessThanOrEqual(Int(r.x + r.w), 480)
        // in the lower part, clear of the centred status panel
        XCTAssertGreaterThan(Int(r.y), 100)
        XCTAssertLessThan(Int(r.y + r.h), 200)
        let px = c.read()
        var bright = 0
        for y in Int(r.y)..<Int(r.y + r.h) {
            for x in Int(r.x)..<Int(r.x + r.w) {
                let p = px[y * 480 + x]
                if (Int(p >> 16 & 0xff) + Int(p >> 8 & 0xff) + Int(p & 0xff)) / 3 > 150 { bright += 1 }
            }
        }
        XCTAssertGreaterThan(bright, 100, "text pixels")
        XCTAssertEqual(px[0], 0, "nothing drawn outside the panel")
        XCTAssertEqual(px[100 * 480 + 240], 0, "nothing in the middle")
    }
}
