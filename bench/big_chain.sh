#!/bin/sh
# Time and peak memory of dfg's stages on a chain of N nodes (default 1M):
# a Placeholder x, then Identity, Neg and Add(prev, x) in turn, as binary
# GraphDef. Prints one line per command (wall seconds, peak RSS) and, for
# dfg run, each stage's time and memory (DFG_STAGE_STATS).
#   bench/big_chain.sh DFG [N]
dfg=${1:?usage: bench/big_chain.sh DFG [N]}
n=${2:-1000000}
w=$(mktemp -d "${TMPDIR:-/tmp}/dfg-big-chain.XXXXXX")
trap 'rm -rf "$w"' EXIT INT TERM
python3 - "$n" > "$w/chain.pbtxt" <<'PY'
import sys
n = int(sys.argv[1])
w = sys.stdout.write
t = 'attr { key: "T" value { type: DT_FLOAT } }'
w('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
  'attr { key: "shape" value { shape { } } } }\n')
prev = "x"
for i in range(1, n + 1):
    op, extra = [("Identity", ""), ("Neg", ""), ("Add", ' input: "x"')][i % 3]
    w('node { name: "n%d" op: "%s" input: "%s"%s %s }\n' % (i, op, prev, extra, t))
    prev = "n%d" % i
w('versions { producer: 1700 }\n')
PY
$dfg convert "$w/chain.pbtxt" -f pb -o "$w/chain.pb" || exit 1
measure() {
  sub=$1; shift
  /usr/bin/time -f "$sub: %e s, peak RSS %M KB" $dfg $sub "$@" > /dev/null 2> "$w/err" \
    || { cat "$w/err"; return 1; }
  tail -1 "$w/err"
}
measure place "$w/chain.pb" -o /dev/null
measure prune "$w/chain.pb" --fetch "n$n" -o /dev/null
measure partition "$w/chain.pb" --devices cpu:0 -o "$w/parts"
DFG_STAGE_STATS=1 /usr/bin/time -f "run: %e s, peak RSS %M KB" \
  $dfg run "$w/chain.pb" --feed x=1.0 --fetch "n$n" 2>&1 >/dev/null
