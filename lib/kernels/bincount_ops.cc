// Bincount, DenseBincount, RaggedBincount, SparseBincount (TensorFlow's
// core/kernels/bincount_op.cc): per-row histograms of integer values over
// [0, size), summing weights (or 1s when weights is empty), or marking 1
// with binary_output. Values >= size are dropped.
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

Status CheckSize(int64_t size) {
  if (size < 0) return InvalidArgument("size ({}) must be non-negative", size);
  return Status::Ok();
}

Status CheckWeights(const Tensor& weights, const Tensor& values) {
  if (weights.NumElements() == 0 || weights.shape() == values.shape()) {
    return Status::Ok();
  }
  return InvalidArgument(
      "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in "
      "which case it acts as all weights equal to 1. Received {}",
      weights.shape().DebugString());
}

// Adds value `v` of element i to `row` (size bins).
template <typename T>
struct Binner {
  const T* weights;  // nullptr: all ones
  bool binary;
  int64_t size;
  void Add(T* row, int64_t v, int64_t i) const {
    if (v >= size) return;
    if (binary) {
      row[v] = T(1);
    } else {
      row[v] += weights != nullptr ? weights[i] : T(1);
    }
  }
};

template <typename T>
Binner<T> MakeBinner(const Tensor& weights, bool binary, int64_t size) {
  return {weights.NumElements() > 0 ? weights.flat<T>().data() : nullptr,
          binary, size};
}

// Bincount and DenseBincount.
class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    legacy_ = def().op() == "Bincount";
    if (!legacy_) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& size_t = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    if (legacy_) {
      DFG_OP_REQUIRES(ctx, size_t.dims() == 0,
                      InvalidArgument("Shape must be rank 0 but is rank {}",
                                      size_t.dims()));
    } else {
      DFG_OP_REQUIRES(
          ctx, data.dims() <= 2,
          InvalidArgument("Shape must be at most rank 2 but is rank {}",
                          data.dims()));
    }
    const int64_t size = IntValues(size_t)[0];
    DFG_OP_REQUIRES_OK(ctx, CheckSize(size));
    DFG_OP_REQUIRES_OK(ctx, CheckWeights(weights, data));
    const std::vector<int64_t> v = IntValues(data);
    for (int64_t x : v) {
      DFG_OP_REQUIRES(ctx, x >= 0,
                      InvalidArgument("Input arr must be non-negative!"));
    }
    const bool matrix = !legacy_ && data.dims() == 2;
    const int64_t rows = matrix ? data.dim_size(0) : 1;
    const int64_t cols = matrix ? data.dim_size(1) : data.NumElements();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, matrix ? TensorShape({rows, size}) : TensorShape({size}), &out));
    Dispatch(TypeList<int32_t, int64_t, float, double>(), out->dtype(),
             [&](auto t) {
               using T = decltype(t);
               auto o = out->flat<T>();
               std::fill(o.begin(), o.end(), T(0));
               auto b = MakeBinner<T>(weights, binary_, size);
               for (int64_t r = 0; r < rows; ++r) {
                 for (int64_t c = 0; c < cols; ++c) {
                   b.Add(o.data() + r * size, v[r * cols + c], r * cols + c);
                 }
               }
             });
  }

 private:
  bool legacy_ = false;
  bool binary_ = false;
};

