#!/bin/sh
# dfg place of every corpus file (as given, and converted to binary) by two
# dfg builds (e.g. main's and a branch's): stdout, stderr and exit code must
# be the same, in binary and text output, with and without soft placement.
#   bench/place_identity.sh OLD_DFG NEW_DFG [CORPUS_DIR]
old=${1:?usage: bench/place_identity.sh OLD_DFG NEW_DFG [CORPUS_DIR]}
new=${2:?usage: bench/place_identity.sh OLD_DFG NEW_DFG [CORPUS_DIR]}
corpus=${3:-$(cd "$(dirname "$0")/.." && pwd)/../shared/corpus}
w=$(mktemp -d "${TMPDIR:-/tmp}/dfg-place-identity.XXXXXX")
trap 'rm -rf "$w"' EXIT INT TERM
diffs=0; runs=0
for f in "$corpus"/*; do
  case "$f" in *INDEX.md) continue;; esac
  b=$(basename "$f")
  inputs="$f"
  if $old convert "$f" -f pb -o "$w/$b.conv.pb" 2>/dev/null; then inputs="$inputs $w/$b.conv.pb"; fi
  for in in $inputs; do
    for fmt in pb pbtxt; do
      for extra in "" "--soft-placement" "--soft-placement --keep-assigned"; do
        runs=$((runs+1))
        $old place "$in" --devices cpu:0,gpu:0 $extra -f $fmt -o - > $w/old.out 2> $w/old.err; oc=$?
        $new place "$in" --devices cpu:0,gpu:0 $extra -f $fmt -o - > $w/new.out 2> $w/new.err; nc=$?
        if [ $oc != $nc ] || ! cmp -s $w/old.out $w/new.out || ! cmp -s $w/old.err $w/new.err; then
          diffs=$((diffs+1)); echo "DIFF $in $fmt $extra (codes $oc $nc)"
        fi
      done
    done
  done
done
echo "runs=$runs diffs=$diffs"
[ "$diffs" = 0 ]
