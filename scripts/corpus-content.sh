#!/usr/bin/env bash
# What the screen shows while scripts/corpus.sh records: content on the X display $DISPLAY,
# driven by real programs the way a user drives them.
#
#   scripts/corpus-content.sh prepare               the images and the clip (cached in $WD)
#   scripts/corpus-content.sh setup CONTENT         the windows CONTENT starts from
#   scripts/corpus-content.sh run CONTENT SECONDS   drives it (blocks for SECONDS)
#   scripts/corpus-content.sh teardown              ends what setup and run started
#
# CONTENT:
#   typing     an xterm (DejaVu Sans Mono 13) on a photo; text typed into it through XTEST at
#              about 25 keys a second, a line at a time, as a person types
#   scroll     ../shared/tools/workloads.sh text: a full-screen xterm scrolling a log at 1000 lines/s
#   photo      ../shared/tools/workloads.sh photo: full-screen photographs, a new one every 0.5 s
#   gradients  a desktop: a gradient with a grid of icons as the root window, two gradient
#              windows with icon grids and an xclock moving over it
#   video      a 1280x720 25 fps clip (a slow zoom over a photograph, as film pans) playing in
#              ffplay over a photo desktop
#   drag       an 1100x700 xterm full of text dragged over a photo desktop along a smooth path,
#              a step every 16 ms (a mouse drag at 60 Hz)
# The screen's size comes from the X server (xdpyinfo), so the same content fills 1080p and 4K.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=$(cd "$HERE/../../shared/tools" && pwd)
WD=/tmp/vncbench
PIDS=$WD/content.pids.$(echo "${DISPLAY:-:0}" | tr -dc 0-9)
mkdir -p "$WD"

screen_size() { xdpyinfo | awk '/dimensions:/ { split($2, a, "x"); print a[1], a[2]; exit }'; }

