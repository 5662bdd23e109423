#!/usr/bin/env bash
# A headless Wayland compositor for tests: no GPU, no input devices, no seat, as an unprivileged
# user (sway refuses root), with a runtime directory of its own (mode 0700).
#
#   scripts/wayland-session.sh start [--compositor sway|weston|mutter|cage] [--size WxH] [--scale N] [--xwayland]
#                                    [--mutter-plugin PATH]
#       starts one and prints shell lines to eval:  export XDG_RUNTIME_DIR=... WAYLAND_DISPLAY=...
#       FARCAST_WL_DIR=... FARCAST_WL_COMPOSITOR=... ; the compositor keeps running in the background.
#       --xwayland (sway, mutter): XWayland too, and DISPLAY=:N for X11 clients (it lets in its user and root).
#   scripts/wayland-session.sh stop [DIR]        stops what `start` started (DIR: FARCAST_WL_DIR)
#   scripts/wayland-session.sh run [options] -- COMMAND [ARGS...]
#       starts one, runs COMMAND with the variables exported, stops it again; COMMAND's status.
#   scripts/wayland-session.sh env-check         prints the Wayland globals (wayland-info) of a running one
#
# The compositor runs as the system user farcast-wl (made when missing) when started as root,
# otherwise as the caller. Clients may run as that user or as root: root reaches the socket in
# the 0700 directory (CAP_DAC_OVERRIDE), and libwayland checks no owner. A client as another
# unprivileged user cannot (the directory is 0700): run it with
#   setpriv --reuid farcast-wl --regid farcast-wl --init-groups -- COMMAND
#
# What each compositor offers a test (all three run here; see docs/design/wayland-findings.md):
#   sway   (wlroots 0.15, WLR_BACKENDS=headless, WLR_RENDERER=pixman): grim (wlr-screencopy) and
#          wtype (zwp_virtual_keyboard_v1) work; the one window fills the output (no border, no bar).
#   weston (10, headless-backend.so --use-pixman, kiosk-shell): no screencopy for grim, no virtual
#          keyboard for wtype; `--debug` enables weston-screenshooter. Windows are full screen.
#   mutter (43, --headless --wayland --no-x11 --virtual-monitor WxH in dbus-run-session): draws
#          with llvmpipe through EGL surfaceless; no grim, no wtype (its input is the
#          org.gnome.Mutter.RemoteDesktop D-Bus API); --scale through its DisplayConfig API (integer
#          scales: 43 offers no fractional ones to clients); --mutter-plugin loads a plugin of ours
#          (scripts/wayland/mutter-keymap-plugin.c: keymap changes on SIGUSR1). PipeWire and WirePlumber run on its session
#          bus when installed: its ScreenCast API then gives the screen (scripts/wayland/mutter-screen.c,
#          gst-launch's pipewiresrc) and touch (RemoteDesktop's touch calls need a cast stream).
#   cage   (0.1.4, wlroots 0.15 headless, pixman): a kiosk compositor: no keyboard-shortcuts-inhibit,
#          no virtual keyboard; its headless output is 1280x720 whatever --size says (wlroots'
#          default: it is refused otherwise). Its first program waits (`sleep`); clients connect.
#          grim works, but on the headless backend a full-screen client's later frames are not
#          shown (each frame logs "Basic output test failed" and the first one stays on screen,
#          with SDL's own OpenGL renderer too): no picture tests on it.
set -euo pipefail

WL_USER=farcast-wl
self=$(readlink -f "$0")

die() { echo "wayland-session: $*" >&2; exit 1; }

ensure_user() {
  id "$WL_USER" >/dev/null 2>&1 && return
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$WL_USER"
}

# runs "$@" as the compositor's user (root only), or as the caller
as_user() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid "$WL_USER" --regid "$WL_USER" --init-groups -- "$@"
  else
    "$@"
  fi
}

