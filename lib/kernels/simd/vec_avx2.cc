// The vector math table for AVX2 + FMA (see vec_impl.h;
// CMake gives this file its -m flags and its own Eigen namespace).
#define DFG_VEC_TABLE_NAME VecTableAvx2
#include "lib/kernels/simd/vec_impl.h"
