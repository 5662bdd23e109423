#!/usr/bin/env bash
# Builds Farcast and runs the whole test suite (unit, decoder vectors, interop against real
# Xvnc/x11vnc started on loopback by the tests), the decoder suites again with zlib inflating
# instead of ISA-L (scripts/inflate-check.sh: the recordings with each), then every fuzz target for a bounded time
# (scripts/fuzz.sh --ci: FARCAST_FUZZ_SECONDS each), the sanitizer runs (scripts/sanitize.sh all:
# ThreadSanitizer and AddressSanitizer), the package checks (scripts/test-package.sh: builds
# the .deb, validates it, installs it into a Debian 12 root) and the kiosk in a virtual machine
# (scripts/test-kiosk-vm.sh: the package's farcast-kiosk unit booted in QEMU, its screen against
# the server's). Installs what it needs first. With arguments (e.g. --filter X) they go to
# `swift test` and the fuzz, sanitizer, package and kiosk runs are left out; FARCAST_SKIP_FUZZ=1,
# FARCAST_SKIP_SANITIZE=1 and FARCAST_SKIP_PACKAGE=1 (the package and the kiosk) leave out one
# each, FARCAST_SKIP_KIOSK=1 only the kiosk's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
# XCTest runs the suites in one process; interop tests start and stop their own servers.
swift test --skip-build "$@"
if [ $# -eq 0 ]; then
  # the other inflate engine (ISA-L is the default where it loads): the decoder and tools
  # suites again with zlib, and every shared recording's final frame the same with each
  FARCAST_INFLATE=zlib swift test --skip-build --filter 'RFBTests|FarcastToolsTests'
  bash scripts/inflate-check.sh
fi
if [ $# -eq 0 ] && [ "${FARCAST_SKIP_FUZZ:-0}" != 1 ]; then
  bash scripts/fuzz.sh --ci
fi
if [ $# -eq 0 ] && [ "${FARCAST_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/sanitize.sh all
fi
if [ $# -eq 0 ] && [ "${FARCAST_SKIP_PACKAGE:-0}" != 1 ]; then
  bash scripts/test-package.sh
  # Bounded: about 6 min once its VM root is cached (the first run makes it: add 2-12 min);
  # the passer-by checks are its long mode (FARCAST_KIOSK_FULL=1), run by hand.
  timeout --kill-after=20 "${FARCAST_KIOSK_TIMEOUT:-1500}" bash scripts/test-kiosk-vm.sh
fi
