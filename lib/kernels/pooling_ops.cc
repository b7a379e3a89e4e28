// MaxPool, MaxPoolV2 (ksize/strides as inputs) and AvgPool, NHWC on CPU.
// Padding cells never count: MaxPool ignores them, AvgPool divides by the
// number of real cells in each window.
#include <limits>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

struct PoolAttrs {
  std::vector<int64_t> ksize, strides;  // NHWC order
  Padding padding = Padding::kValid;
  std::vector<int64_t> explicit_paddings;
};

Status CheckPoolWindow(const std::vector<int64_t>& ksize,
                       const std::vector<int64_t>& strides) {
  if (ksize.size() != 4) {
    return InvalidArgument(
        "Sliding window ksize field must specify 4 dimensions");
  }
  if (strides.size() != 4) {
    return InvalidArgument(
        "Sliding window stride field must specify 4 dimensions");
  }
  for (int i = 0; i < 4; ++i) {
    if (ksize[i] <= 0) {
      return InvalidArgument("Sliding window ksize for dimension {} was zero.",
                             i);
    }
  }
  if (ksize[0] != 1 || strides[0] != 1) {
    return Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  if (ksize[3] != 1 || strides[3] != 1) {
    return Unimplemented("Depthwise pooling is not yet supported.");
  }
  return Status::Ok();
}

template <bool kMax, typename T>
void Pool(ThreadPoolInterface* pool, const Tensor& in, const Window& rows,
          const Window& cols, Tensor* out) {
  using C = CalcType<T>;
  const int64_t batch = in.dim_size(0), in_rows = in.dim_size(1),
                in_cols = in.dim_size(2), depth = in.dim_size(3);
  const T* src = static_cast<const T*>(in.data());
  T* dst = static_cast<T*>(out->data());
  const int64_t pixels = rows.out * cols.out;
  ParallelFor(
      pool, batch * pixels, rows.k * cols.k * depth,
      [&](int64_t p0, int64_t p1) {
        std::vector<C> acc(depth);
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t b = p / pixels, oy = (p % pixels) / cols.out,
                        ox = p % cols.out;
          const int64_t y0 = oy * rows.stride - rows.pad_before;
          const int64_t x0 = ox * cols.stride - cols.pad_before;
          const int64_t y1 = std::min(y0 + rows.k, in_rows);
          const int64_t x1 = std::min(x0 + cols.k, in_cols);
          std::fill(acc.begin(), acc.end(),
                    kMax ? std::numeric_limits<C>::lowest() : C(0));
          int64_t count = 0;
          for (int64_t y = std::max<int64_t>(y0, 0); y < y1; ++y) {
            for (int64_t x = std::max<int64_t>(x0, 0); x < x1; ++x) {
              const T* s = src + ((b * in_rows + y) * in_cols + x) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                const C v = Load(s[c]);
                if constexpr (kMax) {
                  // NaN propagates as in Eigen's max reducer.
                  acc[c] = (v > acc[c] || v != v) ? v : acc[c];
                } else {
                  acc[c] += v;
                }
              }
              ++count;
            }
          }
          T* d = dst + p * depth;
          for (int64_t c = 0; c < depth; ++c) {
            d[c] = Store<T>(
                kMax || count == 0 ? acc[c] : acc[c] / static_cast<C>(count));
          }
        }
      });
}

template <bool kMax>
class PoolOp : public OpKernel {
 public:
  explicit PoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format = "NHWC";
    if (ctx->HasAttr("data_format")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    }
    DFG_OP_REQUIRES(
        ctx, format == "NHWC",
        InvalidArgument("Default {} only supports NHWC on device type CPU",
                        kMax ? "MaxPoolingOp" : "AvgPoolingOp"));
    v2_ = ctx->num_inputs() == 3;
    if (!v2_) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &attrs_.ksize));
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &attrs_.strides));
      DFG_OP_REQUIRES_OK(ctx, CheckPoolWindow(attrs_.ksize, attrs_.strides));
    }
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &attrs_.padding));
    if (attrs_.padding == Padding::kExplicit) {
      DFG_OP_REQUIRES_OK(
          ctx, ctx->GetAttr("explicit_paddings", &attrs_.explicit_paddings));
      DFG_OP_REQUIRES(ctx, attrs_.explicit_paddings.size() == 8,
                      InvalidArgument("explicit_paddings attribute must "
                                      "contain 8 values, but got: {}",
                                      attrs_.explicit_paddings.size()));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    PoolAttrs a = attrs_;
    if (v2_) {
      a.ksize = IntValues(ctx->input(1));
      a.strides = IntValues(ctx->input(2));
      DFG_OP_REQUIRES_OK(ctx, CheckPoolWindow(a.ksize, a.strides));
    }
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("tensor_in must be 4-dimensional"));
    Window rows{in.dim_size(1), a.ksize[1], 1, a.strides[1]};
    Window cols{in.dim_size(2), a.ksize[2], 1, a.strides[2]};
    if (a.padding == Padding::kExplicit) {
      rows.pad_before = a.explicit_paddings[2];
      rows.pad_after = a.explicit_paddings[3];
      cols.pad_before = a.explicit_paddings[4];
      cols.pad_after = a.explicit_paddings[5];
    }
    DFG_OP_REQUIRES_OK(ctx, ComputeWindow(a.padding, &rows));
    DFG_OP_REQUIRES_OK(ctx, ComputeWindow(a.padding, &cols));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0,
                                  TensorShape({in.dim_size(0), rows.out,
                                               cols.out, in.dim_size(3)}),
                                  &out));
    if (out->NumElements() == 0) return;
    Dispatch(RealTypes(), in.dtype(), [&](auto v) {
      Pool<kMax, decltype(v)>(ctx->intra_op_pool(), in, rows, cols, out);
    });
  }

 private:
  PoolAttrs attrs_;
  bool v2_ = false;
};

}  // namespace

void RegisterPoolingKernels(KernelRegistry* r) {
  r->Register<PoolOp<true>>("MaxPool", {TypeConstraint("T", RealTypes())});
  r->Register<PoolOp<true>>("MaxPoolV2", {TypeConstraint("T", RealTypes())});
  r->Register<PoolOp<false>>("AvgPool", {TypeConstraint("T", FloatTypes())});
}

}  // namespace dfg
