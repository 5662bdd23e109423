#!/usr/bin/env bash
# Our benchmark corpus (issue 36): sessions recorded from real servers on loopback, broader than
# ../shared/corpus (which is Xvnc and x11vnc at 1080p on three contents). Kept out of git, in a
# cache like the Debian roots: made once per machine, a recording at a time, only what is missing.
#
#   scripts/corpus.sh                 records every missing recording; prints where they are
#   scripts/corpus.sh REGEX           only names matching REGEX (FORCE=1: again, even if there)
#   scripts/corpus.sh --list          the names, and whether each is recorded
#   scripts/corpus.sh --dir           prints the directory (for bench.sh and bench-window.sh)
#
#   FARCAST_BENCH_CORPUS   where (default /var/cache/farcast-test/corpus)
#
# A name is SERVER-ENCODING-CONTENT-SIZE: SERVER xvnc (TigerVNC 1.12), x11vnc (0.9.16 on Xvfb),
# qemu (QEMU 7.2's own VNC server showing SeaBIOS's boot splash, then its text screen), wayvnc
# (0.5 on a headless sway, content through XWayland), x264 (a screen captured by ffmpeg's x11grab
# and coded by libx264, carried as Open H.264 rects: no server in Debian sends H.264);
# CONTENT as scripts/corpus-content.sh says; SIZE 1080p, 2160p, or 1080p16 (an Xvnc of depth 16:
# its colours are 16-bit, the wire format stays the recorder's 32 bpp, so every viewer replays it).
# Each is ../shared/tools/rfbrec.py's FBS with its JSON sidecar (capped at 10 s and 20 MB), except
# the x264 ones (scripts/corpus-h264.py). Every recording asks for cursor, desktopsize,
# extdesktopsize and lastrect besides its encodings, as the shared corpus does.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=$(cd ../shared/tools && pwd)
OUT=${FARCAST_BENCH_CORPUS:-/var/cache/farcast-test/corpus}
CONTENT="bash $PWD/scripts/corpus-content.sh"
PSEUDO=cursor,desktopsize,extdesktopsize,lastrect
SECS=10
MAXB=20000000

# SERVER ENCODING(S as rfbrec names them) CONTENT SIZE -- the whole corpus, in recording order
PLAN="
xvnc tight-lossless typing 1080p
xvnc zrle typing 1080p
xvnc hextile typing 1080p
xvnc tight-q3 scroll 1080p
xvnc zrle scroll 1080p
xvnc tight-q3 photo 1080p
xvnc tight-q8 photo 1080p
xvnc tight-lossless photo 1080p
xvnc zrle photo 1080p
xvnc hextile photo 1080p
xvnc raw photo 1080p
xvnc tight-q8 gradients 1080p
xvnc zrle gradients 1080p
xvnc tight-lossless gradients 1080p
xvnc tight-q3 video 1080p
xvnc tight-q8 video 1080p
xvnc zrle video 1080p
xvnc zrle drag 1080p
xvnc tight-lossless drag 1080p
xvnc hextile drag 1080p
xvnc zrle photo 2160p
xvnc tight-q8 photo 2160p
xvnc tight-lossless drag 2160p
xvnc zrle gradients 1080p16
xvnc tight-lossless photo 1080p16
x11vnc zlib typing 1080p
x11vnc corre typing 1080p
x11vnc tight-q3 photo 1080p
x11vnc hextile photo 1080p
x11vnc zrle gradients 1080p
x11vnc hextile gradients 1080p
x11vnc zrle video 1080p
x11vnc corre drag 1080p
x11vnc raw scroll 1080p
qemu zrle splash 1024x768
qemu tight-q8 splash 1024x768
qemu tight-lossless splash 1024x768
qemu hextile splash 1024x768
qemu raw splash 1024x768
wayvnc zrle photo 1080p
wayvnc tight-q8 video 1080p
wayvnc zrle scroll 1080p
x264 h264 video 1080p
x264 h264 drag 1080p
"

encodings() {   # the rfbrec --encodings of an ENCODING column
  case "$1" in
    tight-lossless) echo tight,copyrect ;;
    tight-q*) echo "tight,copyrect,${1#tight-}" ;;
    raw) echo raw ;;
    *) echo "$1,copyrect" ;;
  esac
}

name_of() { echo "$1-$2-$3-$4"; }

wanted() {   # NAME: in the REGEX, and missing (or FORCE=1)
  [[ "$1" =~ $ONLY ]] || return 1
  [ "${FORCE:-0}" = 1 ] || [ ! -s "$OUT/$1.fbs" ]
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() {
  for _ in $(seq 1 200); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "corpus: nothing listens on port $1" >&2; return 1
}

PIDS=()
WL_DIR=""
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -z "$WL_DIR" ] || bash scripts/wayland-session.sh stop "$WL_DIR" >/dev/null 2>&1 || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
stop_servers() { cleanup; PIDS=(); WL_DIR=""; }

