import Foundation
import RFB
@testable import VNCSession
import XCTest

/// The connection loop over an in-memory transport: the test plays the server byte by byte.
final class SessionTests: XCTestCase {
    /// Collects events from the session and lets the test wait for one.
    final class Watcher: @unchecked Sendable {
        let session: Session
        private let cond = NSCondition()
        private var seen: [EngineEvent] = []
        init(_ s: Session) {
            session = s
            s.wake = { [weak self] in self?.poke() }
        }
        private func poke() { cond.lock(); cond.broadcast(); cond.unlock() }

        /// Waits until `match` holds for an event seen (taken from the session) or the state.
        @discardableResult
        func wait(_ timeout: Double = 5, until match: ([EngineEvent], Session.State) -> Bool) -> Bool {
            let until = Date(timeIntervalSinceNow: timeout)
            cond.lock(); defer { cond.unlock() }
            while true {
                seen += session.takeEvents()
                if match(seen, session.state) { return true }
                if !cond.wait(until: min(until, Date(timeIntervalSinceNow: 0.05))) && Date() >= until { return false }
            }
        }
        var events: [EngineEvent] { cond.withLock { seen + session.takeEvents() } }
    }

    func session(_ transports: [MemoryTransport], settings: ClientSettings = ClientSettings(),
                 reconnect: ReconnectPolicy = ReconnectPolicy(), liveness: LivenessPolicy = LivenessPolicy()) -> Session {
        let queue = TransportQueue(transports)
        return Session(spec: "memory", settings: settings, reconnect: reconnect, liveness: liveness) { _ in
            guard let t = queue.next() else { throw TransportError("no more test transports") }
            return t
        }
    }

