import Interaction
import RFB
import XCTest

/// An input sink that records what would go to the server (the test seam, not a fake server).
final class RecordingSink: InputSink {
    enum Sent: Equatable, CustomStringConvertible {
        case pointer(x: Int, y: Int, buttons: UInt16)
        case key(UInt32, down: Bool, xt: UInt32?)
        var description: String {
            switch self {
            case let .pointer(x, y, b): return "ptr(\(x),\(y),\(b))"
            case let .key(k, d, xt): return "key(0x\(String(k, radix: 16)),\(d ? "down" : "up")\(xt.map { ",xt \(String($0, radix: 16))" } ?? ""))"
            }
        }
    }
    var sent: [Sent] = []
    func sendPointer(x: Int, y: Int, buttons: UInt16) { sent.append(.pointer(x: x, y: y, buttons: buttons)) }
    func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?) { sent.append(.key(keysym, down: down, xt: xtKeycode)) }
    func take() -> [Sent] { defer { sent = [] }; return sent }
}

/// Physical keys (USB HID usages) the tests press.
enum Key {
    static let a: Int32 = 0x04, b: Int32 = 0x05, c: Int32 = 0x06, i: Int32 = 0x0c, r: Int32 = 0x15, s: Int32 = 0x16
    /// 0...9 on the main row.
    static func digit(_ n: Int) -> Int32 { n == 0 ? 0x27 : 0x1e + Int32(n - 1) }
    static let enter: Int32 = 0x28, escape: Int32 = 0x29
    static let f8 = HIDUsage.f8, f9 = HIDUsage.f9, f11 = HIDUsage.f11
    static let home = HIDUsage.home, end = HIDUsage.end, pageDown = HIDUsage.pageDown
    static let up = HIDUsage.up, down = HIDUsage.down, right = HIDUsage.right
    static let lctrl = HIDUsage.leftControl, lshift = HIDUsage.leftShift, lalt = HIDUsage.leftAlt

    /// The key code a US layout gives (SDL's convention, as `KeyInput.sym` wants it).
    static func usSym(_ u: Int32) -> Int32 {
        switch u {
        case 0x04...0x1d: return Int32(UInt8(ascii: "a")) + u - 0x04
        case 0x1e...0x26: return Int32(UInt8(ascii: "1")) + u - 0x1e
        case 0x27: return Int32(UInt8(ascii: "0"))
        case 0x28: return 13
        case 0x29: return 27
        case 0x2a: return 8
        case 0x2b: return 9
        case 0x2c: return 32
        default: return 0x4000_0000 | u
        }
    }
}

/// Plain input events queued in order and drained into a controller, as a front end would
/// hand them over (the same calls the SDL tests made with pushed SDL events).
enum Synth {
    nonisolated(unsafe) static var queue: [InputEvent] = []
    /// The finger events' clock: a burst of events pushed at once shares one time, as SDL's
    /// millisecond timestamps did.
    static let time = 100.0

    static func flush() { queue = [] }

    static func motion(_ x: Double, _ y: Double) {
        queue.append(.pointerMotion(at: ViewPoint(x: x, y: y), dx: 0, dy: 0))
    }

    static func button(_ b: PointerButton, down: Bool, _ x: Double, _ y: Double) {
        queue.append(.pointerButton(b, down: down, at: ViewPoint(x: x, y: y)))
    }

    static func wheel(dx: Int = 0, dy: Int = 0, _ x: Double, _ y: Double) {
        queue.append(.wheel(WheelInput(dx: dx, dy: dy, at: ViewPoint(x: x, y: y))))
    }

    static func key(_ usage: Int32, down: Bool, mod: KeyModifiers = [], isRepeat: Bool = false) {
        queue.append(.key(KeyInput(scancode: usage, sym: Key.usSym(usage), modifiers: mod, down: down, isRepeat: isRepeat)))
    }

    static func tap(_ usage: Int32) { key(usage, down: true); key(usage, down: false) }

    static func focusLost() { queue.append(.focusLost) }

    /// A finger at window point (x, y) of a `w`x`h` window, as the fraction a window system gives.
    static func finger(_ phase: TouchEvent.Phase, _ id: Int64, _ x: Double, _ y: Double, window w: Double = 640, _ h: Double = 480) {
        queue.append(.finger(id: id, phase, x: Double(Float(x / w)), y: Double(Float(y / h)), time: time))
    }

    /// Everything queued, through the controller; returns the window actions in order.
    @discardableResult
    static func drain(_ r: InputController) -> [WindowAction] {
        let events = queue
        queue = []
        return events.flatMap { r.handle($0) }
    }
}

/// A monitor controller with the UI state it decides for (the layout and choice live in
/// `ViewerUI`), as the window holds them together.
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
    func choose(_ c: MonitorChoice) { controller.choose(c, in: &ui) }
    func cycle(forward: Bool) -> MonitorChoice? { controller.cycle(forward: forward, ui) }
    func label(_ c: MonitorChoice) -> String { controller.label(c, ui) }
}
