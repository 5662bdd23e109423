import CSDL2
import Interaction
import RFB
@testable import SDLViewer
import XCTest

/// The remote-input controller without a server: what goes to the session for the server's lock
/// lights and a relative (QEMU) pointer.
final class RemoteInputControllerTests: XCTestCase {
    final class Target: RemoteInputTarget {
        var sent: [String] = []
        func sendPointer(x: Int, y: Int, buttons: UInt16) { sent.append("ptr \(x) \(y) \(buttons)") }
        func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?) { sent.append("key \(String(keysym, radix: 16)) \(down)") }
        func sendRelativePointer(dx: Int, dy: Int, buttons: UInt16) { sent.append("rel \(dx) \(dy) \(buttons)") }
        func sendPowerAction(_ a: XvpAction) { sent.append("power \(a)") }
        func take() -> [String] { defer { sent = [] }; return sent }
    }

    func testLockKeysFollowTheLocalKeyboardOncePerReport() {
        let t = Target()
        let r = RemoteInputController(target: t, viewOnly: false)
        r.lightsChanged(LockLights(scroll: false, num: false, caps: false), localLocks: (caps: true, num: false))
        XCTAssertEqual(t.take(), ["key ffe5 true", "key ffe5 false"])
        // until the server reports again, no second toggle (focus regained meanwhile)
        r.syncLockKeys((caps: true, num: true))
        XCTAssertEqual(t.take(), [])
        // without the keyboard: nothing is known of the local locks
        r.lightsChanged(LockLights(scroll: false, num: false, caps: false), localLocks: nil)
        XCTAssertEqual(t.take(), [])
        let v = RemoteInputController(target: t, viewOnly: true)
        v.lightsChanged(LockLights(scroll: false, num: false, caps: false), localLocks: (caps: true, num: true))
        XCTAssertEqual(t.take(), [], "view-only sends nothing")
    }

    func testRelativePointerCapturesMovesAndReleases() throws {
        try SDLTest.require()
        let t = Target()
        var notices: [String] = []
        let r = RemoteInputController(target: t, viewOnly: false, notice: { notices.append($0) })
        let p = ViewPoint(x: 10, y: 10)
        XCTAssertNil(r.relativePointerEvent(.pointerButton(.left, down: true, at: p), overUI: false), "absolute: not taken")
        XCTAssertTrue(r.pointerModeChanged(relative: true), "the first pointer mode: QEMU")
        XCTAssertFalse(r.pointerModeChanged(relative: true))
        XCTAssertNil(r.relativePointerEvent(.pointerButton(.left, down: true, at: p), overUI: true), "not over the menu")
        XCTAssertEqual(r.relativePointerEvent(.pointerButton(.left, down: true, at: p), overUI: false), true, "a click captures")
        XCTAssertTrue(r.captured)
        XCTAssertEqual(t.take(), [], "the capturing click is not sent")
        _ = r.relativePointerEvent(.pointerMotion(at: p, dx: 3, dy: -2), overUI: false)
        _ = r.relativePointerEvent(.pointerButton(.right, down: true, at: p), overUI: false)
        _ = r.relativePointerEvent(.wheel(WheelInput(dx: 0, dy: 1, at: p)), overUI: false)
        _ = r.relativePointerEvent(.pointerButton(.right, down: false, at: p), overUI: false)
        XCTAssertEqual(t.take(), ["rel 3 -2 0", "rel 0 0 4", "rel 0 0 12", "rel 0 0 4", "rel 0 0 0"])
        // Ctrl+Alt+G releases; other keys go on to the input controller
        let g = KeyInput(scancode: HIDUsage.g, sym: 0x67, modifiers: [.control, .alt], down: true)
        XCTAssertNil(r.relativePointerEvent(.key(KeyInput(scancode: HIDUsage.g, sym: 0x67, down: true)), overUI: false))
        XCTAssertEqual(r.relativePointerEvent(.key(g), overUI: false), true)
        XCTAssertFalse(r.captured)
        XCTAssertEqual(notices.count, 3, "\(notices)")
    }

    /// SDL_SetRelativeMouseMode refusing (-1, with its error): the capture says so, in the
    /// notice and the log, and the deltas still go. A stand-in for SDL's call: no driver that
    /// runs here refuses (X11 and Wayland fall back to warping, the dummy driver accepts).
    func testRelativeModeRefusedIsSaid() throws {
        try SDLTest.require()
        let t = Target()
        var notices: [String] = [], logs: [String] = []
        let r = RemoteInputController(target: t, viewOnly: false, notice: { notices.append($0) }, log: { logs.append($0) })
        r.setRelativeMode = { _ in SDL_ClearError(); return -1 }
        _ = r.pointerModeChanged(relative: true)
        let p = ViewPoint(x: 10, y: 10)
        XCTAssertEqual(r.relativePointerEvent(.pointerButton(.left, down: true, at: p), overUI: false), true)
        XCTAssertTrue(notices.last?.contains("cannot be locked") == true, "\(notices)")
        XCTAssertTrue(logs.contains { $0.contains("SDL has no relative mode here") }, "\(logs)")
        _ = r.relativePointerEvent(.pointerMotion(at: p, dx: 4, dy: 1), overUI: false)
        XCTAssertEqual(t.take(), ["rel 4 1 0"])
    }
}