    func testHandshakeAndFirstUpdateReachTheFramebuffer() throws {
        let t = MemoryTransport()
        let s = session([t])
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 64, height: 32))
        XCTAssertTrue(w.wait { _, st in st == .ready }, "ready")
        // SetPixelFormat (20), SetEncodings (4 + 4n), the first full request (10)
        XCTAssertEqual(t.serverReceive(20)?.first, 0)
        t.serverSend(FakeServer.rreFill(width: 64, height: 32, pixel: 0x123456))
        XCTAssertTrue(w.wait { ev, _ in ev.contains(.updateEnded(rects: 1)) })
        let px = s.withFramebuffer { fb in fb.map { $0.pixels[31 * 64 + 63] } }
        XCTAssertEqual(px, 0x123456)
        XCTAssertEqual(s.desktopName, "fake")
    }

    /// Two decoding threads: whole RRE rects go to a worker while the front end reads and takes
    /// damage on its own thread (ThreadSanitizer runs this); each update is whole at its end.
    func testWorkersDecodeWhileTheFrontEndReads() throws {
        let t = MemoryTransport()
        var settings = ClientSettings()
        settings.decodeThreads = 2
        let s = session([t], settings: settings)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 256, height: 256))
        XCTAssertTrue(w.wait { _, st in st == .ready }, "ready")
        _ = t.serverReceive(20)
        // four rects a frame, each 128x128 (on workers): one colour per frame
        func frame(_ c: UInt32) -> [UInt8] {
            var b: [UInt8] = [0, 0] + FakeServer.be16(4)
            for i in 0..<4 {
                b += FakeServer.be16(i % 2 * 128) + FakeServer.be16(i / 2 * 128) + FakeServer.be16(128) + FakeServer.be16(128) + FakeServer.be32(2) + FakeServer.be32(0)
                b += [UInt8(c & 0xff), UInt8(c >> 8 & 0xff), UInt8(c >> 16 & 0xff), 0]
            }
            return b
        }
        var mixed = 0
        for k in 1...40 {
            t.serverSend(frame(UInt32(k) * 0x010203))
            let (a, b) = s.withFramebuffer { fb in
                _ = fb?.takeDamage()
                return (fb?.pixels[0] ?? 0, fb?.pixels[256 * 256 - 1] ?? 0)
            }
            if a != b { mixed += 1 }   // read between rects of one frame: allowed
        }
        XCTAssertTrue(w.wait { ev, _ in ev.filter { if case .updateEnded = $0 { return true }; return false }.count == 40 })
        let last = s.withFramebuffer { fb in fb.map { [$0.pixels[0], $0.pixels[128], $0.pixels[128 * 256], $0.pixels[256 * 256 - 1]] } }
        XCTAssertEqual(last, Array(repeating: 40 * 0x010203, count: 4))
        print("frames read mid-update: \(mixed) of 40")
    }

    /// A rect a worker cannot decode, then silence in the middle of the update: the connection
    /// ends at once with the decoder's message, not at the update's end nor as a stall.
    func testAWorkersFailureEndsTheConnectionAtOnce() throws {
        let t = MemoryTransport()
        var settings = ClientSettings()
        settings.decodeThreads = 2
        let s = session([t], settings: settings)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(t, width: 256, height: 256))
        XCTAssertTrue(w.wait { _, st in st == .ready }, "ready")
        _ = t.serverReceive(20)
        // an update of 2 rects: an RRE rect whose subrect leaves it, and the second never comes
        var b: [UInt8] = [0, 0] + FakeServer.be16(2)
        b += FakeServer.be16(0) + FakeServer.be16(0) + FakeServer.be16(128) + FakeServer.be16(128) + FakeServer.be32(2)
        b += FakeServer.be32(1) + [0, 0, 0, 0] + [0xff, 0, 0, 0] + FakeServer.be16(100) + FakeServer.be16(0)
            + FakeServer.be16(50) + FakeServer.be16(1)
        let sent = Date()
        t.serverSend(b)
        XCTAssertTrue(w.wait(3) { _, st in if case .failed(let why) = st { return why.contains("RRE subrect") }; return false },
                      "\(s.state)")
        XCTAssertLessThan(Date().timeIntervalSince(sent), 1.0)
    }

    /// VncAuth with no answer: the question goes to the front end, the handshake timer stops
    /// while it waits, and a late answer completes the login.
    func testPromptAnsweredLateDoesNotTimeOut() throws {
        let t = MemoryTransport()
        var live = LivenessPolicy()
        live.handshakeTimeout = 0.5
        let s = session([t], liveness: live)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        t.serverSend(Array("RFB 003.008\n".utf8))
        XCTAssertNotNil(t.serverReceive(12))
        t.serverSend([1, 2])                                   // VncAuth only
        XCTAssertEqual(t.serverReceive(1), [2])
        let challenge = [UInt8](repeating: 7, count: 16)
        t.serverSend(challenge)
        XCTAssertTrue(w.wait { ev, _ in ev.contains { if case .credentialsRequired = $0 { return true }; return false } })
        Thread.sleep(forTimeInterval: 1.0)                     // twice the handshake timeout
        XCTAssertEqual(s.state, .authenticating, "waiting for the user does not count against the handshake")
        s.provideCredentials(Credentials(password: Array("secret".utf8)))
        XCTAssertEqual(t.serverReceive(16), VNCAuth.response(challenge: challenge, password: Array("secret".utf8)))
        t.serverSend(FakeServer.be32(0))
        XCTAssertNotNil(t.serverReceive(1))
        t.serverSend(FakeServer.serverInit(width: 8, height: 8))
        XCTAssertTrue(w.wait { _, st in st == .ready })
    }

    /// A password saved from an encrypted login is not sent on its own over Apple Remote
    /// Desktop: ARD's anonymous Diffie-Hellman encrypts to whoever answers for the name (the
    /// same strength as last time, so the downgrade check passes). The question goes to the
    /// front end instead, and nothing reaches the server. Before, the saved user name and
    /// password went at once, encrypted to the answering party's own key.
    func testSavedPasswordIsNotSentOverAnonymousDiffieHellman() throws {
        let dir = NSTemporaryDirectory() + "farcast-saved-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = FileCredentialStore(path: dir + "/credentials")
        // saved from an ARD login to mac.local (an encrypted one: the protected entry)
        try store.save(server: "mac.local:5900", credentials: Credentials(username: "ann", password: Array("saved-pw".utf8)))
        let known = KnownHosts(path: dir + "/known_hosts")
        var settings = ClientSettings()
        settings.serverName = "mac.local"; settings.serverPort = 5900
        let t = MemoryTransport()
        let s = session([t], settings: settings)
        s.answers = HandshakeAnswers.standard(given: CredentialSources(username: nil, password: nil, prompt: false),
                                              recorder: CredentialRecorder(store: store, save: false), knownHosts: known, trustNew: false)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        t.serverSend(Array("RFB 003.889\n".utf8))
        XCTAssertNotNil(t.serverReceive(12))
        t.serverSend([1, SecurityType.appleRemoteDesktop])
        XCTAssertEqual(t.serverReceive(1), [SecurityType.appleRemoteDesktop])
        var p = [UInt8](repeating: 0xff, count: 128); p[0] = 0xfb
        var y = [UInt8](repeating: 0, count: 128); y[127] = 5
        t.serverSend([0, 2, 0, 128] + p + y)
        XCTAssertTrue(w.wait { ev, _ in ev.contains { if case .credentialsRequired = $0 { return true }; return false } },
                      "the user is asked: \(s.state)")
        XCTAssertNil(t.serverReceive(1, timeout: 0.5), "nothing was sent to the server")
    }

    /// Cancelling the prompt ends the session with the reason, not retried.
    func testCancelledPromptFailsWithoutRetry() throws {
        let t = MemoryTransport()
        let s = session([t, MemoryTransport()], reconnect: ReconnectPolicy(mode: .always))
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        t.serverSend(Array("RFB 003.008\n".utf8) + [1, 2] + [UInt8](repeating: 1, count: 16))
        XCTAssertTrue(w.wait { ev, _ in ev.contains { if case .credentialsRequired = $0 { return true }; return false } })
        s.cancelLogin()
        XCTAssertTrue(w.wait { _, st in st == .failed("authentication cancelled") }, "\(s.state)")
    }

    /// A password accepted with SecurityResult 0, then a close instead of ServerInit (wayvnc
    /// before 0.7 refusing a login): the engine's reason ends the session, not retried.
    func testCloseAfterLoginIsARefusedLoginNotRetried() throws {
        let t = MemoryTransport()
        var settings = ClientSettings()
        settings.password = Array("secret".utf8)
        let s = session([t, MemoryTransport()], settings: settings, reconnect: ReconnectPolicy(mode: .always))
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        t.serverSend(Array("RFB 003.008\n".utf8) + [1, 2] + [UInt8](repeating: 1, count: 16) + FakeServer.be32(0))
        XCTAssertNotNil(t.serverReceive(12 + 1 + 16 + 1), "version, type, response, ClientInit")
        t.serverClose()
        let why = "the server closed the connection after the login; the password was probably refused"
        XCTAssertTrue(w.wait { _, st in st == .failed(why) }, "\(s.state)")
    }

    /// The connection drops after the login: the session reconnects on its own, and a key held
    /// when it dropped is released on the new connection.
    func testReconnectReleasesHeldKeys() throws {
        let first = MemoryTransport(), second = MemoryTransport()
        var policy = ReconnectPolicy(mode: .always)
        policy.initialDelay = 0.05
        let s = session([first, second], reconnect: policy)
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(first, width: 16, height: 16))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        s.sendKey(0x61, down: true)
        let pressed = ClientMessage.keyEvent(keysym: 0x61, down: true)
        let deadline = Date(timeIntervalSinceNow: 5)
        var got: [UInt8] = []
        while !got.ends(with: pressed) && Date() < deadline { got += first.serverReceiveAll(); Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(got.ends(with: pressed), "key down sent")
        first.serverClose()
        XCTAssertTrue(w.wait { _, st in if case .waiting = st { return true }; return st == .authenticating || st == .connecting })
        XCTAssertTrue(FakeServer.handshakeNone(second, width: 16, height: 16))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        let released = ClientMessage.keyEvent(keysym: 0x61, down: false)
        var after: [UInt8] = []
        while !after.ends(with: released) && Date() < deadline { after += second.serverReceiveAll(); Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(after.ends(with: released), "the held key is released on the new connection")
    }

    /// A host reached with X509Plain before that now offers only None is refused (not
    /// retried); named by the user, the weaker type is used; the method used is reported.
    func testDowngradeRefusedUnlessNamedAndTheMethodIsRemembered() throws {
        let t = MemoryTransport()
        var policy = ReconnectPolicy(mode: .always)
        policy.initialDelay = 0.05
        let s = session([t, MemoryTransport()], reconnect: policy)
        s.answers = HandshakeAnswers(reachedBefore: { _ in .veNCrypt(VeNCryptSubtype.x509Plain) })
        let w = Watcher(s)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        t.serverSend(Array("RFB 003.008\n".utf8) + [1, 1])
        XCTAssertTrue(w.wait { _, st in if case .failed(let why) = st { return why.contains("reached with X509Plain before") }; return false }, "\(s.state)")

        var named = ClientSettings()
        named.securityMethods = [.type(SecurityType.none)]
        named.securityNamedByUser = true
        let u = MemoryTransport()
        let s2 = session([u], settings: named)
        let used = MethodBox()
        s2.answers = HandshakeAnswers(loggedIn: { server, m, _ in used.set(server, m) },
                                      reachedBefore: { _ in .veNCrypt(VeNCryptSubtype.x509Plain) })
        let w2 = Watcher(s2)
        s2.start()
        defer { s2.stop(); s2.waitUntilStopped(timeout: 2) }
        XCTAssertTrue(FakeServer.handshakeNone(u, width: 4, height: 4))
        XCTAssertTrue(w2.wait { _, st in st == .ready })
        XCTAssertEqual(used.get()?.1, .type(SecurityType.none))
        XCTAssertEqual(used.get()?.0, ":5900")
    }

    /// A flood of 64-Mpixel fills: the framebuffer can be read within a rect's time, and
    /// stop() returns at once and the session thread ends soon after.
    func testStopDuringAFloodOfHugeFills() throws {
        let t = MemoryTransport()
        let s = session([t])
        let w = Watcher(s)
        s.start()
        let (fw, fh) = (8192, 8192)
        XCTAssertTrue(FakeServer.handshakeNone(t, width: fw, height: fh))
        XCTAssertTrue(w.wait { _, st in st == .ready })
        var flood: [UInt8] = []
        for i in 0..<400 { flood += FakeServer.rreFill(width: fw, height: fh, pixel: UInt32(i) * 0x010101) }
        t.serverSend(flood)
        XCTAssertTrue(w.wait { ev, _ in ev.contains { if case .updateEnded = $0 { return true }; return false } })
        // reading while fills go on waits for one rect at most
        var worst = 0.0
        for _ in 0..<10 {
            let t0 = monotonicSeconds()
            _ = s.withFramebuffer { $0?.pixels[0] }
            worst = max(worst, monotonicSeconds() - t0)
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTAssertLessThan(worst, 0.5, "framebuffer read waited \(worst) s")
        let done = w.events.filter { if case .updateEnded = $0 { return true }; return false }.count
        XCTAssertLessThan(done, 400, "the flood was still being decoded")
        let t0 = monotonicSeconds()
        s.stop()
        XCTAssertLessThan(monotonicSeconds() - t0, 0.05, "stop() returns at once")
        XCTAssertTrue(s.waitUntilStopped(timeout: 1), "the session thread ends within a second")
    }
}

/// Hands out prepared transports in order.
final class TransportQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var left: [MemoryTransport]
    init(_ t: [MemoryTransport]) { left = t }
    func next() -> MemoryTransport? { lock.withLock { left.isEmpty ? nil : left.removeFirst() } }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

final class MethodBox: @unchecked Sendable {
    private let lock = NSLock()
    private var v: (String, SecurityMethod?)?
    func set(_ s: String, _ m: SecurityMethod?) { lock.withLock { v = (s, m) } }
    func get() -> (String, SecurityMethod?)? { lock.withLock { v } }
}
