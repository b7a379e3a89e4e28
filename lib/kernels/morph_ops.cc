// Dilation2D (grayscale morphological dilation) and its gradients
// Dilation2DBackpropInput / Dilation2DBackpropFilter, as TensorFlow's CPU
// kernels (dilation_ops): out[b, y, x, c] = max over the in-image filter taps
// of input + filter, summed in T (integers wrap).
//
// The gradients send each output's gradient to the tap that gave the
// maximum: the first strictly greater one in row-major tap order, starting
// from T's lowest value. When no tap beats it (no tap inside the image, or
// only NaNs) TensorFlow's defaults stand: the input gradient goes to the
// window's first in-image cell, the filter gradient to tap (0, 0).
#include <limits>
#include <type_traits>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

struct MorphDims {
  int64_t batch = 0, depth = 0, filter_rows = 0, filter_cols = 0;
  int64_t rate_rows = 1, rate_cols = 1;
  Window rows, cols;  // effective filter sizes, dilation 1
};

// a + b in T: rounded for half/bfloat16, wrapping for integers.
template <typename T>
inline T AddT(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(
        static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return Store<T>(Load(a) + Load(b));
  }
}

// The window of output (oy, ox) of image b, channel c: calls
// fn(value, iy, ix, ky, kx) for each in-image tap.
template <typename T, typename Fn>
void ForTaps(const MorphDims& d, const T* in, const T* filter, int64_t b,
             int64_t oy, int64_t ox, int64_t c, const Fn& fn) {
  const int64_t y0 = oy * d.rows.stride - d.rows.pad_before;
  const int64_t x0 = ox * d.cols.stride - d.cols.pad_before;
  for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
    const int64_t iy = y0 + ky * d.rate_rows;
    if (iy < 0 || iy >= d.rows.in) continue;
    for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
      const int64_t ix = x0 + kx * d.rate_cols;
      if (ix < 0 || ix >= d.cols.in) continue;
      const T v =
          AddT(in[((b * d.rows.in + iy) * d.cols.in + ix) * d.depth + c],
               filter[(ky * d.filter_cols + kx) * d.depth + c]);
      fn(v, iy, ix, ky, kx);
    }
  }
}

