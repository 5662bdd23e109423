#!/usr/bin/env bash
# The inflate engines against each other on recorded sessions: every recording decoded with
# zlib and with ISA-L (InflateEngine, FARCAST_INFLATE) must end on the same final frame, and
# each run must have used the engine asked for. Files: those given, or ../shared/corpus.
# VIEWER: the viewer binary (default: the debug build scripts/test.sh makes).
set -euo pipefail
cd "$(dirname "$0")/.."
V=${VIEWER:-.build/debug/viewer}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(../shared/corpus/*.fbs)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
failed=0
for f in "${files[@]}"; do
  name=$(basename "$f" .fbs)
  for e in zlib isal; do
    used=$(FARCAST_INFLATE=$e "$V" bench --json --final-frame "$out/$name.$e.png" "$f" |
      /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["inflate"])')
    if [ "$used" != "$e" ]; then echo "inflate-check: $name: asked for $e, decoded with $used"; failed=1; fi
  done
  if cmp -s "$out/$name.zlib.png" "$out/$name.isal.png"; then
    echo "inflate-check: $name: same final frame with zlib and ISA-L"
  else
    echo "inflate-check: $name: the final frames differ"; failed=1
  fi
done
exit $failed
