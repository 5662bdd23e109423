import Foundation
import XCTest

/// A hostile server and JPEG (21) rects: one of 64 MiB for a 4096x2160 desktop (inside the byte
/// limit for its size), nearly all of it sent at once, the rest trickled at 1 KiB/s in 64-byte
/// pieces. The viewer's window stays responsive (F8 shows the menu within 100 ms), its CPU stays
/// low while the rect trickles (the marker walk goes on from where it stopped; it used to walk
/// the 64 MiB again for every piece, under the framebuffer lock), its peak RSS stays under
/// 500 MB and it exits within a second of its window being closed. Servers that break a limit
/// (a rect with no end, too many marker segments) have the connection ended with a message
/// saying which.
final class JPEGTrickleInteropTests: XCTestCase {
    static let script = #"""
import os, random, socket, struct, sys, threading, time
# usage: trickle.py PORTFILE MODE [SECONDS]; MODE: trickle | endless | segments
W, H = 4096, 2160
TOTAL = 64 << 20                      # the trickled rect's length when done
def be16(v): return struct.pack(">H", v)
def be32(v): return struct.pack(">I", v & 0xffffffff)
PF = bytes([32, 24, 0, 1]) + be16(255) * 3 + bytes([16, 8, 0, 0, 0, 0])
def seg(m, body): return bytes([0xff, m]) + be16(len(body) + 2) + body
# a baseline header: one quantisation table, a 4096x2160 frame of one component, one Huffman
# table, the scan; then entropy-coded bytes (random, 0xFF stuffed as FF 00)
HEADER = (b"\xff\xd8" + seg(0xdb, bytes([0]) + bytes(range(1, 65)))
          + seg(0xc0, bytes([8]) + be16(H) + be16(W) + bytes([1, 1, 0x11, 0]))
          + seg(0xc4, bytes([0]) + bytes([0, 1] + [0] * 14) + bytes([0]))
          + seg(0xda, bytes([1, 1, 0, 0, 0x3f, 0])))
random.seed(21)
BLOCK = bytes(random.getrandbits(8) for _ in range(1 << 16)).replace(b"\xff", b"\xff\x00")
def entropy(n):
    out = bytearray()
    while len(out) < n: out += BLOCK
    return bytes(out[:n])
def drain(c):
    try:
        while c.recv(65536): pass
    except OSError: pass
    print("client closed", flush=True)
def main():
    portfile, mode = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 0
    l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
    open(portfile + ".tmp", "w").write(str(l.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    c, _ = l.accept()
    c.sendall(b"RFB 003.008\n"); c.recv(12)
    c.sendall(bytes([1, 1])); c.recv(1)
    c.sendall(be32(0)); c.recv(1)
    name = b"farcast-interop"
    c.sendall(be16(W) + be16(H) + PF + be32(len(name)) + name)
    reader = threading.Thread(target=drain, args=(c,), daemon=True)
    reader.start()
    rect = bytes([0, 0]) + be16(1) + be16(0) + be16(0) + be16(W) + be16(H) + struct.pack(">i", 21)
    try:
        if mode == "trickle":
            drip = 64 * 16 * int(seconds + 10)   # 1 KiB/s for the test and then some
            c.sendall(rect + HEADER + entropy(TOTAL - len(HEADER) - drip))
            print("sent the head", flush=True)
            tail = entropy(drip)
            for i in range(0, drip, 64):
                c.sendall(tail[i:i + 64]); time.sleep(1 / 16)
            print("trickled", flush=True)
        elif mode == "endless":
            # past the limit for the rect's size (2 x 4 bytes a pixel + 68 KiB) with no end
            c.sendall(rect + HEADER)
            for _ in range(80): c.sendall(entropy(1 << 20))
            print("sent 80 MiB", flush=True)
        elif mode == "segments":
            c.sendall(rect + b"\xff\xd8" + seg(0xfe, b"x") * 5000)
            print("sent the comments", flush=True)
        time.sleep(3600)
    except OSError as e:
        print("ended:", e, flush=True)
        # the reader says how the client went (a reset ends both): not cut off by the exit
        reader.join(10)
main()
"""#

    struct Server {
        let port: Int
        let process: ChildProcess
    }

    func workDir() throws -> URL {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-trickle-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    func startServer(_ mode: String, seconds: Int = 0, dir: URL) throws -> Server {
        guard let py = InteropTools.path("python3") else { throw XCTSkip("python3 missing") }
        let scriptURL = dir.appendingPathComponent("trickle.py")
        try JPEGTrickleInteropTests.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let portFile = dir.appendingPathComponent("port").path
        let server = try ChildProcess(name: "trickle", executable: py, arguments: [scriptURL.path, portFile, mode, "\(seconds)"],
                                      logURL: dir.appendingPathComponent("trickle.log"))
        addTeardownBlock { server.stop() }
        guard poll(timeout: 15, { FileManager.default.fileExists(atPath: portFile) }),
              let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            throw HarnessError("trickle server did not start: \(server.logTail())")
        }
        return Server(port: port, process: server)
    }

    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// `trace NAME SECONDS` lines from the viewer's log (FARCAST_TRACE=1), monotonic clock.
    func traces(_ log: URL, _ name: String) -> [Double] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 4, f[1] == "trace", f[2] == name else { return nil }
            return Double(f[3])
        }
    }

    /// CPU seconds (user + system) a process has used, from /proc.
    func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let f = stat[stat.index(after: close)...].split(separator: " ")
        // fields 14 and 15 (utime, stime) are the 12th and 13th after the command name
        guard f.count > 13, let u = Double(f[11]), let s = Double(f[12]) else { return 0 }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Peak resident set size in MB (VmHWM).
    func peakRSSMB(_ pid: Int32) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }

    func testATrickledHugeRectCostsLittleAndTheWindowStaysResponsive() throws {
        let dir = try workDir()
        let dripSeconds = 15
        let server = try startServer("trickle", seconds: dripSeconds, dir: dir)
        let local = try startLocalXvfb(avoiding: [], size: "1280x800", dir: dir)
        let display = ":\(local)", env = ["DISPLAY": display]
        let viewer = try startViewerWindow(port: server.port, display: display, dir: dir, ["--encodings", "jpeg"],
                                           environment: ["FARCAST_TRACE": "1"])
        let log = dir.appendingPathComponent("viewer.log")
        XCTAssertTrue(poll(timeout: 20) { server.process.logTail().contains("sent the head") }, "head sent: \(server.process.logTail())")
        // the head is in the viewer (the socket drained) before the CPU is measured
        Thread.sleep(forTimeInterval: 2)
        let cpu0 = cpuSeconds(viewer.pid), t0 = now()
        Thread.sleep(forTimeInterval: Double(dripSeconds) - 5)
        let cpu = cpuSeconds(viewer.pid) - cpu0, wall = now() - t0
        print("trickle: viewer CPU \(String(format: "%.3f", cpu)) s over \(String(format: "%.1f", wall)) s of a 1 KiB/s trickle into a 64 MiB JPEG rect")
        XCTAssertLessThan(cpu / wall, 0.05, "the viewer used \(Int(cpu / wall * 100))% of a core while the rect trickled")
        XCTAssertFalse(server.process.logTail().contains("trickled"), "still trickling")

        // F8: the menu is on screen within 100 ms
        let found = try runTool("xdotool", ["search", "--name", "farcast-interop"], in: dir, environment: env).stdout
        let wid = String(decoding: found, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        _ = try runTool("xdotool", ["windowmove", wid, "0", "0", "mousemove", "--sync", "300", "300"], in: dir,
                        environment: env, allowFailure: true)
        Thread.sleep(forTimeInterval: 0.3)
        let pressed = now()
        _ = try runTool("xdotool", ["key", "F8"], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 5) { !self.traces(log, "menu-shown").isEmpty }, "menu shown: \(viewer.logTail())")
        if let shown = traces(log, "menu-shown").first {
            XCTAssertLessThan(shown - pressed, 0.1, "the menu took \(Int((shown - pressed) * 1000)) ms to show")
        }
        let rss = peakRSSMB(viewer.pid)
        print("trickle: viewer peak RSS \(Int(rss)) MB")
        XCTAssertLessThan(rss, 500, "peak RSS")

        // closed while the rect still trickles: the viewer exits within a second
        let closerURL = dir.appendingPathComponent("close.py")
        try FloodInteropTests.closer.write(to: closerURL, atomically: true, encoding: .utf8)
        let closed = now()
        _ = try runTool("python3", [closerURL.path, wid], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 5) { !viewer.isRunning }, "viewer exited: \(viewer.logTail())")
        let took = now() - closed
        XCTAssertLessThan(took, 1.0, "the viewer took \(took) s to exit")
        XCTAssertFalse(server.process.logTail().contains("trickled"), "the rect was still trickling when the window closed")
    }

    /// A rect past its byte limit, and one of 5000 comment segments: the connection ends, and
    /// the window says why.
    func testARectBreakingALimitEndsTheConnectionWithAMessage() throws {
        let limit = 4096 * 2160 * 4 * 2 + 65536 + 4096
        for (mode, message) in [("endless", "over \(limit) bytes without an end-of-image marker"),
                                ("segments", "more than 1024 marker segments")] {
            let dir = try workDir()
            let server = try startServer(mode, dir: dir)
            let local = try startLocalXvfb(avoiding: [], size: "1280x800", dir: dir)
            let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--encodings", "jpeg"])
            XCTAssertTrue(poll(timeout: 20) { viewer.logTail(50).contains(message) }, "\(mode): \(viewer.logTail())")
            XCTAssertTrue(poll(timeout: 10) { server.process.logTail().contains("client closed") },
                          "\(mode): the viewer closed the connection: \(server.process.logTail())")
            print("trickle: \(mode): viewer peak RSS \(Int(peakRSSMB(viewer.pid))) MB")
            XCTAssertLessThan(peakRSSMB(viewer.pid), 500, "\(mode): peak RSS")
        }
    }
}
