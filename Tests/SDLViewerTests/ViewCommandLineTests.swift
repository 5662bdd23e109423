import Foundation
@testable import SDLViewer
import VNCSession
import XCTest

/// A saved connection's `viewer view` command line, as the launcher starts it.
final class ViewCommandLineTests: XCTestCase {
    func testArgumentsMapOntoTheCommandLine() throws {
        var c = SavedConnection(name: "Office [2nd floor]", address: "office.example:1")
        for (k, v) in [("colour", "blue"), ("last-connected", "2026-11-24T02:15:00Z"), ("input", "trackpad"),
                       ("quality", "5"), ("monitor", "2"), ("view-only", "yes"), ("clipboard", "receive"),
                       ("scale", "150%"), ("fullscreen", "yes"), ("via", "me@gw.example:2222"),
                       ("security", "X509Plain,RA2"), ("username", "ann"), ("remember-password", "yes")] {
            try c.set(k, v)
        }
        XCTAssertEqual(ViewCommandLine.arguments(for: c),
                       ["office.example:1", "--trackpad", "--quality", "5", "--monitor", "2", "--view-only",
                        "--clipboard", "receive", "--scale", "150%", "--fullscreen",
                        "--via", "me@gw.example:2222", "--security", "X509Plain,RA2", "--save-password"])
        XCTAssertEqual(ViewCommandLine.arguments(for: SavedConnection(name: "a", address: "h")), ["h"])
        try c.set("scale", "12.5%")
        try c.set("quality", "lossless")
        let a = ViewCommandLine.arguments(for: c)
        XCTAssertEqual(a[a.index(after: try XCTUnwrap(a.firstIndex(of: "--scale")))], "12.5%", "no rounding on the way")
        XCTAssertTrue(a.contains("--encodings"))
    }
}
