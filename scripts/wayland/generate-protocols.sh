#!/usr/bin/env bash
# Regenerates the Wayland protocol code committed in Sources/CWaylandKeyboard from Debian's
# wayland-protocols XML (1.31) with wayland-scanner (package wayland-scanner / libwayland-dev).
#   scripts/wayland/generate-protocols.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
xml=/usr/share/wayland-protocols/unstable/keyboard-shortcuts-inhibit/keyboard-shortcuts-inhibit-unstable-v1.xml
out=Sources/CWaylandKeyboard
wayland-scanner client-header "$xml" "$out/include/keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
wayland-scanner private-code "$xml" "$out/keyboard-shortcuts-inhibit-unstable-v1-protocol.c"
