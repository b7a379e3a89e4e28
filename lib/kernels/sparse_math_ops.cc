// Sparse arithmetic: SparseTensorDenseMatMul, SparseDenseCwise{Add,Mul,Div}
// (the dense side broadcasts to the sparse shape), SparseReduce{Sum,Max}
// [Sparse], SparseSoftmax, SparseAdd, SparseSparse{Maximum,Minimum},
// SparseSlice and SparseConcat. Sparse tensors come as (indices [nnz, rank]
// int64, values [nnz], dense_shape [rank]); outputs are in row-major index
// order, as TensorFlow writes them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/sparse_util.h"

namespace dfg {
namespace {

using SparseMathTypes = RealTypes;

class SparseTensorDenseMatMulOp : public OpKernel {
 public:
  explicit SparseTensorDenseMatMulOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint_a", &adj_a_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint_b", &adj_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_idx = ctx->input(0);
    const Tensor& a_val = ctx->input(1);
    const Tensor& a_shape = ctx->input(2);
    const Tensor& b = ctx->input(3);
    DFG_OP_REQUIRES(ctx, a_shape.dims() == 1,
                    InvalidArgument("Tensor 'a_shape' is not a vector"));
    DFG_OP_REQUIRES(ctx, a_shape.NumElements() == 2,
                    InvalidArgument("Tensor 'a_shape' must have 2 elements"));
    DFG_OP_REQUIRES(ctx, a_val.dims() == 1,
                    InvalidArgument("Tensor 'a_values' is not a vector"));
    DFG_OP_REQUIRES(ctx, a_idx.dims() == 2,
                    InvalidArgument("Tensor 'a_indices' is not a matrix"));
    const int64_t nnz = a_idx.dim_size(0);
    DFG_OP_REQUIRES(ctx, nnz == a_val.NumElements(),
                    InvalidArgument("Number of rows of a_indices does not "
                                    "match number of entries in a_values"));
    DFG_OP_REQUIRES(ctx, a_idx.dim_size(1) == 2,
                    InvalidArgument("Number of columns of a_indices does not "
                                    "match number of entries in a_shape"));
    DFG_OP_REQUIRES(ctx, b.dims() == 2,
                    InvalidArgument("Tensor 'b' is not a matrix"));
    const std::vector<int64_t> as = IntValues(a_shape);
    const int64_t out_rows = adj_a_ ? as[1] : as[0];
    const int64_t inner_a = adj_a_ ? as[0] : as[1];
    const int64_t inner_b = b.dim_size(adj_b_ ? 1 : 0);
    const int64_t out_cols = b.dim_size(adj_b_ ? 0 : 1);
    DFG_OP_REQUIRES(
        ctx, inner_a == inner_b,
        InvalidArgument("Cannot multiply A and B because inner dimension does "
                        "not match: {} vs. {}.  Did you forget a transpose?  "
                        "Dimensions of A: [{}, {}).  Dimensions of B: {}",
                        inner_a, inner_b, as[0], as[1],
                        b.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({out_rows, out_cols}), &out));
    const std::vector<int64_t> idx = IntValues(a_idx);
    const int li = adj_a_ ? 1 : 0, ri = adj_a_ ? 0 : 1;
    Dispatch(NumberTypes(), b.dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      std::vector<C> acc(out_rows * out_cols, C(0));
      const T* av = a_val.flat<T>().data();
      const T* bv = b.flat<T>().data();
      const int64_t bcols = b.dim_size(1);
      for (int64_t i = 0; i < nnz; ++i) {
        const int64_t m = idx[i * 2 + li], k = idx[i * 2 + ri];
        if (k < 0 || k >= inner_b) {
          return ctx->SetStatus(
              InvalidArgument("k ({}) from index[{},{}] out of bounds (>={})",
                              k, i, ri, inner_b));
        }
        if (m < 0 || m >= out_rows) {
          return ctx->SetStatus(
              InvalidArgument("m ({}) from index[{},{}] out of bounds (>={})",
                              m, i, li, out_rows));
        }
        const C a = MaybeConj(Load(av[i]), adj_a_);
        for (int64_t n = 0; n < out_cols; ++n) {
          const C bk = adj_b_ ? MaybeConj(Load(bv[n * bcols + k]), true)
                              : Load(bv[k * bcols + n]);
          acc[m * out_cols + n] += a * bk;
        }
      }
      T* o = out->flat<T>().data();
      for (size_t j = 0; j < acc.size(); ++j) o[j] = Store<T>(acc[j]);
    });
  }

