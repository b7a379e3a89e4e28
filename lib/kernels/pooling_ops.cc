// MaxPool, MaxPoolV2 (ksize/strides as inputs) and AvgPool, NHWC on CPU, and
// their gradients MaxPoolGrad and AvgPoolGrad. Padding cells never count:
// MaxPool ignores them, AvgPool divides by the number of real cells in each
// window. MaxPoolGrad sends each output's gradient to the first maximum of
// its window (row-major), as TensorFlow's argmax helper does.
//
// These loops, not oneDNN's pooling (measured, 1 thread): oneDNN's max
// pooling skips NaNs where TensorFlow propagates them; where it would be
// faster (3x3/2 on 112x112x64: 0.12 against 0.40 ms) that semantics rules
// it out, and elsewhere it is no faster (2x2/2 on 8x56x56x128 ~1 ms both;
// a global 7x7 AvgPool is 4-9 us either way).
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

// Reads ksize/strides/padding/explicit_paddings and checks NHWC: the attrs
// shared by the pooling gradients.
Status ReadPoolAttrs(OpKernelConstruction* ctx, const char* op_label,
                     PoolAttrs* a) {
  std::string format = "NHWC";
  if (ctx->HasAttr("data_format")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  }
  if (format != "NHWC") {
    return InvalidArgument("Default {} only supports NHWC on device type CPU",
                           op_label);
  }
  DFG_RETURN_IF_ERROR(ctx->GetAttr("ksize", &a->ksize));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &a->strides));
  DFG_RETURN_IF_ERROR(CheckPoolWindow(a->ksize, a->strides));
  std::string padding;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  DFG_RETURN_IF_ERROR(ParsePadding(padding, &a->padding));
  if (a->padding == Padding::kExplicit) {
    DFG_RETURN_IF_ERROR(
        ctx->GetAttr("explicit_paddings", &a->explicit_paddings));
    if (a->explicit_paddings.size() != 8) {
      return InvalidArgument(
          "explicit_paddings attribute must contain 8 values, but got: {}",
          a->explicit_paddings.size());
    }
  }
  return Status::Ok();
}

// The windows of a pool over `in` ([N,H,W,C]); checks that `grad` has the
// pooled shape.
Status GradWindows(const PoolAttrs& a, const TensorShape& in,
                   const Tensor& grad, Window* rows, Window* cols) {
  if (in.dims() != 4) {
    return InvalidArgument("tensor_in must be 4-dimensional");
  }
  if (grad.dims() != 4) {
    return InvalidArgument("out_backprop must be 4-dimensional");
  }
  *rows = Window{in.dim_size(1), a.ksize[1], 1, a.strides[1]};
  *cols = Window{in.dim_size(2), a.ksize[2], 1, a.strides[2]};
  if (a.padding == Padding::kExplicit) {
    rows->pad_before = a.explicit_paddings[2];
    rows->pad_after = a.explicit_paddings[3];
    cols->pad_before = a.explicit_paddings[4];
    cols->pad_after = a.explicit_paddings[5];
  }
  DFG_RETURN_IF_ERROR(ComputeWindow(a.padding, rows));
  DFG_RETURN_IF_ERROR(ComputeWindow(a.padding, cols));
  const TensorShape want(
      {in.dim_size(0), rows->out, cols->out, in.dim_size(3)});
  if (grad.shape() != want) {
    return InvalidArgument("Expected grad shape to be {}, but got {}",
                           want.DebugString(), grad.shape().DebugString());
  }
  return Status::Ok();
}

