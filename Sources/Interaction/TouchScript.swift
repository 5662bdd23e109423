/// A touch script (`FARCAST_TOUCH_REPLAY=file`): finger events with real timing, for reproducing
/// gesture problems and for the end-to-end tests on displays without a touch device (Xvfb has
/// none). The front end replays it the way its window system delivers fingers.
///
/// One event per line, `#` comments allowed:
///   wait <ms>                       pause
///   down|move|up <finger> <x> <y>   x, y as fractions of the window (0...1)
public enum TouchScript {
    public enum Step: Equatable, Sendable {
        case wait(seconds: Double)
        case finger(TouchEvent.Phase, id: Int64, x: Float, y: Float)
    }

    public struct ParseError: Error, CustomStringConvertible { public let description: String }

    /// Parses a script; the error names the line.
    public static func parse(_ text: String) throws -> [Step] {
        var steps: [Step] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let f = line.split(separator: " ").map(String.init)
            guard let op = f.first else { continue }
            func bad() -> Error { ParseError(description: "touch script line \(n + 1): cannot read '\(line)'") }
            switch op {
            case "wait":
                guard f.count == 2, let ms = Double(f[1]), ms >= 0 else { throw bad() }
                steps.append(.wait(seconds: ms / 1000))
            case "down", "move", "up":
                guard f.count == 4, let id = Int64(f[1]), let x = Float(f[2]), let y = Float(f[3]),
                      (0...1).contains(x), (0...1).contains(y) else { throw bad() }
                let phase: TouchEvent.Phase = op == "down" ? .down : op == "up" ? .up : .move
                steps.append(.finger(phase, id: id, x: x, y: y))
            default:
                throw bad()
            }
        }
        return steps
    }
}