start() {
  local compositor=sway size=1024x768 scale=1 xwayland=disable plugin=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --compositor) compositor=$2; shift 2 ;;
      --size) size=$2; shift 2 ;;
      --scale) scale=$2; shift 2 ;;
      --xwayland) xwayland=force; shift ;;
      --mutter-plugin) plugin=$(readlink -f "$2"); shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [[ "$size" =~ ^[0-9]+x[0-9]+$ ]] || die "--size WxH, not $size"
  local w=${size%x*} h=${size#*x}
  command -v "$compositor" >/dev/null || die "$compositor is not installed: scripts/install-deps.sh"
  [ "$(id -u)" = 0 ] && ensure_user

  local dir
  dir=$(mktemp -d /tmp/farcast-wl.XXXXXX)
  chmod 0755 "$dir"                       # the compositor's user reads its config here
  mkdir -m 0700 "$dir/run"
  [ "$(id -u)" = 0 ] && chown "$WL_USER:$WL_USER" "$dir/run"
  local socket=wayland-farcast
  local -a cmd
  # no GPU and no seat: the headless backends draw in memory; nothing of the caller's session
  local -a envs=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$dir/run" XDG_RUNTIME_DIR="$dir/run"
                 LANG=C.UTF-8 WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1
                 WLR_HEADLESS_OUTPUTS=1)
  case "$compositor" in
    sway)
      cat > "$dir/sway.config" <<EOF
xwayland $xwayland
output * resolution ${w}x${h} scale $scale bg #000000 solid_color
default_border none
default_floating_border none
seat * hide_cursor 100
EOF
      chmod 0644 "$dir/sway.config"
      cmd=(sway -c "$dir/sway.config")
      socket=""   # sway names it wayland-N itself
      ;;
    weston)
      cat > "$dir/weston.ini" <<EOF
[core]
idle-time=0
[shell]
locking=false
EOF
      chmod 0644 "$dir/weston.ini"
      # kiosk-shell: every toplevel full screen on the output, as sway tiles a single window
      cmd=(weston --backend=headless-backend.so --use-pixman --shell=kiosk-shell.so
           --width="$w" --height="$h" --scale="$scale" --socket="$socket" --idle-time=0
           --config="$dir/weston.ini" --debug)
      ;;
    mutter)
      # mutter wants a session bus; it renders with EGL (llvmpipe without a GPU); PipeWire on
      # that bus carries its screen casts (the tests' screenshots, its touch input)
      cmd=(dbus-run-session -- "$self" __mutter "$w" "$h" "$socket" "$xwayland" "$plugin")
      ;;
    cage)
      [ "$size" = 1280x720 ] || die "cage's headless output is 1280x720 (wlroots' default), not $size"
      cmd=(cage -d -- sleep infinity)
      socket=""   # cage names it wayland-N itself
      ;;
    *) die "--compositor sway|weston|mutter|cage" ;;
  esac
  echo "$compositor" > "$dir/compositor"
  # its own session (setsid): `stop` ends the whole group (dbus-daemon, Xwayland helpers)
  # and with no descriptor of the caller's but 0-2: a caller that waits for EOF on one it passed
  # (Foundation's Process watches its child through an inherited socket) would wait forever
  ( cd "$dir"
    for fd in /proc/$BASHPID/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
    exec setsid "${envs[@]}" "$self" __as_user "${cmd[@]}" ) >"$dir/compositor.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" > "$dir/pid"

  # up once its socket exists and a client gets its globals
  local name="" i
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || { cat "$dir/compositor.log" >&2; rm -rf "$dir"; die "$compositor exited"; }
    if [ -z "$name" ]; then
      name=$(cd "$dir/run" && ls -1 2>/dev/null | grep -E '^wayland-[^.]+$' | head -n1 || true)
    fi
    if [ -n "$name" ] && XDG_RUNTIME_DIR="$dir/run" WAYLAND_DISPLAY="$name" timeout 5 wayland-info >/dev/null 2>&1; then
      echo "$name" > "$dir/display"
      if [ "$compositor" = mutter ] && [ "$scale" != 1 ] && ! mutter_scale "$pid" "$scale"; then
        stop "$dir"; die "mutter did not take scale $scale"
      fi
      local x11=""
      if [ "$xwayland" = force ]; then
        # sway starts Xwayland itself: its display number is on its command line. This session's
        # own (sid = the setsid above): other sessions' run as the same user at the same time
        local j xp
        for j in $(seq 1 100); do
          xp=$(pgrep -s "$pid" -x Xwayland | head -n1 || true)
          [ -n "$xp" ] && x11=$(tr '\0' '\n' < "/proc/$xp/cmdline" | grep -m1 -E '^:[0-9]+$' || true)
          [ -n "$x11" ] && break
          sleep 0.1
        done
        [ -n "$x11" ] || { cat "$dir/compositor.log" >&2; stop "$dir"; die "Xwayland did not start"; }
        # Xwayland lets in its own user only (localuser; mutter's also wants its cookie, -auth):
        # root's clients too
        if [ "$(id -u)" = 0 ]; then
          local auth
          auth=$(tr '\0' '\n' < "/proc/$xp/cmdline" | grep -A1 -x -- -auth | tail -n +2 || true)
          for j in $(seq 1 50); do
            as_user env -i DISPLAY="$x11" ${auth:+XAUTHORITY="$auth"} xhost +si:localuser:root >/dev/null 2>&1 && break
            sleep 0.1
          done
        fi
      fi
      printf 'export XDG_RUNTIME_DIR=%q WAYLAND_DISPLAY=%q FARCAST_WL_DIR=%q FARCAST_WL_COMPOSITOR=%q%s\n' \
        "$dir/run" "$name" "$dir" "$compositor" "${x11:+ DISPLAY=$x11}"
      return 0
    fi
    sleep 0.1
  done
  cat "$dir/compositor.log" >&2
  stop "$dir"
  die "$compositor did not come up in 30 s"
}

