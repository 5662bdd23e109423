import CSDL2
import Foundation
import Interaction
import RFB
@testable import SDLViewer
import VNCSession
import XCTest

/// The screen choice remembered in VNCSession's file through the window's adapter
/// (`MonitorMemory: MonitorChoiceMemory`); the rest of the screen choice is tested without SDL
/// in InteractionTests' MonitorTests.
final class MonitorChoiceMemoryTests: XCTestCase {
    static let two = ScreenLayout(width: 2944, height: 1080, screens: [RFB.Screen(id: 10, x: 0, y: 0, width: 1920, height: 1080),
                                                                        RFB.Screen(id: 20, x: 1920, y: 0, width: 1024, height: 768)])
    static let three = ScreenLayout(width: 3200, height: 2160, screens: [RFB.Screen(id: 10, x: 0, y: 0, width: 1920, height: 1080),
                                                                          RFB.Screen(id: 20, x: 1920, y: 0, width: 1280, height: 1024),
                                                                          RFB.Screen(id: 30, x: 0, y: 1080, width: 1920, height: 1080)])

    func memory() throws -> MonitorMemory {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-montest-\(UUID().uuidString.prefix(8))")
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return MonitorMemory(url: d.appendingPathComponent("monitors"))
    }

    func testStartChoiceFromCommandLineOrMemory() throws {
        let mem = try memory()
        let a = Screens(requestedNumber: 2, memory: mem, host: "h::1")
        XCTAssertNil(a.layoutChanged(Self.two))
        XCTAssertEqual(a.choice, .screen(id: 20))
        XCTAssertEqual(a.region, Rect(x: 1920, y: 0, w: 1024, h: 768))
        // remembered: the next start without --monitor comes back to it
        let b = Screens(memory: mem, host: "h::1")
        XCTAssertNil(b.layoutChanged(Self.three))
        XCTAssertEqual(b.choice, .screen(id: 20))
        // another host has its own
        let c = Screens(memory: mem, host: "other::1")
        _ = c.layoutChanged(Self.two)
        XCTAssertEqual(c.choice, .all)
        XCTAssertNil(c.region)
        // out of range: all screens, and why
        let d = Screens(requestedNumber: 3, memory: mem, host: "h::1")
        XCTAssertEqual(d.layoutChanged(Self.two), "the server has 2 screens; --monitor 3 is not one of them; showing all screens")
        XCTAssertEqual(d.choice, .all)
        // a server that never sends a layout
        let e = Screens(requestedNumber: 2, memory: nil, host: "h::1")
        XCTAssertNotNil(e.noLayoutNotice())
        XCTAssertNil(e.noLayoutNotice(), "said once")
    }
}

/// A monitor controller with the UI state it decides for, as the window holds them.
final class Screens {
    let controller: MonitorController
    var ui = ViewerUI()
    init(requestedNumber: Int? = nil, memory: MonitorChoiceMemory? = nil, host: String) {
        controller = MonitorController(requestedNumber: requestedNumber, memory: memory, host: host)
    }
    var choice: MonitorChoice { ui.monitorChoice }
    var region: Rect? { controller.region(ui) }
    func layoutChanged(_ l: ScreenLayout) -> String? { controller.layoutChanged(l, in: &ui) }
    func noLayoutNotice() -> String? { controller.noLayoutNotice(ui) }
}
