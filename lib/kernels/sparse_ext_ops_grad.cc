// SparseSliceGrad (the gradient of SparseSlice: each output entry's gradient
// goes back to the input entry it was sliced from) and
// SparseSegment{Sum,Mean,SqrtN}GradV2 (the gradient of the sparse segment
// reductions as a sparse result: one row per distinct index, sorted, with
// the indices beside it).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

class SparseSliceGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in = ctx->input(1);
    const Tensor& start = ctx->input(2);
    const Tensor& out = ctx->input(3);
    DFG_OP_REQUIRES(
        ctx, in.dims() == 2 && out.dims() == 2,
        InvalidArgument("Input indices should be matrices but "
                        "received shapes: {} and {}",
                        in.shape().DebugString(), out.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, grad.dims() == 1,
                    InvalidArgument("Input backprop_val_grad should be a "
                                    "vector but received shape: {}",
                                    grad.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, in.dim_size(1) == out.dim_size(1),
                    InvalidArgument("The input and output should have the "
                                    "same ndims: got: {} and {}",
                                    in.dim_size(1), out.dim_size(1)));
    DFG_OP_REQUIRES(ctx, out.dim_size(0) <= in.dim_size(0),
                    InvalidArgument("# rows of output_indices should be not "
                                    "greater than of input_indices, got {} "
                                    "and {}",
                                    out.dim_size(0), in.dim_size(0)));
    DFG_OP_REQUIRES(ctx, grad.NumElements() == out.dim_size(0),
                    InvalidArgument("# elements of backprop_val_grad and # "
                                    "rows of output_indices should match "
                                    "(#nnz of sum): got {} and {}",
                                    grad.NumElements(), out.dim_size(0)));
    DFG_OP_REQUIRES(ctx, start.dims() == 1,
                    InvalidArgument("The input_start should be a vector but "
                                    "received shape {}",
                                    start.shape().DebugString()));
    const int64_t rank = in.dim_size(1);
    DFG_OP_REQUIRES(ctx, start.NumElements() == rank,
                    InvalidArgument("Expected input_start to be a vector of "
                                    "length {} but got length {}",
                                    rank, start.NumElements()));
    Tensor* val_grad = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({in.dim_size(0)}), &val_grad));
    if (val_grad->TotalBytes() > 0) {
      std::memset(val_grad->data(), 0, val_grad->TotalBytes());
    }
    const int64_t* ii = in.flat<int64_t>().data();
    const int64_t* oi = out.flat<int64_t>().data();
    const int64_t* s = start.flat<int64_t>().data();
    const int64_t n = grad.NumElements();
    int64_t j = 0;
    for (int64_t i = 0; i < in.dim_size(0) && j < n; ++i) {
      bool same = true;
      for (int64_t d = 0; d < rank && same; ++d) {
        same = ii[i * rank + d] == oi[j * rank + d] + s[d];
      }
      if (same) CopyElements(grad, j++, val_grad, i, 1);
    }
    DFG_OP_REQUIRES(ctx, j == n,
                    InvalidArgument("Elements of backprop_val_grad aren't all "
                                    "propagated. Num elements:{}, used: {}",
                                    n, j));
  }
};

