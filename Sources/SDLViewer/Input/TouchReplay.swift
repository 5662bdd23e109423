import CSDL2
import Foundation

/// Replays a touch script into SDL's event queue (`FARCAST_TOUCH_REPLAY=file`), the way SDL's
/// X11 (XInput2) or KMSDRM (evdev) back ends deliver finger events: from another thread, with
/// real timing. For reproducing gesture problems and for the end-to-end tests, on displays
/// without a touch device (Xvfb has none).
///
/// One event per line, `#` comments allowed:
///   wait <ms>                       pause
///   down|move|up <finger> <x> <y>   x, y as fractions of the window (0...1), as SDL reports them
/// Replay starts when the session is first ready; a `wait` first lets the first frame arrive.
enum TouchReplay {
    struct Step: Sendable {
        enum Kind: Sendable { case wait(Double), finger(UInt32, Int64, Float, Float) }
        var kind: Kind
    }

    /// Parses a script; the error names the line.
    static func parse(_ text: String) throws -> [Step] {
        var steps: [Step] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let f = line.split(separator: " ").map(String.init)
            guard let op = f.first else { continue }
            func bad() -> Error { ReplayError(description: "touch script line \(n + 1): cannot read '\(line)'") }
            switch op {
            case "wait":
                guard f.count == 2, let ms = Double(f[1]), ms >= 0 else { throw bad() }
                steps.append(Step(kind: .wait(ms / 1000)))
            case "down", "move", "up":
                guard f.count == 4, let id = Int64(f[1]), let x = Float(f[2]), let y = Float(f[3]),
                      (0...1).contains(x), (0...1).contains(y) else { throw bad() }
                let type = op == "down" ? SDL_FINGERDOWN : op == "up" ? SDL_FINGERUP : SDL_FINGERMOTION
                steps.append(Step(kind: .finger(type.rawValue, id, x, y)))
            default:
                throw bad()
            }
        }
        return steps
    }

    struct ReplayError: Error, CustomStringConvertible { let description: String }

    static func start(path: String, log: @escaping @Sendable (String) -> Void) {
        let steps: [Step]
        do {
            steps = try parse(String(contentsOfFile: path, encoding: .utf8))
        } catch {
            log("touch replay: \(error)")
            return
        }
        let t = Thread {
            for s in steps {
                switch s.kind {
                case .wait(let secs): Thread.sleep(forTimeInterval: secs)
                case .finger(let type, let id, let x, let y):
                    var e = SDL_Event()
                    e.type = type
                    e.tfinger.touchId = 1
                    e.tfinger.fingerId = id
                    e.tfinger.x = x; e.tfinger.y = y
                    e.tfinger.pressure = type == SDL_FINGERUP.rawValue ? 0 : 1
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
