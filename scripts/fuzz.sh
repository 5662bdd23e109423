#!/usr/bin/env bash
# libFuzzer targets (Fuzz/Targets): builds the fuzz binary (-sanitize=fuzzer,address) in
# .build/fuzz, seeds each target from hand-made inputs and the recorded sessions in
# ../shared/corpus, runs libFuzzer under nice and prints the executions. Fails on a crash, leak,
# timeout or out-of-memory, keeping the input in .build/fuzz-crashes/TARGET/.
#
#   scripts/fuzz.sh --list                       the targets
#   scripts/fuzz.sh TARGET SECONDS [FLAGS...]    one target (FLAGS go to libFuzzer)
#   scripts/fuzz.sh all SECONDS [FLAGS...]       every target in turn
#   scripts/fuzz.sh --ci                         every target for FARCAST_FUZZ_SECONDS (3) each
#   scripts/fuzz.sh campaign TARGET...           each target in turn, 10-minute runs at nice 19,
#                                                until the ledger holds FARCAST_FUZZ_GOAL (10^7) runs
#   scripts/fuzz.sh --ledger                     runs recorded per target (all runs, all sessions)
#
# Every run that ends is added to Fuzz/ledger.tsv (date, target, runs, seconds, result, commit;
# --ci's short runs go to .build/fuzz-logs/ci-ledger.tsv instead): a long campaign is many runs
# over sessions and machines on a corpus that keeps growing, and the ledger is what says how many
# inputs a target has seen without a finding. It is kept in git because .build is not: commit it
# with the campaign's session. Runs count towards a target's goal only on code that still holds.
# Each target keeps its corpus in .build/fuzz-corpus/TARGET (outside git), so long runs build
# on each other. One fuzzer runs at a time: the machine is shared with builds.
# FARCAST_FUZZ_NO_BUILD=1 uses the binary as it is (a long run while the sources change).
# Reproduce: FARCAST_FUZZ_TARGET=TARGET .build/fuzz/release/farcast-fuzz CRASH-FILE
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/fuzz/release/farcast-fuzz
SEEDS=.build/fuzz-seeds
CORPUS_DIR=${FARCAST_CORPUS_DIR:-../shared/corpus}
LEDGER=${FARCAST_FUZZ_LEDGER:-Fuzz/ledger.tsv}

build() {
  local log=.build/fuzz-build.log
  mkdir -p .build
  if [ "${FARCAST_FUZZ_NO_BUILD:-0}" = 1 ] && [ -x $BIN ]; then
    :
  elif ! nice -n 15 swift build -c release --scratch-path .build/fuzz --product farcast-fuzz \
      -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >"$log" 2>&1; then
    grep -vE 'prohibited flag|Cannot export local symbol' "$log" | tail -40
    echo "fuzz: build failed (full log: $log)"; exit 1
  else
    # the ledger names the code the binary was built from, not the checkout of the moment
    # ("+" when the sources had changes not committed)
    { git rev-parse --short HEAD 2>/dev/null || echo -; } | tr -d '\n' >.build/fuzz/commit
    git diff --quiet HEAD -- Sources Fuzz Package.swift 2>/dev/null || printf '+' >>.build/fuzz/commit
  fi
  # seeds follow the code that writes them: rewritten whenever the binary changed
  if [ ! -e $SEEDS/.stamp ] || [ $BIN -nt $SEEDS/.stamp ]; then
    rm -rf $SEEDS
    local corpus=()
    if [ -d "$CORPUS_DIR" ]; then corpus=(FARCAST_CORPUS_DIR="$CORPUS_DIR"); else echo "fuzz: no $CORPUS_DIR: hand-made seeds only"; fi
    env "${corpus[@]}" FARCAST_FUZZ_TARGET=all FARCAST_FUZZ_WRITE_SEEDS=$SEEDS nice -n 15 $BIN | sed 's/^/fuzz: /' | tr '\n' ' '; echo
    touch $SEEDS/.stamp
  fi
}

targets() { FARCAST_FUZZ_TARGET=list $BIN | cut -f1; }

