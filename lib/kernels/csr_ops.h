// The CSRSparseMatrix value the CSR kernels share (csr_ops.cc: conversions,
// components, nnz, transpose, sparse-dense product; csr_ops_eigen.cc:
// sparse-sparse product, AMD ordering, sparse Cholesky): a scalar
// DT_VARIANT holds one. A dense shape of rank 2 or 3 (a batch of matrices),
// batch_ptr [batch + 1] (where each matrix's entries start), row_ptr
// [batch * (rows + 1)] relative to the matrix's start, col_ind [nnz] and
// values [nnz], as TensorFlow lays it out.
#ifndef DFG_LIB_KERNELS_CSR_OPS_H_
#define DFG_LIB_KERNELS_CSR_OPS_H_

#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/variant.h"

namespace dfg {

class CsrMatrix : public VariantValue {
 public:
  std::string TypeName() const override {
    return "tensorflow::CSRSparseMatrix";
  }
  std::string DebugString() const override { return "CSRSparseMatrix"; }

  DataType dtype = tensorflow::DT_INVALID;
  std::vector<int64_t> shape;  // [rows, cols] or [batch, rows, cols]
  std::vector<int32_t> batch_ptr, row_ptr, col_ind;
  Tensor values;

  int64_t batch() const { return shape.size() == 3 ? shape[0] : 1; }
  int64_t rows() const { return shape[shape.size() - 2]; }
  int64_t cols() const { return shape[shape.size() - 1]; }
  // The row pointers of matrix b (rows + 1 of them, relative to its start).
  const int32_t* RowPtr(int64_t b) const {
    return row_ptr.data() + b * (rows() + 1);
  }
};

inline void SetCsrOutput(OpKernelContext* ctx, int i,
                         std::shared_ptr<CsrMatrix> m) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape());
  t.scalar<Variant>().value = std::move(m);
  ctx->set_output(i, std::move(t));
}

// Input i as a CSR matrix whose dtype must be `want` (unless INVALID).
inline Status GetCsrInput(OpKernelContext* ctx, int i, DataType want,
                          const CsrMatrix** m) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0) {
    return InvalidArgument("sparse matrix must be a scalar, saw shape: {}",
                           t.shape().DebugString());
  }
  *m = t.flat<Variant>()[0].get<CsrMatrix>();
  if (*m == nullptr) {
    return InvalidArgument(
        "Could not retrieve CSRSparseMatrix from input {}: {}", i,
        t.flat<Variant>()[0].DebugString());
  }
  return Status::Ok();
}

template <typename T>
T Conj(const T& v) {
  if constexpr (std::is_same_v<T, std::complex<float>> ||
                std::is_same_v<T, std::complex<double>>) {
    return std::conj(v);
  } else {
    return v;
  }
}

using CsrTypes =
    TypeList<float, double, std::complex<float>, std::complex<double>>;

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_CSR_OPS_H_
