#!/usr/bin/env bash
# Tests under a sanitizer, each in its own scratch path (.build/tsan, .build/asan), so the normal
# build is left as it is:
#   scripts/sanitize.sh thread    ThreadSanitizer: the session and transport tests (VNCSessionTests:
#                                 the session thread, its commands and transports) and the RFB tests
#                                 that use more than one thread (decode workers, H.264 outside the
#                                 framebuffer lock, the engine, TLS close); the single-threaded
#                                 decoder vectors run under AddressSanitizer only
#   scripts/sanitize.sh address   AddressSanitizer (and LeakSanitizer): the decoder, engine and
#                                 mutation tests (RFBTests) and FarcastToolsTests
#   scripts/sanitize.sh all       both
# Extra arguments go to `swift test` in place of the default selection (e.g. --filter SessionTests).
# Any report fails the run. scripts/test.sh runs `all` unless FARCAST_SKIP_SANITIZE=1. The tests
# see FARCAST_SANITIZER (thread, address): a test too slow under a sanitizer may run a part there.
set -euo pipefail
cd "$(dirname "$0")/.."

run() {
  local san=$1 scratch=$2; shift 2
  local log=.build/sanitize-$san.log start=$SECONDS
  mkdir -p .build
  if ! nice -n 10 swift build --build-tests --scratch-path "$scratch" --sanitize="$san" >"$log" 2>&1; then
    grep -vE 'prohibited flag' "$log" | tail -30
    echo "sanitize: $san build failed (log: $log)"; exit 1
  fi
  echo "sanitize: $san build $((SECONDS - start)) s"
  start=$SECONDS
  # halt on the first report: a race or a memory error fails the test run, not just a log line
  local status=0
  FARCAST_SANITIZER=$san TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1} \
    LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0} \
    swift test --skip-build --scratch-path "$scratch" --sanitize="$san" "$@" >"$log.test" 2>&1 || status=$?
  grep -E 'Executed [0-9]+ tests?, with|error:|Sanitizer|^SUMMARY' "$log.test" | tail -12 || true
  echo "sanitize: $san tests $((SECONDS - start)) s, exit $status (log: $log.test)"
  return "$status"
}

thread() {
  if [ $# -gt 0 ]; then run thread .build/tsan "$@"; else run thread .build/tsan --filter 'VNCSessionTests|ParallelDecodeTests|MemoryBudgetTests|H264DecoderTests|H264LimitTests|EngineTests|TLSCloseTests'; fi
}
address() {
  if [ $# -gt 0 ]; then run address .build/asan "$@"; else run address .build/asan --filter 'RFBTests|FarcastToolsTests'; fi
}

case "${1:-}" in
  thread) shift; thread "$@" ;;
  address) shift; address "$@" ;;
  all) shift; failed=0; thread "$@" || failed=1; address "$@" || failed=1; exit $failed ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
