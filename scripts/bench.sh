#!/usr/bin/env bash
# Benchmarks (not tests): decode every recording in ../shared/corpus (or the FBS files given)
#  1. `viewer bench`: in-process decode speed (best of 3),
#  2. the final frame against libvncclient's (anchors/lvc_consume -d) — must be identical,
#  3. with MEASURE=1, `viewer snapshot` against the replay server exactly as the references
#     are measured (tools/measure_anchor.sh cmd mode), next to libvncclient's and TigerVNC's
#     vncviewer's in the same run (peer_cpu_sched_s, median of 3 completed runs).
# Files: the FBS files given, or ../shared/corpus and scripts/corpus.sh's corpus (where recorded).
# Output: one line per file, bench-results.jsonl in $OUT (default /tmp/farcast-bench), and a table.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=../shared/tools
OUT=${OUT:-/tmp/farcast-bench}
mkdir -p "$OUT"
bash scripts/install-deps.sh >/dev/null
bash $TOOLS/setup.sh >/dev/null
swift build -c release --product viewer >/dev/null
V=$(swift build -c release --show-bin-path)/viewer
# the replay learns Open H.264 (scripts/bench-tools/sitecustomize.py)
export PYTHONPATH=$PWD/scripts/bench-tools FARCAST_SHARED_TOOLS=$(cd $TOOLS && pwd)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(../shared/corpus/*.fbs)
  ours=$(bash scripts/corpus.sh --dir)
  compgen -G "$ours/*.fbs" >/dev/null && files+=("$ours"/*.fbs)
fi
: > "$OUT/bench-results.jsonl"
port=$((6600 + $$ % 300))
for f in "${files[@]}"; do
  name=$(basename "$f" .fbs)
  line=$("$V" bench --json --repeats 3 --final-frame "$OUT/$name.ours.png" "$f")
  # the floor: time inside zlib, TurboJPEG and libavcodec, and storing every pixel once
  # (a separate run: its clock reads would cost the timed one)
  floor=$("$V" bench --json --split --repeats 3 "$f" | /usr/bin/python3 -c "
import json, sys; d = json.load(sys.stdin)
print('%.4f' % sum(d.get(k, 0) for k in ('inflate_s', 'jpeg_s', 'h264_s', 'store_s')))")
  line=${line%\}}",\"floor_s\":$floor}"
  # libvncclient's final frame from the replay
  port=$((port + 1))
  python3 $TOOLS/rfbreplay.py "$f" --port $port --idle 3 --ready-file "$OUT/ready.$port" >/dev/null 2>&1 &
  rp=$!
  for _ in $(seq 1 200); do [ -e "$OUT/ready.$port" ] && break; sleep 0.05; done
  $TOOLS/anchors/lvc_consume -d "$OUT/$name.lvc.ppm" 127.0.0.1 $port >/dev/null 2>&1 || true
  wait $rp || true
  rm -f "$OUT/ready.$port"
  same=$(python3 - "$OUT/$name.ours.png" "$OUT/$name.lvc.ppm" <<'PY'
import subprocess, sys
def rgb(p): return subprocess.run(["convert", p, "-depth", "8", "rgb:-"], capture_output=True).stdout
a, b = rgb(sys.argv[1]), rgb(sys.argv[2])
if len(a) != len(b) or not a: print("size-mismatch"); sys.exit()
diff = sum(1 for i in range(0, len(a), 3) if a[i:i+3] != b[i:i+3]) if a != b else 0
print(diff)
PY
)
  line=${line%\}}",\"final_frame_diff_pixels_vs_lvc\":\"$same\"}"
  if [ "${MEASURE:-0}" = 1 ]; then
    for viewer in lvc tigervnc cmd; do
      ANCHOR_NAME=farcast ANCHOR_CMD="$V snapshot 127.0.0.1::{PORT} -o $OUT/$name.snap.png --quiet-ms 3000" \
        bash $TOOLS/measure_anchor.sh "$f" $viewer 3 > "$OUT/$name.$viewer.jsonl" 2>/dev/null || true
      med=$(python3 -c "
import json,sys,statistics
v=[(lambda j: j.get('peer_cpu_sched_s', j.get('peer_cpu_s')) if j.get('completed', True) else None)(json.loads(l)) for l in open(sys.argv[1]) if l.strip()]
v=[x for x in v if x is not None]
print('%.3f'%statistics.median(v) if v else 'null')" "$OUT/$name.$viewer.jsonl")
      line=${line%\}}",\"replay_cpu_s_$viewer\":$med}"
    done
  fi
  echo "$line" | tee -a "$OUT/bench-results.jsonl"
done

# the table: decode in-process, the final frame against libvncclient's, and (MEASURE=1) the
# replay's CPU for each viewer ("-": it cannot take the recording or no run completed)
/usr/bin/python3 - "$OUT/bench-results.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def f(v, fmt='%.3f'):
    return fmt % v if isinstance(v, (int, float)) else '-'
print('%-40s %7s %9s %9s %6s %9s %9s %9s %9s %6s' % ('file', 'updates', 'decode_s', 'floor_s', 'x', 'diff_lvc', 'lvc', 'vncviewer', 'farcast', 'ratio'))
for r in rows:
    ours, tiger = r.get('replay_cpu_s_cmd'), r.get('replay_cpu_s_tigervnc')
    ratio = ours / tiger if isinstance(ours, float) and isinstance(tiger, float) and tiger > 0 else None
    cpu, floor = r.get('cpu_s'), r.get('floor_s')
    over = cpu / floor if isinstance(cpu, float) and isinstance(floor, float) and floor > 0 else None
    print('%-40s %7s %9s %9s %6s %9s %9s %9s %9s %6s' % (r.get('file', '?').removesuffix('.fbs'), r.get('updates', '-'), f(cpu),
          f(floor), f(over, '%.2f'), r.get('final_frame_diff_pixels_vs_lvc', '-'), f(r.get('replay_cpu_s_lvc')), f(tiger), f(ours), f(ratio, '%.2f')))
PY