# inside mutter's dbus-run-session, as its user: PipeWire and WirePlumber (when installed), then mutter
mutter_session() {
  local w=$1 h=$2 socket=$3 xwayland=$4 plugin=${5:-} i
  if command -v pipewire >/dev/null && command -v wireplumber >/dev/null; then
    pipewire >"$HOME/pipewire.log" 2>&1 &
    for i in $(seq 1 50); do [ -S "$XDG_RUNTIME_DIR/pipewire-0" ] && break; sleep 0.1; done
    wireplumber >"$HOME/wireplumber.log" 2>&1 &
  fi
  local x11=--no-x11
  [ "$xwayland" = force ] && x11=""
  exec mutter --headless --wayland $x11 --wayland-display="$socket" --virtual-monitor "${w}x${h}" \
    ${plugin:+--mutter-plugin="$plugin"}
}

# mutter's virtual monitor starts at scale 1: its DisplayConfig API sets another (for this run)
mutter_scale() {
  local pid=$1 scale=$2 mp bus state mode
  mp=$(pgrep -s "$pid" -x mutter | head -n1)
  bus=$(tr '\0' '\n' < "/proc/$mp/environ" | sed -n 's/^DBUS_SESSION_BUS_ADDRESS=//p')
  local -a call=(as_user env DBUS_SESSION_BUS_ADDRESS="$bus" gdbus call --session --dest org.gnome.Mutter.DisplayConfig
                 --object-path /org/gnome/Mutter/DisplayConfig --method)
  state=$("${call[@]}" org.gnome.Mutter.DisplayConfig.GetCurrentState) || return 1
  mode=$(grep -oE "'[0-9]+x[0-9]+@[0-9.]+'" <<<"$state" | head -n1 | tr -d "'")
  local serial=${state#(uint32 }; serial=${serial%%,*}
  "${call[@]}" org.gnome.Mutter.DisplayConfig.ApplyMonitorsConfig "$serial" 1 \
    "[(0, 0, $scale, 0, true, [('Meta-0', '$mode', @a{sv} {})])]" "@a{sv} {}" >/dev/null \
    || { echo "wayland-session: its virtual monitor's scales: $(grep -oE '\[1\.0[^]]*\]' <<<"$state" | head -n1)" >&2; return 1; }
}

stop() {
  local dir=${1:-${FARCAST_WL_DIR:-}}
  [ -n "$dir" ] && [ -f "$dir/pid" ] || die "stop: no session directory (FARCAST_WL_DIR)"
  local pid
  pid=$(cat "$dir/pid")
  # the setsid child leads its own process group: TERM the group, then KILL what is left
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}

run() {
  local -a opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  [ $# -gt 0 ] || die "run [options] -- COMMAND"
  local lines
  lines=$(start "${opts[@]}")
  eval "$lines"
  trap 'stop "$FARCAST_WL_DIR"' EXIT
  local rc=0
  "$@" || rc=$?
  return $rc
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  run) shift; run "$@" ;;
  env-check) wayland-info ;;
  __as_user) shift; as_user "$@" ;;   # internal: the compositor's command line
  __mutter) shift; mutter_session "$@" ;;   # internal: mutter with PipeWire beside it
  *) sed -n '2,38p' "$self"; exit 2 ;;
esac
