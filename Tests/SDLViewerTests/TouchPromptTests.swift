import CSDL2
import Interaction
import RFB
@testable import SDLViewer
import VNCSession
import XCTest

/// The on-screen keyboard types into the credential prompt (a kiosk has no other keyboard),
/// through the real `ViewerWindow.handle`; nothing reaches the server.
final class TouchPromptTests: XCTestCase {
    func testOnScreenKeyboardTypesIntoThePrompt() throws {
        try SDLTest.require()
        Synth.flush()
        let sink = RecordingSink()
        let session = Session(spec: HostSpec(host: "localhost", port: 5999), settings: ClientSettings())
        let window = ViewerWindow(session: session)
        let router = InputController(sink: sink, viewport: Viewport(mode: .fit))
        router.windowSize = (640, 480)
        window.router = router
        _ = router.setKeyboard(shown: true)
        router.setKeyboardLayout(ViewRect(x: 0, y: 320, w: 640, h: 160))
        let prompt = CredentialPrompt(.credentials(CredentialRequest(method: "VNC", needsUsername: false, server: "h:5900"), username: nil))
        window.prompt = prompt
        defer { window.prompt = nil }
        func tap(_ label: String) {
            guard let kb = router.keyboard, let f = kb.keyFrames.first(where: { OnScreenKeyboard.rows[$0.row][$0.index].label == label })
            else { return XCTFail("no key \(label)") }
            for type in [SDL_FINGERDOWN, SDL_FINGERUP] {
                var e = SDL_Event()
                e.type = type.rawValue
                e.tfinger.fingerId = 3
                e.tfinger.x = Float((f.rect.x + f.rect.w / 2) / 640); e.tfinger.y = Float((f.rect.y + f.rect.h / 2) / 480)
                _ = window.handle(e)
            }
        }
        for l in ["p", "w", "Shift", "1", "x", "⌫"] { tap(l) }
        XCTAssertEqual(prompt.password.withBytes { String(decoding: $0, as: UTF8.self) }, "pw!")
        XCTAssertEqual(sink.sent, [])
        tap("Enter")
        XCTAssertNil(window.prompt, "Enter submits")
    }
}
