import CSDL2
import Foundation
import Interaction
import RFB
@testable import SDLViewer
import XCTest

/// SDL for tests: the dummy video driver (no display needed) unless the caller chose one.
enum SDLTest {
    static let ready: Bool = {
        setenv("SDL_VIDEODRIVER", "dummy", 0)
        return SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) == 0
    }()

    static func require() throws {
        guard ready else { throw XCTSkip("SDL_Init failed: \(String(cString: SDL_GetError()))") }
    }
}

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

/// Synthetic SDL events, pushed through SDL's queue and drained through `SDLInput`.
enum Synth {
    static func flush() { SDL_FlushEvents(SDL_FIRSTEVENT.rawValue, SDL_LASTEVENT.rawValue) }

    static func push(_ e: SDL_Event) {
        var e = e
        XCTAssertEqual(SDL_PushEvent(&e), 1, String(cString: SDL_GetError()))
    }

    static func motion(_ x: Int32, _ y: Int32) {
        var e = SDL_Event()
        e.type = SDL_MOUSEMOTION.rawValue
        e.motion.x = x; e.motion.y = y
        push(e)
    }

    static func button(_ b: Int32, down: Bool, _ x: Int32, _ y: Int32) {
        var e = SDL_Event()
        e.type = down ? SDL_MOUSEBUTTONDOWN.rawValue : SDL_MOUSEBUTTONUP.rawValue
        e.button.button = UInt8(b)
        e.button.state = UInt8(down ? SDL_PRESSED : SDL_RELEASED)
        e.button.x = x; e.button.y = y
        push(e)
    }

    static func wheel(dx: Int32 = 0, dy: Int32 = 0, _ x: Int32, _ y: Int32) {
        var e = SDL_Event()
        e.type = SDL_MOUSEWHEEL.rawValue
        e.wheel.x = dx; e.wheel.y = dy
        e.wheel.direction = SDL_MOUSEWHEEL_NORMAL.rawValue
        e.wheel.mouseX = x; e.wheel.mouseY = y
        push(e)
    }

    static func key(_ sc: SDL_Scancode, down: Bool, mod: SDL_Keymod = KMOD_NONE, isRepeat: Bool = false) {
        var e = SDL_Event()
        e.type = down ? SDL_KEYDOWN.rawValue : SDL_KEYUP.rawValue
        e.key.state = UInt8(down ? SDL_PRESSED : SDL_RELEASED)
        e.key.repeat = isRepeat ? 1 : 0
        e.key.keysym.scancode = sc
        // the default (US) keymap, as SDL reports keycodes without a window system
        e.key.keysym.sym = SDL_GetKeyFromScancode(sc)
        e.key.keysym.mod = UInt16(mod.rawValue)
        push(e)
    }

    static func tap(_ sc: SDL_Scancode) { key(sc, down: true); key(sc, down: false) }

    static func focusLost() {
        var e = SDL_Event()
        e.type = SDL_WINDOWEVENT.rawValue
        e.window.event = UInt8(SDL_WINDOWEVENT_FOCUS_LOST.rawValue)
        push(e)
    }

    /// Everything queued, through SDL's translation into plain values; the values in order.
    static func translated() -> [InputEvent] {
        var input = SDLInput()
        var out: [InputEvent] = []
        var e = SDL_Event()
        while SDL_PollEvent(&e) != 0 { if let v = input.translate(e) { out.append(v) } }
        return out
    }

    /// Everything queued, translated and through the controller; returns the window actions in order.
    @discardableResult
    static func drain(_ r: InputController) -> [WindowAction] {
        translated().flatMap { r.handle($0) }
    }
}

/// A software renderer drawing into a surface we can read back.
final class Canvas {
    let surface: UnsafeMutablePointer<SDL_Surface>
    let renderer: OpaquePointer
    let width: Int, height: Int

    init?(_ w: Int, _ h: Int) {
        guard let s = SDL_CreateRGBSurfaceWithFormat(0, Int32(w), Int32(h), 32, SDL_PIXELFORMAT_ARGB8888.rawValue) else { return nil }
        guard let r = SDL_CreateSoftwareRenderer(s) else { SDL_FreeSurface(s); return nil }
        surface = s; renderer = r; width = w; height = h
    }
    deinit { SDL_DestroyRenderer(renderer); SDL_FreeSurface(surface) }

    /// The rendered pixels as 0x00RRGGBB.
    func read() -> [UInt32] {
        var px = [UInt32](repeating: 0, count: width * height)
        let rc = px.withUnsafeMutableBytes { SDL_RenderReadPixels(renderer, nil, SDL_PIXELFORMAT_ARGB8888.rawValue, $0.baseAddress, Int32(width * 4)) }
        XCTAssertEqual(rc, 0, String(cString: SDL_GetError()))
        return px.map { $0 & 0xffffff }
    }
}
