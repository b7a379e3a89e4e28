// Training-step gradients: EluGrad, SeluGrad, SoftplusGrad, SoftsignGrad,
// LeakyReluGrad (TensorFlow's relu_op / softplus_op / softsign_op
// BinaryElementWiseOps), LRNGrad (lrn_op's CPU loops, in T arithmetic),
// FusedBatchNormGrad/V2/V3 (fused_batch_norm_op's CPU FusedBatchNormGrad and
// FusedBatchNormFreezeGrad functors) and
// DepthwiseConv2dNativeBackpropInput/Filter (depthwise_conv_grad_op: NHWC,
// equal row/column strides, dilations not read, as TensorFlow's CPU kernels).
//
// The element-wise grads compute in float for half/bfloat16 and round once.
// The batch-norm gradient works in U = float over [rest, channels]: with
// is_training, x_backprop = scale * rsqrt(var + eps) * (dy - mean(dy) -
// (x - mean) * mean(dy * (x - mean)) / (var + eps)); without, dy * scale *
// rsqrt(var + eps). Channel sums accumulate in double, which is at least as
// close to the exact sum as TensorFlow's pairwise float reduction.
#include <cmath>
#include <limits>
#include <type_traits>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// ---- Activation gradients ----

enum class Act { kElu, kSelu, kSoftplus, kSoftsign, kLeakyRelu };

template <Act kAct>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kAct == Act::kLeakyRelu) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& a = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, g.shape().IsSameSize(a.shape()),
        InvalidArgument("Inputs to operation {} of type {} must have the same "
                        "size and shape.  Input 0: {} != input 1: {}",
                        name(), type_string(), g.shape().DebugString(),
                        a.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, g.shape(), &out));
    using Types =
        std::conditional_t<kAct == Act::kLeakyRelu, RealTypes, FloatTypes>;
    Dispatch(Types(), g.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* gp = g.flat<T>().data();
      const T* ap = a.flat<T>().data();
      T* op = out->flat<T>().data();
      for (int64_t i = 0; i < out->NumElements(); ++i) {
        op[i] = Store<T>(Grad<T>(Load(gp[i]), Load(ap[i])));
      }
    });
  }

 private:
  template <typename T, typename C>
  C Grad(C g, C a) const {
    if constexpr (kAct == Act::kElu) {
      return a < C(0) ? (a + C(1)) * g : g;
    } else if constexpr (kAct == Act::kSelu) {
      const C scale = C(1.0507009873554804934193349852946);
      const C scale_alpha = C(1.7580993408473768599402175208123);
      return a < C(0) ? g * (a + scale_alpha) : g * scale;
    } else if constexpr (kAct == Act::kSoftplus) {
      return g / (std::exp(-a) + C(1));
    } else if constexpr (kAct == Act::kSoftsign) {
      const C d = std::abs(a) + C(1);
      return g / (d * d);
    } else {
      // alpha as T first (TensorFlow's static_cast<T>(alpha)).
      const C alpha = Load(Store<T>(alpha_));
      return a > C(0) ? g : g * alpha;
    }
  }

  float alpha_ = 0.2f;
};

// ---- LRNGrad ----

