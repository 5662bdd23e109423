#!/usr/bin/python3
"""Latency benchmarks for Farcast against TigerVNC's vncviewer (run by scripts/bench-latency.sh).

input  : input to screen on loopback. A real Xvnc runs an xterm with `cat` echoing keys; the
         viewer shows it in a window on a private Xvfb. A key is pressed into the viewer's window
         through XTEST and the time until the viewer's window on Xvfb changes is measured (the
         window is read back with XGetImage in a tight loop), over N presses: median and p95.
netem  : a link emulated with tc netem inside a network namespace this script makes (veth
         pair; delay and rate on both ends). Xvnc runs in the namespace with a photo as its
         background and an xterm that moves over it for a few seconds; the viewer's window is sampled to count the distinct
         frames it shows per second while it moves, then the seconds until the window equals
         the server's own screen (lossless again) after the motion stops.

Needs root (network namespace), Xvnc, Xvfb, xterm, xdotool, ImageMagick, python3-xlib, tc.
Both viewers run with their defaults: Farcast's adaptive quality, vncviewer's AutoSelect.
"""
import os, random, shutil, statistics, subprocess, sys, time
from Xlib import X, XK, display as xdisplay
from Xlib.ext import xtest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROCS = []


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def free_display(start):
    n = start
    while os.path.exists(f"/tmp/.X{n}-lock") or os.path.exists(f"/tmp/.X11-unix/X{n}"):
        n += 1
    return n


def spawn(args, env=None, ns=None, quiet=True):
    if ns:
        args = ["ip", "netns", "exec", ns] + args
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.DEVNULL if quiet else None
    p = subprocess.Popen(args, env=e, stdout=out, stderr=out, start_new_session=True)
    PROCS.append(p)
    return p


