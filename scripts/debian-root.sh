# Sourced by scripts/test-package.sh and scripts/test-kiosk-vm.sh: a fresh Debian 12 root made
# once with debootstrap (minbase) and cached as a tar outside the work tree, and the chroot
# helpers both tests use. Needs root (debootstrap, chroot, mounts).
#   FARCAST_ROOT_CACHE  the tar (default /var/cache/farcast-test/bookworm-root.tar)
#   DEBIAN_MIRROR       where debootstrap and apt fetch from (default deb.debian.org)

FARCAST_ROOT_CACHE=${FARCAST_ROOT_CACHE:-/var/cache/farcast-test/bookworm-root.tar}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# debian_root_tar LOG: makes $FARCAST_ROOT_CACHE unless it is there; says which on stdout.
debian_root_tar() {
  local log=$1 made
  if [ -s "$FARCAST_ROOT_CACHE" ]; then echo "from the cache"; return 0; fi
  mkdir -p "$(dirname "$FARCAST_ROOT_CACHE")"
  made=$(mktemp -d "$(dirname "$FARCAST_ROOT_CACHE")/make-root.XXXXXX")
  if ! debootstrap --variant=minbase bookworm "$made" "$DEBIAN_MIRROR" >"$log" 2>&1; then
    rm -rf "$made"; tail -n 20 "$log" >&2; return 1
  fi
  rm -rf "$made/var/cache/apt/archives/"*.deb "$made/var/lib/apt/lists/"*_Packages
  tar -C "$made" -cf "$FARCAST_ROOT_CACHE.part" . && mv "$FARCAST_ROOT_CACHE.part" "$FARCAST_ROOT_CACHE"
  rm -rf "$made"
  echo "made with debootstrap and cached in $FARCAST_ROOT_CACHE"
}

# debian_root_extract TAR DIR: unpacks a root and makes apt usable in it (sources, resolver,
# no services started by packages).
debian_root_extract() {
  local tar=$1 root=$2
  mkdir -p "$root"
  tar -C "$root" -xf "$tar"
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb http://deb.debian.org/debian-security bookworm-security main\n' \
    "$DEBIAN_MIRROR" "$DEBIAN_MIRROR" >"$root/etc/apt/sources.list"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
}

debian_root_mount() {
  local root=$1
  mount -t proc proc "$root/proc"; mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"
  mount -t sysfs sys "$root/sys"
}

debian_root_umount() {
  local root=$1 m
  for m in dev/pts dev proc sys; do umount -l "$root/$m" 2>/dev/null || true; done
}

# in_debian_root DIR COMMAND...: runs a command in the root with a clean environment.
in_debian_root() {
  local root=$1; shift
  chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