class LrnGradOp : public OpKernel {
 public:
  explicit LrnGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t radius = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("depth_radius", &radius));
    DFG_OP_REQUIRES(
        ctx, radius >= 0 && radius <= std::numeric_limits<int>::max(),
        InvalidArgument("depth_radius = {} larger than int max", radius));
    radius_ = radius;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("bias", &bias_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("beta", &beta_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& in = ctx->input(1);
    const Tensor& act = ctx->input(2);
    DFG_OP_REQUIRES(ctx, g.dims() == 4 && in.dims() == 4,
                    InvalidArgument("inputs must be 4-dimensional"));
    DFG_OP_REQUIRES(ctx, in.shape() == g.shape() && act.shape() == g.shape(),
                    InvalidArgument("input_grads, input_image, and out_image "
                                    "should have the same shape"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.shape(), &out));
    Dispatch(TypeList<float, Half>(), g.dtype(), [&](auto v) {
      using T = decltype(v);
      Run<T>(g.flat<T>().data(), in.flat<T>().data(), act.flat<T>().data(),
             g.dim_size(3), g.NumElements(), out->flat<T>().data());
    });
  }

 private:
  // Per position and depth j: norm over j's window, then each k in it gets
  // (-2 alpha beta in[k] act[j] / norm + [k == j] norm^-beta) * grad[j]; in
  // T's arithmetic (half rounds after every operation, as Eigen::half).
  template <typename T>
  void Run(const T* g, const T* in, const T* act, int64_t depth, int64_t n,
           T* out) const {
    using C = CalcType<T>;
    auto r = [](C v) {
      if constexpr (kIsHalfLike<T>) return Load(Store<T>(v));
      return v;
    };
    const C alpha = r(alpha_), beta = r(beta_), bias = r(bias_);
    std::vector<C> acc(depth);
    for (int64_t p = 0; p < n; p += depth) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t j = 0; j < depth; ++j) {
        const int64_t lo = std::max<int64_t>(0, j - radius_);
        const int64_t hi = std::min<int64_t>(depth, j + radius_ + 1);
        C norm = 0;
        for (int64_t k = lo; k < hi; ++k) {
          norm = r(norm + r(Load(in[p + k]) * Load(in[p + k])));
        }
        norm = r(r(alpha * norm) + bias);
        for (int64_t k = lo; k < hi; ++k) {
          C dyi = r(r(r(r(C(-2) * alpha) * beta) * Load(in[p + k])) *
                    Load(act[p + j]));
          dyi = r(dyi / norm);
          if (k == j) dyi = r(dyi + r(std::pow(norm, -beta)));
          dyi = r(dyi * Load(g[p + j]));
          acc[k] = r(acc[k] + dyi);
        }
      }
      for (int64_t k = 0; k < depth; ++k) out[p + k] = Store<T>(acc[k]);
    }
  }

  int64_t radius_ = 5;
  float bias_ = 1, alpha_ = 1, beta_ = 0.5f;
};

// ---- FusedBatchNormGrad ----

struct BnLayout {
  int64_t channels, rest, inner;  // inner: elements per channel run
  bool channels_first;
};