# record NAME PORT CONTENT ENCODINGS: content set up, the recorder started, the content driven
record() {
  local name=$1 port=$2 content=$3 enc=$4 secs=$SECS
  # raw at 1080p fills the cap in well under a second of photos: 3 s as the shared corpus does
  [[ "$enc" == raw* ]] && secs=3
  echo "corpus: $name ($enc,$PSEUDO)"
  $CONTENT teardown >/dev/null 2>&1 || true
  $CONTENT setup "$content"
  sleep 1
  python3 "$TOOLS/rfbrec.py" "127.0.0.1:$port" --encodings "$enc,$PSEUDO" --seconds "$secs" \
    --max-bytes $MAXB --out "$OUT/$name.part.fbs" --quiet &
  local rp=$!
  sleep 0.5
  $CONTENT run "$content" "$secs" &
  local cp=$!
  local rc=0
  wait $rp || rc=$?
  wait $cp 2>/dev/null || true
  $CONTENT teardown >/dev/null 2>&1 || true
  [ $rc = 0 ] || { echo "corpus: $name: the recorder failed ($rc)"; return 1; }
  mv "$OUT/$name.part.fbs" "$OUT/$name.fbs"
  /usr/bin/python3 - "$OUT/$name.part.json" "$OUT/$name.json" "$name.fbs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['file'] = sys.argv[3]
json.dump(d, open(sys.argv[2], 'w'), indent=1)
print('corpus:   %d updates, %.1f MB, %.1f s (%s)' % (d['framebuffer_updates'], d['bytes_total'] / 1e6,
      d['duration_s'], d['stop_reason']))
PY
  rm -f "$OUT/$name.part.json"
}

# the plan's lines for one server and size, as "ENCODING CONTENT" pairs still wanted
todo() {
  echo "$PLAN" | while read -r s e c z; do
    [ "$s" = "$1" ] && [ "$z" = "$2" ] && wanted "$(name_of "$s" "$e" "$c" "$z")" && echo "$e $c"
  done || true
}

xvnc() {   # SIZE
  local size=$1 geometry=1920x1080 depth=24
  [ "$size" = 2160p ] && geometry=3840x2160
  [ "$size" = 1080p16 ] && depth=16
  local jobs; jobs=$(todo xvnc "$size")
  [ -n "$jobs" ] || return 0
  local disp port; disp=:$((60 + RANDOM % 30)); port=$(free_port)
  Xvnc "$disp" -geometry $geometry -depth $depth -SecurityTypes None -localhost -rfbport "$port" \
    -AlwaysShared -nolisten tcp >"$OUT/logs/Xvnc-$size.log" 2>&1 &
  PIDS+=($!)
  wait_port "$port"
  while read -r e c; do
    DISPLAY=$disp record "$(name_of xvnc "$e" "$c" "$size")" "$port" "$c" "$(encodings "$e")"
  done <<<"$jobs"
  stop_servers
}

x11vnc_server() {
  local jobs; jobs=$(todo x11vnc 1080p)
  [ -n "$jobs" ] || return 0
  local disp port; disp=:$((60 + RANDOM % 30)); port=$(free_port)
  Xvfb "$disp" -screen 0 1920x1080x24 -nolisten tcp >"$OUT/logs/Xvfb.log" 2>&1 &
  PIDS+=($!)
  sleep 1
  x11vnc -display "$disp" -rfbport "$port" -localhost -nopw -forever -shared -quiet \
    -o "$OUT/logs/x11vnc.log" >/dev/null 2>&1 &
  PIDS+=($!)
  wait_port "$port"
  while read -r e c; do
    DISPLAY=$disp record "$(name_of x11vnc "$e" "$c" 1080p)" "$port" "$c" "$(encodings "$e")"
  done <<<"$jobs"
  stop_servers
}