// Eigen's NumTraits<T>::lowest(): the most negative finite value.
template <typename T>
T Lowest() {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{0xFBFF};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{0xFF7F};
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

template <typename T>
bool Greater(T a, T b) {
  return Load(a) > Load(b);
}

enum class Morph { kForward, kInputGrad, kFilterGrad };

template <Morph kOp>
class DilationOp : public OpKernel {
 public:
  explicit DilationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadAttrs(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    MorphDims d;
    DFG_OP_REQUIRES_OK(ctx, Sizes(in, filter, &d));
    const TensorShape out_shape({d.batch, d.rows.out, d.cols.out, d.depth});
    if constexpr (kOp != Morph::kForward) {
      const Tensor& dy = ctx->input(2);
      DFG_OP_REQUIRES(ctx, dy.dims() == 4,
                      InvalidArgument("out_backprop must be 4-dimensional{}",
                                      dy.shape().DebugString()));
      DFG_OP_REQUIRES(ctx, dy.shape() == out_shape,
                      InvalidArgument("out_backprop has incompatible size."));
    }
    const TensorShape& shape = kOp == Morph::kForward     ? out_shape
                               : kOp == Morph::kInputGrad ? in.shape()
                                                          : filter.shape();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    Dispatch(RealTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      Run<T>(d, in.flat<T>().data(), filter.flat<T>().data(),
             kOp == Morph::kForward ? nullptr : ctx->input(2).flat<T>().data(),
             out->flat<T>().data(), out->NumElements());
    });
  }

 private:
  template <typename T>
  static void Run(const MorphDims& d, const T* in, const T* filter, const T* dy,
                  T* out, int64_t n) {
    if constexpr (kOp != Morph::kForward) std::fill(out, out + n, Store<T>(0));
    int64_t p = 0;  // (b, oy, ox, c) in order
    for (int64_t b = 0; b < d.batch; ++b) {
      for (int64_t oy = 0; oy < d.rows.out; ++oy) {
        for (int64_t ox = 0; ox < d.cols.out; ++ox) {
          for (int64_t c = 0; c < d.depth; ++c, ++p) {
            T best = Lowest<T>();
            // The input gradient's default cell: the window's clamped start.
            int64_t ay =
                std::max<int64_t>(oy * d.rows.stride - d.rows.pad_before, 0);
            int64_t ax =
                std::max<int64_t>(ox * d.cols.stride - d.cols.pad_before, 0);
            int64_t aky = 0, akx = 0;
            ForTaps(d, in, filter, b, oy, ox, c,
                    [&](T v, int64_t iy, int64_t ix, int64_t ky, int64_t kx) {
                      if (Greater(v, best)) {
                        best = v;
                        ay = iy, ax = ix, aky = ky, akx = kx;
                      }
                    });
            if constexpr (kOp == Morph::kForward) {
              out[p] = best;
            } else if constexpr (kOp == Morph::kInputGrad) {
              if (ay < d.rows.in && ax < d.cols.in) {
                T& o =
                    out[((b * d.rows.in + ay) * d.cols.in + ax) * d.depth + c];
                o = AddT(o, dy[p]);
              }
            } else {
              T& o = out[(aky * d.filter_cols + akx) * d.depth + c];
              o = AddT(o, dy[p]);
            }
          }
        }
      }
    }
  }

  Status ReadAttrs(OpKernelConstruction* ctx) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides_));
    if (strides_.size() != 4) {
      return InvalidArgument(
          "Sliding window stride field must specify 4 dimensions");
    }
    if (strides_[0] != 1 || strides_[3] != 1) {
      return Unimplemented(
          "Stride is only supported across spatial dimensions.");
    }
    DFG_RETURN_IF_ERROR(ctx->GetAttr("rates", &rates_));
    if (rates_.size() != 4) {
      return InvalidArgument(
          "Input stride (atrous rate) field must specify 4 dimensions");
    }
    if (rates_[0] != 1 || rates_[3] != 1) {
      return Unimplemented("Rate is only supported across spatial dimensions.");
    }
    std::string padding;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
    return ParsePadding(padding, &padding_);
  }

  Status Sizes(const Tensor& in, const Tensor& filter, MorphDims* d) const {
    if (in.dims() != 4) {
      return InvalidArgument("input must be 4-dimensional{}",
                             in.shape().DebugString());
    }
    if (filter.dims() != 3) {
      return InvalidArgument("filter must be 3-dimensional: {}",
                             filter.shape().DebugString());
    }
    d->batch = in.dim_size(0);
    d->depth = in.dim_size(3);
    if (d->depth != filter.dim_size(2)) {
      return InvalidArgument(
          "input and filter must have the same depth: {} vs {}", d->depth,
          filter.dim_size(2));
    }
    d->filter_rows = filter.dim_size(0);
    d->filter_cols = filter.dim_size(1);
    d->rate_rows = rates_[1];
    d->rate_cols = rates_[2];
    d->rows = Window{in.dim_size(1),
                     d->filter_rows + (d->filter_rows - 1) * (d->rate_rows - 1),
                     1, strides_[1]};
    d->cols = Window{in.dim_size(2),
                     d->filter_cols + (d->filter_cols - 1) * (d->rate_cols - 1),
                     1, strides_[2]};
    DFG_RETURN_IF_ERROR(ComputeWindow(padding_, &d->rows));
    return ComputeWindow(padding_, &d->cols);
  }

  std::vector<int64_t> strides_, rates_;
  Padding padding_ = Padding::kValid;
};

}  // namespace

void RegisterMorphKernels(KernelRegistry* r) {
  const auto real = TypeConstraint("T", RealTypes());
  r->Register<DilationOp<Morph::kForward>>("Dilation2D", {real});
  r->Register<DilationOp<Morph::kInputGrad>>("Dilation2DBackpropInput", {real});
  r->Register<DilationOp<Morph::kFilterGrad>>("Dilation2DBackpropFilter",
                                              {real});
}

}  // namespace dfg
