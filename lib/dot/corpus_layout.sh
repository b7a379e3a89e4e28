#!/bin/bash
# Every corpus graph's default DOT (`dfg dot FILE`) is accepted and laid out
# by Graphviz's `dot -Tsvg`. Run by ctest as `dot_corpus_layout`.
#
# Not a timed test: the exit status says only whether every graph was drawn
# and laid out (a `dfg dot` or `dot` failure, or a layout still running after
# the hang guard, fails). The seconds each layout took are printed, slowest
# first, with the total and those over a 60 s budget (what a user waits for
# a drawing at most) marked, as figures to read
# (`ctest -R dot_corpus_layout -V`), not to assert on.
#
# Usage: lib/dot/corpus_layout.sh [DFG] [CORPUS_DIR] [GUARD_SECONDS]
# Exits 77 (ctest: skipped) when the corpus or the `dot` program is absent;
# 1 instead under DFG_REQUIRE_SHARED=1 / DFG_REQUIRE_DEPS=1 (CI).
set -u
cd "$(dirname "$0")/../.."
DFG=${1:-build/dfg}
CORPUS=${2:-../shared/corpus}
GUARD=${3:-600}
BUDGET=60
# The corpus files that are deliberately no GraphDef (INDEX.md says which).
MALFORMED="tfmlir__graph-malformed.pbtxt"

if [ ! -d "$CORPUS" ]; then
  if [ -n "${DFG_REQUIRE_SHARED:-}" ]; then
    echo "DFG_REQUIRE_SHARED is set but there is no corpus at $CORPUS" >&2
    exit 1
  fi
  echo "SKIP: no corpus at $CORPUS"
  exit 77
fi
if ! command -v dot > /dev/null; then
  if [ "${DFG_REQUIRE_DEPS:-}" = 1 ]; then
    echo "DFG_REQUIRE_DEPS=1 but Graphviz's dot program is not installed" >&2
    exit 1
  fi
  echo "SKIP: Graphviz's dot program is not installed"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
graphs=0
: > "$tmp/lines"
now() { date +%s.%N; }
for f in "$CORPUS"/*; do
  name=$(basename "$f")
  [ "$name" = INDEX.md ] && continue
  if ! "$DFG" dot "$f" > "$tmp/g.dot" 2> "$tmp/err"; then
    if [ "$name" = "$MALFORMED" ]; then
      echo "     -  (not a graph, as expected) $name" >> "$tmp/lines"
    else
      echo "FAIL: dfg dot $name: $(head -c 300 "$tmp/err")"
      status=1
    fi
    continue
  fi
  start=$(now)
  timeout "$GUARD" dot -Tsvg "$tmp/g.dot" > /dev/null 2> "$tmp/doterr"
  rc=$?
  secs=$(echo "$(now) - $start" | bc)
  graphs=$((graphs + 1))
  mark=""
  if [ $rc -ne 0 ]; then
    echo "FAIL: dot -Tsvg on the DOT of $name: rc=$rc $(head -c 300 "$tmp/doterr")"
    status=1
    mark=" FAILED rc=$rc"
  elif [ "$(echo "$secs > $BUDGET" | bc)" = 1 ]; then
    mark=" (over the ${BUDGET} s budget)"
  fi
  printf "%6.2f  %s%s\n" "$secs" "$name" "$mark" >> "$tmp/lines"
done
echo "dot -Tsvg seconds per corpus graph (default dfg dot output), slowest first:"
sort -rn "$tmp/lines"
total=$(awk '$1 ~ /^[0-9.]+$/ { s += $1 } END { printf "%.1f", s }' "$tmp/lines")
echo "$graphs graphs laid out, ${total} s in dot in all; status $status"
exit $status
