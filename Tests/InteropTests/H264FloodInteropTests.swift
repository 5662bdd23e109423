import Foundation
import XCTest

/// A hostile Open H.264 server: every update is one 1920x1080 rect carrying the most pictures a
/// rect may (an IDR, then skipped P-frames of a still libx264 picture), answered as fast as the
/// viewer asks. The real viewer's window must keep presenting (and show the picture, not
/// black), open the menu (F8) within 100 ms, stay under 500 MB and exit within a second of
/// its window closing; a rect one picture over the limit ends the connection with a message
/// naming the limit.
final class H264FloodInteropTests: XCTestCase {
    static let script = #"""
import os, socket, struct, sys, threading, time
# usage: h264flood.py PORTFILE UNITS MODE SECONDS
#   UNITS: the stream's access units, each as u32 length + bytes: an IDR, a P-frame, then 16
#   P-frames whose frame_num runs 2..15, 0, 1 (repeating them continues the stream); MODE: flood
#   (SECONDS of it) or breach (two good updates, then a rect of one picture more than the limit)
W, H, MOST = 1920, 1080, 64
def be16(v): return struct.pack(">H", v)
def be32(v): return struct.pack(">I", v & 0xffffffff)
PF = bytes([32, 24, 0, 1]) + be16(255) * 3 + bytes([16, 8, 0, 0, 0, 0])
def update(data, flags=0):
    return bytes([0, 0]) + be16(1) + be16(0) + be16(0) + be16(W) + be16(H) + struct.pack(">i", 50) \
        + be32(len(data)) + be32(flags) + data
def exact(c, n):
    b = b""
    while len(b) < n:
        got = c.recv(n - len(b))
        if not got: raise OSError("closed")
        b += got
    return b
def messages(c, requests):
    # the client's messages: count update requests, say whether H.264 was offered
    try:
        while True:
            t = exact(c, 1)[0]
            if t == 0: exact(c, 19)
            elif t == 2:
                n = struct.unpack(">xH", exact(c, 3))[0]
                encs = struct.unpack(">%di" % n, exact(c, 4 * n))
                print("client offers H.264" if 50 in encs else "client does not offer H.264", flush=True)
            elif t == 3: exact(c, 9); requests.release()
            elif t == 4: exact(c, 7)
            elif t == 5: exact(c, 5)
            elif t == 6: exact(c, abs(struct.unpack(">3xi", exact(c, 7))[0]))
            else: print("unexpected client message", t, flush=True); return
    except OSError: pass
def main():
    portfile, unitsfile, mode, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    raw = open(unitsfile, "rb").read(); units = []; i = 0
    while i < len(raw):
        n = struct.unpack(">I", raw[i:i + 4])[0]; units.append(raw[i + 4:i + 4 + n]); i += 4 + n
    idr, first, cycle = units[0], units[1], units[2:]
    sent = 0
    def pframes(n):
        nonlocal sent
        out = b"".join(cycle[(sent + k) % len(cycle)] for k in range(n)); sent += n
        return out
    l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
    open(portfile + ".tmp", "w").write(str(l.getsockname()[1])); os.rename(portfile + ".tmp", portfile)
    c, _ = l.accept()
    c.sendall(b"RFB 003.008\n"); exact(c, 12)
    c.sendall(bytes([1, 1])); exact(c, 1)
    c.sendall(be32(0)); exact(c, 1)
    name = b"farcast-interop"
    c.sendall(be16(W) + be16(H) + PF + be32(len(name)) + name)
    requests = threading.Semaphore(0)
    threading.Thread(target=messages, args=(c, requests), daemon=True).start()
    updates, end = 0, time.monotonic() + seconds
    try:
        while True:
            if not requests.acquire(timeout=30): print("no update request for 30 s", flush=True); break
            if mode == "breach" and updates == 2:
                c.sendall(update(pframes(MOST + 1)))
                print("sent a rect of", MOST + 1, "pictures", flush=True); break
            if mode == "flood" and time.monotonic() > end: print("sent", updates, "updates", flush=True); break
            c.sendall(update(idr + first + pframes(MOST - 2), 2) if updates == 0 else update(pframes(MOST)))
            updates += 1
        time.sleep(3600)
    except OSError as e: print("ended:", e, "after", updates, "updates", flush=True)
main()
"""#

    private var dir: URL!

    override func setUpWithError() throws {
        guard InteropTools.path("python3") != nil, InteropTools.path("ffmpeg") != nil, InteropTools.path("ffprobe") != nil else {
            throw XCTSkip("python3 or ffmpeg missing; run scripts/install-deps.sh")
        }
        dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-h264flood-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let d = dir!
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        try H264FloodInteropTests.script.write(to: dir.appendingPathComponent("h264flood.py"), atomically: true, encoding: .utf8)
        try FloodInteropTests.closer.write(to: dir.appendingPathComponent("close.py"), atomically: true, encoding: .utf8)
    }

    /// A still 1920x1080 picture by libx264: an IDR and 18 P-frames, skipped from the second
    /// on. With one reference and 4 bits of frame_num these repeat every 16 (frame 18 is frame
    /// 2, byte for byte), so frames 2-17 again and again continue the stream as long as need be.
    private func stillUnits() throws -> URL {
        let file = dir.appendingPathComponent("still.h264").path
        _ = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25", "-vf",
                                   "trim=end_frame=1,loop=loop=-1:size=1", "-frames:v", "19", "-c:v", "libx264",
                                   "-preset", "ultrafast", "-tune", "zerolatency", "-qp", "30", "-x264-params",
                                   "keyint=infinite:threads=1", "-pix_fmt", "yuv420p", "-f", "h264", "-y", file],
                        in: dir, timeout: 120)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let csv = try runTool("ffprobe", ["-v", "error", "-show_entries", "packet=pos,size", "-of", "csv=p=0", file], in: dir).stdout
        let frames: [[UInt8]] = String(decoding: csv, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").compactMap { Int($0) }
            return f.count == 2 ? Array(bytes[f[1]..<(f[1] + f[0])]) : nil
        }
        XCTAssertEqual(frames.count, 19)
        XCTAssertEqual(frames.last, frames[2], "P-frames repeat every 16")
        XCTAssertLessThan(frames[2].count, 32, "a skipped P-frame is a few bytes")
        let out = dir.appendingPathComponent("units")
        var data: [UInt8] = []
        for f in frames.prefix(18) {
            let n = UInt32(f.count)
            data += [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)]
            data += f
        }
        try Data(data).write(to: out)
        return out
    }

    private func startServer(_ mode: String, units: URL, seconds: Int) throws -> (ChildProcess, Int) {
        let portFile = dir.appendingPathComponent("port-\(mode)").path
        let s = try ChildProcess(name: "h264flood-\(mode)", executable: InteropTools.need("python3"),
                                 arguments: [dir.appendingPathComponent("h264flood.py").path, portFile, units.path, mode, "\(seconds)"],
                                 logURL: dir.appendingPathComponent("server-\(mode).log"))
        addTeardownBlock { s.stop() }
        guard poll(timeout: 15, { FileManager.default.fileExists(atPath: portFile) }),
              let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            throw HarnessError("H.264 flood server did not start: \(s.logTail())")
        }
        return (s, port)
    }

    /// `trace NAME SECONDS` lines from the viewer's log (FARCAST_TRACE=1), monotonic clock.
    private func traces(_ log: URL, _ name: String) -> [Double] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            return f.count == 4 && f[1] == "trace" && f[2] == name ? Double(f[3]) : nil
        }
    }

    private func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The viewer's peak resident memory (VmHWM), in bytes.
    private func peakRSS(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kb * 1024
    }

    func testWindowKeepsUpWithTheMostPicturesARectMayCarry() throws {
        let units = try stillUnits()
        let local = try startLocalXvfb(avoiding: [], size: "1280x800", dir: dir)
        let display = ":\(local)", env = ["DISPLAY": display]

        // flood: 64 pictures a rect, for 30 s at most (the window is closed long before)
        let (server, port) = try startServer("flood", units: units, seconds: 30)
        let viewer = try startViewerWindow(port: port, display: display, dir: dir, ["--encodings", "h264,raw"],
                                           environment: ["FARCAST_TRACE": "1"])
        let log = dir.appendingPathComponent("viewer.log")
        XCTAssertTrue(poll(timeout: 5) { server.log.contains("client offers H.264") }, server.logTail())
        let start = now()
        for slice in 0..<3 {
            let from = now()
            Thread.sleep(forTimeInterval: 2)
            let n = traces(log, "present").filter { $0 >= from }.count
            XCTAssertGreaterThan(n, 0, "no present during seconds \(2 * slice)-\(2 * slice + 2): \(viewer.logTail())")
        }
        // the picture is there (the report: black the whole time)
        let shot = try XWD.parse(try runTool("xwd", ["-root", "-silent"], in: dir, environment: env).stdout)
        let lit = shot.pixels.filter { $0 & 0xf0f0f0 != 0 }.count
        XCTAssertGreaterThan(lit, shot.pixels.count / 4, "the window shows the stream's picture")

        let found = try runTool("xdotool", ["search", "--name", "farcast-interop"], in: dir, environment: env).stdout
        let wid = String(decoding: found, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        _ = try runTool("xdotool", ["windowmove", wid, "0", "0", "mousemove", "--sync", "300", "300"], in: dir,
                        environment: env, allowFailure: true)
        Thread.sleep(forTimeInterval: 0.3)
        let pressed = now()
        _ = try runTool("xdotool", ["key", "F8"], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 5) { !traces(log, "menu-shown").isEmpty }, "menu shown: \(viewer.logTail())")
        if let shown = traces(log, "menu-shown").first {
            XCTAssertLessThan(shown - pressed, 0.1, "the menu took \(Int((shown - pressed) * 1000)) ms to show")
        }
        let peak = try XCTUnwrap(peakRSS(viewer.pid))
        XCTAssertLessThan(peak, 500 << 20, "peak RSS \(peak >> 20) MB")

        // closed while the flood runs: out within a second
        XCTAssertLessThan(now() - start, 25, "the flood is still running")
        let closed = now()
        _ = try runTool("python3", [dir.appendingPathComponent("close.py").path, wid], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 5) { !viewer.isRunning }, "viewer exited: \(viewer.logTail())")
        let took = now() - closed
        XCTAssertLessThan(took, 1.0, "the viewer took \(took) s to exit")
        XCTAssertFalse(server.log.contains("sent"), "the flood was over before the window closed: \(server.logTail())")
        let updates = traces(log, "present").count
        let quit = traces(log, "quit").first.map { " (to quit \(Int(($0 - closed) * 1000)) ms)" } ?? ""
        print("h264 flood: peak RSS \(peak >> 20) MB, \(updates) presents, close to exit \(Int(took * 1000)) ms\(quit)")

        // one picture over the limit: the connection ends, saying so; the window stays up
        let (breach, port2) = try startServer("breach", units: units, seconds: 0)
        let second = try startViewerWindow(port: port2, display: display, dir: dir, ["--encodings", "h264,raw"],
                                           name: "viewer-breach")
        XCTAssertTrue(poll(timeout: 10) { breach.log.contains("sent a rect of 65 pictures") }, breach.logTail())
        let message = "H.264 rect 1920x1080+0+0: more than 64 pictures in one rect, the limit"
        XCTAssertTrue(poll(timeout: 10) { second.log.contains(message) }, second.logTail())
        XCTAssertTrue(second.isRunning, "the viewer stays up with the message")
    }

    /// FFmpeg is opened at the first H.264 rect, not at start (CAVCodec's loader): a window on a
    /// lossless Xvnc session has no libavcodec mapped; one that was sent H.264 has; and where the
    /// library cannot be loaded (a mount namespace with it hidden behind /dev/null) the rect
    /// fails with a message naming it and the packages to install, and the window stays up.
    func testFFmpegIsOpenedAtTheFirstH264RectOnly() throws {
        let units = try stillUnits()
        let local = try startLocalXvfb(avoiding: [], size: "1280x800", dir: dir)
        let display = ":\(local)"
        // read to the end: String(contentsOfFile:) stops at the first page of a /proc file
        func maps(_ pid: Int32) -> String {
            String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        }

        var o = VNCServer.Options()
        o.content = .sceneWithXterm
        let xvnc = try startServer(.xvnc, o)
        let plain = try startViewerWindow(port: xvnc.port, display: display, dir: dir, ["--encodings", "tight,zrle,raw"],
                                          name: "viewer-plain", environment: ["FARCAST_TRACE": "1"])
        XCTAssertTrue(poll(timeout: 10) { plain.log.contains("trace present") }, plain.logTail())
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(maps(plain.pid).isEmpty, "the viewer's maps are readable")
        XCTAssertFalse(maps(plain.pid).contains("libavcodec"), "libavcodec mapped without H.264")
        plain.stop()

        let (server, port) = try startServer("flood", units: units, seconds: 3)
        let h264 = try startViewerWindow(port: port, display: display, dir: dir, ["--encodings", "h264,raw"],
                                         name: "viewer-h264", environment: ["FARCAST_TRACE": "1"])
        XCTAssertTrue(poll(timeout: 10) { server.log.contains("client offers H.264") }, server.logTail())
        XCTAssertTrue(poll(timeout: 10) { maps(h264.pid).contains("libavcodec.so.59") }, "libavcodec opened: \(h264.logTail())")
        XCTAssertTrue(maps(h264.pid).contains("libswscale.so."), "libswscale opened")
        h264.stop()

        guard geteuid() == 0, let unshare = InteropTools.path("unshare"), let mount = InteropTools.path("mount") else {
            throw XCTSkip("hiding libavcodec needs root, unshare and mount")
        }
        let soname = "/usr/lib/x86_64-linux-gnu/libavcodec.so.59"
        let real = URL(fileURLWithPath: soname).resolvingSymlinksInPath().path
        guard FileManager.default.fileExists(atPath: real) else { throw XCTSkip("no \(soname)") }
        try? FileManager.default.removeItem(at: dir.appendingPathComponent("port-flood"))   // the first server's
        let (again, port2) = try startServer("flood", units: units, seconds: 3)
        let env = ["DISPLAY": display, "SDL_VIDEODRIVER": "x11"]
        let hidden = try ChildProcess(name: "viewer-noffmpeg", executable: unshare,
                                      arguments: ["-m", "--propagation", "private", "sh", "-c",
                                                  "\(mount) --bind /dev/null \"$1\" && shift && exec \"$@\"", "sh", real,
                                                  viewerPath, "127.0.0.1::\(port2)", "--encodings", "h264,raw", "-v"],
                                      logURL: dir.appendingPathComponent("viewer-noffmpeg.log"), environment: env)
        addTeardownBlock { hidden.stop() }
        XCTAssertTrue(poll(timeout: 10) { again.log.contains("client offers H.264") }, again.logTail())
        let message = "H.264 rect 1920x1080+0+0: FFmpeg could not be loaded ("
        XCTAssertTrue(poll(timeout: 10) { hidden.log.contains(message) }, hidden.logTail())
        XCTAssertTrue(hidden.log.contains("install libavcodec59, libavutil57 and libswscale6, or leave h264 out of --encodings"),
                      hidden.logTail())
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(hidden.isRunning, "the viewer stays up with the message: \(hidden.logTail())")
    }
}
