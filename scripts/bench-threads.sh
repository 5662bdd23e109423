#!/usr/bin/env bash
# Decoding on 1 thread and on N (default 2) threads, side by side, over recorded sessions:
# `viewer bench --repeats R --threads T` (best wall time of R runs) per file.
#
#   scripts/bench-threads.sh [FILES...]     default: every recording in ../shared/corpus
#   THREADS=4 REPEATS=9 scripts/bench-threads.sh
#
# Run it with the machine otherwise idle: a second thread needs a free core. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
REPEATS=${REPEATS:-7}
swift build -c release --product viewer >/dev/null
V=$(swift build -c release --show-bin-path)/viewer
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(../shared/corpus/*.fbs)
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
printf '%-36s %9s %9s %9s %9s %8s %13s\n' recording "wall 1" "cpu 1" "wall $THREADS" "cpu $THREADS" speedup "on workers"
for f in "${files[@]}"; do
  one=$("$V" bench --json --repeats "$REPEATS" --threads 1 "$f")
  many=$("$V" bench --json --repeats "$REPEATS" --threads "$THREADS" "$f")
  w1=$(field wall_s <<<"$one"); c1=$(field cpu_s <<<"$one")
  wn=$(field wall_s <<<"$many"); cn=$(field cpu_s <<<"$many")
  rects=$(field rects <<<"$many"); on=$(field worker_rects <<<"$many")
  printf '%-36s %9s %9s %9s %9s %8s %13s\n' "$(basename "$f" .fbs)" "$w1" "$c1" "$wn" "$cn" \
    "$(awk -v a="$w1" -v b="$wn" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')" "$on/$rects"
done
