// BiasAdd (NHWC / NCHW), BiasAddV1, Softmax and LogSoftmax (last dim; float32
// rows through simd::SoftmaxRows), and _MklLayerNorm: layer normalization
// over the last dimension, the node the remapper makes of Keras'
// LayerNormalization.
#include <cmath>
#include <type_traits>
#include <vector>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

// ParallelFor's cost per element (about cycles) of a vectorized softmax row:
// a max, an exp and a scale.
constexpr int64_t kVecSoftmaxCost = 6;

class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadBiasDataFormat(ctx, &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    DFG_OP_REQUIRES(ctx, x.dims() >= 2,
                    InvalidArgument("Input tensor must be at least 2D: {}",
                                    x.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, bias.dims() == 1,
        InvalidArgument("Biases must be 1D: {}", bias.shape().DebugString()));
    // NCHW: channels are dim 1 (the last dim for a matrix).
    const int cdim = nchw_ && x.dims() > 2 ? 1 : x.dims() - 1;
    const int64_t channels = x.dim_size(cdim);
    DFG_OP_REQUIRES(
        ctx, bias.dim_size(0) == channels,
        InvalidArgument("Must provide as many biases as the last "
                        "dimension of the input tensor: {} vs. {}",
                        bias.shape().DebugString(), x.shape().DebugString()));
    int64_t inner = 1;  // elements per channel run
    for (int d = cdim + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
    const int64_t outer =
        channels == 0 || inner == 0 ? 0 : x.NumElements() / (channels * inner);
    const void* xd = x.data();
    const void* bd = bias.data();
    const TensorShape shape = x.shape();
    const DataType dtype = x.dtype();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, shape, &out));
    Dispatch(NumberTypes(), dtype, [&](auto v) {
      using T = decltype(v);
      const T* xp = static_cast<const T*>(xd);
      const T* bp = static_cast<const T*>(bd);
      T* op = static_cast<T*>(out->data());
      if (inner == 1) {  // Channels last: add the bias vector to each row.
        ParallelFor(ctx->intra_op_pool(), outer, channels,
                    [&](int64_t b, int64_t e) {
                      for (int64_t r = b; r < e; ++r) {
                        const T* __restrict src = xp + r * channels;
                        T* __restrict dst = op + r * channels;
                        for (int64_t c = 0; c < channels; ++c) {
                          dst[c] = Store<T>(Load(src[c]) + Load(bp[c]));
                        }
                      }
                    });
        return;
      }
      ForRange(ctx->intra_op_pool(), outer * channels, inner,
               [&](int64_t b, int64_t e) {
                 for (int64_t r = b; r < e; ++r) {
                   const auto bv = Load(bp[r % channels]);
                   const T* __restrict src = xp + r * inner;
                   T* __restrict dst = op + r * inner;
                   for (int64_t i = 0; i < inner; ++i) {
                     dst[i] = Store<T>(Load(src[i]) + bv);
                   }
                 }
               });
    });
  }

 private:
  bool nchw_ = false;
};

template <bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFG_OP_REQUIRES(ctx, x.dims() >= 1,
                    InvalidArgument("logits must have >= 1 dimension, got {}",
                                    x.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t depth = x.dim_size(x.dims() - 1);
    if (depth == 0 || x.NumElements() == 0) return;
    const int64_t rows = x.NumElements() / depth;
    if (x.dtype() == tensorflow::DT_FLOAT) {
      const float* xp = static_cast<const float*>(x.data());
      float* op = static_cast<float*>(out->data());
      // Rows split over the pool once the whole tensor is large.
      ThreadPoolInterface* pool = x.NumElements() < kParallelMinElements
                                      ? nullptr
                                      : ctx->intra_op_pool();
      ParallelFor(pool, rows, depth * kVecSoftmaxCost,
                  [&](int64_t b, int64_t e) {
                    simd::SoftmaxRows(xp + b * depth, op + b * depth, e - b,
                                      depth, kLog);
                  });
      return;
    }
    Dispatch(FloatTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      using C = CalcType<T>;
      const T* xp = static_cast<const T*>(x.data());
      T* op = static_cast<T*>(out->data());
      ForRange(
          ctx->intra_op_pool(), rows, depth * 20, [&](int64_t b, int64_t e) {
            std::vector<C> tmp(depth);
            for (int64_t r = b; r < e; ++r) {
              const T* row = xp + r * depth;
              C max = Load(row[0]);
              for (int64_t i = 1; i < depth; ++i) {
                max = std::max(max, Load(row[i]));
              }
              C sum = 0;
              for (int64_t i = 0; i < depth; ++i) {
                tmp[i] = Load(row[i]) - max;
                sum += std::exp(tmp[i]);
              }
              for (int64_t i = 0; i < depth; ++i) {
                op[r * depth + i] = kLog ? Store<T>(tmp[i] - std::log(sum))
                                         : Store<T>(std::exp(tmp[i]) / sum);
              }
            }
          });
    });
  }
};