// in_grad[b, y, x, c] += grad[b, oy, ox, c] for the window cell (y, x) the
// output (oy, ox) picked: its first maximum (kMax) or every real cell,
// divided by their count. Runs per image (images never share cells).
template <bool kMax, typename T>
void PoolGrad(ThreadPoolInterface* pool, const T* src, const T* grad,
              const Window& rows, const Window& cols, const TensorShape& in,
              T* dst) {
  using C = CalcType<T>;
  const int64_t batch = in.dim_size(0), in_rows = in.dim_size(1),
                in_cols = in.dim_size(2), depth = in.dim_size(3);
  const int64_t image = in_rows * in_cols * depth;
  ParallelFor(
      pool, batch, rows.out * cols.out * rows.k * cols.k * depth,
      [&](int64_t b0, int64_t b1) {
        std::vector<C> acc(image), best(depth);
        std::vector<int64_t> arg(depth);
        for (int64_t b = b0; b < b1; ++b) {
          std::fill(acc.begin(), acc.end(), C(0));
          for (int64_t oy = 0; oy < rows.out; ++oy) {
            for (int64_t ox = 0; ox < cols.out; ++ox) {
              const int64_t y0 = oy * rows.stride - rows.pad_before;
              const int64_t x0 = ox * cols.stride - cols.pad_before;
              const int64_t y1 = std::min(y0 + rows.k, in_rows);
              const int64_t x1 = std::min(x0 + cols.k, in_cols);
              const T* g = grad + ((b * rows.out + oy) * cols.out + ox) * depth;
              std::fill(best.begin(), best.end(),
                        std::numeric_limits<C>::lowest());
              std::fill(arg.begin(), arg.end(), -1);
              int64_t count = 0;
              for (int64_t y = std::max<int64_t>(y0, 0); y < y1; ++y) {
                for (int64_t x = std::max<int64_t>(x0, 0); x < x1; ++x) {
                  const int64_t cell = (y * in_cols + x) * depth;
                  ++count;
                  if constexpr (kMax) {
                    const T* s = src + b * image + cell;
                    for (int64_t c = 0; c < depth; ++c) {
                      const C v = Load(s[c]);
                      if (arg[c] < 0 || v > best[c]) {
                        best[c] = v;
                        arg[c] = cell + c;
                      }
                    }
                  }
                }
              }
              if constexpr (kMax) {
                for (int64_t c = 0; c < depth; ++c) {
                  if (arg[c] >= 0) acc[arg[c]] += Load(g[c]);
                }
              } else if (count > 0) {
                for (int64_t y = std::max<int64_t>(y0, 0); y < y1; ++y) {
                  for (int64_t x = std::max<int64_t>(x0, 0); x < x1; ++x) {
                    C* a = acc.data() + (y * in_cols + x) * depth;
                    for (int64_t c = 0; c < depth; ++c) {
                      a[c] += Load(g[c]) / static_cast<C>(count);
                    }
                  }
                }
              }
            }
          }
          for (int64_t i = 0; i < image; ++i)
            dst[b * image + i] = Store<T>(acc[i]);
        }
      });
}

// MaxPoolGrad(orig_input, orig_output, grad) and AvgPoolGrad(
// orig_input_shape, grad).
template <bool kMax>
class PoolGradOp : public OpKernel {
 public:
  explicit PoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, ReadPoolAttrs(ctx, kMax ? "MaxPoolingGradOp" : "AvgPoolingGradOp",
                           &attrs_));
  }
  void Compute(OpKernelContext* ctx) override {
    TensorShape in_shape;
    if constexpr (kMax) {
      in_shape = ctx->input(0).shape();
      DFG_OP_REQUIRES(ctx, ctx->input(1).dims() == 4,
                      InvalidArgument("tensor_out must be 4-dimensional"));
    } else {
      const Tensor& s = ctx->input(0);
      DFG_OP_REQUIRES(
          ctx, s.dims() == 1 && s.NumElements() == 4,
          InvalidArgument("orig_input_shape must be 1-dimensional and "
                          "4 elements"));
      const std::vector<int64_t> dims = IntValues(s);
      DFG_OP_REQUIRES(
          ctx, TensorShape::IsValid(dims),
          InvalidArgument("Invalid orig_input_shape {}", VectorString(dims)));
      in_shape = TensorShape(std::span<const int64_t>(dims));
    }
    const Tensor& grad = ctx->input(kMax ? 2 : 1);
    Window rows, cols;
    DFG_OP_REQUIRES_OK(ctx, GradWindows(attrs_, in_shape, grad, &rows, &cols));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    if (out->NumElements() == 0) return;
    Dispatch(RealTypes(), grad.dtype(), [&](auto v) {
      using T = decltype(v);
      PoolGrad<kMax, T>(
          ctx->intra_op_pool(),
          kMax ? static_cast<const T*>(ctx->input(0).data()) : nullptr,
          static_cast<const T*>(grad.data()), rows, cols, in_shape,
          static_cast<T*>(out->data()));
    });
  }

 private:
  PoolAttrs attrs_;
};

}  // namespace

void RegisterPoolingKernels(KernelRegistry* r) {
  r->Register<PoolGradOp<true>>("MaxPoolGrad",
                                {TypeConstraint("T", RealTypes())});
  r->Register<PoolGradOp<false>>("AvgPoolGrad",
                                 {TypeConstraint("T", FloatTypes())});
  r->Register<PoolOp<true>>("MaxPool", {TypeConstraint("T", RealTypes())});
  r->Register<PoolOp<true>>("MaxPoolV2", {TypeConstraint("T", RealTypes())});
  r->Register<PoolOp<false>>("AvgPool", {TypeConstraint("T", FloatTypes())});
}

}  // namespace dfg
