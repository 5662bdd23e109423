#!/usr/bin/env bash
# Benchmark (not a test): the viewer's window against TigerVNC's vncviewer on the same replayed
# recordings, measured by ../shared/tools/measure_anchor.sh (its private Xvfb, peer_cpu_sched_s:
# CPU of all the viewer's threads from the first update byte to its last request). Per file the
# median of RUNS runs for: vncviewer; the window as it starts by default; with
# SDL_RENDER_DRIVER=software; with SDL_RENDER_DRIVER=opengl (llvmpipe under Xvfb).
#   scripts/bench-window.sh [FILE.fbs...]      (default: every recording in ../shared/corpus)
#   RUNS=5 scripts/bench-window.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=../shared/tools
RUNS=${RUNS:-3}
bash $TOOLS/setup.sh >/dev/null
swift build -c release --product viewer >/dev/null
V=$(swift build -c release --show-bin-path)/viewer
# encodings named: adaptive quality off, so no lossless-refresh requests (the replay counts
# requests to know when the viewer is done) and the same work as vncviewer's pinned encoding
PIN="--encodings tight,copyrect,zrle,hextile,zlib,corre,rre,raw"
files=("$@"); [ ${#files[@]} -gt 0 ] || files=(../shared/corpus/*.fbs)
med() { python3 -c "
import json,sys,statistics
v=[json.loads(l).get('peer_cpu_sched_s') for l in sys.stdin if l.strip()]
v=[x for x in v if x is not None]
print('%.3f'%statistics.median(v) if v else '-', end='')"; }
printf '%-36s %9s %9s %9s %9s\n' file vncviewer default software opengl
for f in "${files[@]}"; do
  t=$(bash $TOOLS/measure_anchor.sh "$f" tigervnc "$RUNS" 2>/dev/null | med || true)
  d=$(ANCHOR_NAME=farcast ANCHOR_CMD="$V 127.0.0.1::{PORT} $PIN" bash $TOOLS/measure_anchor.sh "$f" cmd "$RUNS" 2>/dev/null | med || true)
  s=$(ANCHOR_NAME=farcast ANCHOR_CMD="env SDL_RENDER_DRIVER=software $V 127.0.0.1::{PORT} $PIN" bash $TOOLS/measure_anchor.sh "$f" cmd "$RUNS" 2>/dev/null | med || true)
  g=$(ANCHOR_NAME=farcast ANCHOR_CMD="env SDL_RENDER_DRIVER=opengl $V 127.0.0.1::{PORT} $PIN" bash $TOOLS/measure_anchor.sh "$f" cmd "$RUNS" 2>/dev/null | med || true)
  printf '%-36s %9s %9s %9s %9s\n' "$(basename "$f" .fbs)" "$t" "$d" "$s" "$g"
done