// Sums of a row in 8 independent lanes, so that the compiler vectorizes
// them without reassociating (no -ffast-math).
template <typename F>
float LaneSum(const float* x, int64_t n, F f) {
  float lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) lane[k] += f(x[i + k]);
  }
  float sum = 0;
  for (; i < n; ++i) sum += f(x[i]);
  for (float v : lane) sum += v;
  return sum;
}

// y = (x - mean) / sqrt(variance + epsilon) * scale + offset per row of the
// last dimension (the variance the mean of squared differences), as
// TensorFlow's oneDNN kernel: x of rank 2 or 3, scale and offset vectors.
// Computed in float for half and bfloat16.
class LayerNormOp : public OpKernel {
 public:
  explicit LayerNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    // TensorFlow's texts, shape appended without a space.
    DFG_OP_REQUIRES(
        ctx, x.dims() == 2 || x.dims() == 3,
        InvalidArgument("input must be 2D or 3D{}", x.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, scale.dims() == 1,
                    InvalidArgument("scale must be 1D tensor{}",
                                    scale.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, offset.dims() == 1,
                    InvalidArgument("offset must be 1D tensor{}",
                                    offset.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, scale.dim_size(0) == offset.dim_size(0),
                    InvalidArgument("Number of elements in scale and shift"
                                    "tensors are not same."));
    const int64_t depth = x.dim_size(x.dims() - 1);
    // TensorFlow's kernel reads past a short scale; dfg refuses it.
    DFG_OP_REQUIRES(
        ctx, scale.dim_size(0) == depth,
        InvalidArgument("scale and offset must have the input's last "
                        "dimension ({} elements), got {}",
                        depth, scale.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (depth == 0 || x.NumElements() == 0) return;
    const int64_t rows = x.NumElements() / depth;
    ThreadPoolInterface* pool =
        x.NumElements() < kParallelMinElements ? nullptr : ctx->intra_op_pool();
    Dispatch(TypeList<float, Half, BFloat16>(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      std::vector<float> gamma(depth), beta(depth);
      for (int64_t i = 0; i < depth; ++i) {
        gamma[i] = Load(static_cast<const T*>(scale.data())[i]);
        beta[i] = Load(static_cast<const T*>(offset.data())[i]);
      }
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(out->data());
      ParallelFor(pool, rows, depth * 6, [&](int64_t b, int64_t e) {
        std::vector<float> row(depth);
        for (int64_t r = b; r < e; ++r) {
          const float* in = row.data();
          if constexpr (std::is_same_v<T, float>) {
            in = xp + r * depth;
          } else {
            for (int64_t i = 0; i < depth; ++i)
              row[i] = Load(xp[r * depth + i]);
          }
          NormalizeRow(in, depth, gamma.data(), beta.data(), yp + r * depth);
        }
      });
    });
  }

 private:
  template <typename T>
  void NormalizeRow(const float* x, int64_t n, const float* gamma,
                    const float* beta, T* y) const {
    const float inv_n = 1.0f / static_cast<float>(n);
    const float mean = LaneSum(x, n, [](float v) { return v; }) * inv_n;
    const float var =
        LaneSum(x, n, [mean](float v) { return (v - mean) * (v - mean); }) *
        inv_n;
    const float r = 1.0f / std::sqrt(var + epsilon_);
    for (int64_t i = 0; i < n; ++i) {
      y[i] = Store<T>((x[i] - mean) * r * gamma[i] + beta[i]);
    }
  }

  float epsilon_ = 0.001f;
};

}  // namespace

void RegisterNnKernels(KernelRegistry* r) {
  r->Register<LayerNormOp>(
      "_MklLayerNorm",
      {TypeConstraint("T", TypeList<float, Half, BFloat16>())});
  r->Register<BiasAddOp>("BiasAdd", {TypeConstraint("T", NumberTypes())});
  r->Register<BiasAddOp>("BiasAddV1", {TypeConstraint("T", NumberTypes())});
  r->Register<SoftmaxOp<false>>("Softmax", {TypeConstraint("T", FloatTypes())});
  r->Register<SoftmaxOp<true>>("LogSoftmax",
                               {TypeConstraint("T", FloatTypes())});
}

}  // namespace dfg
