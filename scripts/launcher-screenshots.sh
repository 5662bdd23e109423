#!/usr/bin/env bash
# Pictures of the launcher (`viewer` with no host) under Xvfb, for a person to look at:
#   launcher-empty.png       no saved connection yet
#   launcher-list.png        saved connections (one with the thumbnail of its last session) and recent ones
#   launcher-discovered.png  the same with hosts announced on the network (a real avahi-daemon in a
#                            network namespace of its own, on a private D-Bus; avahi-publish announces)
#   launcher-form.png        the edit form
#   launcher-touch.png       the touch layout with the on-screen keyboard for a text field
# OUT=dir (default /tmp/farcast-launcher-shots); VIEWER=path (default the debug build). Needs root
# for the network namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/farcast-launcher-shots}
VIEWER=${VIEWER:-$PWD/.build/debug/viewer}
mkdir -p "$OUT"
tmp=$(mktemp -d)
pids=()
cleanup() { [ -e "$tmp/launcher.log" ] && tail -5 "$tmp/launcher.log" >&2; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.3; umount "$tmp/run" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT

free_display() { for d in $(seq "$1" 99); do [ -e /tmp/.X11-unix/X$d ] || [ -e /tmp/.X$d-lock ] || { echo "$d"; return; }; done; return 1; }
wait_display() { for _ in $(seq 1 100); do DISPLAY=$1 xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
wait_window() { for _ in $(seq 1 100); do w=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1) && [ -n "$w" ] && { echo "$w"; return 0; }; sleep 0.1; done; return 1; }

# a remote desktop to connect to once (its thumbnail), and the local screen
r=$(free_display 40); port=$((5900 + r))
Xvnc :$r -rfbport $port -localhost -SecurityTypes None -geometry 1024x768 -depth 24 -desktop "Lab" >"$tmp/xvnc.log" 2>&1 & pids+=($!)
wait_display :$r
convert /usr/share/backgrounds/mate/nature/Aqua.jpg -resize 1024x768^ -gravity center -extent 1024x768 "$tmp/wall.png"
DISPLAY=:$r /usr/bin/display -window root "$tmp/wall.png" >/dev/null 2>&1 || true
DISPLAY=:$r xterm -geometry 50x12+60+60 -e sh -c 'echo build finished; exec sleep 100000' >/dev/null 2>&1 & pids+=($!)
l=$(free_display $((r + 1)))
Xvfb :$l -screen 0 1024x720x24 -nolisten tcp -noreset >"$tmp/xvfb.log" 2>&1 & pids+=($!)
wait_display :$l
export DISPLAY=:$l SDL_VIDEODRIVER=x11 XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus

shot() { # name, window
  sleep 0.6; import -window root "$OUT/$1.png"; echo "wrote $OUT/$1.png"
}
launch() { "$VIEWER" launcher "$@" >>"$tmp/launcher.log" 2>&1 & lp=$!; pids+=($lp); win=$(wait_window '^Farcast$'); xdotool windowmove "$win" 0 0 windowsize "$win" 1024 720; sleep 1; }
quit() { kill "$lp" 2>/dev/null || true; wait "$lp" 2>/dev/null || true; sleep 0.3; }

mkdir -p "$tmp/config"
launch; shot launcher-empty; quit

mkdir -p "$tmp/config/farcast" "$tmp/state/farcast"
cat >"$tmp/config/farcast/connections" <<EOF
[Lab desktop]
address = 127.0.0.1::$port
colour = purple
quality = lossless

[Office desktop]
address = office.example.com:1
colour = blue
last-connected = $(date -u -d '-3 hours' +%FT%TZ)
quality = 6
remember-password = yes
username = ann

[Build server]
address = build.example.com::5902
colour = green
fullscreen = yes
via = ann@gateway.example.com

[Kitchen Pi]
address = vnc://pi@kitchen.local
colour = orange
view-only = yes
last-connected = $(date -u -d '-2 days' +%FT%TZ)
EOF
printf '%s 192.168.1.40:1\n%s [fd00::12]::5901\n' "$(date -u -d '-20 min' +%FT%TZ)" "$(date -u -d '-1 day' +%FT%TZ)" >"$tmp/state/farcast/recent"

# connect to the Lab once (a click on its row), disconnect from the session's menu: its thumbnail
launch
xdotool mousemove --sync 300 140 click 1 2>/dev/null || true  # the window it clicked hides at once
s=$(wait_window "Lab")
sleep 2
xdotool mousemove --sync 500 400 click 1 key --delay 200 F8 Up Return 2>/dev/null || true
win=$(wait_window '^Farcast$')
shot launcher-list
xdotool key Down Down ctrl+e
shot launcher-form
quit

# hosts on the network: avahi-daemon in a network namespace of its own, on a bus of our own
mkdir -p /run/avahi-daemon "$tmp/run"
unshare -n -m sh -c "mount -t tmpfs tmpfs /run/avahi-daemon; ip link set lo up; ip link add v0 type veth peer name v1;
  ip addr add 10.77.0.1/24 dev v0; ip link set v0 multicast on up; ip link set v1 up; touch $tmp/ns-ready; exec sleep 100000" & ns=$!; pids+=($ns)
for _ in $(seq 1 50); do [ -e "$tmp/ns-ready" ] && break; sleep 0.1; done
cat >"$tmp/bus.conf" <<EOF
<busconfig><type>system</type><listen>unix:path=$tmp/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
EOF
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile >"$tmp/dbus.log" 2>&1 & pids+=($!)
for _ in $(seq 1 50); do [ -S "$tmp/bus" ] && break; sleep 0.1; done
printf '[server]\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=v0\n[wide-area]\nenable-wide-area=no\n[publish]\npublish-hinfo=no\npublish-workstation=no\n' >"$tmp/avahi.conf"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/bus
nsenter --net=/proc/$ns/ns/net --mount=/proc/$ns/ns/mnt avahi-daemon -f "$tmp/avahi.conf" --no-drop-root --no-chroot --no-rlimits >"$tmp/avahi.log" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do grep -q "Server startup complete" "$tmp/avahi.log" && break; sleep 0.1; done
avahi-publish -s "Raspberry Pi desktop" _rfb._tcp 5900 >/dev/null 2>&1 & pids+=($!)
avahi-publish -s "Render node" _rfb._tcp 5901 >/dev/null 2>&1 & pids+=($!)
avahi-publish -s "studio [3c:22:fb:01:02:03]" _workstation._tcp 9 >/dev/null 2>&1 & pids+=($!)
launch
sleep 2
xdotool key End
shot launcher-discovered
quit

launch --touch-layout
xdotool key ctrl+n
xdotool type "Wall display"
shot launcher-touch
quit
