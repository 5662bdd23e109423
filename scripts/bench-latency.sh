#!/usr/bin/env bash
# Latency benchmarks, Farcast against TigerVNC's vncviewer (run by hand; not pass/fail):
#   scripts/bench-latency.sh input   # key press to changed pixels on loopback, median and p95
#   scripts/bench-latency.sh netem   # emulated links (20 Mbit/s 40 ms, 2 Mbit/s 100 ms): frames/s
#                                    # while an xterm moves over a photo, seconds until lossless after
#   scripts/bench-latency.sh startup # time to the first picture, memory and CPU 2 s later (BENCH_RUNS)
#   scripts/bench-latency.sh         # input and netem
# BENCH_LINKS ("20e6:40 2e6:100": bits/s:RTT ms), BENCH_PRESSES (100), BENCH_VIEWERS
# ("farcast vncviewer"), FARCAST_VIEWER (default: the release build), BENCH_SETTLE and
# BENCH_LOSSLESS (seconds to wait for a matching picture, 60), BENCH_SMAPS=DIR (startup: resident kB
# per mapped file of each viewer 2 s after its first picture), BENCH_VERBOSE=1 (the viewers'
# output), BENCH_DEBUG=1 (images of a mismatch). Needs root for the network namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/release/viewer ] || [ -n "${FARCAST_VIEWER:-}" ] || swift build -c release --product viewer
what=${1:-all}
if [ "$what" = input ] || [ "$what" = all ]; then /usr/bin/python3 scripts/bench-latency.py input; fi
if [ "$what" = startup ]; then /usr/bin/python3 scripts/bench-latency.py startup; fi
if [ "$what" = netem ] || [ "$what" = all ]; then
  # one process per link: a second Xvnc in a fresh namespace was not reachable from the same process
  for link in ${BENCH_LINKS:-20e6:40 2e6:100}; do BENCH_LINKS=$link /usr/bin/python3 scripts/bench-latency.py netem; done
fi