class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    std::string format;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    DFG_OP_REQUIRES(ctx,
                    format == "NHWC" || format == "NCHW" || format == "NDHWC" ||
                        format == "NCDHW",
                    InvalidArgument("Invalid data format"));
    channels_first_ = format == "NCHW" || format == "NCDHW";
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, Check(ctx));
    const int c_axis = channels_first_ ? 1 : x.dims() - 1;
    BnLayout l{x.dim_size(c_axis), 0, 1, channels_first_};
    l.rest = l.channels == 0 ? 0 : x.NumElements() / l.channels;
    for (int i = c_axis + 1; i < x.dims(); ++i) l.inner *= x.dim_size(i);
    DFG_OP_REQUIRES_OK(ctx, CheckChannels(ctx, l.channels));
    DFG_OP_REQUIRES(
        ctx, is_training_ || !channels_first_,
        InvalidArgument("The implementation of FusedBatchNormGrad with "
                        "is_training=False only support NHWC tensor format "
                        "for now."));
    Tensor *dx = nullptr, *dscale = nullptr, *doffset = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    const TensorShape vec({l.channels});
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, vec, &dscale));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, vec, &doffset));
    for (int i = 3; i < 5; ++i) {
      Tensor* empty = nullptr;
      DFG_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(i, TensorShape({0}), &empty));
    }
    Dispatch(FloatTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      Grad<T>(ctx, dy.flat<T>().data(), x.flat<T>().data(), l,
              dx->flat<T>().data(), dscale->flat<float>().data(),
              doffset->flat<float>().data());
    });
  }

 private:
  Status Check(OpKernelContext* ctx) const {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    if (dy.dims() != 4 && dy.dims() != 5) {
      return InvalidArgument("input must be 4 or 5-dimensional{}",
                             dy.shape().DebugString());
    }
    if (x.dims() != 4 && x.dims() != 5) {
      return InvalidArgument("input must be 4 or 5-dimensional{}",
                             x.shape().DebugString());
    }
    static const char* const kWhat[] = {"", "", "scale", "saved mean",
                                        "saved variance"};
    for (int i = 2; i < 5; ++i) {
      if (ctx->input(i).dims() != 1) {
        return InvalidArgument("{} must be 1-dimensional{}", kWhat[i],
                               ctx->input(i).shape().DebugString());
      }
    }
    if (x.shape() != dy.shape()) {
      return InvalidArgument(
          "x and y_backprop must have same shape, but x has shape {} and "
          "y_backprop has shape {}",
          x.shape().DebugString(), dy.shape().DebugString());
    }
    return Status::Ok();
  }

  static Status CheckChannels(OpKernelContext* ctx, int64_t channels) {
    static const char* const kWhat[] = {"", "", "scale", "reserve_space_1",
                                        "reserve_space_2"};
    for (int i = 2; i < 5; ++i) {
      if (ctx->input(i).NumElements() != channels) {
        return InvalidArgument(
            "{} must have the same number of elements as the channels of x, "
            "got {} and {}",
            kWhat[i], ctx->input(i).NumElements(), channels);
      }
    }
    return Status::Ok();
  }

  int64_t Channel(const BnLayout& l, int64_t i) const {
    return l.channels_first ? (i / l.inner) % l.channels : i % l.channels;
  }

  template <typename T>
  void Grad(OpKernelContext* ctx, const T* dy, const T* x, const BnLayout& l,
            T* dx, float* dscale, float* doffset) const {
    const float* scale = ctx->input(2).flat<float>().data();
    const float* mean = ctx->input(3).flat<float>().data();
    const float* var = ctx->input(4).flat<float>().data();
    const int64_t n = l.rest * l.channels, c = l.channels;
    std::vector<float> coef0(c);
    for (int64_t k = 0; k < c; ++k)
      coef0[k] = 1.0f / std::sqrt(var[k] + epsilon_);
    // Per channel: sum(dy), sum(dy * (x - mean)).
    std::vector<double> sum_dy(c, 0.0), sum_dyxc(c, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = Channel(l, i);
      const float g = static_cast<float>(Load(dy[i]));
      const float xc = static_cast<float>(Load(x[i])) - mean[k];
      sum_dy[k] += g;
      sum_dyxc[k] += static_cast<double>(g) * xc;
    }
    for (int64_t k = 0; k < c; ++k) {
      doffset[k] = n == 0 ? 0.0f : static_cast<float>(sum_dy[k]);
      dscale[k] = n == 0 ? 0.0f : static_cast<float>(sum_dyxc[k] * coef0[k]);
    }
    if (n == 0) return;
    const float rest_inv = 1.0f / static_cast<float>(l.rest);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = Channel(l, i);
      const float g = static_cast<float>(Load(dy[i]));
      if (!is_training_) {
        dx[i] = Store<T>(g * (coef0[k] * scale[k]));
        continue;
      }
      const float xc = static_cast<float>(Load(x[i])) - mean[k];
      const float dy_mean = static_cast<float>(sum_dy[k]) * rest_inv;
      const float coef2 =
          coef0[k] * coef0[k] * (static_cast<float>(sum_dyxc[k]) / l.rest);
      dx[i] = Store<T>((scale[k] * coef0[k]) * ((g - dy_mean) - xc * coef2));
    }
  }

  float epsilon_ = 1e-4f;
  bool channels_first_ = false, is_training_ = true;
};

// ---- DepthwiseConv2dNative gradients ----

struct DepthwiseDims {
  int64_t batch, in_rows, in_cols, in_depth, mult;
  Window rows, cols;
};

