#!/usr/bin/env bash
# Checks Farcast as an installed Linux app (scripts/test.sh runs this after `swift test`):
#   1. builds the .deb (scripts/package.sh; PKG_DEB=file skips the build and checks that file),
#   2. desktop-file-validate, appstreamcli validate, the screenshots the metainfo names, lintian
#      (no errors, no warnings), the man page renders with `man --warnings` and nothing to say,
#   3. installs the package with apt into a fresh Debian 12 root (debootstrap; no Swift in it;
#      apt resolves the declared Depends) and runs there `farcast --version` and
#      `viewer snapshot` of an Xvnc on loopback, compared pixel for pixel with the server's own
#      screen (xwd); checks the kiosk's user, config mode and unit as the postinst leaves them
#      (a root without systemd: no input or render group), then remove and purge. The root is
#      made once and cached as a tar outside the work tree (scripts/debian-root.sh;
#      FARCAST_ROOT_CACHE, default /var/cache/farcast-test/bookworm-root.tar),
#   4. with the desktop entry in a test XDG_DATA_HOME, `xdg-mime query default
#      x-scheme-handler/vnc` names it and `xdg-open vnc://127.0.0.1:PORT` opens the viewer's
#      window on that server under Xvfb.
# Ends with one line "package: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
bash scripts/install-deps.sh >/dev/null
export LC_ALL=C.UTF-8

