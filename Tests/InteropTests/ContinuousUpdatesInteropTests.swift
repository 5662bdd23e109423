import Foundation
import XCTest
import RFB
import VNCSession

/// ContinuousUpdates and Fence against real servers on loopback: TigerVNC's Xvnc has both,
/// x11vnc (libvncserver) neither, and keeps the request path.
final class ContinuousUpdatesInteropTests: XCTestCase {
    func settings() -> ClientSettings {
        var s = ClientSettings()
        s.encodings = [Encoding.tight, Encoding.copyRect]   // lossless Tight
        return s
    }

    /// Paints the root window one colour (the scene's background pixmap goes).
    func paint(_ server: VNCServer, _ colour: String) throws {
        try runTool("xsetroot", ["-display", server.displayName, "-solid", colour], in: server.workDir, timeout: 10)
    }

    func framebufferImage(_ s: Session) -> RGBImage? { s.withFramebuffer { $0.map { RGBImage($0) } } }

    /// Xvnc: continuous updates are enabled, the picture follows changes made after that with
    /// no request per update, and it equals the server's screen; fences measure the round trip.
    func testXvncPushesWithContinuousUpdates() throws {
        let server = try startServer(.xvnc, { var o = VNCServer.Options(); o.content = .scene; return o }())
        let s = Session(spec: HostSpec(host: server.host, port: server.port), settings: settings())
        let log = LogLines()
        s.log = { log.append($0) }
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 5) }
        XCTAssertTrue(poll(timeout: 15) { s.link.continuousUpdates && s.link.roundTrip != nil }, "state \(s.state), link \(s.link.line)")
        let before = s.link.counters
        for colour in ["#204060", "#c08020", "#30a050"] {
            try paint(server, colour)
            let screen = try server.captureStableScreen()
            let same = poll(timeout: 10) { self.framebufferImage(s) == screen }
            if !same, let img = framebufferImage(s) { saveArtefacts("cu-xvnc-\(colour)", ["viewer": img, "server": screen]) }
            XCTAssertTrue(same, "the viewer shows \(colour) as the server does")
        }
        Thread.sleep(forTimeInterval: 0.6)   // the summary is refreshed every 0.25 s
        let after = s.link.counters
        XCTAssertTrue(s.link.continuousUpdates)
        XCTAssertEqual(after.requestsWhileContinuous, 0, "no incremental request once the server pushes")
        XCTAssertEqual(after.requests, before.requests, "no request at all while the pictures changed")
        XCTAssertGreaterThan(after.fencesSent, 0)
        XCTAssertTrue(s.link.fences)
        XCTAssertTrue(log.lines.contains { $0.contains("continuous updates on") }, "\(log.lines)")
    }

    /// x11vnc has neither: the request path, and the same picture.
    func testX11vncKeepsTheRequestPath() throws {
        let server = try startServer(.x11vnc, { var o = VNCServer.Options(); o.content = .scene; return o }())
        let s = Session(spec: HostSpec(host: server.host, port: server.port), settings: settings())
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 5) }
        XCTAssertTrue(poll(timeout: 15) { s.state == .ready && s.link.encoding != "" }, "state \(s.state)")
        try paint(server, "#803050")
        let screen = try server.captureStableScreen()
        XCTAssertTrue(poll(timeout: 10) { self.framebufferImage(s) == screen }, "the viewer shows the server's screen")
        Thread.sleep(forTimeInterval: 0.6)
        XCTAssertFalse(s.link.continuousUpdates)
        XCTAssertFalse(s.link.fences)
        XCTAssertGreaterThan(s.link.counters.requests, 2, "a request per update")
    }

    /// A pixel format change while Xvnc pushes: disable, SetPixelFormat, enable, and the
    /// server's EndOfContinuousUpdates as the marker; the picture after it is the server's
    /// screen reduced to RGB565, with nothing decoded in the wrong format.
    func testXvncPixelFormatChangeWithContinuousUpdates() throws {
        let server = try startServer(.xvnc)
        let e = ClientEngine(settings: settings())
        let t = try SocketTransport.connect(HostSpec(host: server.host, port: server.port))
        defer { t.close() }
        var events: [EngineEvent] = []
        func pump(_ seconds: TimeInterval, until: () -> Bool) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if e.hasOutput { try t.send(e.takeOutput()) }
                if until() { return true }
                if t.waitReadable(timeout: 0.05) {
                    let got = try e.receive(atLeast: 65536) { p, cap in try t.recv(into: p, capacity: cap) }
                    if got == 0 { throw HarnessError("server closed the connection") }
                    events += e.takeEvents()
                }
            }
            return until()
        }
        XCTAssertTrue(try pump(15) { e.continuousUpdatesActive })
        e.changePixelFormat(.rgb565)
        XCTAssertTrue(try pump(10) { events.contains(.pixelFormatChanged(.rgb565)) }, "the EndOfContinuousUpdates marker came")
        try paint(server, "#2468ac")
        let screen = try server.captureStableScreen()
        let r = { (c: UInt32, max: UInt32) -> UInt32 in (c * max + 128) / 255 }
        let q = { (p: UInt32) -> UInt32 in r(p >> 16 & 255, 31) << 11 | r(p >> 8 & 255, 63) << 5 | r(p & 255, 31) }
        var bad = -1
        _ = try pump(10) {
            guard let fb = e.framebuffer else { return false }
            let img = fb.lock.withReaderLock { RGBImage(fb) }
            bad = zip(img.pixels, screen.pixels).filter { q($0.0) != q($0.1) }.count
            return bad == 0
        }
        XCTAssertEqual(bad, 0, "pixels differing after RGB565 reduction")
        XCTAssertTrue(e.continuousUpdatesActive)
        XCTAssertEqual(e.counters.requestsWhileContinuous, 0)
    }
}
