import FarcastTools
import Foundation
import XCTest
@testable import RFB

/// H.264 test streams made by FFmpeg's libx264, split into frames by ffprobe (not by our own
/// splitter), and FFmpeg's own decode of the same bytes as the reference pixels.
struct H264Stream {
    let width: Int, height: Int
    let bytes: [UInt8]
    /// Each frame's bytes (an access unit, parameter sets with the key frame).
    let frames: [[UInt8]]
    /// FFmpeg's decode, one frame after another, as 0x00RRGGBB rows.
    let reference: [[UInt32]]

    /// The frames from `from` up to `to` as one byte string.
    func joined(_ r: Range<Int>) -> [UInt8] { r.flatMap { frames[$0] } }
    /// Frame `i`'s pixels cropped to `w`x`h` from its top left corner.
    func crop(_ i: Int, w: Int, h: Int) -> [UInt32] {
        (0..<h).flatMap { y in reference[i][(y * width)..<(y * width + w)] }
    }
}

enum FFmpeg {
    static func path(_ tool: String) -> String? {
        for d in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(d)/\(tool)") {
            return "\(d)/\(tool)"
        }
        return nil
    }

    /// Skips the test only when FFmpeg is truly absent (scripts/install-deps.sh installs it).
    static func require() throws {
        guard path("ffmpeg") != nil, path("ffprobe") != nil else { throw XCTSkip("ffmpeg/ffprobe not installed") }
    }

    /// This process's scratch folder for streams, made when needed; `cleanUp` removes it.
    static var dir: URL {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-h264-\(getpid())")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }
    static func cleanUp() { try? FileManager.default.removeItem(at: dir) }

    @discardableResult
    static func run(_ tool: String, _ args: [String]) throws -> Data {
        guard let exe = path(tool) else { throw XCTSkip("\(tool) not installed") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        // with -v error stderr stays far below a pipe's buffer, so one reader at a time is enough
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw ProtocolError("\(tool) \(args.joined(separator: " ")) failed: \(String(decoding: errData, as: UTF8.self))")
        }
        return o
    }

    /// `frames` frames of lavfi `source` (e.g. "testsrc2") at `w`x`h`, encoded by libx264 as a
    /// low-latency stream (no B-frames), as an Open H.264 server would send it.
    static func encode(_ source: String, w: Int, h: Int, frames: Int, name: String,
                       x264: [String] = []) throws -> H264Stream {
        let file = dir.appendingPathComponent("\(name).h264").path
        try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "\(source)=size=\(w)x\(h):rate=25",
                           "-frames:v", "\(frames)", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
                           "-pix_fmt", "yuv420p"] + x264 + ["-f", "h264", "-y", file])
        return try load(file, w: w, h: h)
    }

    /// A stream already on disk, split and decoded by FFmpeg.
    static func load(_ file: String, w: Int, h: Int) throws -> H264Stream {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        // packet positions and sizes from FFmpeg's own H.264 parser
        let csv = String(decoding: try run("ffprobe", ["-v", "error", "-show_entries", "packet=pos,size",
                                                       "-of", "csv=p=0", file]), as: UTF8.self)
        var frames: [[UInt8]] = []
        for line in csv.split(separator: "\n") {
            let f = line.split(separator: ",").compactMap { Int($0) }
            guard f.count == 2 else { continue }
            let (size, pos) = (f[0], f[1])
            frames.append(Array(bytes[pos..<(pos + size)]))
        }
        let raw = file + ".bgr0"
        try run("ffmpeg", ["-v", "error", "-i", file, "-fps_mode", "passthrough", "-f", "rawvideo",
                           "-pix_fmt", "bgr0", "-y", raw])
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let frameBytes = w * h * 4
        var reference: [[UInt32]] = []
        var at = 0
        while at + frameBytes <= pixels.count {
            reference.append((0..<(w * h)).map { i in
                let p = at + i * 4
                return UInt32(pixels[p + 2]) << 16 | UInt32(pixels[p + 1]) << 8 | UInt32(pixels[p])
            })
            at += frameBytes
        }
        guard frames.count == reference.count, !frames.isEmpty else {
            throw ProtocolError("\(file): \(frames.count) packets but \(reference.count) decoded frames")
        }
        return H264Stream(width: w, height: h, bytes: bytes, frames: frames, reference: reference)
    }
}

/// Open H.264 rects and the messages around them.
enum OpenH264 {
    static func payload(_ data: [UInt8], flags: UInt32 = 0) -> [UInt8] { be32(data.count) + be32(Int(flags)) + data }

    static func rect(_ r: Rect, _ data: [UInt8], flags: UInt32 = 0) -> [UInt8] {
        be16(r.x) + be16(r.y) + be16(r.w) + be16(r.h) + be32(Int(Encoding.h264)) + payload(data, flags: flags)
    }

    /// A FramebufferUpdate of `rects` (each from `rect`).
    static func update(_ rects: [[UInt8]]) -> [UInt8] { [0, 0] + be16(rects.count) + rects.flatMap { $0 } }