prepare() {
  bash "$TOOLS/workloads.sh" prepare
  local icons=$WD/content-icons
  if [ ! -s $WD/gradient-root.png ]; then
    mkdir -p "$icons"
    # the icons a desktop shows: applications', places' and devices' 48x48 icons
    find /usr/share/icons -path '*48x48*' -name '*.png' -size +3k 2>/dev/null | grep -v symbolic | sort | head -60 \
      | while read -r f; do cp "$f" "$icons/$(echo "$f" | md5sum | cut -c1-8).png"; done
    montage "$icons"/*.png -background none -geometry 48x48+28+22 -tile 3x "$WD/icon-column.png"
    montage "$icons"/*.png -background none -geometry 48x48+16+16 -tile 8x "$WD/icon-grid.png"
    convert -size 3840x2160 gradient:'#16324f-#5b8bb5' -rotate 0 \
      "$WD/icon-column.png" -gravity northwest -geometry +24+24 -composite "$WD/gradient-root.png"
    convert -size 900x620 gradient:'#f4f6f8-#c9d3dd' \
      \( -size 900x40 gradient:'#3d5a80-#293241' \) -gravity north -composite \
      "$WD/icon-grid.png" -gravity center -geometry +0+20 -composite "$WD/gradient-window-a.png"
    convert -size 700x500 radial-gradient:'#fff7e0-#e0a458' \
      \( -size 700x36 gradient:'#6b4226-#3b2416' \) -gravity north -composite \
      "$WD/icon-column.png" -gravity west -geometry +30+18 -composite "$WD/gradient-window-b.png"
  fi
  if [ ! -s $WD/clip.mp4 ]; then
    local photo; photo=$(ls $WD/photos/*.jpg | sed -n 3p)
    ffmpeg -v error -y -loop 1 -i "$photo" -t 12 \
      -vf "zoompan=z='1+0.002*on':x='iw/2-(iw/zoom/2)+40*sin(on/40)':y='ih/2-(ih/zoom/2)':d=1:s=1280x720:fps=25" \
      -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "$WD/clip.mp4.part.mp4"
    mv "$WD/clip.mp4.part.mp4" "$WD/clip.mp4"
  fi
  if [ ! -s $WD/typing.txt ]; then
    sed -n '1,400p' /usr/share/common-licenses/GPL-3 | grep -v '^\s*$' | cut -c1-90 > $WD/typing.txt
  fi
}

start() { "$@" >/dev/null 2>&1 & echo $! >> "$PIDS"; }

wait_window() {
  local id
  for _ in $(seq 1 200); do
    id=$(xdotool search --name "$1" 2>/dev/null | head -1 || true)
    [ -n "$id" ] && { echo "$id"; return 0; }
    sleep 0.05
  done
  echo "corpus-content: no window named $1" >&2; return 1
}

# A window the size of the screen at the bottom showing an image, as a desktop's wallpaper
# window does (feh --bg-fill sets no root pixmap on Xvfb or Xvnc here, and ImageMagick's
# `display -window root` lets go of its pixmap when it exits).
root_image() {
  local W H out; read -r W H < <(screen_size)
  out=$WD/root-$(basename "$1" | cut -d. -f1)-${W}x$H.png
  [ -s "$out" ] || convert "$1" -resize "${W}x$H^" -gravity center -extent "${W}x$H" "$out"
  start feh -x -g "${W}x$H+0+0" --title cc-wallpaper "$out"
  wait_window cc-wallpaper >/dev/null
}
photo_root() { root_image "$(ls $WD/photos/*.jpg | sed -n "${1}p")"; }

setup() {
  prepare >/dev/null
  read -r W H < <(screen_size)
  case "$1" in
    scroll) bash "$TOOLS/workloads.sh" setup text ;;
    photo) bash "$TOOLS/workloads.sh" setup photo ;;
    typing)
      photo_root 2
      start xterm -T cc-typing -geometry 110x36+$((W / 6))+$((H / 8)) -fa 'DejaVu Sans Mono' -fs 13 \
        -bg '#1d1f21' -fg '#c5c8c6' -e cat
      wait_window cc-typing >/dev/null ;;
    gradients)
      root_image "$WD/gradient-root.png"
      start feh -x -g 900x620+300+200 --title cc-grad-a "$WD/gradient-window-a.png"
      start feh -x -g 700x500+1000+400 --title cc-grad-b "$WD/gradient-window-b.png"
      start xclock -geometry 220x220+$((W - 300))+60 -update 1
      wait_window cc-grad-a >/dev/null; wait_window cc-grad-b >/dev/null ;;
    video)
      photo_root 4
      SDL_RENDER_DRIVER=software start ffplay -loglevel quiet -an -loop 0 -noborder -window_title cc-video \
        -left $(((W - 1280) / 2)) -top $(((H - 720) / 2)) "$WD/clip.mp4"
      wait_window cc-video >/dev/null ;;
    drag)
      photo_root 6
      start xterm -T cc-drag -geometry 150x42+100+100 -fa 'DejaVu Sans Mono' -fs 11 \
        -e sh -c "head -200 $WD/text.txt; exec sleep 100000"
      wait_window cc-drag >/dev/null ;;
    *) echo "corpus-content: unknown content $1" >&2; exit 2 ;;
  esac
  sleep 0.5
}

run() {
  local secs=$2
  read -r W H < <(screen_size)
  case "$1" in
    scroll) bash "$TOOLS/workloads.sh" run text "$secs" ;;
    photo) bash "$TOOLS/workloads.sh" run photo "$secs" ;;
    typing)
      local id; id=$(wait_window cc-typing)
      xdotool windowfocus "$id"
      local end=$((SECONDS + ${secs%.*}))
      while [ $SECONDS -lt $end ] && read -r line; do
        xdotool type --delay 40 -- "$line"; xdotool key Return
      done < $WD/typing.txt ;;
    gradients)
      python3 "$TOOLS/wl_mover.py" "$secs" "$(wait_window cc-grad-a)" "$(wait_window cc-grad-b)" "$(wait_window xclock)" ;;
    video) sleep "$secs" ;;
    drag)
      local id; id=$(wait_window cc-drag)
      python3 - "$secs" "$id" "$W" "$H" <<'PY'
import math, subprocess, sys, time
secs, win, W, H = float(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t0, k, step = time.monotonic(), 0, 1 / 60
while time.monotonic() - t0 < secs:
    t = k * step
    # a figure-of-eight across the screen, the speed of a hand
    x = int((W - 1150) / 2 * (1 + math.sin(0.8 * t)))
    y = int((H - 760) / 2 * (1 + math.sin(1.6 * t)))
    subprocess.run(['xdotool', 'windowmove', win, str(x), str(y)])
    k += 1
    d = t0 + k * step - time.monotonic()
    if d > 0: time.sleep(d)
PY
      ;;
    *) echo "corpus-content: unknown content $1" >&2; exit 2 ;;
  esac
}

teardown() {
  if [ -f "$PIDS" ]; then
    while read -r p; do kill "$p" 2>/dev/null || true; done < "$PIDS"
    sleep 0.3
    while read -r p; do kill -9 "$p" 2>/dev/null || true; done < "$PIDS"
    rm -f "$PIDS"
  fi
  bash "$TOOLS/workloads.sh" teardown
}

case "${1:-}" in
  prepare) prepare ;;
  setup) setup "$2" ;;
  run) run "$2" "${3:-10}" ;;
  teardown) teardown ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