# QEMU's own VNC server: SeaBIOS shows the splash photo (1024x768) for 4 s while it waits for
# the boot-menu key, then finds nothing to boot and says so on its text screen (a resize).
qemu_server() {
  local jobs; jobs=$(todo qemu 1024x768)
  [ -n "$jobs" ] || return 0
  local jpg=$OUT/logs/splash.jpg
  [ -s "$jpg" ] || convert "$(ls /tmp/vncbench/photos/*.jpg | sed -n 8p)" -resize '1024x768^' -gravity center \
    -extent 1024x768 -sampling-factor 4:2:0 -interlace none -quality 90 "$jpg"
  while read -r e c; do
    local name port; name=$(name_of qemu "$e" "$c" 1024x768); port=$(free_port)
    echo "corpus: $name ($(encodings "$e"),$PSEUDO)"
    # a machine per recording: each starts on the splash
    qemu-system-x86_64 -nodefaults -display none -vga std -m 64 -no-reboot \
      -vnc "127.0.0.1:$((port - 5900)),lossy=on" -boot "menu=on,splash=$jpg,splash-time=4000" \
      >"$OUT/logs/qemu.log" 2>&1 &
    local qp=$!
    wait_port "$port"
    python3 "$TOOLS/rfbrec.py" "127.0.0.1:$port" --encodings "$(encodings "$e"),$PSEUDO" --seconds 8 \
      --max-bytes $MAXB --out "$OUT/$name.part.fbs" --quiet
    kill $qp; wait $qp 2>/dev/null || true
    mv "$OUT/$name.part.fbs" "$OUT/$name.fbs"; mv "$OUT/$name.part.json" "$OUT/$name.json"
    sed -i "s/$name.part.fbs/$name.fbs/" "$OUT/$name.json"
  done <<<"$jobs"
}

# wayvnc on a headless sway; X clients through XWayland (sway makes them full screen or tiles
# them: the contents that fill the screen are the ones recorded here).
wayvnc_server() {
  local jobs; jobs=$(todo wayvnc 1080p)
  [ -n "$jobs" ] || return 0
  local env; env=$(bash scripts/wayland-session.sh start --compositor sway --size 1920x1080 --xwayland)
  eval "$env"
  WL_DIR=$FARCAST_WL_DIR
  local port; port=$(free_port)
  printf 'address=127.0.0.1\nport=%s\nenable_auth=false\n' "$port" >"$OUT/logs/wayvnc.config"
  wayvnc -C "$OUT/logs/wayvnc.config" >"$OUT/logs/wayvnc.log" 2>&1 &
  PIDS+=($!)
  wait_port "$port"
  while read -r e c; do
    record "$(name_of wayvnc "$e" "$c" 1080p)" "$port" "$c" "$(encodings "$e")"
  done <<<"$jobs"
  stop_servers
}

# H.264: the content on an Xvfb, captured at 25 fps and coded by libx264 as a
# low-latency encoder codes a screen (zerolatency, one slice per thread), then carried as rects
x264_streams() {
  local jobs; jobs=$(todo x264 1080p)
  [ -n "$jobs" ] || return 0
  local disp; disp=:$((60 + RANDOM % 30))
  Xvfb "$disp" -screen 0 1920x1080x24 -nolisten tcp >"$OUT/logs/Xvfb-x264.log" 2>&1 &
  PIDS+=($!)
  sleep 1
  while read -r e c; do
    local name; name=$(name_of x264 "$e" "$c" 1080p)
    echo "corpus: $name (libx264 from x11grab)"
    export DISPLAY=$disp
    $CONTENT teardown >/dev/null 2>&1 || true
    $CONTENT setup "$c"
    $CONTENT run "$c" $((SECS + 2)) &
    local cp=$!
    ffmpeg -v error -y -f x11grab -framerate 25 -video_size 1920x1080 -i "$disp" -t $SECS \
      -c:v libx264 -preset ultrafast -tune zerolatency -pix_fmt yuv420p -f h264 "$OUT/logs/$name.h264"
    wait $cp 2>/dev/null || true
    $CONTENT teardown >/dev/null 2>&1 || true
    /usr/bin/python3 scripts/corpus-h264.py "$OUT/logs/$name.h264" 1920 1080 25 "$OUT/$name.fbs"
  done <<<"$jobs"
  stop_servers
}

ONLY=.
case "${1:-}" in
  --dir) echo "$OUT"; exit 0 ;;
  --list)
    echo "$PLAN" | while read -r s e c z; do
      [ -n "$s" ] || continue
      n=$(name_of "$s" "$e" "$c" "$z")
      printf '%-44s %s\n' "$n" "$([ -s "$OUT/$n.fbs" ] && du -h "$OUT/$n.fbs" | cut -f1 || echo -)"
    done
    exit 0 ;;
  -*) sed -n '2,22p' "$0"; exit 2 ;;
  "") ;;
  *) ONLY=$1 ;;
esac

mkdir -p "$OUT/logs"
bash "$TOOLS/setup.sh" >/dev/null
bash scripts/install-deps.sh >/dev/null
$CONTENT prepare >/dev/null
start=$SECONDS
xvnc 1080p
xvnc 2160p
xvnc 1080p16
x11vnc_server
qemu_server
wayvnc_server
x264_streams
n=$(ls "$OUT"/*.fbs 2>/dev/null | wc -l)
echo "corpus: $n recordings in $OUT ($(du -sh "$OUT" | cut -f1)), $((SECONDS - start)) s"