class DepthwiseBackpropOp : public OpKernel {
 public:
  explicit DepthwiseBackpropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    filter_ = ctx->def().op() == "DepthwiseConv2dNativeBackpropFilter";
    DFG_OP_REQUIRES_OK(ctx, ReadAttrs(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(filter_ ? 1 : 0);
    const char* sizes_name = filter_ ? "filter_sizes" : "input_sizes";
    const char* label =
        filter_ ? "Conv2DBackpropFilter" : "Conv2DBackpropInput";
    DFG_OP_REQUIRES(ctx, sizes.dims() == 1,
                    InvalidArgument("{}: {} input must be 1-dim, not {}", label,
                                    sizes_name, sizes.dims()));
    std::vector<int64_t> dims;
    for (int64_t v : IntValues(sizes)) {
      DFG_OP_REQUIRES(ctx, v >= 0,
                      InvalidArgument("Dimension {} of {} must be >= 0",
                                      dims.size(), sizes_name));
      dims.push_back(v);
    }
    const TensorShape given{std::span<const int64_t>(dims)};
    const TensorShape& in_shape = filter_ ? ctx->input(0).shape() : given;
    const TensorShape& f_shape = filter_ ? given : ctx->input(1).shape();
    DepthwiseDims d;
    DFG_OP_REQUIRES_OK(ctx, Dims(in_shape, f_shape, ctx->input(2).shape(), &d));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, given, &out));
    if (out->NumElements() == 0) return;
    DFG_OP_REQUIRES(ctx, nhwc_,
                    Unimplemented("Depthwise convolution on CPU is only "
                                  "supported for NHWC format"));
    Dispatch(TypeList<float, double, Half, BFloat16>(), out->dtype(),
             [&](auto v) {
               using T = decltype(v);
               Run<T>(d, ctx->input(filter_ ? 0 : 1).flat<T>().data(),
                      ctx->input(2).flat<T>().data(), out);
             });
  }

 private:
  Status ReadAttrs(OpKernelConstruction* ctx) {
    std::vector<int64_t> strides;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides));
    if (strides.size() != 4) {
      return InvalidArgument(
          "Sliding window strides field must specify 4 dimensions");
    }
    std::string format, padding;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
    if (format != "NHWC" && format != "NCHW") {
      return InvalidArgument("Invalid data format");
    }
    nhwc_ = format == "NHWC";
    const int h = nhwc_ ? 1 : 2, w = nhwc_ ? 2 : 3, c = nhwc_ ? 3 : 1;
    stride_ = strides[h];
    if (stride_ != strides[w]) {
      return InvalidArgument(
          "Current implementation only supports equal length strides in the "
          "row and column dimensions.");
    }
    if (strides[0] != 1 || strides[c] != 1) {
      return InvalidArgument(
          "Current implementation does not yet support strides in the batch "
          "and depth dimensions.");
    }
    DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
    DFG_RETURN_IF_ERROR(ParsePadding(padding, &padding_));
    std::vector<int64_t> pads;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &pads));
    return CheckExplicitPaddings(pads, padding_, h, w, c,
                                 /*list_negatives=*/false, &explicit_);
  }

  // EXTRACT_AND_VERIFY_DIMENSIONS of depthwise_conv_grad_op.cc.
  Status Dims(const TensorShape& in, const TensorShape& f,
              const TensorShape& dy, DepthwiseDims* d) const {
    const char* label = filter_ ? "DepthwiseConv2DBackpropFilter"
                                : "DepthwiseConv2DBackpropInput";
    if (in.dims() != 4) {
      return InvalidArgument("{}: input must be 4-dimensional", label);
    }
    if (f.dims() != 4) {
      return InvalidArgument("{}: filter must be 4-dimensional", label);
    }
    if (dy.dims() != 4) {
      return InvalidArgument("{}: out_backprop must be 4-dimensional", label);
    }
    const int h = nhwc_ ? 1 : 2, w = nhwc_ ? 2 : 3, c = nhwc_ ? 3 : 1;
    d->batch = in.dim_size(0);
    if (d->batch != dy.dim_size(0)) {
      return InvalidArgument(
          "{}: input and out_backprop must have the same batch size", label);
    }
    d->in_rows = in.dim_size(h);
    d->in_cols = in.dim_size(w);
    d->in_depth = in.dim_size(c);
    if (d->in_depth != f.dim_size(2)) {
      return InvalidArgument("{}: input and filter must have the same in_depth",
                             label);
    }
    d->mult = f.dim_size(3);
    if (d->mult * d->in_depth != dy.dim_size(c)) {
      return InvalidArgument(
          "{}: depth_multiplier * in_depth not equal to out_depth", label);
    }
    d->rows = Window{d->in_rows, f.dim_size(0), 1, stride_};
    d->cols = Window{d->in_cols, f.dim_size(1), 1, stride_};
    if (padding_ == Padding::kExplicit) {
      d->rows.pad_before = explicit_[0], d->rows.pad_after = explicit_[1];
      d->cols.pad_before = explicit_[2], d->cols.pad_after = explicit_[3];
    }
    DFG_RETURN_IF_ERROR(ComputeWindow(padding_, &d->rows));
    DFG_RETURN_IF_ERROR(ComputeWindow(padding_, &d->cols));
    if (d->rows.out != dy.dim_size(h)) {
      return InvalidArgument(
          "{}: Number of rows of out_backprop doesn't match computed: actual "
          "= {}, computed = {}",
          label, dy.dim_size(h), d->rows.out);
    }
    if (d->cols.out != dy.dim_size(w)) {
      return InvalidArgument(
          "{}: Number of cols of out_backprop doesn't match computed: actual "
          "= {}, computed = {}",
          label, dy.dim_size(w), d->cols.out);
    }
    return Status::Ok();
  }

  // Scatters dy through every (output pixel, tap) pair: into the input
  // gradient (other = filter) or the filter gradient (other = input). For
  // half, each multiply-add rounds to half as TensorFlow's Eigen::half
  // packets do; the input gradient accumulates per (channel, multiplier)
  // and then sums the multipliers, the filter gradient sums per image first
  // (TensorFlow's per-image buffers), then over the batch.
  template <typename T>
  void Run(const DepthwiseDims& d, const T* other, const T* dy,
           Tensor* out) const {
    using C = CalcType<T>;
    auto round = [](C v) {
      if constexpr (kIsHalfLike<T>) return Load(Store<T>(v));
      return v;
    };
    const int64_t od = d.in_depth * d.mult;
    std::vector<C> acc(
        filter_ ? out->NumElements() : out->NumElements() * d.mult, C(0));
    std::vector<C> image(filter_ ? acc.size() : 0);
    for (int64_t b = 0; b < d.batch; ++b) {
      std::fill(image.begin(), image.end(), C(0));
      for (int64_t oy = 0; oy < d.rows.out; ++oy) {
        for (int64_t ox = 0; ox < d.cols.out; ++ox) {
          const T* g = dy + ((b * d.rows.out + oy) * d.cols.out + ox) * od;
          for (int64_t ky = 0; ky < d.rows.k; ++ky) {
            const int64_t iy = oy * d.rows.stride - d.rows.pad_before + ky;
            if (iy < 0 || iy >= d.in_rows) continue;
            for (int64_t kx = 0; kx < d.cols.k; ++kx) {
              const int64_t ix = ox * d.cols.stride - d.cols.pad_before + kx;
              if (ix < 0 || ix >= d.in_cols) continue;
              const int64_t pix = (b * d.in_rows + iy) * d.in_cols + ix;
              const int64_t tap = (ky * d.cols.k + kx) * od;
              for (int64_t o = 0; o < od; ++o) {
                const C gv = Load(g[o]);
                if (filter_) {
                  C& a = image[tap + o];
                  a = round(gv * Load(other[pix * d.in_depth + o / d.mult]) +
                            a);
                } else {
                  C& a = acc[pix * od + o];
                  a = round(gv * Load(other[tap + o]) + a);
                }
              }
            }
          }
        }
      }
      for (size_t i = 0; i < image.size(); ++i)
        acc[i] = round(acc[i] + image[i]);
    }
    T* o = out->flat<T>().data();
    if (filter_) {
      for (size_t i = 0; i < acc.size(); ++i) o[i] = Store<T>(acc[i]);
      return;
    }
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      C sum = C(0);
      for (int64_t m = 0; m < d.mult; ++m)
        sum = round(sum + acc[i * d.mult + m]);
      o[i] = Store<T>(sum);
    }
  }

  bool filter_ = false, nhwc_ = true;
  int64_t stride_ = 1;
  Padding padding_ = Padding::kValid;
  std::vector<int64_t> explicit_;
};

}  // namespace

