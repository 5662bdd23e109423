import Foundation
@testable import Interaction
import RFB
import XCTest

/// The window's screen choice (start, memory, layout changes, cycling) and the input controller's picker
/// keys, clicks, shortcuts and swipes; what would go to the server is recorded.
final class MonitorTests: XCTestCase {
    static let two = ScreenLayout(width: 2944, height: 1080, screens: [RFB.Screen(id: 10, x: 0, y: 0, width: 1920, height: 1080),
                                                                        RFB.Screen(id: 20, x: 1920, y: 0, width: 1024, height: 768)])
    static let three = ScreenLayout(width: 3200, height: 2160, screens: [RFB.Screen(id: 10, x: 0, y: 0, width: 1920, height: 1080),
                                                                          RFB.Screen(id: 20, x: 1920, y: 0, width: 1280, height: 1024),
                                                                          RFB.Screen(id: 30, x: 0, y: 1080, width: 1920, height: 1080)])

    /// The memory as a dictionary (the file behind it is VNCSession's, tested there and in
    /// SDLViewerTests' MonitorChoiceMemoryTests).
    final class Memory: MonitorChoiceMemory {
        var choices: [String: MonitorChoice] = [:]
        func rememberedChoice(for host: String) -> MonitorChoice? { choices[host] }
        func rememberChoice(_ c: MonitorChoice, for host: String) throws { choices[host] = c }
    }

    func memory() throws -> Memory { Memory() }

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

    func testLayoutChangesKeepOrFallBack() {
        let m = Screens(host: "h")
        _ = m.layoutChanged(Self.three)
        m.choose(.screen(id: 30))
        // screen 30 moved and shrank: still shown, where it is now
        let moved = ScreenLayout(width: 3200, height: 2160, screens: [Self.three.screens[0], Self.three.screens[1],
                                                                       RFB.Screen(id: 30, x: 100, y: 1200, width: 1280, height: 720)])
        XCTAssertNil(m.layoutChanged(moved))
        XCTAssertEqual(m.region, Rect(x: 100, y: 1200, w: 1280, h: 720))
        // gone: all screens, with the number the user knew
        XCTAssertEqual(m.layoutChanged(Self.two), "Screen 3 is gone; showing all screens")
        XCTAssertEqual(m.choice, .all)
        // one screen left: nothing to frame
        m.choose(.screen(id: 10))
        _ = m.layoutChanged(ScreenLayout.single(width: 1920, height: 1080))
        XCTAssertNil(m.region)
    }

    func testCyclingInDisplayOrder() {
        let m = Screens(host: "h")
        XCTAssertNil(m.cycle(forward: true), "no layout: nothing to cycle")
        _ = m.layoutChanged(Self.three)
        XCTAssertEqual(m.cycle(forward: true), .screen(id: 10))
        m.choose(.screen(id: 20))
        XCTAssertEqual(m.cycle(forward: true), .screen(id: 30))
        XCTAssertEqual(m.cycle(forward: false), .screen(id: 10))
        XCTAssertEqual(m.label(.screen(id: 20)), "Screen 2 of 3")
        XCTAssertEqual(m.label(.all), "All screens")
    }

    // MARK: input controller

    var sink = RecordingSink()

