// Two-operand einsums as strided batched GEMMs (BatchedGemm), without
// transposing either operand or the result: the contraction labels become
// K, the free labels of each operand M and N, the labels of both operands
// and the output the batch. Each of M, K and N may span several labels when
// they sit next to each other in the same order, contiguous, in every
// tensor holding them ("abc,cde->abde" is one [a*b, c] x [c, d*e] GEMM);
// a matrix needs a unit stride along its rows or its columns (which picks
// BLAS's transpose flag), the output along either (else the product is
// computed transposed). Multi-head attention's "BTNH,BSNH->BNTS" and
// "BNTS,BSNH->BTNH" are GEMMs over row strides of N*H.
#ifndef DFG_LIB_KERNELS_EINSUM_GEMM_H_
#define DFG_LIB_KERNELS_EINSUM_GEMM_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "lib/kernels/blas_threads.h"

namespace dfg {

// One operand or the output: a label per axis (labels are small ints) and
// the axis sizes.
struct EinsumTerm {
  std::vector<int> labels;
  std::span<const int64_t> dims;
};

// The GEMMs computing `out` from `a` and `b` (dense row-major tensors), or
// nullopt when the equation is not a plain batched product in this layout
// (a label repeated within a term, one summed out of a single operand, a
// label in one operand only and not in the output, sizes that do not
// match, an empty tensor): the caller's general path handles those. Label
// sizes of 1 against a larger size broadcast.
std::optional<BatchedGemm> PlanEinsumGemm(const EinsumTerm& a,
                                          const EinsumTerm& b,
                                          const EinsumTerm& out);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_EINSUM_GEMM_H_
