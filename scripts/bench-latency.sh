#!/usr/bin/env bash
# Latency benchmarks, Farcast against TigerVNC's vncviewer (run by hand; not pass/fail):
#   scripts/bench-latency.sh input   # key press to changed pixels on loopback, median and p95
#   scripts/bench-latency.sh netem   # tc netem links (20 Mbit/s 40 ms, 2 Mbit/s 100 ms): frames/s
#                                    # while a photo moves, seconds until lossless after it stops
#   scripts/bench-latency.sh         # both
# BENCH_LINKS ("20e6:40 2e6:100": bits/s:RTT ms), BENCH_PRESSES (100), BENCH_VIEWERS ("farcast vncviewer"), FARCAST_VIEWER (default: the release
# build, else the debug one), BENCH_VERBOSE=1 (the viewers' output). Needs root for the namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/release/viewer ] || [ -n "${FARCAST_VIEWER:-}" ] || swift build -c release --product viewer
exec /usr/bin/python3 scripts/bench-latency.py "$@"
