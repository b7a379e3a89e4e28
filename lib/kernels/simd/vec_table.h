// Internal: the table of one ISA's vector math functions (vec_impl.h fills
// it), chosen by vec_math.cc. Plain function pointers over floats, so code
// compiled for one ISA is only reached through the table chosen for the CPU.
#ifndef DFG_LIB_KERNELS_SIMD_VEC_TABLE_H_
#define DFG_LIB_KERNELS_SIMD_VEC_TABLE_H_

#include <cstddef>

#include "lib/kernels/simd/vec_math.h"

namespace dfg::simd {

struct VecTable {
  void (*unary)(UnaryOp op, const float* x, float* y, size_t n);
  void (*leaky_relu)(const float* x, float alpha, float* y, size_t n);
  void (*binary)(BinaryOp op, Operands form, const float* x, const float* y,
                 float* z, size_t n);
  void (*softmax_rows)(const float* x, float* y, size_t rows, size_t depth,
                       bool log);
};

// One per translation unit: SSE2 (any x86-64), AVX2+FMA, AVX-512F.
const VecTable* VecTableBaseline();
const VecTable* VecTableAvx2();
const VecTable* VecTableAvx512();

}  // namespace dfg::simd

#endif  // DFG_LIB_KERNELS_SIMD_VEC_TABLE_H_
