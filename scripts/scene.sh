#!/usr/bin/env bash
# Deterministic interop test scene for Farcast.
#   scene.sh render OUT.png [WxH]   compose the scene image (1024x768 by default)
#   scene.sh show DISPLAY IMG.png   paint IMG on DISPLAY's root window, hide the pointer
#   scene.sh xterm DISPLAY [READY]  exec an xterm with fixed text at +700+380 (touches READY when written)
# Only ImageMagick, xsetroot and xterm are used; the same inputs give the same
# pixels on every run (no clock, no blinking cursor, no window manager).
set -euo pipefail
FONTS=/usr/share/fonts/truetype/dejavu
PHOTO=/usr/share/backgrounds/mate/nature/LadyBird.jpg
PHOTO2=/usr/share/backgrounds/mate/nature/Storm.jpg
IM=/usr/bin/convert; [ -x "$IM" ] || IM=convert

render() {
  local out=$1 size=${2:-1024x768}
  # Composed at 1024x768 and then cropped/padded, so every size shows the same layout.
  "$IM" -size 1024x768 xc:'#d8d8d0' \
    \( "$PHOTO" -resize 560x350^ -gravity center -extent 560x350 \) -gravity northwest -geometry +16+16 -composite \
    \( "$PHOTO2" -resize 300x200^ -gravity center -extent 300x200 \) -gravity northwest -geometry +700+540 -composite \
    -fill '#1a1a1a' -font "$FONTS/DejaVuSans.ttf" -pointsize 28 -annotate +600+50 'Farcast interop scene' \
    -pointsize 14 -annotate +600+80 'The quick brown fox jumps over the lazy dog 0123456789' \
    -font "$FONTS/DejaVuSerif.ttf" -pointsize 18 -annotate +600+110 'Serif: Sphinx of black quartz, judge my vow.' \
    -font "$FONTS/DejaVuSansMono.ttf" -pointsize 11 -annotate +600+135 'mono 11pt: {}[]()<>/\|;:,.!?@#$&*' \
    -fill '#ff0000' -draw 'rectangle 600,160 679,239' -fill '#00ff00' -draw 'rectangle 680,160 759,239' \
    -fill '#0000ff' -draw 'rectangle 760,160 839,239' -fill '#ffffff' -draw 'rectangle 840,160 919,239' \
    -fill '#000000' -draw 'rectangle 920,160 999,239' \
    \( -size 40x400 gradient:'#ffffff-#000000' -rotate -90 \) -geometry +600+250 -composite \
    \( -size 40x400 gradient:'#0000ff-#ff0000' -rotate -90 \) -geometry +600+300 -composite \
    \( -size 120x120 pattern:checkerboard \) -geometry +600+360 -composite \
    \( -size 120x120 pattern:gray50 \) -geometry +740+360 -composite \
    -fill none -stroke '#c00000' -strokewidth 1 -draw 'line 880,360 1000,480' -draw 'rectangle 880,360 1000,480' \
    -stroke none \
    -fill '#202060' -draw 'rectangle 16,380 500,560' \
    -fill '#f0f0f0' -font "$FONTS/DejaVuSans-Bold.ttf" -pointsize 22 -annotate +30+420 'Light on dark, bold 22' \
    -font "$FONTS/DejaVuSans.ttf" -pointsize 12 -annotate +30+450 'Small light text on navy: abcdefghijklmnopqrstuvwxyz' \
    -fill '#ffd040' -font "$FONTS/DejaVuSerif-Bold.ttf" -pointsize 40 -annotate +30+490 'Ag 40pt' \
    -fill '#104010' -draw 'rectangle 16,580 680,752' \
    -fill '#ffffff' -font "$FONTS/DejaVuSansMono.ttf" -pointsize 13 \
    -annotate +30+605 'ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz' \
    -annotate +30+625 '0123456789 +-*/=<>()[]{} "quoted" and single' \
    -gravity northwest -background '#d8d8d0' -extent "$size" \
    -alpha off -depth 8 -strip "PNG24:$out"
}

show() {
  local disp=$1 img=$2
  export DISPLAY=$disp
  # An empty cursor: neither server then has a pointer image to draw into its framebuffer.
  local blank; blank=$(mktemp -d)
  printf '#define b_width 8\n#define b_height 8\n#define b_x_hot 0\n#define b_y_hot 0\nstatic char b_bits[] = {\n 0, 0, 0, 0, 0, 0, 0, 0 };\n' >"$blank/b.xbm"
  xsetroot -cursor "$blank/b.xbm" "$blank/b.xbm"
  rm -rf "$blank"
  # display(1) sets the root background pixmap and exits; the pixmap stays (retained).
  # It exits 1 with -window root even when it painted, so the caller checks the screen.
  /usr/bin/display -window root "$img" || true
}

xterm_cmd() {
  local disp=$1 ready=${2:-/dev/null}
  # Fixed text; DECTCEM hides the text cursor so focus or blinking can't change pixels.
  # READY is touched once the text is written; the caller then waits for the screen to settle.
  exec xterm -display "$disp" -geometry 44x6+700+380 -fn 9x15 -fb 9x15bold \
    -bg '#fffff0' -fg '#000040' +sb -bw 1 -T farcast-xterm -xrm 'XTerm*cursorBlink: false' \
    -e sh -c 'printf "\033[?25lxterm, core font 9x15\n\033[1mbold\033[0m \033[31mred\033[0m \033[44;37mwhite on blue\033[0m\n"
              printf "%s\n" "fixed text, no clock" "0123456789 ABCDEFGHIJ abcdefghij"
              touch "$1"; exec sleep 1000000' sh "$ready"
}

case ${1:-} in
  render) shift; render "$@" ;;
  show) shift; show "$@" ;;
  xterm) shift; xterm_cmd "$@" ;;
  *) echo "usage: $0 render OUT.png [WxH] | show DISPLAY IMG.png | xterm DISPLAY [READY]" >&2; exit 2 ;;
esac
