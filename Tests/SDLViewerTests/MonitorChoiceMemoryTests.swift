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

    /// The choice made with --monitor is in the file for the next start of the same host (a
    /// new controller, as a new window makes), and another host has its own.
    func testChoiceIsRememberedInTheFilePerHost() throws {
        let mem = try memory()
        /// The choice a new window (a new controller) makes for `host` once `layout` arrives.
        func choice(requested: Int? = nil, host: String, _ layout: ScreenLayout) -> MonitorChoice {
            var ui = ViewerUI()
            let c = MonitorController(requestedNumber: requested, memory: mem, host: host)
            XCTAssertNil(c.layoutChanged(layout, in: &ui))
            return ui.monitorChoice
        }
        XCTAssertEqual(choice(requested: 2, host: "h::1", Self.two), .screen(id: 20))
        XCTAssertEqual(choice(host: "h::1", Self.three), .screen(id: 20))
        XCTAssertEqual(choice(host: "other::1", Self.two), .all)
    }
}
