#!/bin/sh
# Fails when an object compiled for AVX (vec_avx*.o) defines an external
# symbol other than its table function or its own renamed Eigen's: such a
# weak symbol could be merged by the linker into code that runs on a CPU
# without AVX (DW.ref.__gxx_personality_v0, a pointer to the C++ exception
# personality routine every object may carry, is data and allowed).
# Arguments: the object files of dfg_kernels.
status=0
checked=0
for obj in "$@"; do
  case "$obj" in
    *vec_avx*) ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  leaks=$(nm -C --defined-only -g "$obj" | grep -v 'dfg_eigen_avx' |
          grep -v 'DW.ref.__gxx_personality_v0' |
          grep -v 'dfg::simd::VecTableAvx')
  if [ -n "$leaks" ]; then
    echo "$obj defines symbols outside its ISA namespace:"
    echo "$leaks"
    status=1
  fi
done
if [ "$checked" -eq 0 ]; then
  echo "no vec_avx objects given"
  exit 1
fi
echo "$checked AVX objects checked"
exit $status