class RaggedBincountOp : public OpKernel {
 public:
  explicit RaggedBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const std::vector<int64_t> splits = IntValues(ctx->input(0));
    const std::vector<int64_t> v = IntValues(ctx->input(1));
    const Tensor& weights = ctx->input(3);
    const int64_t size = IntValues(ctx->input(2))[0];
    DFG_OP_REQUIRES_OK(ctx, CheckSize(size));
    DFG_OP_REQUIRES(ctx, !splits.empty(),
                    InvalidArgument("Splits must be non-empty"));
    DFG_OP_REQUIRES(
        ctx, splits[0] == 0,
        InvalidArgument("Splits must start with 0, not with {}", splits[0]));
    const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
    const int64_t n = static_cast<int64_t>(v.size());
    DFG_OP_REQUIRES(
        ctx, splits.back() == n,
        InvalidArgument(
            "Splits must end with the number of values, got {} instead of {}",
            splits.back(), n));
    DFG_OP_REQUIRES(
        ctx, weights.NumElements() == 0 || weights.NumElements() == n,
        InvalidArgument("Weights and values must have the same shape. "
                        "Weight shape: {}; values shape: {}",
                        weights.shape().DebugString(),
                        ctx->input(1).shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {rows, size}, &out));
    Status status;
    Dispatch(TypeList<int32_t, int64_t, float, double>(), out->dtype(),
             [&](auto t) {
               using T = decltype(t);
               auto o = out->flat<T>();
               std::fill(o.begin(), o.end(), T(0));
               auto b = MakeBinner<T>(weights, binary_, size);
               for (int64_t r = 0; r < rows && status.ok(); ++r) {
                 for (int64_t i = splits[r]; i < splits[r + 1]; ++i) {
                   if (v[i] < 0) {
                     status = InvalidArgument("Input must be non-negative");
                     break;
                   }
                   b.Add(o.data() + r * size, v[i], i);
                 }
               }
             });
    DFG_OP_REQUIRES_OK(ctx, status);
  }

 private:
  bool binary_ = false;
};

class SparseBincountOp : public OpKernel {
 public:
  explicit SparseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const std::vector<int64_t> v = IntValues(ctx->input(1));
    const std::vector<int64_t> shape = IntValues(ctx->input(2));
    const Tensor& weights = ctx->input(4);
    const int64_t size = IntValues(ctx->input(3))[0];
    DFG_OP_REQUIRES_OK(ctx, CheckSize(size));
    DFG_OP_REQUIRES(ctx, indices.dims() == 2,
                    InvalidArgument("Sparse indices must be rank 2 but is "
                                    "rank {}",
                                    indices.dims()));
    const bool is_1d = shape.size() == 1;
    const int64_t rows = is_1d ? 1 : shape.empty() ? 0 : shape[0];
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, is_1d ? TensorShape({size}) : TensorShape({rows, size}), &out));
    const int64_t* ix = indices.flat<int64_t>().data();
    const int64_t stride = indices.dims() == 2 ? indices.dim_size(1) : 1;
    Status status;
    Dispatch(TypeList<int32_t, int64_t, float, double>(), out->dtype(),
             [&](auto t) {
               using T = decltype(t);
               auto o = out->flat<T>();
               std::fill(o.begin(), o.end(), T(0));
               auto b = MakeBinner<T>(weights, binary_, size);
               for (size_t i = 0; i < v.size(); ++i) {
                 const int64_t row = is_1d ? 0 : ix[i * stride];
                 if (!is_1d && row >= rows) {
                   status = InvalidArgument(
                       "Index out of bound. `batch` ({}) must be less than "
                       "the dimension size ({}).",
                       row, rows);
                   return;
                 }
                 if (v[i] < 0 && is_1d) {
                   status = InvalidArgument("Input arr must be non-negative!");
                   return;
                 }
                 if (v[i] < 0) continue;
                 b.Add(o.data() + row * size, v[i], i);
               }
             });
    DFG_OP_REQUIRES_OK(ctx, status);
  }

 private:
  bool binary_ = false;
};

}  // namespace

void RegisterBincountKernels(KernelRegistry* r) {
  const auto t =
      TypeConstraint("T", TypeList<int32_t, int64_t, float, double>());
  r->Register<DenseBincountOp>("Bincount", {t});
  r->Register<DenseBincountOp>("DenseBincount", {t});
  r->Register<RaggedBincountOp>("RaggedBincount", {t});
  r->Register<SparseBincountOp>("SparseBincount", {t});
}

}  // namespace dfg