void RegisterNnGradExtKernels(KernelRegistry* r) {
  const auto floats = TypeConstraint("T", FloatTypes());
  r->Register<ActivationGradOp<Act::kElu>>("EluGrad", {floats});
  r->Register<ActivationGradOp<Act::kSelu>>("SeluGrad", {floats});
  r->Register<ActivationGradOp<Act::kSoftplus>>("SoftplusGrad", {floats});
  r->Register<ActivationGradOp<Act::kSoftsign>>("SoftsignGrad", {floats});
  r->Register<ActivationGradOp<Act::kLeakyRelu>>(
      "LeakyReluGrad", {TypeConstraint("T", RealTypes())});
  r->Register<FusedBatchNormGradOp>("FusedBatchNormGrad",
                                    {TypeConstraint("T", TypeList<float>())});
  const auto bn = TypeConstraint("T", TypeList<float, Half, BFloat16>());
  r->Register<FusedBatchNormGradOp>("FusedBatchNormGradV2", {bn});
  r->Register<FusedBatchNormGradOp>("FusedBatchNormGradV3", {bn});
  r->Register<LrnGradOp>("LRNGrad",
                         {TypeConstraint("T", TypeList<Half, float>())});
  const auto dw = TypeConstraint("T", TypeList<Half, float, double>());
  r->Register<DepthwiseBackpropOp>("DepthwiseConv2dNativeBackpropInput", {dw});
  r->Register<DepthwiseBackpropOp>("DepthwiseConv2dNativeBackpropFilter", {dw});
}

}  // namespace dfg
