import Foundation
import RFB

extension VNCServer {
    /// xrandr on this server's display; its output.
    func xrandr(_ args: [String]) throws -> String {
        let r = try runTool("xrandr", args, in: workDir, environment: ["DISPLAY": displayName])
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// `xrandr --listmonitors` as rects, sorted by position: " 0: +VNC-0 1024/271x768/203+0+0  VNC-0".
    func monitors() throws -> [Rect] {
        let text = try xrandr(["--listmonitors"])
        var out: [Rect] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // "1024/271x768/203+0+0"
            let geo = fields[2].split(whereSeparator: { "x+".contains($0) })
            guard geo.count == 4, let w = Int(geo[0].split(separator: "/")[0]),
                  let h = Int(geo[1].split(separator: "/")[0]), let x = Int(geo[2]), let y = Int(geo[3]) else { continue }
            out.append(Rect(x: x, y: y, w: w, h: h))
        }
        return out.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }
}