# run TARGET SECONDS [FLAGS...]: prints one line of results; returns non-zero on a finding
run() {
  local t=$1 secs=$2; shift 2
  local maxlen; maxlen=$(FARCAST_FUZZ_TARGET=list $BIN | awk -F'\t' -v t="$t" '$1 == t { print $2 }')
  [ -n "$maxlen" ] || { echo "fuzz: no target $t (scripts/fuzz.sh --list)"; return 2; }
  local corpus=.build/fuzz-corpus/$t crashes=.build/fuzz-crashes/$t log=.build/fuzz-logs/$t.log
  mkdir -p "$corpus" "$crashes" .build/fuzz-logs
  # Lean allocation bookkeeping (no allocation stacks, a small quarantine, no fill pattern:
  # a third more runs per second); a finding is replayed below with the full reports.
  local status=0
  ASAN_OPTIONS=${FARCAST_FUZZ_ASAN_OPTIONS:-malloc_context_size=0:quarantine_size_mb=16:max_malloc_fill_size=0} \
    FARCAST_FUZZ_TARGET=$t nice -n 15 $BIN -max_total_time="$secs" -max_len="$maxlen" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$@" "$corpus" "$SEEDS/$t" >"$log" 2>&1 || status=$?
  local execs rate cov units
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  units=$(find "$corpus" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${execs:-0}" "$secs" \
    "$([ $status -eq 0 ] && echo clean || echo "finding($status)")" "$(cat .build/fuzz/commit 2>/dev/null || echo -)" \
    >>"$LEDGER"
  printf 'fuzz: %-18s %11s execs  %6s/s  cov %5s  corpus %5s  %4ss\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$units" "$secs"
  if [ $status -ne 0 ]; then
    local found; found=$(ls -t "$crashes" 2>/dev/null | head -1)
    grep -E '^==[0-9]+==ERROR|^SUMMARY|Fatal error|^ALARM|out-of-memory|^  (pieces|whole):' "$log" | head -8 | sed 's/^/fuzz:   /'
    echo "fuzz: $t FAILED (status $status); input: $crashes/$found; log: $log"
    if [ -n "$found" ]; then
      echo "fuzz: replay: FARCAST_FUZZ_TARGET=$t $BIN $crashes/$found"
      FARCAST_FUZZ_TARGET=$t $BIN "$crashes/$found" >"$log.replay" 2>&1 || true
      echo "fuzz: full report: $log.replay"
    fi
    return 1
  fi
}

case "${1:-}" in
  --list)
    build; FARCAST_FUZZ_TARGET=list $BIN | awk -F'\t' '{ printf "%-18s %s\n", $1, $3 }' ;;
  --ci)
    start=$SECONDS
    LEDGER=.build/fuzz-logs/ci-ledger.tsv
    build
    failed=0
    for t in $(targets); do run "$t" "${FARCAST_FUZZ_SECONDS:-3}" || failed=1; done
    echo "fuzz: every target, $((SECONDS - start)) s with the build"
    exit $failed ;;
  all)
    [ $# -ge 2 ] || { echo "usage: scripts/fuzz.sh all SECONDS [FLAGS...]"; exit 2; }
    secs=$2; shift 2
    build
    failed=0
    for t in $(targets); do run "$t" "$secs" "$@" || failed=1; done
    exit $failed ;;
  --ledger)
    [ -f "$LEDGER" ] || { echo "fuzz: no runs recorded yet"; exit 0; }
    awk -F'\t' '{ runs[$2] += $3; secs[$2] += $4; if ($5 != "clean") bad[$2]++ }
      END { for (t in runs) printf "%-18s %12d runs %8d s %s\n", t, runs[t], secs[t], bad[t] ? bad[t] " with a finding" : "no finding" }' \
      "$LEDGER" | sort ;;
  campaign)
    shift
    [ $# -ge 1 ] || { echo "usage: scripts/fuzz.sh campaign TARGET..."; exit 2; }
    goal=${FARCAST_FUZZ_GOAL:-10000000}
    build
    for t in "$@"; do
      while :; do
        done_runs=$(awk -F'\t' -v t="$t" '$2 == t { n += $3 } END { print n + 0 }' "$LEDGER" 2>/dev/null || echo 0)
        [ "$done_runs" -lt "$goal" ] || { echo "fuzz: $t has $done_runs runs"; break; }
        renice -n 19 $$ >/dev/null
        run "$t" "${FARCAST_FUZZ_CHUNK:-600}" || exit 1
      done
    done ;;
  ""|-h|--help)
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *)
    [ $# -ge 2 ] || { echo "usage: scripts/fuzz.sh TARGET SECONDS [FLAGS...]"; exit 2; }
    t=$1 secs=$2; shift 2
    build
    run "$t" "$secs" "$@" ;;
esac
