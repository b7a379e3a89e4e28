// The vector math table for SSE2 (every x86-64) (see vec_impl.h;
// CMake gives this file its -m flags and its own Eigen namespace).
#define DFG_VEC_TABLE_NAME VecTableBaseline
#include "lib/kernels/simd/vec_impl.h"
