import Foundation
import XCTest

/// A hostile server floods 64-Mpixel fills (RRE background, Tight fill, whole-screen CopyRect)
/// for 20 s, a few bytes each. The viewer's window must keep presenting, open the menu (F8)
/// within 100 ms, and exit within 1 s of its window being closed: the session decodes one rect
/// at a time under the framebuffer lock and looks at stop() between rects.
final class FloodInteropTests: XCTestCase {
    static let script = #"""
import socket, struct, sys, threading, time
# usage: flood.py PORTFILE SECONDS
W, H = 8192, 8192
def be16(v): return struct.pack(">H", v)
def be32(v): return struct.pack(">I", v & 0xffffffff)
PF = bytes([32, 24, 0, 1]) + be16(255) * 3 + bytes([16, 8, 0, 0, 0, 0])
def rect(x, y, w, h, enc): return be16(x) + be16(y) + be16(w) + be16(h) + struct.pack(">i", enc)
def update(i):
    c = (i * 40503) & 0xffffff
    px = bytes([c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff, 0])
    rre = rect(0, 0, W, H, 2) + be32(0) + px                     # background only
    tight = rect(0, 0, W, H, 7) + bytes([0x80]) + px[2::-1]      # fill, TPIXEL is R,G,B
    copy = rect(0, 0, W, H, 1) + be16(0) + be16(0)               # the whole screen onto itself
    return bytes([0, 0]) + be16(3) + rre + tight + copy
def drain(c):
    try:
        while c.recv(65536): pass
    except OSError: pass
def main():
    portfile, seconds = sys.argv[1], float(sys.argv[2])
    l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
    open(portfile + ".tmp", "w").write(str(l.getsockname()[1]))
    import os; os.rename(portfile + ".tmp", portfile)
    c, _ = l.accept()
    c.sendall(b"RFB 003.008\n"); c.recv(12)
    c.sendall(bytes([1, 1])); c.recv(1)
    c.sendall(be32(0)); c.recv(1)
    name = b"farcast-interop"
    c.sendall(be16(W) + be16(H) + PF + be32(len(name)) + name)
    threading.Thread(target=drain, args=(c,), daemon=True).start()
    end = time.monotonic() + seconds; i = 0
    try:
        while time.monotonic() < end:
            c.sendall(update(i)); i += 1
        print("sent", i, "updates", flush=True)
        time.sleep(3600)
    except OSError as e: print("ended:", e, flush=True)
main()
"""#

    /// Sends WM_DELETE_WINDOW to the viewer's window, as a window manager's close button does.
    static let closer = #"""
import sys
from Xlib import display, protocol, X
d = display.Display(); wid = int(sys.argv[1])
w = d.create_resource_object("window", wid)
ev = protocol.event.ClientMessage(window=w, client_type=d.intern_atom("WM_PROTOCOLS"),
                                  data=(32, [d.intern_atom("WM_DELETE_WINDOW"), X.CurrentTime, 0, 0, 0]))
w.send_event(ev, event_mask=0); d.sync()  # a round trip: a client that exits right after a flush can lose its last request
"""#

    /// `trace NAME SECONDS` lines from the viewer's log (FARCAST_TRACE=1), monotonic clock.
    func traces(_ log: URL, _ name: String) -> [Double] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 4, f[1] == "trace", f[2] == name else { return nil }
            return Double(f[3])
        }
    }

    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    func testWindowStaysResponsiveUnderAFloodOfHugeFills() throws {
        guard let py = InteropTools.path("python3") else { throw XCTSkip("python3 missing") }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-flood-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let scriptURL = dir.appendingPathComponent("flood.py"), closerURL = dir.appendingPathComponent("close.py")
        try FloodInteropTests.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        try FloodInteropTests.closer.write(to: closerURL, atomically: true, encoding: .utf8)
        let portFile = dir.appendingPathComponent("port").path
        let server = try ChildProcess(name: "flood", executable: py, arguments: [scriptURL.path, portFile, "20"],
                                      logURL: dir.appendingPathComponent("flood.log"))
        addTeardownBlock { server.stop() }
        guard poll(timeout: 15, { FileManager.default.fileExists(atPath: portFile) }),
              let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            throw HarnessError("flood server did not start: \(server.logTail())")
        }
        let local = try startLocalXvfb(avoiding: [], size: "1280x800", dir: dir)
        let display = ":\(local)"
        let viewer = try startViewerWindow(port: port, display: display, dir: dir, environment: ["FARCAST_TRACE": "1"])
        let start = now()
        let log = dir.appendingPathComponent("viewer.log")

        // presents keep coming while the flood runs: some in every 2-second slice
        for slice in 0..<4 {
            let from = now()
            Thread.sleep(forTimeInterval: 2)
            let n = traces(log, "present").filter { $0 >= from }.count
            XCTAssertGreaterThan(n, 0, "no present during seconds \(2 * slice)-\(2 * slice + 2) of the flood: \(viewer.logTail())")
        }

        // F8: the menu is on screen within 100 ms
        let env = ["DISPLAY": display]
        let found = try runTool("xdotool", ["search", "--name", "farcast-interop"], in: dir, environment: env).stdout
        let wid = String(decoding: found, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        // no window manager: focus follows the pointer, so the pointer goes over the window
        _ = try runTool("xdotool", ["windowmove", wid, "0", "0", "mousemove", "--sync", "300", "300"], in: dir,
                        environment: env, allowFailure: true)
        Thread.sleep(forTimeInterval: 0.3)
        let pressed = now()
        _ = try runTool("xdotool", ["key", "F8"], in: dir, environment: env)
        XCTAssertTrue(poll(timeout: 5) { !self.traces(log, "menu-shown").isEmpty }, "menu shown: \(viewer.logTail())")
        if let shown = traces(log, "menu-shown").first {
            XCTAssertLessThan(shown - pressed, 0.1, "the menu took \(Int((shown - pressed) * 1000)) ms to show")
        }

        // still flooding when the window is closed: the viewer exits within a second
        XCTAssertLessThan(now() - start, 18, "the flood is still running")
        let closed = now()
        _ = try runTool("python3", [closerURL.path, wid], in: dir, environment: env)
        let exited = poll(timeout: 5) { !viewer.isRunning }
        var stacks = ""
        if !exited, InteropTools.path("gdb") != nil {
            // where it is stuck, for the failure message
            stacks = (try? runTool("gdb", ["-p", "\(viewer.pid)", "-batch", "-ex", "thread apply all bt 12"], in: dir,
                                   timeout: 30, allowFailure: true)).map { String(decoding: $0.stdout, as: UTF8.self) } ?? ""
        }
        let sawClose = !traces(log, "window-close").isEmpty
        XCTAssertTrue(exited, "viewer exited (the window \(sawClose ? "saw" : "never saw") the close): \(viewer.logTail())\n\(stacks.suffix(6000))")
        let took = now() - closed
        if let q = traces(log, "quit").first { print("flood: close to quit \(Int((q - closed) * 1000)) ms, close to exit \(Int(took * 1000)) ms") }
        XCTAssertLessThan(took, 1.0, "the viewer took \(took) s to exit")
        XCTAssertFalse(server.logTail().contains("sent"), "the flood was still running when the window closed: \(server.logTail())")
    }
}
