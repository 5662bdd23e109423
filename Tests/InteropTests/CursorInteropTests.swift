import Foundation
import RFB
import VNCSession
import XCTest

/// Cursor shapes from x11vnc (libvncserver), which takes RichCursor wherever a client offers it:
/// a viewer that offers only XCursor gets the two-colour form, and both forms of the server's
/// core-font cursor (black and white) are the same image.
final class CursorInteropTests: XCTestCase {
    func cursor(from server: VNCServer, offering encodings: [Int32]) throws -> CursorImage? {
        var s = ClientSettings()
        s.securityMethods = [.type(SecurityType.none)]
        s.cursorEncodings = encodings
        let session = Session(spec: "x11vnc", settings: s) { _ in
            try ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: server.port))).open(log: { _ in })
        }
        session.start()
        defer { session.stop(); session.waitUntilStopped(timeout: 2) }
        var shape: CursorImage?
        _ = poll(timeout: 10) {
            for case .cursor(let c) in session.takeEvents() where !c.isEmpty { shape = c }
            return shape != nil
        }
        return shape
    }

    func testXCursorFromX11vncIsTheRichCursorInTwoColours() throws {
        var o = VNCServer.Options()
        o.content = .blank
        o.extraArguments = ["-cursor", "most"]  // the harness's -nocursor, undone
        let server = try startServer(.x11vnc, o)
        // a core-font cursor on the root window: two colours, so both forms can carry it exactly
        _ = try runTool("xsetroot", ["-display", server.displayName, "-cursor_name", "left_ptr"], in: server.workDir)
        let rich = try XCTUnwrap(try cursor(from: server, offering: [Encoding.cursor]), "RichCursor from x11vnc")
        let two = try XCTUnwrap(try cursor(from: server, offering: [Encoding.xCursor]), "XCursor from x11vnc")
        XCTAssertEqual(two.width, rich.width)
        XCTAssertEqual(two.height, rich.height)
        XCTAssertEqual(two.hotX, rich.hotX)
        XCTAssertEqual(two.hotY, rich.hotY)
        XCTAssertEqual(two.argb, rich.argb, "the two-colour form is the same image")
        let colours = Set(two.argb.filter { $0 >> 24 != 0 })
        XCTAssertEqual(colours, [0xff00_0000, 0xffff_ffff], "black with a white outline")
    }
}
