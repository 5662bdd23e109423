import FarcastTools
import Foundation
import RFB
import XCTest

/// `viewer bench --final-frame` on Open H.264 recordings made from libx264 streams: the PNG is
/// FFmpeg's own decode of the same bytes, pixel for pixel.
final class H264BenchTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        guard InteropTools.path("ffmpeg") != nil, InteropTools.path("ffprobe") != nil else {
            throw XCTSkip("ffmpeg not installed; run scripts/install-deps.sh")
        }
        dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-h264bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let d = dir!
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
    }

    /// A libx264 stream: its bytes, its frames (split by ffprobe) and FFmpeg's last decoded frame.
    private func stream(_ source: String, w: Int, h: Int, frames: Int) throws -> (frames: [[UInt8]], last: [UInt32]) {
        let file = dir.appendingPathComponent("\(source)-\(w)x\(h).h264").path
        _ = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "\(source)=size=\(w)x\(h):rate=25", "-frames:v", "\(frames)",
                                   "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
                                   "-f", "h264", "-y", file], in: dir, timeout: 120)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let csv = try runTool("ffprobe", ["-v", "error", "-show_entries", "packet=pos,size", "-of", "csv=p=0", file], in: dir).stdout
        let split: [[UInt8]] = String(decoding: csv, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").compactMap { Int($0) }
            return f.count == 2 ? Array(bytes[f[1]..<(f[1] + f[0])]) : nil
        }
        let raw = try runTool("ffmpeg", ["-v", "error", "-i", file, "-fps_mode", "passthrough", "-f", "rawvideo",
                                         "-pix_fmt", "bgr0", "-"], in: dir, timeout: 120).stdout
        XCTAssertEqual(split.count, frames)
        XCTAssertEqual(raw.count, frames * w * h * 4)
        let tail = [UInt8](raw.suffix(w * h * 4))
        let last = (0..<(w * h)).map { UInt32(tail[$0 * 4 + 2]) << 16 | UInt32(tail[$0 * 4 + 1]) << 8 | UInt32(tail[$0 * 4]) }
        return (split, last)
    }

    private func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ data: [UInt8], flags: Int = 0) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v) }
        return be16(x) + be16(y) + be16(w) + be16(h) + be32(50) + be32(data.count) + be32(flags) + data
    }

    private func update(_ rects: [[UInt8]]) -> [UInt8] { [0, 0, UInt8(rects.count >> 8), UInt8(rects.count & 0xff)] + rects.flatMap { $0 } }

    func testBenchFinalFrameOfTwoContextsEqualsFFmpeg() throws {
        // two streams side by side, frame by frame, then the rest of the left one in one rect
        let left = try stream("testsrc2", w: 192, h: 108, frames: 12)
        let right = try stream("mandelbrot", w: 128, h: 108, frames: 8)
        var updates = [update([rect(0, 0, 192, 108, left.frames[0], flags: 2), rect(192, 0, 128, 108, right.frames[0])])]
        for i in 1..<8 { updates.append(update([rect(0, 0, 192, 108, left.frames[i]), rect(192, 0, 128, 108, right.frames[i])])) }
        updates.append(update([rect(0, 0, 192, 108, left.frames[8...].flatMap { $0 })]))
        var fbs = FBSEncoder.header + FBSEncoder.block(FBSEncoder.handshake(width: 320, height: 108, format: .native, name: "h264"), ms: 0)
        for (i, u) in updates.enumerated() { fbs += FBSEncoder.block(u, ms: UInt32(40 * (i + 1))) }
        let rec = dir.appendingPathComponent("h264.fbs").path, png = dir.appendingPathComponent("final.png").path
        try Data(fbs).write(to: URL(fileURLWithPath: rec))

        let r = try runTool(viewerPath, ["bench", "--json", "--split", "--final-frame", png, rec], in: dir, timeout: 120)
        let obj = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        XCTAssertEqual(obj?["updates"] as? Int, 9)
        XCTAssertEqual(obj?["rects"] as? Int, 17)
        XCTAssertNotNil(obj?["h264_s"] as? Double)
        let img = try PNG.read(path: png)
        XCTAssertEqual(img.width, 320)
        XCTAssertEqual(img.height, 108)
        for y in 0..<108 {
            XCTAssertEqual(Array(img.pixels[(y * 320)..<(y * 320 + 192)]), Array(left.last[(y * 192)..<(y * 192 + 192)]), "left row \(y)")
            XCTAssertEqual(Array(img.pixels[(y * 320 + 192)..<(y * 320 + 320)]), Array(right.last[(y * 128)..<(y * 128 + 128)]), "right row \(y)")
        }
    }

    func testBenchReportsACorruptStreamInOneLine() throws {
        let bad = rect(0, 0, 16, 16, [0, 0, 1, 0xe5, 0x00])
        var fbs = FBSEncoder.header + FBSEncoder.block(FBSEncoder.handshake(width: 16, height: 16, format: .native, name: "h264"), ms: 0)
        fbs += FBSEncoder.block(update([bad]), ms: 40)
        let rec = dir.appendingPathComponent("bad.fbs").path
        try Data(fbs).write(to: URL(fileURLWithPath: rec))
        let r = try runTool(viewerPath, ["bench", rec], in: dir, allowFailure: true)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("H.264 rect 16x16+0+0: NAL unit 1 at byte 3 has its forbidden_zero_bit set"), r.stderr)
    }
}
