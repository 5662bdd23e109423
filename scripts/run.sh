#!/usr/bin/env bash
# Builds the viewer and shows a desktop in it. With no arguments it starts a local TigerVNC
# Xvnc (loopback only, a few programs on it) and connects to that; otherwise the arguments go
# to the viewer as they are (e.g. scripts/run.sh --trackpad myhost:1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product viewer
VIEWER=$(swift build -c release --show-bin-path)/viewer
if [ $# -gt 0 ]; then exec "$VIEWER" "$@"; fi

# A free display number and port.
for d in $(seq 20 99); do [ -e /tmp/.X11-unix/X$d ] || [ -e /tmp/.X$d-lock ] || break; done
port=$((5900 + d))
Xvnc :$d -rfbport $port -localhost -SecurityTypes None -geometry 1280x800 -depth 24 -AlwaysShared \
  >/tmp/farcast-xvnc-$d.log 2>&1 &
XVNC=$!
trap 'kill $XVNC 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do DISPLAY=:$d xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
export DISPLAY_REMOTE=:$d
(
  export DISPLAY=:$d
  xsetroot -solid '#2e3440'
  twm >/dev/null 2>&1 &
  xterm -geometry 90x30+40+40 -title "Farcast demo" >/dev/null 2>&1 &
  xclock -geometry 200x200+900+60 -update 1 >/dev/null 2>&1 &
  xeyes -geometry 200x150+900+320 >/dev/null 2>&1 &
) 
echo "run.sh: local Xvnc on :$d (127.0.0.1::$port)"
"$VIEWER" "127.0.0.1::$port"
