#!/bin/sh
# dfg's performance targets, measured the way a user meets them: the
# dfg command line, timed with its own --repeat and with /usr/bin/time. Each
# figure is printed beside its target, with the load average it was taken
# under (a loaded machine inflates wall-clock figures; CPU seconds are given
# beside them).
#
#   bench/cli_bench.sh [--exec-only] [BUILD_DIR]
#
# BUILD_DIR (default build) must hold dfg and, for the protobuf floor and the
# convolution row, dfg_bench (-DDFG_BUILD_BENCH=ON). The 1M-node DAG (~90 MB)
# and its outputs go to $TMPDIR (default /tmp) and are removed at the end.
set -eu

exec_only=0
if [ "${1:-}" = "--exec-only" ]; then exec_only=1; shift; fi
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
dfg=$build/dfg
bench=$build/dfg_bench
gen="python3 $src/lib/io/make_big_graph.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/dfg-cli-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

load() { uptime | sed 's/.*load average: //'; }

# The median of `dfg run FILE --repeat 50 --no-optimize`, in microseconds
# (the median of 3 runs' medians). The executor's own cost per node: the
# optimizer would remove the Identity chains these graphs are made of.
step_us() {
  for i in 1 2 3; do
    "$dfg" run "$1" --repeat 50 --no-optimize 2>&1 >/dev/null |
      sed -n 's/.*median \([0-9.]*\) us.*/\1/p'
  done | sort -n | sed -n 2p
}

echo "== step overhead: dfg run --repeat 50 --no-optimize (load $(load))"
for spec in "chain 1000" "chain 20000" "fanout 10000"; do
  set -- $spec
  $gen --shape "$1" "$2" | "$dfg" convert -f pb -o "$work/$1_$2.pb"
done
c1=$(step_us "$work/chain_1000.pb")
c20=$(step_us "$work/chain_20000.pb")
f10=$(step_us "$work/fanout_10000.pb")
awk -v a="$c1" -v b="$c20" -v f="$f10" 'BEGIN {
  printf "chain 1k %.1f us, 20k %.1f us: %.1f ns/node   (target <= 50)\n",
         a, b, (b - a) * 1000 / 19000
  printf "fan-out/fan-in 10k %.1f us: %.1f ns/node       (target <= 100)\n",
         f, f * 1000 / 10000
}'

if [ "$exec_only" = 1 ]; then exit 0; fi

echo "== convolution: Conv2D 3x3 1x56x56x64->64 (dfg_bench, load $(load))"
if [ -x "$bench" ]; then
  "$bench" --benchmark_filter='BM_Conv2DKernel/|BM_Conv2DOneDnn/' 2>/dev/null |
    awk '/^BM_Conv2DKernel\/1/ {t1 = $2} /^BM_Conv2DKernel\/2/ {t2 = $2}
         /^BM_Conv2DOneDnn\/1/ {d1 = $2} /^BM_Conv2DOneDnn\/2/ {d2 = $2}
         END { printf "dfg: 1 thread %.0f us, 2 threads %.0f us: %.2fx   (target >= 1.7x)\n",
               t1, t2, t1 / t2
               if (d1 > 0) printf "oneDNN: 1 thread %.0f us, 2 threads %.0f us; dfg/oneDNN on 2 threads %.2fx (target <= 1.1x)\n",
               d1, d2, t2 / d2 }'
else
  echo "no $bench: configure with -DDFG_BUILD_BENCH=ON"
fi

echo "== 1M-node DAG, ~3 inputs a node (load $(load))"
$gen --shape dag 1000000 > "$work/dag.pbtxt"
"$dfg" convert "$work/dag.pbtxt" -f pb -o "$work/dag.pb"
rm "$work/dag.pbtxt"
size=$(stat -c %s "$work/dag.pb")
fetches=""
for k in 1 2 3 4 5 6 7 8 9 10; do
  i=$((k * 90909))
  fetches="$fetches --fetch blk$((i / 1000))/n$i"
done
# "elapsed user+sys peak_kb" of one command.
timed() {
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$dfg" "$@" >/dev/null 2>&1
  awk '{printf "%s %.2f %s", $1, $2 + $3, $4}' "$work/time"
}
floor=""
if [ -x "$bench" ]; then
  floor=$(DFG_BENCH_GRAPH="$work/dag.pb" "$bench" \
    --benchmark_filter='BM_ProtobufParseSerialize' 2>/dev/null |
    awk '/^BM_ProtobufParseSerialize/ {print $2 / 1000, $4 / 1000}')
fi
convert=$(timed convert "$work/dag.pb" -f pb -o "$work/out.pb")
place=$(timed place "$work/dag.pb" --devices cpu:0,gpu:0 -f pb -o "$work/placed.pb")
prune=$(timed prune "$work/dag.pb" $fetches -f pb -o "$work/pruned.pb")
partition=$(timed partition "$work/placed.pb" -o "$work/parts/")
echo "file $((size / 1000000)) MB; protobuf parse+serialize: ${floor:-?} s (wall cpu)"
awk -v c="$convert" -v p="$place" -v r="$prune" -v q="$partition" \
    -v fl="${floor:-0 0}" -v size="$size" 'BEGIN {
  split(c, C, " "); split(fl, F, " ")
  printf "convert   %6.2f s (cpu %5.2f), %5d MB peak: %.2fx protobuf cpu (target <= 1.3x)\n",
         C[1], C[2], C[3] / 1000, (F[2] > 0 ? C[2] / F[2] : 0)
  n = split("place prune partition", names, " ")
  split(p, P, " "); split(r, R, " "); split(q, Q, " ")
  for (i = 1; i <= 3; ++i) {
    if (i == 1) { e = P[1]; u = P[2]; m = P[3] }
    if (i == 2) { e = R[1]; u = R[2]; m = R[3] }
    if (i == 3) { e = Q[1]; u = Q[2]; m = Q[3] }
    printf "%-9s %6.2f s (cpu %5.2f), %5d MB peak: %.2fx convert cpu (target <= 2x)",
           names[i], e, u, m / 1000, u / C[2]
    if (i == 1) printf ", peak %.1fx the file (target <= 4x)", m * 1000 / size
    printf "\n"
  }
}'
