#!/usr/bin/env bash
# CPU of the viewer (and of the compositor, XWayland included) drawing a changing remote screen,
# per render path, in a running session (eval "$(scripts/wayland-session.sh start --xwayland)").
#   scripts/wayland/measure-cpu.sh VIEWER HOST SECONDS
# FARCAST_PATHS chooses the paths (default: all):
#   wl-shm                    native Wayland, the viewer's default without a GPU: its own wl_shm
#                             buffers on SDL's surface (Sources/CWaylandPresent)
#   wl-opengl, wl-opengles2   native Wayland, SDL_RENDER_DRIVER=...: the viewer's streaming texture,
#                             drawn by llvmpipe without a GPU
#   wl-surface-gles2          native Wayland, the window surface: SDL emulates it with a GLES2
#                             renderer (SDL_FRAMEBUFFER_ACCELERATION in the environment overrides
#                             the viewer's SDL_SetHint "0")
#   x11-surface, x11-opengl   through XWayland (DISPLAY from the session): the viewer's default
#                             where GL is llvmpipe (a MIT-SHM window surface), and GL kept
# Prints per path: viewer CPU s (utime+stime from /proc/PID/stat), compositor CPU s (sway +
# Xwayland), the viewer's share of one core, the mean updates/s of its -v link lines, the load.
set -euo pipefail
viewer=$1 host=$2 secs=${3:-20}
tck=$(getconf CLK_TCK)
cpu() { local t=0 p; for p in "$@"; do t=$(awk -v t="$t" -v k="$tck" '{print t + ($14+$15)/k}' "/proc/$p/stat"); done; echo "$t"; }
comp=$(pgrep -u farcast-wl -x 'sway|weston|mutter|Xwayland' | tr '\n' ' ')
paths=(${FARCAST_PATHS:-wl-shm wl-opengl wl-opengles2 wl-surface-gles2 x11-surface x11-opengl})
printf '%-18s %9s %12s %6s %9s  %s\n' path viewer_s compositor_s core% updates/s load
log=$(mktemp)
for path in "${paths[@]}"; do
  case $path in
    wl-shm) envs=(SDL_VIDEODRIVER=wayland) ;;
    wl-opengl) envs=(SDL_VIDEODRIVER=wayland SDL_RENDER_DRIVER=opengl) ;;
    wl-opengles2) envs=(SDL_VIDEODRIVER=wayland SDL_RENDER_DRIVER=opengles2) ;;
    wl-surface-gles2) envs=(SDL_VIDEODRIVER=wayland SDL_FRAMEBUFFER_ACCELERATION=opengles2) ;;
    x11-surface) envs=(SDL_VIDEODRIVER=x11 WAYLAND_DISPLAY=) ;;
    x11-opengl) envs=(SDL_VIDEODRIVER=x11 WAYLAND_DISPLAY= SDL_RENDER_DRIVER=opengl) ;;
    *) echo "unknown path $path" >&2; exit 2 ;;
  esac
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  env "${envs[@]}" "$viewer" "$host" -v >"$log" 2>&1 &
  vp=$!
  for _ in $(seq 1 100); do grep -q "ready" "$log" 2>/dev/null && break; sleep 0.1; done
  sleep 2   # first full update and window mapping done
  v0=$(cpu $vp); c0=$(cpu $comp)
  sleep "$secs"
  v1=$(cpu $vp); c1=$(cpu $comp)
  kill $vp; wait $vp 2>/dev/null || true
  ups=$(grep -o '[0-9.]* updates/s' "$log" | tail -n +2 | awk '{s+=$1; n++} END {printf "%.1f", n ? s/n : 0}')
  awk -v p="$path" -v a="$v0" -v b="$v1" -v c="$c0" -v d="$c1" -v s="$secs" -v l="$load" -v u="$ups" \
    'BEGIN { printf "%-18s %9.2f %12.2f %5.0f%% %9s  %s\n", p, b-a, d-c, 100*(b-a)/s, u, l }'
done
rm -f "$log"
