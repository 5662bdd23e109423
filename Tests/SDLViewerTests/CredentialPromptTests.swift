import CSDL2
import Foundation
import Interaction
import RFB
@testable import SDLViewer
import VNCSession
import XCTest

/// The window's credential and trust prompts: the session's questions are posted to the
/// `WindowPrompter`; synthetic SDL events answer them through the real `ViewerWindow.handle`,
/// and the answers are recorded where the window would hand them to the session.
final class CredentialPromptTests: XCTestCase {
    var window: ViewerWindow!
    var sink: RecordingSink!
    var prompter: WindowPrompter!
    let answers = AnswerLog()

    override func setUpWithError() throws {
        try SDLTest.require()
        Synth.flush()
        sink = RecordingSink()
        let session = Session(spec: HostSpec(host: "localhost", port: 5999), settings: ClientSettings())
        let log = answers
        prompter = WindowPrompter { log.add($0) }
        var config = ViewerConfiguration()
        config.prompter = prompter
        window = ViewerWindow(session: session, configuration: config)
        window.router = InputController(sink: sink, viewport: Viewport(mode: .fit))
    }

    override func tearDown() {
        prompter?.detach()
        window?.closePrompt()
        Synth.flush()
    }

    static func text(_ s: String) {
        var e = SDL_Event()
        e.type = SDL_TEXTINPUT.rawValue
        let b = Array(s.utf8)
        precondition(b.count < 32)
        withUnsafeMutableBytes(of: &e.text.text) { raw in
            for (i, c) in b.enumerated() { raw[i] = c }
            raw[b.count] = 0
        }
        Synth.push(e)
    }

    func drain() {
        var e = SDL_Event()
        while SDL_PollEvent(&e) != 0 { _ = window.handle(e) }
    }

    /// Posts a credential question as the session's event would; returns an expectation met
    /// when the window answers, and the answer (nil: cancelled).
    func askCredentials(_ req: CredentialRequest, username: String?, prefill: consuming Credentials? = nil) -> (XCTestExpectation, () -> Given??) {
        let done = expectation(description: "answered")
        let before = answers.count
        answers.onAdd = { if self.answers.count > before { done.fulfill() } }
        prompter.post(.credentials(req, username: username), prefill: prefill)
        return (done, {
            guard let a = self.answers.last, self.answers.count > before, case .credentials(let c) = a else { return nil }
            return .some(c)
        })
    }

    /// The same for a trust question; the answer is whether it was accepted.
    func askTrust(_ id: ServerIdentity) -> (XCTestExpectation, () -> Bool?) {
        let done = expectation(description: "answered")
        let before = answers.count
        answers.onAdd = { if self.answers.count > before { done.fulfill() } }
        prompter.post(.trust(id))
        return (done, {
            guard let a = self.answers.last, self.answers.count > before, case .trust(let ok) = a else { return nil }
            return ok
        })
    }