// output[k] = sum over i with indices[i] == u[k] of grad[segment_ids[i]] *
// scale (1, 1/count or 1/sqrt(count) of the segment), u = the sorted
// distinct indices (second output).
class SparseSegmentGradV2Op : public OpKernel {
 public:
  explicit SparseSegmentGradV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string_view op = def().op();
    kind_ = op.find("Mean") != op.npos    ? 1
            : op.find("SqrtN") != op.npos ? 2
                                          : 0;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    DFG_OP_REQUIRES(ctx, ctx->input(1).dims() == 1,
                    InvalidArgument("indices should be a vector."));
    DFG_OP_REQUIRES(ctx, ctx->input(2).dims() == 1,
                    InvalidArgument("segment_ids should be a vector."));
    DFG_OP_REQUIRES(ctx, ctx->input(3).dims() == 0,
                    InvalidArgument("dense_output_dim0 should be a scalar."));
    const std::vector<int64_t> idx = IntValues(ctx->input(1));
    const std::vector<int64_t> ids = IntValues(ctx->input(2));
    DFG_OP_REQUIRES(ctx, idx.size() == ids.size(),
                    InvalidArgument("segment_ids and indices should have same "
                                    "size."));
    DFG_OP_REQUIRES(ctx, grad.dims() >= 1,
                    InvalidArgument("Shape must be at least rank 1"));
    const int64_t m = IntValues(ctx->input(3))[0];
    const int64_t segs = grad.dim_size(0);
    std::vector<double> scale(segs, 0.0);
    for (int64_t id : ids) {
      DFG_OP_REQUIRES(ctx, id >= 0 && id < segs,
                      InvalidArgument("Invalid number of segments"));
      scale[id] += 1;
    }
    for (double& s : scale) {
      s = kind_ == 1   ? 1.0 / std::max(s, 1.0)
          : kind_ == 2 ? 1.0 / std::sqrt(std::max(s, 1.0))
                       : 1.0;
    }
    std::map<int64_t, int64_t> row_of;
    for (int64_t i : idx) {
      DFG_OP_REQUIRES(ctx, i >= 0 && i < m,
                      InvalidArgument("Index {} out of range [0, {}).", i, m));
      row_of.emplace(i, 0);
    }
    Tensor* uniq = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 1, TensorShape({static_cast<int64_t>(row_of.size())}), &uniq));
    int64_t r = 0;
    for (auto& [index, row] : row_of) {
      row = r;
      if (uniq->dtype() == tensorflow::DT_INT32) {
        uniq->flat<int32_t>()[r] = static_cast<int32_t>(index);
      } else {
        uniq->flat<int64_t>()[r] = index;
      }
      ++r;
    }
    TensorShape shape = grad.shape();
    shape.set_dim(0, r);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Accumulate(grad, idx, ids, scale, row_of, out);
  }

 private:
  static void Accumulate(const Tensor& grad, const std::vector<int64_t>& idx,
                         const std::vector<int64_t>& ids,
                         const std::vector<double>& scale,
                         const std::map<int64_t, int64_t>& row_of,
                         Tensor* out) {
    const int64_t segs = grad.dim_size(0);
    const int64_t cols = segs == 0 ? 0 : grad.NumElements() / segs;
    Dispatch(FloatTypes(), grad.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* g = grad.flat<T>().data();
      T* o = out->flat<T>().data();
      std::vector<bool> touched(row_of.size(), false);
      for (size_t i = 0; i < idx.size(); ++i) {
        const int64_t row = row_of.at(idx[i]);
        const auto s = Load(static_cast<T>(Store<T>(scale[ids[i]])));
        for (int64_t c = 0; c < cols; ++c) {
          auto x = Load(g[ids[i] * cols + c]);
          if (s != 1) x = Load(Store<T>(x * s));
          T& dst = o[row * cols + c];
          dst = touched[row] ? Store<T>(Load(dst) + x) : Store<T>(x);
        }
        touched[row] = true;
      }
    });
  }
  int kind_ = 0;  // 0 sum, 1 mean, 2 sqrtn
};

}  // namespace

void RegisterSparseGradV2Kernels(KernelRegistry* r) {
  r->Register<SparseSliceGradOp>("SparseSliceGrad",
                                 {TypeConstraint("T", NumberTypes())});
  for (const char* op : {"SparseSegmentSumGradV2", "SparseSegmentMeanGradV2",
                         "SparseSegmentSqrtNGradV2"}) {
    r->Register<SparseSegmentGradV2Op>(op, {TypeConstraint("T", FloatTypes())});
  }
}

}  // namespace dfg
