#!/usr/bin/env bash
# The kiosk end to end, in a QEMU virtual machine (scripts/test.sh runs it after the package
# checks; FARCAST_SKIP_KIOSK=1 skips it):
#   1. a Debian 12 VM root: the cached debootstrap root (scripts/debian-root.sh) plus a kernel,
#      systemd, udev, TigerVNC's Xvnc and Farcast's Depends and Recommends, made once and cached
#      (FARCAST_KIOSK_VM_CACHE, default /var/cache/farcast-test/kiosk-vm-root.tar; remade when
#      its recipe or the package's dependencies change; about 3.5 min),
#   2. Farcast's .deb (KIOSK_DEB, else out/farcast_*_amd64.deb, built by scripts/package.sh if
#      missing or older than the sources) installed into a copy with apt, /etc/farcast/kiosk.conf
#      pointing at the VM's own Xvnc (VncAuth on 127.0.0.1:1, 1280x800, a flat test scene),
#      `systemctl enable farcast-kiosk` as README.md says, and an ext4 disk image made from it,
#   3. boots it: direct kernel boot, virtio disk, virtio-gpu at 1280x800 (/dev/dri/card0), serial
#      console to a log, QMP for screendumps, a command agent on a virtio-serial port. KVM when
#      it boots the guest; when QEMU fails or the guest kernel prints nothing on the serial
#      console within 10 s (a /dev/kvm that opens and then hangs the guest), software emulation
#      (TCG with -cpu Westmere: -cpu max crashes Mesa's JIT in every SDL program),
#   4. checks: the kiosk comes up at boot as farcast-kiosk on KMSDRM (active: the viewer said
#      READY=1; the user; /dev/dri/card0 held as DRM master; getty@tty1 gone), QEMU's screendump
#      equals Xvnc's own screen (xwd), which is the scene's PNG, pixel for pixel; text written to
#      tty1 and kernel messages do not show; the console does not blank; with Xvnc stopped and
#      started again the same viewer shows the desktop again; a viewer frozen with SIGSTOP is
#      restarted by systemd's watchdog and shows the desktop again; X509Plain to a second Xvnc
#      (TLS, PAM, as Raspberry Pi OS's wayvnc) as user pi with a long password from kiosk.env;
#      systemd-analyze verify has nothing to say about the unit.
# Takes about 4 min with the cache in software emulation (boot about 45 s), the watchdog's 30 s
# included. Screendumps (PNG), the serial log and the journal are kept in
# FARCAST_KIOSK_ARTIFACTS (default /tmp/farcast-kiosk-vm). FARCAST_KIOSK_TCG=1 skips KVM;
# FARCAST_KIOSK_HOLD=1 keeps the booted VM for commands by hand instead of checking.
# Ends with one line "kiosk-vm: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8
t_start=$(date +%s.%N)
if [ "${FARCAST_SKIP_KIOSK:-0}" = 1 ]; then echo "kiosk-vm: skipped (FARCAST_SKIP_KIOSK=1)"; exit 0; fi
bash scripts/install-deps.sh >/dev/null
source scripts/debian-root.sh

