#!/usr/bin/env bash
# Runs test binaries with OpenBLAS forced to one kernel family
# (OPENBLAS_CORETYPE), so results that depend on which BLAS kernel the CPU
# gets show up on the developer's machine before they reach a user's.
#
#   blas_coretype_test.sh CORETYPE DFG TEST_BINARY...
#
# Exit 77 (CTest's skip) when this CPU cannot execute CORETYPE's kernels or
# the OpenBLAS in use ignores OPENBLAS_CORETYPE (a build without
# DYNAMIC_ARCH; under DFG_REQUIRE_DEPS=1, CI's Debian OpenBLAS, a failure);
# 1 when a test binary fails.
set -euo pipefail
coretype=$1 dfg=$2
shift 2

flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
need() { for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
case $coretype in
  Prescott) need pni ;; # SSE3
  Nehalem) need sse4_2 ;;
  Sandybridge) need avx ;;
  Haswell | Zen) need avx2 fma ;;
  SkylakeX) need avx512f avx512cd avx512bw avx512dq avx512vl ;;
  Cooperlake) need avx512f avx512bw avx512vl avx512_bf16 ;;
  *) echo "unknown OpenBLAS core type $coretype" >&2; exit 1 ;;
esac || { echo "SKIP: this CPU cannot execute OpenBLAS's $coretype kernels"; exit 77; }

src=$(cd "$(dirname "$0")/.." && pwd)
model=$src/testdata/models/mlp.pbtxt input=$src/testdata/models/mlp_input.npy
core=$(OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=$coretype \
  "$dfg" run "$model" --feed "x=$input" --fetch probs 2>&1 | grep -m1 '^Core:' || true)
if [[ $core != "Core: $coretype" ]]; then
  if [[ ${DFG_REQUIRE_DEPS-} == 1 ]]; then
    echo "DFG_REQUIRE_DEPS=1 but OpenBLAS does not switch kernels with" \
      "OPENBLAS_CORETYPE ($core)" >&2
    exit 1
  fi
  echo "SKIP: OpenBLAS does not switch kernels with OPENBLAS_CORETYPE ($core)"
  exit 77
fi

status=0
for bin in "$@"; do
  echo "== OPENBLAS_CORETYPE=$coretype $(basename "$bin")"
  if ! OPENBLAS_CORETYPE=$coretype "$bin"; then status=1; fi
done
exit $status
