#!/bin/sh
# dfg partition of every corpus file by two dfg builds (e.g. main's and a
# branch's): each file placed (by OLD) on cpu:0,gpu:0, then partitioned by
# both into -o DIR/ (pbtxt and pb files), as DOT on stdout, as one merged pb,
# by worker, and with --explain and --devices; stdout, stderr, exit code and
# every written file must be the same. A pruned graph (feed and fetch nodes)
# is included when the first of a file's outputs (dfg info) can be fetched.
#   bench/partition_identity.sh OLD_DFG NEW_DFG [CORPUS_DIR]
old=${1:?usage: bench/partition_identity.sh OLD_DFG NEW_DFG [CORPUS_DIR]}
new=${2:?usage: bench/partition_identity.sh OLD_DFG NEW_DFG [CORPUS_DIR]}
corpus=${3:-$(cd "$(dirname "$0")/.." && pwd)/../shared/corpus}
w=$(mktemp -d "${TMPDIR:-/tmp}/dfg-partition-identity.XXXXXX")
trap 'rm -rf "$w"' EXIT INT TERM
diffs=0; runs=0
# run NAME ARGS...: both builds, outputs compared.
run() {
  runs=$((runs+1))
  rm -rf "$w/old" "$w/new"; mkdir -p "$w/old" "$w/new"
  (cd "$w/old" && $old "$@" > out 2> err; echo $? > code)
  (cd "$w/new" && $new "$@" > out 2> err; echo $? > code)
  if ! diff -r "$w/old" "$w/new" > /dev/null; then
    diffs=$((diffs+1)); echo "DIFF $*"
  fi
}
for f in "$corpus"/*; do
  case "$f" in *INDEX.md) continue;; esac
  b=$(basename "$f")
  inputs=""
  if $old place "$f" --devices cpu:0,gpu:0 --soft-placement -f pb \
      -o "$w/$b.placed.pb" 2>/dev/null; then
    inputs="$w/$b.placed.pb"
    first=$($old info "$f" --json 2>/dev/null | python3 -c \
      'import json,sys; o=json.load(sys.stdin).get("outputs") or []; print(o[0]["name"] if o else "")' 2>/dev/null)
    if [ -n "$first" ] && $old prune "$f" --fetch "$first" -f pb \
        -o "$w/$b.pruned.pb" 2>/dev/null && $old place "$w/$b.pruned.pb" \
        --devices cpu:0,gpu:0 --soft-placement -f pb \
        -o "$w/$b.pp.pb" 2>/dev/null; then
      inputs="$inputs $w/$b.pp.pb"
    fi
  fi
  for in in $inputs; do
    run partition "$in" -o parts/
    run partition "$in" -o parts/ -f pb --explain
    run partition "$in"
    run partition "$in" -f pb -o -
    run partition "$in" --by worker -o parts/
  done
  run partition "$f" --devices cpu:0,gpu:0 --soft-placement -o parts/
  run partition "$f" -o parts/
done
echo "runs=$runs diffs=$diffs"
[ "$diffs" = 0 ]