# the Debian 12 root (FARCAST_ROOT_CACHE, DEBIAN_MIRROR) and the chroot helpers
source scripts/debian-root.sh
passed=0; failed=0; failures=()
tmp=$(mktemp -d /tmp/farcast-pkgtest.XXXXXX)
pids=(); root=
cleanup() {
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  if [ -n "$root" ]; then debian_root_umount "$root"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
ok() { echo "package: ok   $1"; passed=$((passed + 1)); }
bad() { echo "package: FAIL $1${2:+: $2}"; failed=$((failed + 1)); failures+=("$1"); }
check() {  # name command...: passes when the command does; its last line of output is shown
  local name=$1; shift; local out
  if out=$("$@" 2>&1); then ok "$name${out:+ — $(echo "$out" | tail -n 1)}"; else bad "$name" "$(echo "$out" | tail -n 20)"; fi
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- 1. the package
if [ -z "${PKG_DEB:-}" ]; then
  t0=$(now)
  scripts/package.sh >"$tmp/package.log" 2>&1 || { tail -n 40 "$tmp/package.log"; bad "scripts/package.sh builds the package"; echo "package: $passed passed, $failed failed"; exit 1; }
  ok "scripts/package.sh builds the package ($(secs "$t0") s)"
  PKG_DEB=$(ls out/farcast_*_"$(dpkg --print-architecture)".deb | head -n1)
fi
PKG_DEB=$(readlink -f "$PKG_DEB")
version=$(dpkg-deb -f "$PKG_DEB" Version)
echo "package: $PKG_DEB ($(du -h "$PKG_DEB" | cut -f1), installed $(dpkg-deb -f "$PKG_DEB" Installed-Size) KiB)"
echo "package: Depends: $(dpkg-deb -f "$PKG_DEB" Depends)"
dpkg-deb -x "$PKG_DEB" "$tmp/pkg"

# ---- 2. static checks
check "desktop-file-validate" desktop-file-validate "$tmp/pkg/usr/share/applications/farcast.desktop"
check "appstreamcli validate" appstreamcli validate --no-net "$tmp/pkg/usr/share/metainfo/io.github.farcast.Farcast.metainfo.xml"
screenshots_named() {
  # Every screenshot address ends in the repository path of a PNG we keep, of the size declared.
  python3 - "$tmp/pkg/usr/share/metainfo/io.github.farcast.Farcast.metainfo.xml" <<'PY'
import os, re, subprocess, sys
xml = open(sys.argv[1]).read()
imgs = re.findall(r'<image type="source" width="(\d+)" height="(\d+)">([^<]+)</image>', xml)
assert imgs, "no screenshots"
for w, h, url in imgs:
    m = re.search(r'/(packaging/screenshots/[^/]+\.png)$', url)
    assert m and os.path.exists(m.group(1)), f"{url}: not a file in packaging/screenshots"
    size = subprocess.run(["identify", "-format", "%wx%h", m.group(1)], capture_output=True, text=True).stdout
    assert size == f"{w}x{h}", f"{m.group(1)} is {size}, metainfo says {w}x{h}"
    assert os.path.getsize(m.group(1)) < 1_000_000, f"{m.group(1)} is over 1 MB"
PY
}
check "metainfo screenshots are packaging/screenshots/*.png of the declared size" screenshots_named
check "icons: hicolor 16..256 PNGs and the scalable SVG" bash -c "
  for s in 16 22 24 32 48 64 128 256; do
    f=$tmp/pkg/usr/share/icons/hicolor/\${s}x\${s}/apps/farcast.png
    [ \"\$(identify -format %wx%h \$f)\" = \${s}x\${s} ] || { echo \"\$f\"; exit 1; }
  done
  [ -s $tmp/pkg/usr/share/icons/hicolor/scalable/apps/farcast.svg ]"
lintian_clean() {
  # lintian refuses nothing as root but says so; errors and warnings fail (infos are listed).
  local changes=${PKG_DEB%.deb}.changes
  [ -e "$changes" ] || changes=$PKG_DEB
  lintian --fail-on error,warning "$changes" 2>&1 | grep -v '^running with root privileges' | tee "$tmp/lintian.txt"
  return "${PIPESTATUS[0]}"
}
check "lintian: no errors or warnings" lintian_clean
man_clean() {
  local page=$tmp/pkg/usr/share/man/man1/farcast.1.gz err
  err=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >"$tmp/man.txt") || return 1
  [ -z "$err" ] || { echo "$err"; return 1; }
  grep -q "farcast snapshot\|snapshot" "$tmp/man.txt" && grep -q -- "--listen" "$tmp/man.txt"
}
check "man -l renders without warnings" man_clean
completions() {
  local c=$tmp/pkg/usr/share
  grep -q 'complete .*farcast$' "$c/bash-completion/completions/farcast" && bash -n "$c/bash-completion/completions/farcast" &&
    grep -q '^#compdef farcast' "$c/zsh/vendor-completions/_farcast" &&
    grep -q "complete -c 'farcast'" "$c/fish/vendor_completions.d/farcast.fish"
}
check "completions for farcast (bash, zsh, fish)" completions

# ---- X servers on loopback: Xvnc with the interop scene, Xvfb for the window
free_display() { for d in $(seq "$1" 99); do [ -e /tmp/.X11-unix/X$d ] || [ -e /tmp/.X$d-lock ] || { echo "$d"; return; }; done; return 1; }
wait_display() { for _ in $(seq 1 100); do DISPLAY=$1 xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
r=$(free_display 40); port=$((5900 + r))
setsid Xvnc :$r -rfbport $port -localhost -SecurityTypes None -geometry 800x600 -depth 24 -AlwaysShared \
  >"$tmp/xvnc.log" 2>&1 & pids+=($!)
wait_display :$r
bash scripts/scene.sh render "$tmp/scene.png" 800x600
bash scripts/scene.sh show :$r "$tmp/scene.png" >/dev/null 2>&1
sleep 0.5
DISPLAY=:$r xwd -root -silent >"$tmp/server.xwd"

same_pixels() {  # a b: identical RGB (ImageMagick reads XWD and PNG)
  python3 - "$1" "$2" <<'PY'
import subprocess, sys
def rgb(p):
    size = subprocess.run(["identify", "-format", "%wx%h", p], capture_output=True, text=True).stdout
    return size, subprocess.run(["convert", p, "-depth", "8", "rgb:-"], capture_output=True).stdout
(sa, a), (sb, b) = rgb(sys.argv[1]), rgb(sys.argv[2])
if sa != sb or not a: sys.exit(f"sizes differ: {sa} vs {sb}")
diff = sum(1 for i in range(0, len(a), 3) if a[i:i+3] != b[i:i+3]) if a != b else 0
print(f"{diff} of {len(a)//3} pixels differ ({sa})")
sys.exit(1 if diff else 0)
PY
}

# ---- 3. a fresh Debian 12 root
t0=$(now)
[ -s "$FARCAST_ROOT_CACHE" ] || echo "package: making the Debian 12 root (debootstrap, once; cached in $FARCAST_ROOT_CACHE)"
root_note=$(debian_root_tar "$tmp/debootstrap.log") ||
  { bad "debootstrap bookworm"; echo "package: $passed passed, $failed failed"; exit 1; }
root=$tmp/root
debian_root_extract "$FARCAST_ROOT_CACHE" "$root"
echo "package: Debian 12 root ready in $(secs "$t0") s ($root_note)"
debian_root_mount "$root"
cp "$PKG_DEB" "$root/tmp/farcast.deb"
in_root() { in_debian_root "$root" "$@"; }
check "the root has no Swift" bash -c "! chroot '$root' sh -c 'command -v swift || ls /usr/lib/swift /usr/libexec/swift' >/dev/null 2>&1"
t0=$(now)
if in_root sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/farcast.deb' >"$tmp/apt.log" 2>&1; then
  ok "apt installs the package and its Depends into the root ($(secs "$t0") s)"
  check "farcast --version in the root says ${version%-*}" bash -c "[ \"\$(chroot '$root' farcast --version)\" = '${version%-*}' ]"
  check "viewer --version in the root" chroot "$root" viewer --version
  check "farcast --help names itself farcast" bash -c "chroot '$root' farcast --help | grep -q 'USAGE: farcast'"
  snapshot_matches() {
    in_root viewer snapshot "127.0.0.1::$port" -o /tmp/snap.png --timeout 30 || return 1
    same_pixels "$root/tmp/snap.png" "$tmp/server.xwd"
  }
  check "viewer snapshot in the root matches the server's screen (xwd)" snapshot_matches
  kiosk_installed() {  # the kiosk's user, config and unit as the postinst leaves them (no systemd here)
    local groups mode
    groups=$(chroot "$root" id -nG farcast-kiosk) || return 1
    mode=$(chroot "$root" stat -c '%a %U:%G' /etc/farcast/kiosk.conf)   # names as the root has them
    echo "farcast-kiosk in: $groups; kiosk.conf $mode"
    # this minimal root has no input or render group: the postinst must not make or need them
    [ "$groups" = "farcast-kiosk video" ] && [ "$mode" = "640 root:farcast-kiosk" ] &&
      [ "$(chroot "$root" getent passwd farcast-kiosk | cut -d: -f6,7)" = /var/lib/farcast-kiosk:/usr/sbin/nologin ] &&
      [ -f "$root/lib/systemd/system/farcast-kiosk.service" ] &&
      ! ls "$root"/etc/systemd/system/*.wants/farcast-kiosk.service >/dev/null 2>&1
  }
  check "kiosk: system user farcast-kiosk (video), kiosk.conf 0640 root:farcast-kiosk, unit installed and not enabled" kiosk_installed
  check "apt remove farcast" in_root apt-get remove -y -qq farcast
  check "nothing of farcast left after remove" bash -c "[ ! -e '$root/usr/bin/farcast' ] && [ ! -e '$root/usr/bin/viewer' ]"
  check "apt purge farcast" in_root apt-get purge -y -qq farcast
  check "after purge: no farcast-kiosk user or group, no /etc/farcast" bash -c \
    "! chroot '$root' getent passwd farcast-kiosk && ! chroot '$root' getent group farcast-kiosk && [ ! -e '$root/etc/farcast' ]"
else
  tail -n 30 "$tmp/apt.log"
  bad "apt installs the package and its Depends into the root"
fi
debian_root_umount "$root"
rm -rf "$root"; root=

# ---- 4. the vnc:// handler, from the package's files in a test XDG_DATA_HOME
export XDG_DATA_HOME=$tmp/xdg/data XDG_CONFIG_HOME=$tmp/xdg/config XDG_DATA_DIRS=$tmp/xdg/none XDG_CONFIG_DIRS=$tmp/xdg/none
mkdir -p "$XDG_DATA_HOME/applications" "$XDG_CONFIG_HOME"
cp "$tmp/pkg/usr/share/applications/farcast.desktop" "$XDG_DATA_HOME/applications/"
update-desktop-database "$XDG_DATA_HOME/applications"
check "xdg-mime query default x-scheme-handler/vnc is farcast.desktop" \
  bash -c '[ "$(xdg-mime query default x-scheme-handler/vnc)" = farcast.desktop ]'
l=$(free_display $((r + 1)))
setsid Xvfb :$l -screen 0 1024x768x24 -nolisten tcp -noreset >"$tmp/xvfb.log" 2>&1 & pids+=($!)
wait_display :$l
opened() {
  (export DISPLAY=:$l PATH=$tmp/pkg/usr/bin:$PATH SDL_RENDER_DRIVER=software; unset BROWSER
   exec setsid xdg-open "vnc://127.0.0.1:$port") >"$tmp/xdg-open.log" 2>&1 &
  pids+=($!)
  local win=
  for _ in $(seq 1 150); do
    win=$(DISPLAY=:$l xdotool search --name Farcast 2>/dev/null | head -n1) && [ -n "$win" ] && break
    sleep 0.1
  done
  [ -n "$win" ] || { cat "$tmp/xdg-open.log"; return 1; }
  local pid cmd
  pid=$(DISPLAY=:$l xdotool getwindowpid "$win")
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  echo "window $win: $(DISPLAY=:$l xdotool getwindowname "$win"), process: $cmd"
  [[ $cmd == "farcast vnc://127.0.0.1:$port"* || $cmd == "$tmp/pkg/usr/bin/farcast vnc://127.0.0.1:$port"* ]]
}
check "xdg-open vnc://127.0.0.1:$port opens the viewer's window on that server" opened

echo "package: $passed passed, $failed failed"
[ "$failed" = 0 ]
