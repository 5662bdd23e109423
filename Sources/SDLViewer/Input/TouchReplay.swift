import CSDL2
import Foundation
import Interaction

/// Replays a touch script (`TouchScript`, `FARCAST_TOUCH_REPLAY=file`) into SDL's event queue,
/// the way SDL's X11 (XInput2) or KMSDRM (evdev) back ends deliver finger events: from another
/// thread, with real timing. Replay starts when the session is first ready; a `wait` first lets
/// the first frame arrive.
enum TouchReplay {
    static func start(path: String, log: @escaping @Sendable (String) -> Void) {
        let steps: [TouchScript.Step]
        do {
            steps = try TouchScript.parse(String(contentsOfFile: path, encoding: .utf8))
        } catch {
            log("touch replay: \(error)")
            return
        }
        let t = Thread {
            for s in steps {
                switch s {
                case .wait(let secs): Thread.sleep(forTimeInterval: secs)
                case .finger(let phase, let id, let x, let y):
                    let type = phase == .down ? SDL_FINGERDOWN : phase == .up ? SDL_FINGERUP : SDL_FINGERMOTION
                    var e = SDL_Event()
                    e.type = type.rawValue
                    e.tfinger.touchId = 1
                    e.tfinger.fingerId = id
                    e.tfinger.x = x; e.tfinger.y = y
                    e.tfinger.pressure = phase == .up ? 0 : 1
                    // SDL_PushEvent stamps the event with SDL_GetTicks, as a real device's would be
                    _ = SDL_PushEvent(&e)
                }
            }
            log("touch replay: \(steps.count) steps done")
        }
        t.name = "farcast-touch-replay"
        t.start()
    }
}
