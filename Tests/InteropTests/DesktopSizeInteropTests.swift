import Foundation
import XCTest
import RFB
import VNCSession

/// ExtendedDesktopSize and SetDesktopSize against a real TigerVNC Xvnc on loopback: the screens the
/// engine sees against what RandR says on the server's display.
final class DesktopSizeInteropTests: XCTestCase {

    /// A bare engine on a socket: connects, then pumps until `until` holds for the events so far.
    final class Client {
        let engine: ClientEngine
        let transport: SocketTransport
        var events: [EngineEvent] = []

        init(_ server: VNCServer) throws {
            var s = ClientSettings()
            s.encodings = [Encoding.raw]
            engine = ClientEngine(settings: s)
            transport = try SocketTransport.connect(HostSpec(host: server.host, port: server.port))
        }
        deinit { transport.close() }

        /// Pumps bytes both ways until `until(events)` or the timeout; returns whether it held.
        @discardableResult
        func pump(timeout: TimeInterval = 15, until: ([EngineEvent]) -> Bool) throws -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if engine.hasOutput { try transport.send(engine.takeOutput()) }
                if until(events) { return true }
                if transport.waitReadable(timeout: 0.1) {
                    let got = try engine.receive(atLeast: 65536) { p, cap in try transport.recv(into: p, capacity: cap) }
                    if got == 0 { throw HarnessError("server closed the connection") }
                    events += engine.takeEvents()
                }
            }
            return until(events)
        }

        /// The last layout the engine reported, if any.
        var lastLayout: ScreenLayout? {
            for e in events.reversed() { if case .screenLayout(let l, _) = e { return l } }
            return nil
        }
        var requestResults: [DesktopSizeStatus] {
            events.compactMap { if case .desktopSizeRequestResult(let s, _) = $0 { return s } else { return nil } }
        }
    }

    func startXvnc(_ extra: [String] = []) throws -> VNCServer {
        var o = VNCServer.Options()
        o.width = 1024; o.height = 768
        o.content = .blank   // pixels do not matter here
        o.extraArguments = extra
        return try startServer(.xvnc, o)
    }

    /// Connects and waits for the layout Xvnc announces after SetEncodings.
    func connect(_ server: VNCServer) throws -> Client {
        let c = try Client(server)
        XCTAssertTrue(try c.pump { _ in c.engine.server.screenLayout != nil }, "Xvnc announced its layout; events: \(c.events)")
        return c
    }

    func testInitialLayoutAndServerSideChange() throws {
        try InteropTools.need("xrandr")
        let server = try startXvnc()
        let c = try connect(server)
        XCTAssertTrue(c.engine.server.supportsSetDesktopSize)
        XCTAssertEqual(c.engine.server.screenLayout?.width, 1024)
        XCTAssertEqual(c.engine.server.screenLayout?.screens.map(\.rect), [Rect(x: 0, y: 0, w: 1024, h: 768)])
        let first = c.engine.server.screenLayout?.screens.first?.id ?? 0, flags = c.engine.server.screenLayout?.screens.first?.flags ?? 0

        // The server's own changes (Xvnc keeps its one output at +0+0 and ignores --pos for it):
        // a larger framebuffer around the same monitor, then a smaller mode that shrinks both.
        c.events.removeAll()
        _ = try server.xrandr(["--fb", "1600x1200"])
        XCTAssertTrue(try c.pump { _ in c.lastLayout?.width == 1600 }, "layout after --fb: \(String(describing: c.lastLayout))")
        XCTAssertEqual(c.lastLayout, ScreenLayout(width: 1600, height: 1200, screens: [Screen(id: first, x: 0, y: 0, width: 1024, height: 768, flags: flags)]))
        XCTAssertTrue(c.events.contains(.resized(width: 1600, height: 1200)))
        XCTAssertTrue(c.events.contains { if case .screenLayout(_, .server) = $0 { return true } else { return false } })
        XCTAssertEqual(c.engine.framebuffer?.width, 1600)

        c.events.removeAll()
        _ = try server.xrandr(["--output", "VNC-0", "--mode", "800x600"])
        XCTAssertTrue(try c.pump { _ in c.lastLayout?.width == 800 }, "layout after --mode: \(String(describing: c.lastLayout))")
        XCTAssertEqual(c.lastLayout?.height, 600)
        XCTAssertEqual(c.lastLayout?.screens.map(\.rect), [Rect(x: 0, y: 0, w: 800, h: 600)])
        XCTAssertEqual(c.lastLayout?.screens.map(\.rect), try server.monitors(), "the engine's screens are RandR's monitors")
        XCTAssertEqual(c.engine.framebuffer?.height, 600)
    }

    func testTwoScreenRequest() throws {
        try InteropTools.need("xrandr")
        let server = try startXvnc()
        let c = try connect(server)
        let first = c.engine.server.screenLayout?.screens.first?.id ?? 0
        let two = [Screen(id: first, x: 0, y: 0, width: 1024, height: 768),
                   Screen(id: first &+ 1, x: 1024, y: 0, width: 800, height: 600)]
        c.events.removeAll()
        try c.engine.requestDesktopSize(width: 1824, height: 768, screens: two)
        XCTAssertTrue(try c.pump { _ in !c.requestResults.isEmpty }, "a reply; events \(c.events)")
        XCTAssertEqual(c.requestResults, [.ok])
        XCTAssertEqual(c.engine.framebuffer?.width, 1824)
        XCTAssertEqual(c.lastLayout?.screens.map(\.rect), two.map(\.rect))
        // RandR on the server's display agrees.
        XCTAssertTrue(poll(timeout: 5) { (try? server.monitors()) == two.map(\.rect) }, "monitors: \((try? server.monitors()) ?? [])")

        // And a second client sees it as another client's change... the first one back to one screen:
        let other = try connect(server)
        XCTAssertEqual(other.engine.server.screenLayout?.screens.count, 2)
        c.events.removeAll()
        try other.engine.requestDesktopSize(width: 1024, height: 768)
        XCTAssertTrue(try other.pump { _ in !other.requestResults.isEmpty })
        XCTAssertEqual(other.requestResults, [.ok])
        XCTAssertTrue(try c.pump { _ in c.lastLayout?.screens.count == 1 }, "events \(c.events)")
        XCTAssertTrue(c.events.contains { if case .screenLayout(_, .otherClient) = $0 { return true } else { return false } })
        XCTAssertTrue(poll(timeout: 5) { (try? server.monitors())?.count == 1 }, "monitors: \((try? server.monitors()) ?? [])")
    }

    /// Through the viewer's Session: the layout it observes and a two-screen request from it.
    func testSessionTwoScreens() throws {
        try InteropTools.need("xrandr")
        let server = try startXvnc()
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: server.host, port: server.port))),
                        settings: ClientSettings())
        s.start()
        addTeardownBlock { s.stop() }
        XCTAssertTrue(poll(timeout: 15) { s.screenLayout != nil }, "layout seen; state \(s.state)")
        XCTAssertTrue(s.supportsSetDesktopSize)
        XCTAssertEqual(s.screenLayout?.screens.count, 1)
        let two = [Screen(id: 0, x: 0, y: 0, width: 640, height: 480), Screen(id: 1, x: 640, y: 0, width: 640, height: 480)]
        try s.requestDesktopSize(width: 1280, height: 480, screens: two)
        var events: [EngineEvent] = []
        XCTAssertTrue(poll(timeout: 15) {
            events += s.takeEvents()
            return events.contains { if case .desktopSizeRequestResult = $0 { return true } else { return false } }
        }, "a reply; events \(events)")
        XCTAssertTrue(events.contains(.desktopSizeRequestResult(status: .ok, message: DesktopSizeStatus.ok.message)))
        XCTAssertEqual(s.screenLayout?.screens.map(\.rect), two.map(\.rect))
        XCTAssertEqual(s.withFramebuffer { $0?.width }, 1280)
        XCTAssertTrue(poll(timeout: 5) { (try? server.monitors()) == two.map(\.rect) }, "monitors: \((try? server.monitors()) ?? [])")
    }

    func testProhibitedRequest() throws {
        let server = try startXvnc(["-AcceptSetDesktopSize=0"])
        let c = try connect(server)
        c.events.removeAll()
        try c.engine.requestDesktopSize(width: 800, height: 600)
        XCTAssertTrue(try c.pump { _ in !c.requestResults.isEmpty }, "a reply; events \(c.events)")
        XCTAssertEqual(c.requestResults, [.prohibited])
        let message = c.events.compactMap { if case .desktopSizeRequestResult(_, let m) = $0 { return m } else { return nil } }.first ?? ""
        XCTAssertTrue(message.contains("prohibited"), message)
        XCTAssertEqual(c.engine.framebuffer?.width, 1024, "nothing changed")
        XCTAssertEqual(c.engine.phase, .normal, "a refusal is not a protocol error")
    }
}
