#!/usr/bin/env bash
# Benchmark (not a test): the viewer's window against TigerVNC's vncviewer and libvncclient on the
# same replayed recordings, measured by ../shared/tools/measure_anchor.sh (its private Xvfb,
# peer_cpu_sched_s: CPU of all the viewer's threads from the first update byte to its last
# request). Per file the median of RUNS runs for: vncviewer (a window); libvncclient (no window:
# decoding only, for scale); the window as it starts by default; with SDL_RENDER_DRIVER=software;
# with SDL_RENDER_DRIVER=opengl (llvmpipe under Xvfb); and the default's ratio to vncviewer's.
#   scripts/bench-window.sh [FILE.fbs...]   (default: ../shared/corpus and scripts/corpus.sh's corpus)
#   RUNS=5 scripts/bench-window.sh ...      OUT=DIR keeps every run's JSON line (default /tmp/farcast-bench-window)
#   VIEWERS="vncviewer default" ...         only these columns (others print "skip")
#   V=PATH ...                              this viewer binary instead of a fresh release build
# "-": the viewer cannot take the recording (vncviewer 1.12 has no zlib, CoRRE or H.264,
# libvncclient no H.264) or no run completed.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=../shared/tools
RUNS=${RUNS:-3}
OUT=${OUT:-/tmp/farcast-bench-window}
mkdir -p "$OUT"
bash $TOOLS/setup.sh >/dev/null
VIEWERS=${VIEWERS:-vncviewer lvc default software opengl}
if [ -z "${V:-}" ]; then
  swift build -c release --product viewer >/dev/null
  V=$(swift build -c release --show-bin-path)/viewer
fi
# the replay learns Open H.264 (scripts/bench-tools/sitecustomize.py)
export PYTHONPATH=$PWD/scripts/bench-tools FARCAST_SHARED_TOOLS=$(cd $TOOLS && pwd)
# encodings named: adaptive quality off, so no lossless-refresh requests (the replay counts
# requests to know when the viewer is done) and the same work as vncviewer's pinned encoding;
# gone when the replay closes, as vncviewer -ReconnectOnError=0 is (no 10 s wait per run)
PIN="--encodings tight,copyrect,zrle,hextile,zlib,corre,rre,raw,h264 --on-disconnect quit"
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(../shared/corpus/*.fbs)
  ours=$(bash scripts/corpus.sh --dir)
  compgen -G "$ours/*.fbs" >/dev/null && files+=("$ours"/*.fbs)
fi
med() { /usr/bin/python3 -c "
import json,sys,statistics
v=[json.loads(l) for l in sys.stdin if l.strip()]
v=[j.get('peer_cpu_sched_s') for j in v if j.get('completed') and j.get('peer_cpu_sched_s') is not None]
print('%.3f'%statistics.median(v) if v else '-', end='')"; }
measure() {   # NAME FILE ANCHOR-ARGS...: runs, keeps the lines, prints the median
  local name=$1 f=$2; shift 2
  case " $VIEWERS " in *" $name "*) ;; *) echo -n skip; return ;; esac
  { "$@" 2>/dev/null || true; } | tee "$OUT/$(basename "$f" .fbs).$name.jsonl" | med
}
updates() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('framebuffer_updates','?'))" "${1%.fbs}.json" 2>/dev/null || echo '?'; }
printf '%-40s %7s %9s %9s %9s %9s %9s %7s\n' file updates vncviewer libvnc default software opengl ratio
for f in "${files[@]}"; do
  n=$(basename "$f" .fbs)
  t=$(measure vncviewer "$f" bash $TOOLS/measure_anchor.sh "$f" tigervnc "$RUNS")
  l=$(measure lvc "$f" bash $TOOLS/measure_anchor.sh "$f" lvc "$RUNS")
  d=$(ANCHOR_NAME=farcast ANCHOR_CMD="$V 127.0.0.1::{PORT} $PIN" measure default "$f" bash $TOOLS/measure_anchor.sh "$f" cmd "$RUNS")
  s=$(ANCHOR_NAME=farcast ANCHOR_CMD="env SDL_RENDER_DRIVER=software $V 127.0.0.1::{PORT} $PIN" measure software "$f" bash $TOOLS/measure_anchor.sh "$f" cmd "$RUNS")
  g=$(ANCHOR_NAME=farcast ANCHOR_CMD="env SDL_RENDER_DRIVER=opengl $V 127.0.0.1::{PORT} $PIN" measure opengl "$f" bash $TOOLS/measure_anchor.sh "$f" cmd "$RUNS")
  r=$(/usr/bin/python3 -c "import sys; a, b = sys.argv[1:]; ok = all(v.replace('.', '', 1).isdigit() for v in (a, b)); print('%.2f' % (float(a) / float(b)) if ok and float(b) > 0 else '-')" "$d" "$t")
  printf '%-40s %7s %9s %9s %9s %9s %9s %7s\n' "$n" "$(updates "$f")" "$t" "$l" "$d" "$s" "$g" "$r"
done
