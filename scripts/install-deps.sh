#!/usr/bin/env bash
# Installs every Debian package Farcast's build, viewer and tests need.
# Idempotent: runs apt-get only when something is missing.
set -euo pipefail
PKGS=(
  # build: system libraries reached through pkg-config (ISA-L's headers: opened at run time)
  pkg-config libsdl2-dev libsdl2-ttf-dev zlib1g-dev libisal-dev libturbojpeg0-dev libpng-dev libxkbcommon-dev libssl-dev
  # Open H.264: FFmpeg's decoder and colour conversion; the ffmpeg CLI (libx264) makes and checks test streams
  libavcodec-dev libavutil-dev libswscale-dev ffmpeg
  # the clipboard's own X selection reader (INCR, XFixes change notification); MIT-SHM for the
  # window shown from the framebuffer's memory; the X server's keymap
  libxcb1-dev libxcb-xfixes0-dev libxcb-shm0-dev libxkbcommon-x11-dev
  # native Wayland: libwayland-client for our own wl_shm presenter, keyboard and shortcuts inhibitor;
  # wayland-scanner and the protocol XML the C shims are generated from; libdecor's plugin draws
  # the title bar where the compositor has no server-side decorations (GNOME)
  libwayland-dev libwayland-bin wayland-protocols libdecor-0-plugin-1-cairo
  fonts-dejavu-core
  # real VNC servers and X tools for the local desktop and the interop tests
  tigervnc-standalone-server tigervnc-tools x11vnc xvfb xauth x11-utils x11-xserver-utils
  # scripts/bench-latency.sh compares with TigerVNC's own viewer
  tigervnc-viewer
  x11-apps xterm xfonts-base twm xdotool imagemagick mate-backgrounds xkb-data x11-xkb-utils
  # clipboard tests: set and read the server display's CLIPBOARD selection
  xclip
  # connection tests: an sshd of the test's own on loopback (--via), key state on the server
  openssh-server openssh-client xinput iproute2
  # security tests: certificates (openssl), the RSA-AES reference server, a private PAM mount (unshare)
  openssl python3-cryptography python3-xlib util-linux libpam-modules
  # QEMU's VNC server with TLS x509 credentials (no guest: paused, no display)
  qemu-system-x86
  # wayvnc (Debian 12: 0.5) on a headless sway; swaybg shows the scene, grim takes the screen
  sway swaybg wayvnc grim
  # native Wayland windows (scripts/wayland-session.sh): wtype types through sway's virtual
  # keyboard, wayland-info lists a compositor's globals; weston and mutter (in dbus-run-session)
  # are the other compositors the viewer is tried on; xwayland for the viewer through X11 there
  wtype wayland-utils weston mutter xwayland
  # cage: a kiosk compositor (wlroots) with no keyboard-shortcuts-inhibit: the grab's message
  cage
  # mutter's screen casts (the picture on mutter, and its touch calls, which need a cast):
  # PipeWire and WirePlumber beside it, gst-launch's pipewiresrc and pngenc take a frame
  pipewire wireplumber gstreamer1.0-pipewire gstreamer1.0-tools gstreamer1.0-plugins-good
  # a keymap change on mutter: scripts/wayland/mutter-keymap-plugin.c is a mutter plugin
  libmutter-11-dev
  # the Wayland clipboard tests: wl-copy and wl-paste set and read sway's selections (wlr-data-control)
  wl-clipboard
  # the decoration tests on mutter drive its pointer through org.gnome.Mutter.RemoteDesktop (GIO),
  # and WaylandKeyboardInteropTests builds two small clients: scripts/wayland/mutter-type.c types
  # through it, vk-keymap.c is a virtual keyboard with named keymaps (libwayland-dev, libxkbcommon-dev above)
  libglib2.0-dev
  # --save-password: the Secret Service through secret-tool, tested against gnome-keyring on a private bus
  dbus gnome-keyring libsecret-tools
  # harness in ../shared/tools; libvncclient for its lvc_consume (recordings replayed to it)
  python3 procps libvncserver-dev
  # packaging (scripts/package.sh) and its checks (scripts/test-package.sh): Debian's build tools,
  # lintian, the desktop entry and AppStream validators, SVG to PNG, man, xdg-open, a Debian root
  debhelper dpkg-dev fakeroot lintian desktop-file-utils appstream librsvg2-bin man-db xdg-utils
  debootstrap rsync
  # the launcher's discovery: Avahi's client library; the tests run their own avahi-daemon
  # (in a network namespace of their own, on a private D-Bus) and publish with avahi-publish
  libavahi-client-dev avahi-daemon avahi-utils
  # the kiosk in a VM (scripts/test-kiosk-vm.sh): QEMU (above), an ext4 image made from a directory,
  # a C compiler and static libc for its uinput touch screen and keyboard (scripts/kiosk-vm-input.c)
  e2fsprogs gcc libc6-dev
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Packages must not start system services (openssh-server would start sshd on port 22):
  # the tests start their own servers on loopback.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ $made_policy = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
fi
echo "install-deps: ok"
