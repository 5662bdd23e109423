import Foundation
import XCTest

/// Start and stop the real viewer window many times under Xvfb (the window surface; OpenGL on llvmpipe where a GPU device exists) against
/// a real Xvnc, ended three ways: SIGTERM at varied moments (before, during and after the
/// handshake), the window manager's close (WM_DELETE_WINDOW), and the menu's Disconnect (F8,
/// End, Enter). No run may end on a crash signal or hang. `FARCAST_SHUTDOWN_CYCLES` sets the
/// count (200 by default, as the issue asks).
final class ShutdownInteropTests: XCTestCase {
    /// One Python process drives every cycle (python-xlib, XTEST): far cheaper per cycle than
    /// spawning xdotool, so the count can be high.
    static let driver = #"""
import os, sys, time, signal, subprocess, random
from Xlib import display, X, XK, protocol
from Xlib.ext import xtest
viewer, port, cycles, logdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = display.Display(); root = d.screen().root
NAME = d.intern_atom("_NET_WM_NAME"); UTF8 = d.intern_atom("UTF8_STRING")
def title(w):
    try:
        p = w.get_full_property(NAME, UTF8)
        return p.value.decode("utf-8", "replace") if p else (w.get_wm_name() or "")
    except Exception: return ""
def ready_window():
    try: kids = root.query_tree().children
    except Exception: return None
    for w in kids:
        if "farcast-interop" in title(w): return w
    return None
def key(name):
    code = d.keysym_to_keycode(XK.string_to_keysym(name))
    xtest.fake_input(d, X.KeyPress, code); xtest.fake_input(d, X.KeyRelease, code); d.sync()
rng = random.Random(4242)
results = {"sigterm": 0, "close": 0, "disconnect": 0}
slowest = 0.0
for i in range(cycles):
    how = ("sigterm", "close", "disconnect")[i % 3]
    log = open(os.path.join(logdir, "cycle.log"), "w")
    t0 = time.monotonic()
    p = subprocess.Popen([viewer, "127.0.0.1::" + port, "--encodings", "raw", "-v"], stdout=log, stderr=log)
    w = None
    # SIGTERM at a random moment in the first 1.2 s (start-up, handshake, first frames)
    # for half of its cycles, after the window is ready for the other half
    early = how == "sigterm" and (i // 3) % 2 == 0
    deadline = t0 + (rng.uniform(0.0, 1.2) if early else 20)
    while time.monotonic() < deadline and p.poll() is None:
        if not early:
            w = ready_window()
            if w: break
        time.sleep(0.01)
    if p.poll() is not None:
        print("FAIL cycle %d (%s): exited early with %s" % (i, how, p.returncode)); sys.exit(1)
    if not early and w is None:
        p.kill(); print("FAIL cycle %d (%s): no ready window in 20 s" % (i, how)); sys.exit(1)
    if how == "sigterm":
        p.send_signal(signal.SIGTERM)
    elif how == "close":
        ev = protocol.event.ClientMessage(window=w, client_type=d.intern_atom("WM_PROTOCOLS"),
                 data=(32, [d.intern_atom("WM_DELETE_WINDOW"), X.CurrentTime, 0, 0, 0]))
        w.send_event(ev, event_mask=0); d.sync()
    else:
        time.sleep(0.05)
        w.set_input_focus(X.RevertToParent, X.CurrentTime); d.sync()
        key("F8"); time.sleep(0.05); key("End"); key("Return")
    t1 = time.monotonic()
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.system("gdb -p %d -batch -ex 'thread apply all bt 12' 2>&1 | tail -80" % p.pid)
        p.kill(); print("FAIL cycle %d (%s): still running 10 s after the stop" % (i, how)); sys.exit(1)
    slowest = max(slowest, time.monotonic() - t1)
    log.close()
    # SIGTERM before SDL installs its handler (or after SDL_Quit) ends by the signal: fine
    ok = rc == 0 or (how == "sigterm" and rc == -signal.SIGTERM)
    if not ok:
        print("FAIL cycle %d (%s): exit status %s" % (i, how, rc))
        print(open(os.path.join(logdir, "cycle.log")).read()[-3000:]); sys.exit(1)
    results[how] += 1
print("OK %d cycles %s slowest-exit %.3f s" % (cycles, results, slowest), flush=True)
"""#

    func testManyStartsAndStopsEndCleanly() throws {
        guard InteropTools.path("python3") != nil else { throw XCTSkip("python3 missing") }
        let cycles = Int(ProcessInfo.processInfo.environment["FARCAST_SHUTDOWN_CYCLES"] ?? "") ?? 200
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-shutdown-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("cycles.py")
        try ShutdownInteropTests.driver.write(to: script, atomically: true, encoding: .utf8)
        var o = VNCServer.Options()
        o.content = .blank
        let server = try startServer(.xvnc, o)
        let local = try startLocalXvfb(avoiding: [server.display], size: "1024x768", dir: dir)
        let started = Date()
        let r = try runTool("python3", [script.path, viewerPath, "\(server.port)", "\(cycles)", dir.path], in: dir,
                            environment: ["DISPLAY": ":\(local)", "SDL_VIDEODRIVER": "x11"],
                            timeout: Double(cycles) * 12 + 60, allowFailure: true)
        let out = String(decoding: r.stdout, as: UTF8.self) + r.stderr
        XCTAssertTrue(out.contains("OK \(cycles) cycles"), out.suffix(6000).description)
        print("shutdown cycles: \(out.split(separator: "\n").last ?? "") in \(Int(Date().timeIntervalSince(started))) s")
    }
}
