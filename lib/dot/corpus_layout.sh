#!/bin/bash
# Hand check (not a test: no timed tests): every corpus graph's default DOT
# is accepted by `dot -Tsvg` and laid out within the time limit. Prints one
# line per graph, slowest first, and exits 1 if any failed or timed out.
# Usage: lib/dot/corpus_layout.sh [DFG] [CORPUS_DIR] [LIMIT_SECONDS]
set -u
cd "$(dirname "$0")/../.."
DFG=${1:-build/dfg}
CORPUS=${2:-../shared/corpus}
LIMIT=${3:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$CORPUS"/*; do
  [ "$(basename "$f")" = INDEX.md ] && continue
  if ! "$DFG" dot "$f" > "$tmp/g.dot" 2> "$tmp/err"; then
    echo "  -    skip  $(basename "$f"): $(head -c 100 "$tmp/err")" >> "$tmp/lines"
    continue
  fi
  start=$(date +%s.%N)
  timeout "$LIMIT" dot -Tsvg "$tmp/g.dot" > /dev/null 2> "$tmp/doterr"
  rc=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  [ $rc -ne 0 ] && status=1
  printf "%6.2f rc=%d %s %s\n" "$secs" "$rc" "$(basename "$f")" \
    "$(head -c 100 "$tmp/doterr")" >> "$tmp/lines"
done
sort -rn "$tmp/lines"
exit $status