VM_CACHE=${FARCAST_KIOSK_VM_CACHE:-/var/cache/farcast-test/kiosk-vm-root.tar}
ART=${FARCAST_KIOSK_ARTIFACTS:-/tmp/farcast-kiosk-vm}
W=1280 H=800
PI_PASSWORD=raspberry-kiosk-2026   # longer than vncpasswd's 8 characters
WATCHDOG_WAIT=90   # WatchdogSec=30 + TimeoutAbortSec=5 + RestartSec=2 + the viewer's start, with room
passed=0; failed=0; boot_note=
tmp=$(mktemp -d /tmp/farcast-kiosk-vm.XXXXXX)
root=; qemu_pid=
cleanup() {
  if [ -n "$qemu_pid" ]; then stop_vm; fi
  cp "$tmp"/serial.log "$tmp"/qemu-*.log "$ART/" 2>/dev/null || true
  if [ -n "$root" ]; then debian_root_umount "$root"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "kiosk-vm: stopped by a signal"; exit 143' TERM INT
ok() { echo "kiosk-vm: ok   $1"; passed=$((passed + 1)); }
bad() { echo "kiosk-vm: FAIL $1${2:+: $2}"; failed=$((failed + 1)); }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
finish() {
  echo "kiosk-vm: total $(secs "$t_start") s${boot_note:+; $boot_note}"
  echo "kiosk-vm: $passed passed, $failed failed"
  if [ "$failed" = 0 ]; then exit 0; else exit 1; fi
}
mkdir -p "$ART"; rm -f "$ART"/*.png "$ART"/*.log "$ART"/*.txt

# ---- the package
if [ -z "${KIOSK_DEB:-}" ]; then
  KIOSK_DEB=$(ls out/farcast_*_amd64.deb 2>/dev/null | head -n1 || true)
  # older than a source it is built from: made again
  if [ -n "$KIOSK_DEB" ] && [ -n "$(find Sources packaging Package.swift scripts/package.sh -newer "$KIOSK_DEB" -type f | head -n1)" ]; then
    echo "kiosk-vm: $KIOSK_DEB is older than the sources"; KIOSK_DEB=
  fi
  if [ -z "$KIOSK_DEB" ]; then
    t0=$(now)
    echo "kiosk-vm: building the package (scripts/package.sh)"
    nice scripts/package.sh >"$tmp/package.log" 2>&1 || { tail -n 30 "$tmp/package.log"; bad "scripts/package.sh"; finish; }
    KIOSK_DEB=$(ls out/farcast_*_amd64.deb | head -n1)
    ok "scripts/package.sh built $KIOSK_DEB ($(secs "$t0") s)"
  fi
fi
KIOSK_DEB=$(readlink -f "$KIOSK_DEB")
echo "kiosk-vm: package $KIOSK_DEB ($(dpkg-deb -f "$KIOSK_DEB" Version))"

# ---- 1. the VM root, cached
# What the VM has besides the package's own dependencies: kernel and init, Xvnc with its
# password tool, xwd (the server's screen), display(1) and xsetroot (the scene), ps.
VM_PKGS="linux-image-amd64 systemd-sysv udev kmod procps tigervnc-standalone-server tigervnc-tools x11-apps x11-xserver-utils imagemagick"
# The .deb's Depends and Recommends by name (the first of alternatives), as apt would add them.
deb_deps=$(dpkg-deb -f "$KIOSK_DEB" Depends Recommends | sed -n 's/^[A-Za-z]*: //p' | tr ',' '\n' |
  sed 's/|.*//; s/(.*)//; s/ //g' | grep -v '^$' | sort -u | tr '\n' ' ')
recipe="kiosk-vm-root 2: $VM_PKGS; $deb_deps"
if [ -s "$VM_CACHE" ] && [ "$(cat "$VM_CACHE.recipe" 2>/dev/null)" = "$recipe" ]; then
  vm_root_note="from the cache"
else
  t0=$(now)
  echo "kiosk-vm: making the VM root (once; cached in $VM_CACHE)"
  [ -s "$FARCAST_ROOT_CACHE" ] || echo "kiosk-vm: making the Debian 12 root first (debootstrap; cached in $FARCAST_ROOT_CACHE)"
  debian_root_tar "$tmp/debootstrap.log" >/dev/null || { bad "debootstrap bookworm"; finish; }
  root=$tmp/base
  debian_root_extract "$FARCAST_ROOT_CACHE" "$root"
  debian_root_mount "$root"
  # shellcheck disable=SC2086
  if ! in_debian_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $VM_PKGS $deb_deps" \
      >"$tmp/base-apt.log" 2>&1; then
    tail -n 30 "$tmp/base-apt.log"; bad "apt installs the VM's packages"; finish
  fi
  debian_root_umount "$root"
  # Smaller and quicker to copy: no package archives, lists, documentation, translations, nor
  # modules for hardware a QEMU guest without network or sound never has (the initrd is made).
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/usr/share/info/*
  for k in "$root"/usr/lib/modules/*; do
    rm -rf "$k"/kernel/sound "$k"/kernel/drivers/{media,infiniband,staging,iio,bluetooth,net/wireless,net/ethernet} \
      "$k"/kernel/drivers/gpu/drm/{amd,nouveau,i915,radeon} "$k"/kernel/net/{wireless,bluetooth,mac80211}
    chroot "$root" depmod -a "$(basename "$k")"
  done
  # Quicker to boot, above all in software emulation: an initrd with only what mounts a virtio
  # disk, and the first boot's chores done here (hardware database, machine id, the stamps
  # that tell systemd /etc and /var are up to date).
  printf 'virtio_pci\nvirtio_blk\next4\n' >"$root/etc/initramfs-tools/modules"
  sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
  debian_root_mount "$root"
  in_debian_root "$root" sh -c 'update-initramfs -u -k all && systemd-hwdb update && systemd-machine-id-setup && journalctl --update-catalog' \
    >"$tmp/base-initramfs.log" 2>&1 || { tail -n 20 "$tmp/base-initramfs.log"; bad "update-initramfs in the VM root"; finish; }
  debian_root_umount "$root"
  touch "$root/etc/.updated" "$root/var/.updated"
  tar -C "$root" -cf "$VM_CACHE.part" . && mv "$VM_CACHE.part" "$VM_CACHE" && echo "$recipe" >"$VM_CACHE.recipe"
  rm -rf "$root"; root=
  vm_root_note="made in $(secs "$t0") s and cached"
fi

# ---- 2. this run's root: the package installed, the kiosk configured and enabled
t0=$(now)
root=$tmp/root
debian_root_extract "$VM_CACHE" "$root"
debian_root_mount "$root"
cp "$KIOSK_DEB" "$root/tmp/farcast.deb"
# everything it needs is in the root already; apt fetches only if the package asks for more
if in_debian_root "$root" sh -c 'apt-get install -y -qq /tmp/farcast.deb || { apt-get update -qq && apt-get install -y -qq /tmp/farcast.deb; }' \
    >"$tmp/apt.log" 2>&1; then
  ok "apt installs the package in the VM root ($(secs "$t0") s with unpacking the root)"
else
  tail -n 30 "$tmp/apt.log"; bad "apt installs the package in the VM root"; finish
fi
rm -f "$root/tmp/farcast.deb" "$root/usr/sbin/policy-rc.d"
debian_root_umount "$root"

# The server's password in vncpasswd's format: Xvnc's -PasswordFile and the kiosk's password-file.
printf 'kiosk-pw\nkiosk-pw\n' | vncpasswd -f >"$tmp/passwd" 2>/dev/null
install -D -m 0600 "$tmp/passwd" "$root/etc/farcast-test/xvnc.passwd"
install -m 0640 "$tmp/passwd" "$root/etc/farcast/kiosk.password"
chroot "$root" chown root:farcast-kiosk /etc/farcast/kiosk.password
# kiosk.conf keeps the package's mode and owner (0640 root:farcast-kiosk, dpkg-statoverride)
cat >"$root/etc/farcast/kiosk.conf" <<'EOF'
# The VM test's kiosk: the VM's own Xvnc
host = 127.0.0.1:1
password-file = /etc/farcast/kiosk.password
security = VncAuth
menu = locked
EOF

# A flat scene (few colours per tile, aliased text: what Xvnc sends stays lossless even with
# the kiosk's default JPEG quality), with a one-pixel frame at the display's very edges.
mkdir -p "$root/usr/local/share/farcast-test"
F=/usr/share/fonts/truetype/dejavu
convert -size ${W}x${H} xc:'#20303f' +antialias \
  -fill '#e8e4d8' -draw 'rectangle 40,40 620,380' \
  -fill '#101010' -font "$F/DejaVuSans-Bold.ttf" -pointsize 40 -annotate +64+110 'Farcast kiosk' \
  -font "$F/DejaVuSans.ttf" -pointsize 20 -annotate +64+160 "the VM's own Xvnc, ${W}x${H}, VncAuth" \
  -font "$F/DejaVuSansMono.ttf" -pointsize 16 -annotate +64+200 'ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789' \
  -annotate +64+230 'abcdefghijklmnopqrstuvwxyz {}[]()<>/|;:,.!?' \
  -fill '#c03020' -draw 'rectangle 660,40 820,200' -fill '#20a040' -draw 'rectangle 840,40 1000,200' \
  -fill '#2040c0' -draw 'rectangle 1020,40 1240,200' -fill '#ffffff' -draw 'rectangle 660,220 820,380' \
  -fill '#000000' -draw 'rectangle 840,220 1000,380' -fill '#ffd040' -draw 'circle 1130,300 1200,300' \
  \( -size 300x200 pattern:checkerboard \) -geometry +40+440 -composite \
  \( -size 300x200 pattern:gray50 \) -geometry +360+440 -composite \
  \( -size 300x200 pattern:hs_diagcross \) -geometry +680+440 -composite \
  -fill '#f0f0f0' -font "$F/DejaVuSans-Bold.ttf" -pointsize 28 -annotate +60+720 'No text console shows through this.' \
  -stroke '#ff40ff' -draw 'line 1000,440 1240,640' -fill none -draw "rectangle 0,0 $((W - 1)),$((H - 1))" \
  -alpha off -depth 8 -strip "PNG24:$root/usr/local/share/farcast-test/scene.png"
cp "$root/usr/local/share/farcast-test/scene.png" "$ART/scene.png"

cat >"$root/usr/local/bin/farcast-test-scene" <<'EOF'
#!/bin/sh
# farcast-test-scene DISPLAY: paints the test scene on an Xvnc's root window once the server
# answers; an empty cursor.
export DISPLAY=$1
blank=/run/farcast-test-blank$1.xbm
printf '#define b_width 8\n#define b_height 8\n#define b_x_hot 0\n#define b_y_hot 0\nstatic char b_bits[] = {\n 0, 0, 0, 0, 0, 0, 0, 0 };\n' >"$blank"
for i in $(seq 300); do xsetroot -cursor "$blank" "$blank" 2>/dev/null && break; sleep 0.1; done
# display(1) sets the root window's background and exits (with status 1, though it painted)
timeout 60 display -window root /usr/local/share/farcast-test/scene.png || true
EOF
cat >"$root/etc/systemd/system/farcast-test-xvnc.service" <<EOF
[Unit]
Description=The VM test's desktop: TigerVNC Xvnc on 127.0.0.1:5901 (VncAuth) showing the test scene
[Service]
ExecStart=/usr/bin/Xvnc :1 -rfbport 5901 -localhost -SecurityTypes VncAuth -PasswordFile /etc/farcast-test/xvnc.passwd -geometry ${W}x${H} -depth 24 -AlwaysShared -nolisten tcp
ExecStartPost=/usr/local/bin/farcast-test-scene :1
[Install]
WantedBy=multi-user.target
EOF
# As Raspberry Pi OS's wayvnc: TLS with a self-signed certificate, then a user's name and
# password checked by PAM (VeNCrypt X509Plain), here for the user pi with a long password.
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=farcast-kiosk-vm \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1
install -m 0600 "$tmp/key.pem" "$tmp/cert.pem" "$root/etc/farcast-test/"
chroot "$root" useradd -m -s /bin/bash pi
echo "pi:$PI_PASSWORD" | chroot "$root" chpasswd
cat >"$root/etc/systemd/system/farcast-test-xvnc-tls.service" <<EOF
[Unit]
Description=The VM test's login desktop: Xvnc on 127.0.0.1:5902, X509Plain with PAM (user pi)
[Service]
ExecStart=/usr/bin/Xvnc :2 -rfbport 5902 -localhost -SecurityTypes X509Plain -X509Cert /etc/farcast-test/cert.pem -X509Key /etc/farcast-test/key.pem -PlainUsers pi -PAMService tigervnc -geometry ${W}x${H} -depth 24 -AlwaysShared -nolisten tcp
ExecStartPost=/usr/local/bin/farcast-test-scene :2
[Install]
WantedBy=multi-user.target
EOF
cat >"$root/usr/local/sbin/farcast-test-agent" <<'EOF'
#!/bin/bash
# The VM test's hands inside the guest: reads "ID BASE64(COMMAND)" lines from the virtio-serial
# port farcast.agent, runs each with bash, answers "ID STATUS BASE64(OUTPUT)".
port=/dev/virtio-ports/farcast.agent
while [ ! -e "$port" ]; do sleep 0.1; done
exec 3<>"$port"
while true; do
  if IFS=' ' read -r id cmd <&3; then
    out=$(printf '%s' "$cmd" | base64 -d | timeout 300 bash 2>&1 | base64 -w0; exit "${PIPESTATUS[2]}")
    printf '%s %s %s\n' "$id" "$?" "$out" >&3
  else
    sleep 0.1   # the host is not connected
  fi
done
EOF
cat >"$root/etc/systemd/system/farcast-test-agent.service" <<'EOF'
[Unit]
Description=The VM test's command agent (virtio-serial port farcast.agent)
[Service]
ExecStart=/usr/local/sbin/farcast-test-agent
Restart=always
RestartSec=1
[Install]
WantedBy=multi-user.target
EOF
chmod 0755 "$root/usr/local/bin/farcast-test-scene" "$root/usr/local/sbin/farcast-test-agent"
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$root/etc/fstab"
echo farcast-kiosk-vm >"$root/etc/hostname"
# As README.md says: the unit is installed, not enabled; enabling it is the one step.
if [ "$(chroot "$root" systemctl is-enabled farcast-kiosk.service 2>/dev/null)" = disabled ]; then
  ok "the package installs farcast-kiosk.service disabled"
else
  bad "the package installs farcast-kiosk.service disabled" "$(chroot "$root" systemctl is-enabled farcast-kiosk.service 2>&1)"
fi
chroot "$root" systemctl enable -q farcast-kiosk.service farcast-test-xvnc.service farcast-test-agent.service
# Less to do at boot (in software emulation every service costs seconds): no scrub of LVM
# snapshots, no gettys on tty2-6, no module loading this VM does not need.
chroot "$root" systemctl mask -q e2scrub_reap.service e2scrub_all.timer getty-static.service \
  modprobe@dm_mod.service modprobe@fuse.service modprobe@loop.service modprobe@efi_pstore.service \
  apt-daily.timer apt-daily-upgrade.timer man-db.timer fstrim.timer dpkg-db-backup.timer
kernel=$(ls "$root"/boot/vmlinuz-* | head -n1); initrd=$(ls "$root"/boot/initrd.img-* | head -n1)
cp "$kernel" "$tmp/vmlinuz"; cp "$initrd" "$tmp/initrd"
mb=$(du -sm "$root" | cut -f1)
truncate -s $((mb * 13 / 10 + 300))M "$tmp/disk.img"
mkfs.ext4 -q -F -L farcast-vm -d "$root" "$tmp/disk.img"
rm -rf "$root"; root=
prep_time=$(secs "$t0")
echo "kiosk-vm: VM root ${mb} MB ($vm_root_note), disk image made in $prep_time s"

# ---- 3. boot
agent() { python3 scripts/kiosk-vm.py run "$tmp/agent.sock" --timeout "${AGENT_TIMEOUT:-60}" -- "$1"; }
boot() {  # accel: kvm or tcg
  local accel=$1 cpu
  if [ "$accel" = kvm ]; then cpu=host; else cpu=Westmere; fi
  rm -f "$tmp/serial.log" "$tmp/qmp.sock" "$tmp/agent.sock" "$tmp/qemu.pid"
  # in a subshell whose stderr is the log: a QEMU that aborts (KVM refusing -cpu host's MSRs)
  # is reported there, not on the terminal
  ( qemu-system-x86_64 -pidfile "$tmp/qemu.pid" -machine q35,accel="$accel" -cpu "$cpu" -smp 2 -m 1024 -no-reboot \
    -kernel "$tmp/vmlinuz" -initrd "$tmp/initrd" \
    -append "root=/dev/vda rw console=tty0 console=ttyS0,115200 panic=-1" \
    -drive file="$tmp/disk.img",format=raw,if=virtio,cache=unsafe \
    -vga none -device virtio-gpu-pci,xres=$W,yres=$H -display none \
    -device virtio-keyboard-pci -device virtio-tablet-pci -nic none \
    -serial file:"$tmp/serial.log" -qmp unix:"$tmp/qmp.sock",server=on,wait=off \
    -device virtio-serial-pci -chardev socket,id=agent,path="$tmp/agent.sock",server=on,wait=off \
    -device virtserialport,chardev=agent,name=farcast.agent
    echo "qemu: exit status $?" ) >"$tmp/qemu-$accel.log" 2>&1 &
  qemu_pid=$!   # the subshell: it ends when QEMU does
}
stop_vm() {
  if [ -s "$tmp/qemu.pid" ]; then kill "$(cat "$tmp/qemu.pid")" 2>/dev/null || true; fi
  wait "$qemu_pid" 2>/dev/null || true
  qemu_pid=
}
# serial_within S: the guest kernel printed within S seconds
serial_within() {
  local i
  for i in $(seq 1 $(($1 * 10))); do
    grep -q "Linux version" "$tmp/serial.log" 2>/dev/null && return 0
    kill -0 "$qemu_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
t_boot=$(now); accel=
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ "${FARCAST_KIOSK_TCG:-0}" != 1 ]; then
  boot kvm
  if serial_within 10 && python3 scripts/kiosk-vm.py wait "$tmp/agent.sock" 90; then
    accel=kvm
  else
    echo "kiosk-vm: KVM did not boot the guest (serial: $(wc -c <"$tmp/serial.log" 2>/dev/null || echo 0) bytes): software emulation instead"
    cp "$tmp/serial.log" "$ART/serial-kvm.log" 2>/dev/null || true
    stop_vm; t_boot=$(now)
  fi
fi
if [ -z "$accel" ]; then
  boot tcg
  if serial_within 60 && python3 scripts/kiosk-vm.py wait "$tmp/agent.sock" 400; then accel=tcg; fi
fi
if [ -z "$accel" ]; then
  cp "$tmp/serial.log" "$ART/serial.log" 2>/dev/null || true
  tail -n 30 "$tmp/serial.log" 2>/dev/null || true
  bad "the VM boots" "no agent; serial log in $ART"; finish
fi
boot_time=$(secs "$t_boot")
slow=1; [ "$accel" = tcg ] && slow=4
ok "the VM boots with $accel in $boot_time s (to the test agent)"

# ---- 4. the checks (each says what failed; none stops the others)
set +e
if [ "${FARCAST_KIOSK_HOLD:-0}" = 1 ]; then  # development: keep the VM up, drive it by hand
  echo "kiosk-vm: holding the VM (pid $qemu_pid): python3 scripts/kiosk-vm.py run $tmp/agent.sock -- 'COMMAND'"
  echo "kiosk-vm:   python3 scripts/kiosk-vm.py screendump $tmp/qmp.sock OUT.ppm; Ctrl+C or kill $$ ends it"
  while kill -0 "$qemu_pid" 2>/dev/null; do sleep 1; done
  finish
fi
dump() {  # NAME: QEMU's screendump as $ART/NAME.png
  python3 scripts/kiosk-vm.py screendump "$tmp/qmp.sock" "$tmp/$1.ppm" && convert "$tmp/$1.ppm" "$ART/$1.png"
}
server_screen() {  # NAME [DISPLAY]: an Xvnc's own screen (xwd in the guest) as $ART/NAME.png
  local rc
  AGENT_TIMEOUT=120 agent "xwd -root -silent -display ${2:-:1} -out /run/farcast-test.xwd && gzip -1c /run/farcast-test.xwd" >"$tmp/$1.xwd.gz"
  rc=$?
  if [ $rc != 0 ] || ! gunzip -c "$tmp/$1.xwd.gz" >"$tmp/$1.xwd" 2>/dev/null || ! convert "$tmp/$1.xwd" "$ART/$1.png"; then
    echo "no xwd of ${2:-:1} from the guest (status $rc: $(head -c 200 "$tmp/$1.xwd.gz" | tr -cd '[:print:]'))"
    return 1
  fi
}
# shows_desktop NAME SECONDS [DISPLAY]: until the server shows the test scene (its own screen,
# xwd, is the scene's PNG exactly) and QEMU's screendump equals the server's screen
shows_desktop() {
  local name=$1 deadline=$(( $(date +%s) + $2 )) display=${3:-:1} out scene=no
  while :; do
    if [ $scene = no ]; then
      server_screen "$name-server" "$display" || return 1
      python3 scripts/kiosk-vm.py same "$ART/$name-server.png" "$ART/scene.png" >/dev/null && scene=yes
    fi
    if [ $scene = yes ]; then
      dump "$name" || { echo "no screendump"; return 1; }
      out=$(python3 scripts/kiosk-vm.py same "$ART/$name.png" "$ART/$name-server.png") && { echo "$out, the scene"; return 0; }
    else
      out="the server does not show the scene yet"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || { echo "$out"; return 1; }
    sleep 1
  done
}
kiosk_prop() { agent "systemctl show -p $1 --value farcast-kiosk.service"; }
# kiosk_active SECONDS: the unit active (Type=notify: the viewer said READY=1)
kiosk_active() {
  local deadline=$(( $(date +%s) + $1 ))
  until [ "$(kiosk_prop ActiveState)" = active ]; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}
# kiosk_restarted OLDPID SECONDS: active again with another main process
kiosk_restarted() {
  local deadline=$(( $(date +%s) + $2 )) p
  while :; do
    p=$(kiosk_prop MainPID)
    [ "$p" != "$1" ] && [ "$p" != 0 ] && [ "$(kiosk_prop ActiveState)" = active ] && return 0
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 1
  done
}

if kiosk_active $((60 * slow)); then
  ok "farcast-kiosk.service active at boot, $(secs "$t_boot") s after QEMU started (READY=1 from the viewer)"
else
  bad "farcast-kiosk.service active at boot" "$(agent 'systemctl status --no-pager -n 30 farcast-kiosk')"
fi
pid=$(kiosk_prop MainPID)
as_user() {
  local who cmd env drm
  who=$(agent "ps -o user= -p $pid"); cmd=$(agent "tr '\\0' ' ' </proc/$pid/cmdline")
  env=$(agent "tr '\\0' '\\n' </proc/$pid/environ | grep SDL_VIDEODRIVER")
  drm=$(agent "ls -l /proc/$pid/fd | grep -o '/dev/dri/card0' | head -n1; grep -E '^ *farcast +$pid ' /sys/kernel/debug/dri/0/clients")
  echo "pid $pid user $who: $cmd; $env; $(echo "$drm" | tr '\n' ' ')"
  [ "$who" = farcast-kiosk ] && [[ $cmd == "/usr/bin/farcast kiosk"* ]] && [ "$env" = SDL_VIDEODRIVER=kmsdrm ] &&
    echo "$drm" | grep -q /dev/dri/card0 &&
    # debugfs: "command pid dev master a uid magic": master y
    echo "$drm" | awk -v p="$pid" '$2 == p { exit !($4 == "y") }'
}
if out=$(as_user); then ok "the viewer runs as farcast-kiosk on KMSDRM, DRM master of /dev/dri/card0 ($out)"; else bad "the viewer runs as farcast-kiosk on KMSDRM" "$out"; fi
getty=$(agent "systemctl is-active getty@tty1.service" || true)
if [ "$getty" != active ]; then ok "getty@tty1 gave way to the kiosk (getty@tty1: $getty)"; else bad "getty@tty1 gave way to the kiosk"; fi
input=$(agent "ls -l /proc/$pid/fd | grep -c /dev/input/event || true")
if [ "${input:-0}" -gt 0 ]; then ok "the viewer reads input devices as farcast-kiosk ($input /dev/input/event* open)"; else bad "the viewer reads input devices" "none open"; fi

t0=$(now)
if out=$(shows_desktop desktop $((60 * slow))); then
  ok "QEMU's screendump is the server's screen, pixel for pixel ($out; $(secs "$t0") s after the unit was active)"
else
  bad "QEMU's screendump is the server's screen" "$out"
fi

# Text on the console: a line to tty1, a kernel message at a level every console shows.
agent "echo 'FARCAST TEST: TEXT ON TTY1' >/dev/tty1; echo '<2>farcast-test: a kernel message on the console' >/dev/kmsg" >/dev/null
sleep 2
if out=$(shows_desktop console 5); then ok "text written to tty1 and kernel messages do not show ($out)"; else bad "text written to tty1 and kernel messages do not show" "$out"; fi
blank=$(agent "cat /sys/module/kernel/parameters/consoleblank")
if [ "$blank" = 0 ]; then ok "the console does not blank (consoleblank $blank)"; else bad "the console does not blank" "consoleblank $blank"; fi

# The server goes away and comes back: the same viewer reconnects by itself.
agent "systemctl stop farcast-test-xvnc.service" >/dev/null
changed=no
for _ in $(seq 1 $((20 * slow))); do
  sleep 1
  dump reconnecting
  python3 scripts/kiosk-vm.py same "$ART/reconnecting.png" "$ART/desktop-server.png" >/dev/null || { changed=yes; break; }
done
sleep 3
agent "systemctl start --no-block farcast-test-xvnc.service" >/dev/null
t0=$(now)
if [ "$changed" = yes ] && out=$(shows_desktop reconnected $((60 * slow))) && [ "$(kiosk_prop MainPID)" = "$pid" ]; then
  ok "with Xvnc stopped the screen changes (reconnecting), started again the same viewer shows the desktop ($out; $(secs "$t0") s)"
else
  bad "the kiosk reconnects by itself" "screen changed when stopped: $changed; ${out:-}; MainPID $(kiosk_prop MainPID) (was $pid)"
fi

# A frozen viewer: systemd's watchdog (WatchdogSec) kills it and the unit starts it again.
restarts=$(kiosk_prop NRestarts)
agent "kill -STOP $pid" >/dev/null
t0=$(now)
kiosk_restarted "$pid" $((WATCHDOG_WAIT * slow))
restarted=$(secs "$t0"); newpid=$(kiosk_prop MainPID)
why=$(agent "journalctl -b -u farcast-kiosk.service --no-pager -o cat | grep -i -m1 'watchdog timeout'" || true)
if [ "$newpid" != "$pid" ] && [ "$newpid" != 0 ] && [ -n "$why" ] && out=$(shows_desktop watchdog $((60 * slow))); then
  ok "a frozen viewer (SIGSTOP) is restarted by the watchdog in $restarted s (\"$why\"; pid $pid -> $newpid, restarts $restarts -> $(kiosk_prop NRestarts)) and shows the desktop ($out)"
else
  bad "a frozen viewer is restarted by the watchdog" "pid $pid -> $newpid after $restarted s; journal: ${why:-no watchdog timeout}; ${out:-}"
fi

# The Raspberry Pi's way in: X509Plain, a user's long password from /etc/farcast/kiosk.env
# (root only), the server's self-signed certificate remembered in the kiosk's StateDirectory.
pid=$(kiosk_prop MainPID)
agent "systemctl start --no-block farcast-test-xvnc-tls.service
       printf 'host = 127.0.0.1:2\nusername = pi\nsecurity = X509Plain\n' >/etc/farcast/kiosk.conf
       install -m 0600 /dev/null /etc/farcast/kiosk.env && echo 'VNC_PASSWORD=$PI_PASSWORD' >/etc/farcast/kiosk.env
       systemctl restart --no-block farcast-kiosk.service" >/dev/null
t0=$(now)
if kiosk_restarted "$pid" $((60 * slow)) && out=$(shows_desktop login $((60 * slow)) :2) &&
    known=$(agent "grep -h 127.0.0.1 /var/lib/farcast-kiosk/farcast/known_hosts"); then
  ok "X509Plain as user pi with a ${#PI_PASSWORD}-character password from kiosk.env: the desktop ($out; $(secs "$t0") s); known_hosts: $(echo "$known" | grep 5902 | cut -c1-40 | paste -sd';')"
else
  bad "X509Plain as user pi with the password from kiosk.env" "${out:-} $(agent 'journalctl -b -u farcast-kiosk.service --no-pager -n 15 -o cat; ls -lR /var/lib/farcast-kiosk')"
fi

verify=$(agent "systemd-analyze verify farcast-kiosk.service 2>&1" || true)
if [ -z "$verify" ]; then ok "systemd-analyze verify farcast-kiosk.service: nothing to say"; else bad "systemd-analyze verify farcast-kiosk.service" "$verify"; fi
exposure=$(agent "systemd-analyze security --no-pager farcast-kiosk.service 2>/dev/null | tail -n1" || true)
echo "kiosk-vm: systemd-analyze security: ${exposure:-?}"

AGENT_TIMEOUT=120 agent "systemd-analyze; systemd-analyze blame | head -n 25; lsmod" >"$ART/boot.txt" 2>/dev/null || true
agent "journalctl -b --no-pager" >"$ART/journal.txt" 2>/dev/null || true
agent "journalctl -b -u farcast-kiosk.service --no-pager" >"$ART/kiosk-journal.txt" 2>/dev/null || true
stop_vm   # the disk image is thrown away: no need to shut down
cp "$tmp/serial.log" "$ART/serial.log" 2>/dev/null || true
boot_note="boot $boot_time s with $accel, image $prep_time s; screendumps, journal and serial log in $ART"
finish
