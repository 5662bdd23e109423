#!/usr/bin/env bash
# Benchmark (not a test): a paced 2560x1440 ZRLE session at about 30 updates a second, shown in
# the window, against TigerVNC's vncviewer on the same stream. Records once (cached in
# $OUT/paced-2560-zrle.fbs): Xvnc at 2560x1440 showing the interop scene, a 640x400 window
# moving on a Lissajous path 30 times a second, recorded with ../shared/tools/rfbrec.py asking
# for ZRLE only (no CopyRect, so each move is re-encoded). Then rfbreplay.py --paced serves it
# to each viewer in a 2560x1440 Xvfb and reports the viewer's CPU (peer_cpu_sched_s) over the
# replay; printed as seconds and as a share of one core.
#   scripts/bench-paced.sh            RECORD=1 forces a new recording; RUNS (3) runs each
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=../shared/tools
OUT=${OUT:-/tmp/farcast-bench}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
bash $TOOLS/setup.sh >/dev/null
swift build -c release --product viewer >/dev/null
V=$(swift build -c release --show-bin-path)/viewer
FBS=$OUT/paced-2560-zrle.fbs
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
free_display() { local d=$1; while [ -e /tmp/.X$d-lock ] || [ -e /tmp/.X11-unix/X$d ]; do d=$((d + 1)); done; echo $d; }

if [ ! -s "$FBS" ] || [ "${RECORD:-0}" = 1 ]; then
  d=$(free_display 60); port=$((5900 + d))
  Xvnc :$d -geometry 2560x1440 -depth 24 -SecurityTypes None -localhost -rfbport $port -AlwaysShared >"$OUT/xvnc.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [ -e /tmp/.X11-unix/X$d ] && break; sleep 0.1; done
  bash scripts/scene.sh render "$OUT/scene-2560.png" 2560x1440
  bash scripts/scene.sh show :$d "$OUT/scene-2560.png"
  DISPLAY=:$d /usr/bin/python3 - <<'PY' &
import math, time
from Xlib import X, display
d = display.Display(); s = d.screen()
w = s.root.create_window(0, 0, 640, 400, 0, s.root_depth, X.InputOutput, X.CopyFromParent,
                         background_pixel=s.white_pixel, override_redirect=True, event_mask=X.ExposureMask)
gc = w.create_gc(foreground=s.black_pixel)
w.map(); d.sync()
cm = s.default_colormap
colours = [cm.alloc_color(r, g, b).pixel for r, g, b in ((65535, 0, 0), (0, 40000, 0), (0, 0, 65535), (50000, 50000, 0))]
t0 = time.time(); n = 0
while time.time() - t0 < 14:
    t = time.time() - t0
    w.configure(x=int(960 + 900 * math.sin(t * 0.9)), y=int(520 + 480 * math.sin(t * 1.3)))
    for i, c in enumerate(colours):   # stripes that change every frame
        gc.change(foreground=c); w.fill_rectangle(gc, 0, (i * 100 + n * 4) % 400, 640, 24)
    d.sync(); n += 1
    time.sleep(max(0, t0 + n / 30 - time.time()))
PY
  pids+=($!)
  sleep 1
  python3 $TOOLS/rfbrec.py 127.0.0.1:$port --encodings zrle,cursor,desktopsize,lastrect --seconds 10 --out "$FBS" --quiet
  cleanup; pids=()
fi
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('recording: %dx%d, %d updates in %.1f s, %.1f MB' % (d['framebuffer_width'], d['framebuffer_height'], d['framebuffer_updates'], d['duration_s'], d['bytes_total']/1e6))" "${FBS%.fbs}.json"

d=$(free_display 70)
Xvfb :$d -screen 0 2560x1440x24 -nolisten tcp >"$OUT/xvfb-paced.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -e /tmp/.X11-unix/X$d ] && break; sleep 0.1; done
run() {  # NAME CMD...: one paced replay to the viewer CMD (with {PORT}); prints the JSON
  local name=$1; shift
  local port=$((6700 + RANDOM % 200)) j=$OUT/paced-$name.json
  rm -f "$j" "$OUT/ready.paced"
  python3 $TOOLS/rfbreplay.py "$FBS" --port $port --paced --measure-peer --idle 3 --json-out "$j" --ready-file "$OUT/ready.paced" >/dev/null 2>&1 &
  local rp=$!
  for _ in $(seq 100); do [ -e "$OUT/ready.paced" ] && break; sleep 0.05; done
  local cmd=("${@//\{PORT\}/$port}")
  DISPLAY=:$d "${cmd[@]}" >/dev/null 2>&1 &
  local vp=$!
  wait $rp || true
  kill $vp 2>/dev/null || true; wait $vp 2>/dev/null || true
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); c=r.get('peer_cpu_sched_s'); w=max(r.get('seconds_to_last_request') or 0, r.get('seconds_to_send') or 0); print('%s %.3f %.1f' % (sys.argv[2], c, 100*c/w) if c and w else sys.argv[2]+' - -')" "$j" "$name"
}
for i in $(seq "$RUNS"); do
  run vncviewer vncviewer -AutoSelect=0 -FullColor -PreferredEncoding=ZRLE -RemoteResize=0 -AlertOnFatalError=0 -ReconnectOnError=0 127.0.0.1::{PORT}
  run farcast "$V" 127.0.0.1::{PORT} --encodings zrle
  run farcast-gl env SDL_RENDER_DRIVER=opengl "$V" 127.0.0.1::{PORT} --encodings zrle
done | awk '{ n[$1]++; v[$1, n[$1]] = $2; p[$1, n[$1]] = $3 } END { for (k in n) { printf "%-12s CPU s:", k; for (i = 1; i <= n[k]; i++) printf " %s", v[k, i]; printf "   %% of a core:"; for (i = 1; i <= n[k]; i++) printf " %s", p[k, i]; print "" } }'