    /// Waits until the request reached the window and the prompt is up.
    func waitForPrompt(file: StaticString = #filePath, line: UInt = #line) {
        let until = Date(timeIntervalSinceNow: 5)
        while window.prompt == nil && Date() < until {
            window.showPendingPrompt()
            if window.prompt == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        XCTAssertNotNil(window.prompt, "prompt shown", file: file, line: line)
    }

    func testTypingUserAndMaskedPasswordGivesTheProviderTheCredentials() {
        let p = prompter!
        let req = CredentialRequest(method: "X509Plain", needsUsername: true, server: "pi.local:5900")
        let (done, result) = askCredentials(req, username: nil)
        waitForPrompt()
        XCTAssertEqual(window.prompt?.focus, .username)
        CredentialPromptTests.text("pi")
        Synth.tap(SDL_SCANCODE_TAB)
        CredentialPromptTests.text("pässw")
        CredentialPromptTests.text("örd€")
        Synth.tap(SDL_SCANCODE_BACKSPACE)   // removes the whole € (three UTF-8 bytes)
        Synth.key(SDL_SCANCODE_A, down: true); Synth.key(SDL_SCANCODE_A, down: false)  // key events of typed text: not sent
        drain()
        XCTAssertEqual(window.prompt?.username, "pi")
        XCTAssertEqual(window.prompt?.passwordCount, 8)
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        let c = result() ?? nil
        XCTAssertEqual(c?.username, "pi")
        XCTAssertEqual(c?.password, Array("pässwörd".utf8))
        XCTAssertNil(window.prompt, "prompt closed")
        XCTAssertFalse(prompter.cancelledAuthentication)
        XCTAssertEqual(sink.sent, [], "nothing reached the server")
    }

    func testPasswordOnlyPromptPrefillsNothingAndEnterSubmits() {
        let p = prompter!
        let req = CredentialRequest(method: "VncAuth", needsUsername: false, server: "127.0.0.1:5901")
        let (done, result) = askCredentials(req, username: nil)
        waitForPrompt()
        XCTAssertEqual(window.prompt?.fields, [.password])
        XCTAssertEqual(window.prompt?.title, "Password for 127.0.0.1:5901")
        CredentialPromptTests.text("secret")
        Synth.tap(SDL_SCANCODE_TAB)          // only one field: focus stays on the password
        Synth.tap(SDL_SCANCODE_KP_ENTER)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual((result() ?? nil)?.password, Array("secret".utf8))
        XCTAssertEqual(sink.sent, [])
    }

    func testKnownUserNamePrefillsAndFocusesThePassword() {
        let p = prompter!
        let req = CredentialRequest(method: "RA2_256", needsUsername: true, server: "h:5900")
        let (done, result) = askCredentials(req, username: "alice")
        waitForPrompt()
        XCTAssertEqual(window.prompt?.focus, .password)
        CredentialPromptTests.text("pw")
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual((result() ?? nil)?.username, "alice")
    }

    /// A saved password the session would not send on its own (the channel proves nothing) is
    /// filled in, one bullet per character, with the reason shown; Enter sends it as it is.
    func testSavedPasswordIsFilledInAndSaysWhy() {
        let req = CredentialRequest(method: "Apple Remote Desktop", needsUsername: true, server: "mac.local:5900", channel: .anonymous)
        let (done, result) = askCredentials(req, username: nil, prefill: Credentials(username: "ann", password: Array("pässwörd".utf8)))
        waitForPrompt()
        XCTAssertEqual(window.prompt?.username, "ann")
        XCTAssertEqual(window.prompt?.passwordCount, 8)
        XCTAssertEqual(window.prompt?.focus, .password)
        XCTAssertTrue(window.prompt?.details.contains { $0.contains("saved password is filled in") && $0.contains("does not prove") } ?? false,
                      "\(window.prompt?.details ?? [])")
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(result() ?? nil, Given(username: "ann", password: Array("pässwörd".utf8)))
    }

    func testEscCancelsAndNothingIsSent() {
        let p = prompter!
        let req = CredentialRequest(method: "Plain", needsUsername: true, server: "h:5900")
        let (done, result) = askCredentials(req, username: nil)
        waitForPrompt()
        CredentialPromptTests.text("bob")
        Synth.button(1, down: true, 5, 5); Synth.button(1, down: false, 5, 5)
        Synth.motion(40, 40)
        Synth.tap(SDL_SCANCODE_ESCAPE)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertNil(result() ?? nil, "cancelled: no credentials")
        XCTAssertTrue(prompter.cancelledAuthentication)
        XCTAssertNil(window.prompt)
        XCTAssertEqual(sink.sent, [], "no key, click or motion reached the server")
    }

    func testClickFocusesAField() {
        let p = prompter!
        let req = CredentialRequest(method: "Plain", needsUsername: true, server: "h:5900")
        let (done, result) = askCredentials(req, username: nil)
        waitForPrompt()
        window.prompt?.hitRects = [.username: ViewRect(x: 10, y: 10, w: 200, h: 30),
                                   .password: ViewRect(x: 10, y: 60, w: 200, h: 30)]
        Synth.button(1, down: true, 50, 70)
        CredentialPromptTests.text("pw1")
        Synth.button(1, down: true, 50, 20)
        CredentialPromptTests.text("carol")
        Synth.tap(SDL_SCANCODE_RETURN)   // from the user name: to the password
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        let c = result() ?? nil
        XCTAssertEqual(c?.username, "carol")
        XCTAssertEqual(c?.password, Array("pw1".utf8))
    }

    func testTrustPromptDefaultsToCancelAndAcceptsDeliberately() {
        let p = prompter!
        let id = ServerIdentity(kind: .x509, server: "h:5900", fingerprint: [1, 2, 3], displayFingerprint: "01:02:03",
                                verifyError: "self-signed certificate", subject: "CN=h")
        // Enter on the default choice refuses
        var (done, result) = askTrust(id)
        waitForPrompt()
        XCTAssertEqual(window.prompt?.focus, .cancel)
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(result(), false)
        // Tab to "Accept and remember", Enter
        (done, result) = askTrust(id)
        waitForPrompt()
        Synth.tap(SDL_SCANCODE_TAB)
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(result(), true)
        // a click on the button
        (done, result) = askTrust(id)
        waitForPrompt()
        window.prompt?.hitRects = [.accept: ViewRect(x: 10, y: 10, w: 100, h: 30), .cancel: ViewRect(x: 120, y: 10, w: 100, h: 30)]
        Synth.button(1, down: true, 20, 20)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(result(), true)
        XCTAssertEqual(sink.sent, [])
    }

    /// A newer question replaces one the window has not shown; posting never blocks.
    func testANewerQuestionReplacesOneNotShown() {
        let first = CredentialRequest(method: "VncAuth", needsUsername: false, server: "old")
        let second = CredentialRequest(method: "VncAuth", needsUsername: false, server: "new:5900")
        prompter.post(.credentials(first, username: nil))
        let (done, result) = askCredentials(second, username: nil)
        waitForPrompt()
        XCTAssertEqual(window.prompt?.title, "Password for new:5900")
        CredentialPromptTests.text("x")
        Synth.tap(SDL_SCANCODE_RETURN)
        drain()
        wait(for: [done], timeout: 5)
        XCTAssertEqual((result() ?? nil)?.password, Array("x".utf8))
        XCTAssertEqual(answers.count, 1, "one answer for the one question shown")
    }

    func testClosingTheWindowCancelsAnOpenQuestion() {
        let p = prompter!
        let req = CredentialRequest(method: "VncAuth", needsUsername: false, server: "h")
        let (done, result) = askCredentials(req, username: nil)
        waitForPrompt()
        p.detach()
        wait(for: [done], timeout: 5)
        XCTAssertNil(result() ?? nil, "cancelled")
        XCTAssertTrue(p.cancelledAuthentication)
        // later questions are dropped: nothing is asked of a window that is gone
        p.post(.credentials(req, username: nil))
        XCTAssertNil(p.takeRequest())
    }

    func testPromptDrawsTitleFieldsAndBullets() throws {
        let c = try XCTUnwrap(Canvas(640, 400))
        let ov = Overlay(renderer: c.renderer)
        try XCTSkipUnless(TextRenderer.fontCandidates.contains { FileManager.default.isReadableFile(atPath: $0) }, "no font installed")
        XCTAssertTrue(ov.text.available, "SDL2_ttf opened")
        let prompt = CredentialPrompt(.credentials(CredentialRequest(method: "Plain", needsUsername: true, server: "h:5900"), username: "u"))
        func brightIn(_ r: SDL_Rect) -> Int {
            SDL_SetRenderDrawColor(c.renderer, 0, 0, 0, 255)
            SDL_RenderClear(c.renderer)
            ov.prompt(prompt, outputWidth: 640, outputHeight: 400, scale: 1)
            let px = c.read()
            var n = 0
            for y in Int(r.y)..<Int(r.y + r.h) {
                for x in Int(r.x)..<Int(r.x + r.w) {
                    let p = px[y * 640 + x]
                    if (Int(p >> 16 & 0xff) + Int(p >> 8 & 0xff) + Int(p & 0xff)) / 3 > 150 { n += 1 }
                }
            }
            return n
        }
        let l = ov.layoutPrompt(prompt, outputWidth: 640, outputHeight: 400, scale: 1)
        let pwField = try XCTUnwrap(l.fields[.password])
        XCTAssertNotNil(l.fields[.username])
        let empty = brightIn(pwField)   // the caret (focused field) only
        prompt.insert("abcd")
        let typed = brightIn(pwField)
        XCTAssertGreaterThan(typed, empty + 20, "bullets drawn")
        XCTAssertGreaterThan(brightIn(l.frame), typed + 200, "title, labels and hint drawn")
        prompt.wipe()
        XCTAssertEqual(prompt.passwordCount, 0)
    }
}

/// Credentials the window gave, copied for the test to compare (the viewer never copies them).
struct Given: Equatable {
    var username: String
    var password: [UInt8]
}

/// The answers the window gave, in order (main thread).
final class AnswerLog {
    enum Logged { case credentials(Given?), trust(Bool) }
    private(set) var all: [Logged] = []
    var onAdd: () -> Void = {}
    func add(_ a: consuming WindowPrompter.Answer) {
        switch consume a {
        case .credentials(let c):
            if let c { all.append(.credentials(Given(username: c.username, password: c.password.withBytes { Array($0) }))) }
            else { all.append(.credentials(nil)) }
        case .trust(let ok):
            all.append(.trust(ok))
        }
        onAdd()
    }
    var count: Int { all.count }
    var last: Logged? { all.last }
}
