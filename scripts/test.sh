#!/usr/bin/env bash
# Builds Farcast and runs the whole test suite (unit, decoder vectors, interop against real
# Xvnc/x11vnc started on loopback by the tests). Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
# XCTest runs the suites in one process; interop tests start and stop their own servers.
swift test --skip-build "$@"
