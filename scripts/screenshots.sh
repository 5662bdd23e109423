#!/usr/bin/env bash
# Makes the AppStream screenshots in packaging/screenshots/ from the real viewer:
#   window.png  a desktop (TigerVNC Xvnc on loopback, as scripts/run.sh shows it) in Farcast's window
#   menu.png    the same with the F8 menu open
# The viewer runs under Xvfb; ImageMagick's `import` takes its window. VIEWER=path uses that
# binary; otherwise a release viewer is built (as scripts/run.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >/dev/null
OUT=${OUT:-packaging/screenshots}
mkdir -p "$OUT"
if [ -z "${VIEWER:-}" ]; then
  swift build -c release --product viewer
  VIEWER=$(swift build -c release --show-bin-path)/viewer
fi
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

free_display() { for d in $(seq "$1" 99); do [ -e /tmp/.X11-unix/X$d ] || [ -e /tmp/.X$d-lock ] || { echo "$d"; return; }; done; return 1; }
wait_display() { for _ in $(seq 1 100); do DISPLAY=$1 xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }

# The remote desktop: Xvnc with a few programs under twm.
r=$(free_display 30); port=$((5900 + r))
Xvnc :$r -rfbport $port -localhost -SecurityTypes None -geometry 1024x768 -depth 24 -AlwaysShared \
  >"$tmp/xvnc.log" 2>&1 & pids+=($!)
wait_display :$r
(
  export DISPLAY=:$r
  # A wallpaper from mate-backgrounds, and twm with fonts every X server has.
  convert /usr/share/backgrounds/mate/nature/Aqua.jpg -resize 1024x768^ -gravity center -extent 1024x768 "$tmp/wall.png"
  /usr/bin/display -window root "$tmp/wall.png" >/dev/null 2>&1 || true
  printf '%s\n' 'TitleFont "-misc-fixed-bold-r-normal--13-*-*-*-*-*-*-*"' 'ResizeFont "fixed"' 'MenuFont "fixed"' \
    'IconFont "fixed"' 'IconManagerFont "fixed"' 'NoGrabServer' 'RandomPlacement' \
    'Color { TitleBackground "#3b4252" TitleForeground "#eceff4" BorderColor "#3b4252" }' >"$tmp/twmrc"
  twm -f "$tmp/twmrc" >/dev/null 2>&1 &
  sleep 0.5
  xterm -geometry 60x16+40+50 -title "Farcast demo" -fa 'DejaVu Sans Mono' -fs 11 \
    -e sh -c 'printf "\033[?25l\033[1mA remote desktop in Farcast\033[0m\n\nF8  the menu\nF11 full screen\nF9  the screen picker (several monitors)\n"; exec sleep 100000' \
    >/dev/null 2>&1 &
  xclock -geometry 180x180+740+50 -update 1 >/dev/null 2>&1 &
  xeyes -geometry 180x130+740+290 >/dev/null 2>&1 &
) & pids+=($!)
sleep 2

# The local display the window is shown on.
l=$(free_display $((r + 1)))
Xvfb :$l -screen 0 1280x800x24 -nolisten tcp -noreset >"$tmp/xvfb.log" 2>&1 & pids+=($!)
wait_display :$l
DISPLAY=:$l SDL_RENDER_DRIVER=software "$VIEWER" --scale 1:1 "127.0.0.1::$port" >"$tmp/viewer.log" 2>&1 & pids+=($!)
win=
for _ in $(seq 1 100); do
  win=$(DISPLAY=:$l xdotool search --name Farcast 2>/dev/null | head -n1) && [ -n "$win" ] && break
  sleep 0.1
done
[ -n "$win" ] || { echo "screenshots.sh: no viewer window" >&2; cat "$tmp/viewer.log" >&2; exit 1; }
sleep 3
DISPLAY=:$l import -window "$win" "$tmp/window.png"
DISPLAY=:$l xdotool mousemove --window "$win" 500 300 key --window "$win" F8
sleep 1.5
DISPLAY=:$l import -window "$win" "$tmp/menu.png"
for n in window menu; do
  # 8-bit palette PNGs: the screenshots stay small in the repository.
  convert "$tmp/$n.png" -strip -colors 256 "PNG8:$OUT/$n.png"
  echo "screenshots.sh: $OUT/$n.png $(identify -format '%wx%h' "$OUT/$n.png") $(du -h "$OUT/$n.png" | cut -f1)"
done
