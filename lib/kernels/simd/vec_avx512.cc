// The vector math table for AVX-512F (see vec_impl.h;
// CMake gives this file its -m flags and its own Eigen namespace).
#define DFG_VEC_TABLE_NAME VecTableAvx512
#include "lib/kernels/simd/vec_impl.h"