    func router(_ layout: ScreenLayout?) -> InputController {
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: layout?.width ?? 1024, layout?.height ?? 768, window: 800, 600, output: 800, 600)
        let r = InputController(sink: sink, viewport: vp)
        r.windowSize = (800, 600)
        r.screenLayout = layout
        return r
    }

    func testPickerByKeys() throws {
        Synth.flush()
        // one screen: F9 is an ordinary key for the server
        let single = router(ScreenLayout.single(width: 1024, height: 768))
        Synth.tap(Key.f9)
        Synth.drain(single)
        XCTAssertNil(single.picker)
        XCTAssertEqual(sink.take().count, 2)

        let r = router(Self.three)
        Synth.tap(Key.f9)
        XCTAssertEqual(Synth.drain(r), [.pickerChanged, .redraw])
        XCTAssertNotNil(r.picker)
        // keys go to the picker, never the server
        Synth.tap(Key.right)
        Synth.drain(r)
        XCTAssertEqual(r.picker?.highlight, .screen(id: 20))
        Synth.key(Key.digit(3), down: true)
        XCTAssertEqual(Synth.drain(r), [.pickerChanged, .redraw, .chooseMonitor(.screen(id: 30))])
        XCTAssertNil(r.picker)
        Synth.key(Key.digit(3), down: false)
        Synth.drain(r)
        XCTAssertEqual(sink.take(), [])
        // Esc keeps what was shown
        Synth.tap(Key.f9)
        Synth.tap(Key.escape)
        XCTAssertEqual(Synth.drain(r), [.pickerChanged, .redraw, .pickerChanged, .redraw])
        // Ctrl+Alt+PageDown cycles without the picker; PageDown itself is not sent
        Synth.key(Key.lctrl, down: true)
        Synth.key(Key.lalt, down: true)
        Synth.tap(Key.pageDown)
        Synth.key(Key.lalt, down: false)
        Synth.key(Key.lctrl, down: false)
        XCTAssertTrue(Synth.drain(r).contains(.cycleMonitor(forward: true)))
        XCTAssertFalse(sink.take().contains { if case .key(0xff56, _, _) = $0 { return true }; return false }, "no Next key sent")
        // the menu lists the picker with the screen shown
        r.monitorChoice = .screen(id: 20)
        r.openMenu()
        XCTAssertTrue(r.menu?.items.contains { $0.action == .openPicker && $0.title.contains("Screen 2") } == true, "\(r.menu?.items.map(\.title) ?? [])")
    }

    func testPickerByClickTapAndSideSwipes() throws {
        Synth.flush()
        let r = router(Self.two)
        r.openPicker()
        guard let p = r.picker else { return XCTFail("picker") }
        let g = p.geometry(in: ViewRect(x: 80, y: 60, w: 640, h: 480))
        r.pickerGeometry = g
        guard let t2 = g.tiles.first(where: { $0.number == 2 }) else { return XCTFail("tile 2") }
        // a tap on tile 2 (a finger is a click over the picker)
        let c = ViewPoint(x: t2.rect.x + t2.rect.w / 2, y: t2.rect.y + t2.rect.h / 2)
        XCTAssertEqual(r.touch(TouchEvent(finger: 1, .down, x: c.x, y: c.y, time: 1)), [.pickerChanged, .redraw, .chooseMonitor(.screen(id: 20))])
        _ = r.touch(TouchEvent(finger: 1, .up, x: c.x, y: c.y, time: 1.05))
        XCTAssertNil(r.picker)
        // a mouse click on "All screens"
        r.openPicker()
        r.pickerGeometry = g
        let a = g.allButton
        Synth.button(.left, down: true, Double(Int32(a.x + a.w / 2)), Double(Int32(a.y + a.h / 2)))
        Synth.button(.left, down: false, Double(Int32(a.x + a.w / 2)), Double(Int32(a.y + a.h / 2)))
        XCTAssertTrue(Synth.drain(r).contains(.chooseMonitor(.all)))
        XCTAssertEqual(sink.take(), [])
        // a swipe in from the right edge: the next screen; from the left: the previous
        _ = r.touch(TouchEvent(finger: 2, .down, x: 796, y: 300, time: 5))
        XCTAssertEqual(r.touch(TouchEvent(finger: 2, .move, x: 700, y: 305, time: 5.1)), [.cycleMonitor(forward: true)])
        _ = r.touch(TouchEvent(finger: 2, .up, x: 700, y: 305, time: 5.2))
        _ = r.touch(TouchEvent(finger: 3, .down, x: 3, y: 300, time: 6))
        XCTAssertEqual(r.touch(TouchEvent(finger: 3, .move, x: 90, y: 300, time: 6.1)), [.cycleMonitor(forward: false)])
        _ = r.touch(TouchEvent(finger: 3, .up, x: 90, y: 300, time: 6.2))
        XCTAssertEqual(sink.take(), [])
        // three fingers: up opens the picker, left brings the next screen; nothing is sent
        func swipe3(_ dx: Double, _ dy: Double, at t: Double) -> [WindowAction] {
            var out: [WindowAction] = []
            for (i, x) in [300.0, 340, 380].enumerated() { out += r.touch(TouchEvent(finger: Int64(10 + i), .down, x: x, y: 300, time: t)) }
            for step in 1...4 {
                for (i, x) in [300.0, 340, 380].enumerated() {
                    out += r.touch(TouchEvent(finger: Int64(10 + i), .move, x: x + dx * Double(step), y: 300 + dy * Double(step), time: t + 0.02 * Double(step)))
                }
            }
            for i in 0..<3 { out += r.touch(TouchEvent(finger: Int64(10 + i), .up, x: 0, y: 0, time: t + 0.2)) }
            return out
        }
        XCTAssertTrue(swipe3(0, -15, at: 10).contains(.pickerChanged))
        XCTAssertNotNil(r.picker)
        r.closePicker()
        XCTAssertEqual(swipe3(-15, 0, at: 12).filter { if case .cycleMonitor = $0 { return true }; return false }, [.cycleMonitor(forward: true)])
        XCTAssertEqual(sink.take(), [])
    }
}
