#!/usr/bin/env bash
# Types with wtype into an SDL 2 window on a running headless sway, N times, and counts the runs
# that died of SIGSEGV (exit 139). Each run starts the program, waits until its window has the
# focus, and types one key at once (`wtype a`: sway gives the new virtual keyboard to the
# window with the key already down, in wl_keyboard.enter) and one after a pause.
#   eval "$(scripts/wayland-session.sh start)"
#   scripts/wayland/keyboard-crash.sh RUNS PROGRAM [ARGS...]
# e.g. scripts/wayland/keyboard-crash.sh 10 /tmp/sdl-keys 6
#      FARCAST_XKB_GUARD_LOG=1 scripts/wayland/keyboard-crash.sh 10 /tmp/sdl-keys-guarded 6
#      SDL_RENDER_DRIVER=opengl scripts/wayland/keyboard-crash.sh 10 .build/debug/viewer 127.0.0.1:N
set -uo pipefail
runs=$1; shift
export SDL_VIDEODRIVER=wayland
died=0 guarded=0
log=$(mktemp)
for n in $(seq 1 "$runs"); do
  "$@" >"$log" 2>&1 &
  pid=$!
  sleep 2.5          # window mapped and focused (the viewer: connected)
  wtype a
  sleep 0.8
  kill -0 $pid 2>/dev/null && { wtype -s 300 b; sleep 0.8; }
  if kill -0 $pid 2>/dev/null; then
    kill $pid; wait $pid 2>/dev/null; rc=alive
  else
    wait $pid; rc=$?; [ $rc = 139 ] && died=$((died + 1))
  fi
  g=$(grep -c 'xkb-guard' "$log" || true); guarded=$((guarded + g))
  echo "run $n: ${rc} (keys seen: $(grep -c '^down' "$log" || true), guard notes: $g)"
done
rm -f "$log"
echo "$died of $runs runs died of SIGSEGV; guards changed $guarded calls"