 private:
  template <typename C>
  static C MaybeConj(C v, bool conj) {
    if constexpr (std::is_same_v<C, std::complex<float>> ||
                  std::is_same_v<C, std::complex<double>>) {
      return conj ? std::conj(v) : v;
    } else {
      return v;
    }
  }
  bool adj_a_ = false, adj_b_ = false;
};

enum class CwiseOp { kAdd, kMul, kDiv };

// SparseDenseCwise{Add,Mul,Div}(sp_indices, sp_values, sp_shape, dense).
class SparseDenseCwiseOp : public OpKernel {
 public:
  explicit SparseDenseCwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = def().op();
    op_ = op.ends_with("Add")   ? CwiseOp::kAdd
          : op.ends_with("Mul") ? CwiseOp::kMul
                                : CwiseOp::kDiv;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& vals = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    const Tensor& dense = ctx->input(3);
    DFG_OP_REQUIRES(ctx, idx_t.dims() == 2,
                    InvalidArgument("Input sp_indices should be a matrix but "
                                    "received shape: {}",
                                    idx_t.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, vals.dims() == 1 && shape_t.dims() == 1,
                    InvalidArgument("Inputs sp_values and sp_shape should be "
                                    "vectors"));
    DFG_OP_REQUIRES(ctx, idx_t.dim_size(0) == vals.dim_size(0),
                    InvalidArgument("The first dimension of values and indices "
                                    "should match. ({} vs. {})",
                                    vals.dim_size(0), idx_t.dim_size(0)));
    const std::vector<int64_t> shape = IntValues(shape_t);
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t dr = dense.dims();
    bool ok = dr <= rank;
    for (int64_t d = 0; ok && d < dr; ++d) {
      const int64_t dd = dense.dim_size(d), sd = shape[rank - dr + d];
      ok = dd == 1 || dd == sd;
    }
    DFG_OP_REQUIRES(
        ctx, ok,
        InvalidArgument("SparseDenseBinaryOpShared broadcasts dense to sparse "
                        "only; got incompatible shapes: [{}] vs. [{}]",
                        Join(shape), Join(dense.shape().dim_sizes())));
    const std::vector<int64_t> strides = Strides(dense.shape().dim_sizes());
    const std::vector<int64_t> idx = IntValues(idx_t);
    const int64_t n = vals.NumElements();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    Dispatch(SparseMathTypes(), vals.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* sv = vals.flat<T>().data();
      const T* dv = dense.flat<T>().data();
      T* o = out->flat<T>().data();
      for (int64_t i = 0; i < n; ++i) {
        int64_t off = 0;
        for (int64_t d = 0; d < dr; ++d) {
          const int64_t x = idx[i * rank + rank - dr + d];
          if (x < 0 || x >= shape[rank - dr + d]) {
            return ctx->SetStatus(
                InvalidArgument("Provided indices are out-of-bounds w.r.t. "
                                "dense side with broadcasted shape"));
          }
          if (dense.dim_size(d) != 1) off += x * strides[d];
        }
        const auto a = Load(sv[i]), b = Load(dv[off]);
        o[i] = Store<T>(op_ == CwiseOp::kAdd   ? a + b
                        : op_ == CwiseOp::kMul ? a * b
                                               : a / b);
      }
    });
  }

 private:
  static std::string Join(std::span<const int64_t> v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
      s += (i > 0 ? "," : "") + std::to_string(v[i]);
    }
    return s;
  }
  CwiseOp op_;
};

}  // namespace

void RegisterSparseReduceKernels(KernelRegistry* r);

void RegisterSparseMathKernels(KernelRegistry* r) {
  r->Register<SparseTensorDenseMatMulOp>(
      "SparseTensorDenseMatMul",
      {TypeConstraint("T",
                      TypeList<Half, BFloat16, float, double, int32_t,
                               std::complex<float>, std::complex<double>>())});
  for (const char* op :
       {"SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"}) {
    r->Register<SparseDenseCwiseOp>(op,
                                    {TypeConstraint("T", SparseMathTypes())});
  }
  RegisterSparseReduceKernels(r);
}

}  // namespace dfg
