#!/usr/bin/env bash
# CPU of the viewer (and of the compositor) drawing a changing remote screen, per render path,
# in a running Wayland session (eval "$(scripts/wayland-session.sh start)" first).
#   scripts/wayland/measure-cpu.sh VIEWER HOST SECONDS
# Paths: SDL_RENDER_DRIVER=opengl / opengles2 (streaming texture, drawn by llvmpipe without a
# GPU), and the window surface made by SDL's framebuffer emulation through a renderer
# (SDL_FRAMEBUFFER_ACCELERATION in the environment overrides the viewer's SDL_SetHint "0").
# Prints: path, viewer CPU seconds (utime+stime from /proc/PID/stat), compositor CPU seconds,
# the viewer's share of one core, the load average before.
set -euo pipefail
viewer=$1 host=$2 secs=${3:-20}
tck=$(getconf CLK_TCK)
cpu() { awk -v t="$tck" '{print ($14+$15)/t}' "/proc/$1/stat"; }
comp=$(pgrep -u farcast-wl -x sway || pgrep -u farcast-wl -x weston || pgrep -u farcast-wl -x mutter || true)
paths=(${FARCAST_PATHS:-opengl opengles2 surface-via-opengles2 surface-via-opengl})
printf '%-24s %9s %12s %6s %9s  %s\n' path viewer_s compositor_s core% updates/s load
for path in "${paths[@]}"; do
  case $path in
    opengl|opengles2) envs=(SDL_RENDER_DRIVER=$path) ;;
    surface-via-*) envs=(SDL_FRAMEBUFFER_ACCELERATION=${path#surface-via-}) ;;
  esac
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  env SDL_VIDEODRIVER=wayland "${envs[@]}" "$viewer" "$host" -v >/tmp/measure-cpu.$$.log 2>&1 &
  vp=$!
  for _ in $(seq 1 100); do grep -q "viewer: ready\|ready" /tmp/measure-cpu.$$.log 2>/dev/null && break; sleep 0.1; done
  sleep 2   # first full update and window mapping done
  v0=$(cpu $vp); c0=${comp:+$(cpu $comp)}
  sleep "$secs"
  v1=$(cpu $vp); c1=${comp:+$(cpu $comp)}
  kill $vp; wait $vp 2>/dev/null || true
  # the viewer's -v link lines: the mean of their updates/s over the run
  ups=$(grep -o '[0-9.]* updates/s' /tmp/measure-cpu.$$.log | awk '{s+=$1; n++} END {printf "%.1f", n ? s/n : 0}')
  awk -v p="$path" -v a="$v0" -v b="$v1" -v c="${c0:-0}" -v d="${c1:-0}" -v s="$secs" -v l="$load" -v u="$ups" \
    'BEGIN { printf "%-24s %9.2f %12.2f %5.0f%% %9s  %s\n", p, b-a, d-c, 100*(b-a)/s, u, l }'
done
rm -f /tmp/measure-cpu.$$.log