def stop(p):
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(3)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def wait_for(cond, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(step)
    return cond()


def connect(n, timeout=15):
    def try_open():
        try:
            return xdisplay.Display(f":{n}")
        except Exception:
            return None
    d = wait_for(try_open, timeout, 0.1)
    if not d:
        raise SystemExit(f"display :{n} did not come up")
    return d


def viewer_window(d):
    """The largest mapped top-level window (the only client on the viewer's Xvfb)."""
    best = None
    for w in d.screen().root.query_tree().children:
        try:
            a = w.get_attributes()
            g = w.get_geometry()
        except Exception:
            continue
        if a.map_state != X.IsViewable or g.width < 100:
            continue
        if not best or g.width * g.height > best[1] * best[2]:
            best = (w, g.width, g.height)
    return best


def grab(w, width, height):
    # 24-bit depth: the pad byte is not picture
    raw = w.get_image(0, 0, width, height, X.ZPixmap, 0x00FFFFFF).data
    return bytes(raw)


def start_viewer(kind, n_view, target, extra_env=None):
    env = {"DISPLAY": f":{n_view}"}
    env.update(extra_env or {})
    if kind == "farcast":
        exe = os.environ.get("FARCAST_VIEWER") or next(
            (p for p in [f"{REPO}/.build/release/viewer", f"{REPO}/.build/debug/viewer"] if os.path.exists(p)), None)
        if not exe:
            raise SystemExit("no viewer build: swift build -c release")
        args = [exe, target] + (["-v"] if os.environ.get("BENCH_VERBOSE") else [])
        env.setdefault("SDL_VIDEODRIVER", "x11")
        for k in ("SDL_RENDER_DRIVER", "FARCAST_TRACE"):
            if os.environ.get(k):
                env[k] = os.environ[k]
    else:
        args = ["vncviewer", target, "-RemoteResize=0", "-AlertOnFatalError=0", "-ReconnectOnError=0"]
    return spawn(args, env=env, quiet=not os.environ.get("BENCH_VERBOSE"))


def save_ppm(path, data, w, h):
    """BGRX rows (what get_image gives at depth 24) as a PPM, to look at a mismatch."""
    with open(path, "wb") as f:
        f.write(f"P6 {w} {h} 255\n".encode())
        px = bytearray(w * h * 3)
        px[0::3], px[1::3], px[2::3] = data[2::4], data[1::4], data[0::4]
        f.write(px)


def diff_count(a, b):
    return sum(1 for i in range(0, min(len(a), len(b)), 4) if a[i:i + 3] != b[i:i + 3])


def pct(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


# MARK: input to screen

def bench_input(kinds, presses):
    n_srv = free_display(160)
    port = 6100 + n_srv
    xvnc = spawn(["Xvnc", f":{n_srv}", "-rfbport", str(port), "-SecurityTypes", "None", "-localhost",
                  "-geometry", "1024x768", "-depth", "24"])
    ds = connect(n_srv)
    spawn(["xterm", "-geometry", "80x24+0+0", "-e", "cat"], env={"DISPLAY": f":{n_srv}"})
    time.sleep(1.5)
    n_view = free_display(n_srv + 1)
    xvfb = spawn(["Xvfb", f":{n_view}", "-screen", "0", "1280x1024x24"])
    dv = connect(n_view)
    results = {}
    for kind in kinds:
        v = start_viewer(kind, n_view, f"127.0.0.1::{port}")
        found = wait_for(lambda: viewer_window(dv), 20, 0.2)
        if not found:
            log(f"input {kind}: no window")
            stop(v)
            results[kind] = None
            continue
        w, ww, wh = found
        log(f"input {kind}: window {ww}x{wh}")
        time.sleep(3)
        root = dv.screen().root
        # the remote pointer over the xterm: without a window manager, focus follows it
        pos = w.translate_coords(root, 0, 0)
        xtest.fake_input(dv, X.MotionNotify, x=-pos.x + 200, y=-pos.y + 150)
        w.set_input_focus(X.RevertToParent, X.CurrentTime)
        dv.sync()
        time.sleep(0.5)
        kc = dv.keysym_to_keycode(XK.string_to_keysym("x"))
        ret = dv.keysym_to_keycode(XK.string_to_keysym("Return"))
        # the xterm's area at 1:1 in the window's top-left corner
        gw, gh = min(ww, 520), min(wh, 360)
        lat = []
        misses = 0
        for i in range(presses):
            if i and i % 60 == 0:
                for k in (ret,):
                    xtest.fake_input(dv, X.KeyPress, k); xtest.fake_input(dv, X.KeyRelease, k)
                dv.sync()
                time.sleep(0.3)
            before = grab(w, gw, gh)
            t0 = time.perf_counter()
            xtest.fake_input(dv, X.KeyPress, kc)
            xtest.fake_input(dv, X.KeyRelease, kc)
            dv.sync()
            t1 = None
            while time.perf_counter() - t0 < 2:
                if grab(w, gw, gh) != before:
                    t1 = time.perf_counter()
                    break
            if t1 is None:
                misses += 1
            else:
                lat.append(t1 - t0)
            time.sleep(0.08 + random.random() * 0.05)
        stop(v)
        time.sleep(0.5)
        if lat:
            results[kind] = (statistics.median(lat), pct(lat, 0.95), len(lat), misses)
            log(f"input {kind}: median {results[kind][0]*1000:.1f} ms, p95 {results[kind][1]*1000:.1f} ms "
                f"({len(lat)} presses, {misses} not seen within 2 s)")
        else:
            log(f"input {kind}: no press was seen ({misses} missed)")
            results[kind] = None
    stop(xvfb)
    stop(xvnc)
    return results


# MARK: start-up

def proc_figures(pid):
    """(resident MB, proportional MB, CPU s) of a process, from /proc."""
    rss = pss = 0.0
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                pss = int(line.split()[1]) / 1024
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        cpu = (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
    return rss, pss, cpu


def save_smaps(pid, path):
    """Resident kB of `pid` per mapped file (anonymous mappings by kind), largest first: where
    the RSS goes (BENCH_SMAPS=DIR keeps one file per viewer and run)."""
    rss, name = {}, "[anon]"
    try:
        for line in open(f"/proc/{pid}/smaps"):
            head = line.split(None, 5)
            if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
                name = head[5].strip() if len(head) > 5 else "[anon]"
            elif line.startswith("Rss:"):
                rss[name] = rss.get(name, 0) + int(head[1])
    except OSError:
        return
    with open(path, "w") as out:
        for k, v in sorted(rss.items(), key=lambda kv: -kv[1]):
            out.write(f"{v}\t{k}\n")


def bench_startup(kinds, runs):
    """Time from the viewer's start to its window showing the server's picture (16 points
    within 24 levels per channel, as both viewers start lossy, sampled spread over a 1920x1080 photo desktop with an xterm), then resident and
    proportional memory and CPU time two seconds later. Viewers take turns, `runs` each."""
    n_srv = free_display(180)
    port = 6100 + n_srv
    xvnc = spawn(["Xvnc", f":{n_srv}", "-rfbport", str(port), "-SecurityTypes", "None", "-localhost",
                  "-geometry", "1920x1080", "-depth", "24"])
    ds = connect(n_srv)
    work = f"/tmp/fcbench-{os.getpid()}"
    os.makedirs(work, exist_ok=True)
    img = f"{work}/photo.png"
    subprocess.run(["bash", f"{REPO}/scripts/scene.sh", "render", img, "1920x1080"], check=True, stdout=subprocess.DEVNULL)
    senv = {**os.environ, "DISPLAY": f":{n_srv}"}
    subprocess.run(["display", "-window", "root", img], env=senv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spawn(["xterm", "-geometry", "100x30+200+150"], env={"DISPLAY": f":{n_srv}"})
    time.sleep(1.5)
    sroot = ds.screen().root
    points = [(int(1920 * (i + 0.5) / 4), int(1080 * (j + 0.5) / 4)) for i in range(4) for j in range(4)]
    pixel = lambda win, x, y: bytes(win.get_image(x, y, 1, 1, X.ZPixmap, 0x00FFFFFF).data)[:3]
    want = [pixel(sroot, x, y) for x, y in points]
    n_view = free_display(n_srv + 1)
    xvfb = spawn(["Xvfb", f":{n_view}", "-screen", "0", "2048x1280x24"])  # room for 1:1
    dv = connect(n_view)
    figures = {k: [] for k in kinds}
    try:
        for r in range(runs):
            for kind in kinds:
                env = {"SDL_RENDER_DRIVER": "software"} if kind.endswith("-software") else {}
                t0 = time.perf_counter()
                v = start_viewer(kind.removesuffix("-software"), n_view, f"127.0.0.1::{port}", env)
                first = None
                while time.perf_counter() - t0 < 20 and v.poll() is None:
                    found = viewer_window(dv)
                    if found and found[1] >= 1920 and found[2] >= 1080:
                        w = found[0]
                        try:
                            # near, not equal: both viewers start with JPEG on loopback
                            if all(max(abs(a - b) for a, b in zip(pixel(w, x, y), c)) <= 24 for (x, y), c in zip(points, want)):
                                first = time.perf_counter() - t0
                                break
                        except Exception:
                            pass
                    time.sleep(0.005)
                if first is None:
                    log(f"startup {kind}: no matching picture within 20 s")
                else:
                    time.sleep(max(0, first + 2 - (time.perf_counter() - t0)))
                    f = proc_figures(v.pid)
                    if os.environ.get("BENCH_SMAPS"):
                        os.makedirs(os.environ["BENCH_SMAPS"], exist_ok=True)
                        save_smaps(v.pid, f"{os.environ['BENCH_SMAPS']}/{kind}-{r + 1}.tsv")
                    if f:
                        figures[kind].append((first,) + f)
                        log(f"startup {kind} run {r + 1}: first picture {first:.3f} s, 2 s later RSS {f[0]:.1f} MB, "
                            f"PSS {f[1]:.1f} MB, CPU {f[2]:.2f} s")
                stop(v)
                time.sleep(0.5)
    finally:
        stop(xvfb)
        stop(xvnc)
        shutil.rmtree(work, ignore_errors=True)
    return figures


# MARK: emulated link

def netns_up(ns, rate, delay_ms):
    """A namespace behind a veth pair, the rate limited on both ends. netem does the delay where
    the kernel has it; otherwise (no sch_netem, as in some VM kernels) tbf limits the rate and a
    delaying TCP relay (DelayRelay) adds the delay. Returns (veth, netem used)."""
    sh = lambda *a: subprocess.run(list(a), check=True)
    sh("ip", "netns", "add", ns)
    a, b = f"{ns[:8]}a", f"{ns[:8]}b"
    try:
        sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        sh("ip", "link", "set", b, "netns", ns)
        sh("ip", "addr", "add", "10.77.0.1/24", "dev", a)
        sh("ip", "link", "set", a, "up")
        sh("ip", "netns", "exec", ns, "ip", "addr", "add", "10.77.0.2/24", "dev", b)
        sh("ip", "netns", "exec", ns, "ip", "link", "set", b, "up")
        sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        limit = str(max(100, int(rate / 8 / 1500 / 2)))   # about 0.5 s of queue at the rate
        netem = ["netem", "delay", f"{delay_ms}ms", "rate", f"{int(rate)}bit", "limit", limit]
        if subprocess.run(["tc", "qdisc", "add", "dev", a, "root"] + netem, stderr=subprocess.DEVNULL).returncode == 0:
            sh("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", b, "root", *netem)
            return a, True
        burst = str(max(16000, int(rate / 8 / 250)))
        tbf = ["tbf", "rate", f"{int(rate)}bit", "burst", burst, "latency", "500ms"]
        sh("tc", "qdisc", "add", "dev", a, "root", *tbf)
        sh("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", b, "root", *tbf)
        return a, False
    except Exception:
        netns_down(ns, a)
        raise


def netns_down(ns, a):
    subprocess.run(["ip", "link", "del", a], stderr=subprocess.DEVNULL)
    subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


class DelayRelay:
    """Relays TCP from 127.0.0.1:port to target, holding every chunk `delay` seconds in each
    direction (half the round trip each way), in order."""
    def __init__(self, target, delay):
        import socket, threading
        self.target, self.delay = target, delay
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(4)
        self.port = self.ls.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        import socket, threading
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            s = socket.create_connection(self.target)
            for x in (c, s):
                x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for src, dst in ((c, s), (s, c)):
                threading.Thread(target=self.pump, args=(src, dst), daemon=True).start()

    def pump(self, src, dst):
        import collections, threading
        q, cv, done = collections.deque(), threading.Condition(), [False]
        def sender():
            while True:
                with cv:
                    while not q and not done[0]:
                        cv.wait()
                    if not q:
                        break
                    due, data = q.popleft()
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                try:
                    dst.sendall(data)
                except OSError:
                    break
            try:
                dst.shutdown(1)
            except OSError:
                pass
        threading.Thread(target=sender, daemon=True).start()
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            with cv:
                if not data:
                    done[0] = True
                    cv.notify()
                    return
                q.append((time.monotonic() + self.delay, data))
                cv.notify()

    def close(self):
        self.ls.close()


def bench_link(kinds, rate, rtt_ms, index=0, move_seconds=8.0):
    ns = f"fcb{os.getpid() % 10000}{index}"
    a, netem = netns_up(ns, rate, rtt_ms // 2)
    relay = None if netem else DelayRelay(("10.77.0.2", 5999), rtt_ms / 2000)
    target = "10.77.0.2::5999" if netem else f"127.0.0.1::{relay.port}"
    log(f"link {rate/1e6:g} Mbit/s {rtt_ms} ms: " + ("tc netem" if netem else "no sch_netem in this kernel: tbf for the rate, a delaying relay for the round trip"))
    results = {}
    try:
        n_srv = free_display(170 + 5 * index)
        xvnc = spawn(["Xvnc", f":{n_srv}", "-rfbport", "5999", "-SecurityTypes", "None",
                      "-geometry", "1024x768", "-depth", "24"], ns=ns, quiet=not os.environ.get("BENCH_VERBOSE"))
        ds = connect(n_srv)
        work = f"/tmp/fcbench-{os.getpid()}"
        os.makedirs(work, exist_ok=True)
        img = f"{work}/photo.png"
        subprocess.run(["bash", f"{REPO}/scripts/scene.sh", "render", img, "1024x768"], check=True,
                       stdout=subprocess.DEVNULL)
        senv = {"DISPLAY": f":{n_srv}"}
        # the photo as the root background (display(1) paints it and exits); an xterm moves
        # over it, so every step exposes photo the server must send again
        subprocess.run(["ip", "netns", "exec", ns, "display", "-window", "root", img], env={**os.environ, **senv},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        spawn(["xterm", "-geometry", "60x20+100+100"], env=senv, ns=ns)
        win = wait_for(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--class", "xterm"],
                                              env={**os.environ, **senv}, capture_output=True, text=True).stdout.split(), 10, 0.2)
        if not win:
            raise SystemExit("the xterm did not show")
        wid = win[0]
        n_view = free_display(n_srv + 1)
        xvfb = spawn(["Xvfb", f":{n_view}", "-screen", "0", "1280x1024x24"])
        dv = connect(n_view)
        sroot = ds.screen().root
        for kind in kinds:
            subprocess.run(["xdotool", "windowmove", wid, "100", "100"], env={**os.environ, **senv})
            v = start_viewer(kind, n_view, target)
            found = wait_for(lambda: viewer_window(dv), 30, 0.2)
            if not found:
                stop(v); results[kind] = None; continue
            w, ww, wh = found
            cw, ch = min(ww, 1024), min(wh, 768)
            # Xvfb draws its pointer into the picture read back: park it outside the window
            xtest.fake_input(dv, X.MotionNotify, x=1279, y=1023)
            dv.sync()
            server = lambda: bytes(sroot.get_image(0, 0, cw, ch, X.ZPixmap, 0x00FFFFFF).data)

            def masked(img):
                # Xvfb draws its pointer into what is read back, and a viewer may draw the
                # remote pointer where the server has it: 48x48 boxes around both are left out
                p, q = w.query_pointer(), sroot.query_pointer()
                b = bytearray(img)
                for px, py in ((p.win_x, p.win_y), (q.root_x, q.root_y)):
                    for y in range(max(0, py - 24), min(ch, py + 24)):
                        x0, x1 = max(0, px - 24), min(cw, px + 24)
                        if x1 > x0:
                            b[(y * cw + x0) * 4:(y * cw + x1) * 4] = bytes((x1 - x0) * 4)
                return bytes(b)
            equal = lambda: masked(grab(w, cw, ch)) == masked(server())
            settled = wait_for(equal, float(os.environ.get("BENCH_SETTLE", "60")), 0.3)
            log(f"link {rate/1e6:g} Mbit/s {rtt_ms} ms, {kind}: first picture " + ("matches" if settled else "did not match within " + os.environ.get("BENCH_SETTLE", "60") + " s"))
            if not settled and os.environ.get("BENCH_DEBUG"):
                vi, si = grab(w, cw, ch), server()
                save_ppm(f"/tmp/fcbench-{kind}-viewer.ppm", vi, cw, ch)
                save_ppm(f"/tmp/fcbench-{kind}-server.ppm", si, cw, ch)
                log(f"  {diff_count(vi, si)} pixels differ; window {ww}x{wh}; images in /tmp/fcbench-{kind}-*.ppm")
            time.sleep(2)  # any adaptive choice settles on the link
            # motion: the photo moves on a circle, a step every 40 ms
            frames, last, t0, step = 0, grab(w, cw, ch), time.monotonic(), 0
            next_move = t0
            import math
            while time.monotonic() - t0 < move_seconds:
                now = time.monotonic()
                if now >= next_move:
                    step += 1
                    x = int(300 + 200 * math.cos(step / 10)); y = int(250 + 150 * math.sin(step / 10))
                    subprocess.Popen(["xdotool", "windowmove", wid, str(x), str(y)], env={**os.environ, **senv})
                    next_move = now + 0.04
                g = grab(w, cw, ch)
                if g != last:
                    frames += 1
                    last = g
                time.sleep(0.005)
            stopped = time.monotonic()
            fps = frames / move_seconds
            time.sleep(0.1)
            limit = float(os.environ.get("BENCH_LOSSLESS", "60"))
            same = wait_for(equal, limit, 0.05)
            lossless = time.monotonic() - stopped if same else None
            if not same and os.environ.get("BENCH_DEBUG"):
                vi, si = grab(w, cw, ch), server()
                save_ppm(f"/tmp/fcbench-{kind}-after-viewer.ppm", vi, cw, ch)
                save_ppm(f"/tmp/fcbench-{kind}-after-server.ppm", si, cw, ch)
                log(f"  after: {diff_count(vi, si)} pixels differ; images in /tmp/fcbench-{kind}-after-*.ppm")
            results[kind] = (fps, lossless)
            log(f"link {rate/1e6:g} Mbit/s {rtt_ms} ms, {kind}: {fps:.1f} frames/s while moving, "
                + (f"lossless {lossless:.2f} s after it stopped" if lossless is not None else f"not lossless within {limit:g} s"))
            stop(v)
            time.sleep(1)
        stop(xvfb)
        stop(xvnc)
        wait_for(lambda: not os.path.exists(f"/tmp/.X{n_srv}-lock"), 5)
        shutil.rmtree(work, ignore_errors=True)
    finally:
        for p in PROCS:
            stop(p)
        if relay:
            relay.close()
        netns_down(ns, a)
    return results


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    kinds = os.environ.get("BENCH_VIEWERS", "farcast vncviewer").split()
    presses = int(os.environ.get("BENCH_PRESSES", "100"))
    try:
        if what in ("input", "all"):
            r = bench_input(kinds, presses)
            print("input to screen (loopback, Xvnc + xterm echoing):")
            for k, v in r.items():
                print(f"  {k:9s} " + (f"median {v[0]*1000:6.1f} ms  p95 {v[1]*1000:6.1f} ms  ({v[2]} presses, {v[3]} missed)" if v else "failed"))
        if what == "startup":
            r = bench_startup(kinds, int(os.environ.get("BENCH_RUNS", "5")))
            print("start-up against a 1920x1080 Xvnc (photo and xterm), the viewer on Xvfb, median (min-max):")
            for k, v in r.items():
                if not v:
                    print(f"  {k:18s} failed"); continue
                col = lambda i: f"{statistics.median(x[i] for x in v):.3f} ({min(x[i] for x in v):.3f}-{max(x[i] for x in v):.3f})"
                print(f"  {k:18s} first picture {col(0)} s  RSS {col(1)} MB  PSS {col(2)} MB  CPU {col(3)} s  ({len(v)} runs)")
        if what in ("netem", "all"):
            links = os.environ.get("BENCH_LINKS", "20e6:40 2e6:100").split()
            for i, (rate, rtt) in enumerate([(float(l.split(":")[0]), int(l.split(":")[1])) for l in links]):
                r = bench_link(kinds, rate, rtt, index=i)
                print(f"link {rate/1e6:g} Mbit/s, {rtt} ms RTT, an xterm moving over a photo:")
                for k, v in r.items():
                    print(f"  {k:9s} " + (f"{v[0]:5.1f} frames/s while moving, lossless after " + (f"{v[1]:.2f} s" if v[1] is not None else "> " + os.environ.get("BENCH_LOSSLESS", "60") + " s") if v else "failed"))
    finally:
        for p in PROCS:
            stop(p)


if __name__ == "__main__":
    main()
