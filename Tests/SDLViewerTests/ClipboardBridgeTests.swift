import XCTest
import RFB
import VNCSession
@testable import SDLViewer

/// The bridge's echo rules with fake selections: a selection is sent only when its own text
/// changed, never the text just exchanged with the server, and PRIMARY only with the option.
final class ClipboardBridgeTests: XCTestCase {
    final class Fake {
        var local: [ClipboardBridge.Selection: String] = [:]
        var sent: [String] = []
    }

    func bridge(_ dir: ClipboardDirection = .both, primary: Bool) -> (ClipboardBridge, Fake) {
        let session = Session(spec: HostSpec(host: "localhost", port: 5999), settings: ClientSettings())
        let b = ClipboardBridge(session: session, direction: dir, primary: primary)
        let f = Fake()
        b.getText = { f.local[$0] }
        b.setText = { f.local[$0] = $1; return nil }
        b.send = { f.sent.append($0) }
        return (b, f)
    }

    func testPrimaryOffLeavesPrimaryAlone() {
        let (b, f) = bridge(primary: false)
        b.serverText("from server")
        XCTAssertEqual(f.local[.clipboard], "from server")
        XCTAssertNil(f.local[.primary])
        f.local[.primary] = "selected"
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, [])
        f.local[.clipboard] = "copied"
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, ["copied"])
    }

    func testPrimaryBothWaysWithoutEcho() {
        let (b, f) = bridge(primary: true)
        b.serverText("from server")
        XCTAssertEqual(f.local[.clipboard], "from server")
        XCTAssertEqual(f.local[.primary], "from server")
        // our own set reported back: nothing sent
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, [])
        // a new PRIMARY goes; the unchanged CLIPBOARD (still the server's old text) does not
        f.local[.primary] = "selected"
        b.localClipboardChanged()
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, ["selected"])
        // the server echoes it back: put locally, not sent again
        b.serverText("selected")
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, ["selected"])
        // a copy to CLIPBOARD goes
        f.local[.clipboard] = "copied"
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, ["selected", "copied"])
        // selecting the same text as just copied: already exchanged, not sent twice
        f.local[.primary] = "copied"
        b.localClipboardChanged()
        XCTAssertEqual(f.sent, ["selected", "copied"])
    }

    func testDirectionsGateBothSelections() {
        let (r, fr) = bridge(.receive, primary: true)
        fr.local[.primary] = "x"
        r.localClipboardChanged()
        XCTAssertEqual(fr.sent, [])
        let (s, fs) = bridge(.send, primary: true)
        s.serverText("y")
        XCTAssertNil(fs.local[.primary])
        XCTAssertNil(fs.local[.clipboard])
    }
}