    /// A whole session as a server sends it: handshake (security None), then `updates`.
    static func session(width: Int, height: Int, _ updates: [[UInt8]]) -> [UInt8] {
        FBSEncoder.handshake(width: width, height: height, format: .native, name: "h264") + updates.flatMap { $0 }
    }

    /// The session as an FBS recording, one block per update.
    static func recording(width: Int, height: Int, _ updates: [[UInt8]]) -> [UInt8] {
        var out = FBSEncoder.header + FBSEncoder.block(FBSEncoder.handshake(width: width, height: height,
                                                                            format: .native, name: "h264"), ms: 0)
        for (i, u) in updates.enumerated() { out += FBSEncoder.block(u, ms: UInt32(40 * (i + 1))) }
        return out
    }
}

/// Pixels of `r` in a framebuffer snapshot `px` of width `fbw`.
func region(_ px: [UInt32], fbw: Int, _ r: Rect) -> [UInt32] {
    (r.y..<r.maxY).flatMap { y in px[(y * fbw + r.x)..<(y * fbw + r.maxX)] }
}

extension ClientSettings {
    /// What the viewer's window offers (a JPEG quality, so H.264 too): H.264 sessions are decoded.
    static var offeringH264: ClientSettings {
        var s = ClientSettings()
        s.jpegQuality = 8
        return s
    }
}

/// Feeds `session` to a fresh engine in chunks of `chunk` bytes; the engine and its framebuffer.
func runEngine(_ session: [UInt8], chunk: Int = Int.max, settings: ClientSettings = .offeringH264) throws -> ClientEngine {
    let e = ClientEngine(settings: settings)
    var at = 0
    while at < session.count {
        let n = min(chunk, session.count - at)
        try session.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            try e.feed(base + at, count: n)
        }
        at += n
        _ = e.takeOutput(); _ = e.takeEvents()
    }
    return e
}

/// Rewriting parameter sets: a picture parameter set with another id, the rest of it kept.
enum ParameterSets {
    /// The RBSP bits of a NAL unit's payload (`nal` from its header byte on, no start code).
    static func bits(_ nal: ArraySlice<UInt8>) -> [Bool] {
        var rbsp: [UInt8] = []
        var zeros = 0
        for b in nal.dropFirst() {
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            rbsp.append(b)
        }
        return rbsp.flatMap { b in (0..<8).map { b & (0x80 >> $0) != 0 } }
    }

    static func ue(_ v: Int) -> [Bool] {
        let n = v + 1
        let len = Int.bitWidth - n.leadingZeroBitCount
        return Array(repeating: false, count: len - 1) + (0..<len).map { n & (1 << (len - 1 - $0)) != 0 }
    }

    /// Reads an unsigned Exp-Golomb number at `at`, moving past it.
    static func readUE(_ bits: [Bool], _ at: inout Int) -> Int {
        var zeros = 0
        while !bits[at] { zeros += 1; at += 1 }
        var v = 0
        for _ in 0...zeros { v = v << 1 | (bits[at] ? 1 : 0); at += 1 }
        return v - 1
    }

    /// A NAL unit (start code included) with header `header` and payload `bits` (RBSP trailing
    /// bits added), emulation prevention put in.
    static func nal(_ header: UInt8, _ bits: [Bool]) -> [UInt8] {
        var b = bits + [true]
        while b.count % 8 != 0 { b.append(false) }
        var out: [UInt8] = [0, 0, 0, 1, header]
        var zeros = 0
        for i in stride(from: 0, to: b.count, by: 8) {
            let byte = (0..<8).reduce(UInt8(0)) { $0 << 1 | (b[i + $1] ? 1 : 0) }
            if zeros >= 2 && byte <= 3 { out.append(3); zeros = 0 }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// The PPS in `frame` (an access unit that has one) as a unit with id `id`.
    static func pps(from frame: [UInt8], id: Int) -> [UInt8]? {
        var found: [UInt8]?
        frame.withUnsafeBufferPointer { b in
            AnnexB.forEachNAL(b.baseAddress!, count: b.count) { s, e in
                if found == nil && frame[s] & 0x1f == 8 { found = Array(frame[s..<e]) }
            }
        }
        guard let unit = found else { return nil }
        var bits = Self.bits(unit[...])
        // drop the trailing bits (a stop bit, then zeros)
        while let last = bits.last, !last { bits.removeLast() }
        bits.removeLast()
        var at = 0
        _ = readUE(bits, &at)
        return nal(unit[0], ue(id) + bits[at...])
    }

    /// `frame` (an access unit with an SPS and a PPS) with copies of its PPS under `ids` after it.
    static func frame(_ frame: [UInt8], withPPS ids: some Sequence<Int>) -> [UInt8]? {
        var ppsEnd: Int?
        frame.withUnsafeBufferPointer { b in
            AnnexB.forEachNAL(b.baseAddress!, count: b.count) { s, e in
                if ppsEnd == nil && frame[s] & 0x1f == 8 { ppsEnd = e }
            }
        }
        guard let end = ppsEnd else { return nil }
        var extra: [UInt8] = []
        for id in ids {
            guard let unit = pps(from: frame, id: id) else { return nil }
            extra += unit
        }
        return Array(frame[..<end]) + extra + Array(frame[end...])
    }
}
