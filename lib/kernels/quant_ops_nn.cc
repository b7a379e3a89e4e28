// The TF1 quantized-inference ops on "min/max" quantized tensors, as
// TensorFlow's quantized_*_op.cc: QuantizedRelu / Relu6 (clamp at the
// quantized 0 and 6), QuantizedMaxPool / AvgPool (NHWC windows; the average
// in int32, truncated), QuantizedBiasAdd (both operands moved into a qint32
// range 2^17 times the widest input, then added) and QuantizedMatMul
// (quint8 GEMM on values minus their zero points, exact in int32),
// QuantizedBatchNormWithGlobalNormalization (fixed point, below).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

float FirstFloat(OpKernelContext* ctx, int i) {
  return ctx->input(i).flat<float>()[0];
}

void SetRange(OpKernelContext* ctx, int first, float lo, float hi) {
  ctx->set_output(first, Tensor::Scalar(lo));
  ctx->set_output(first + 1, Tensor::Scalar(hi));
}

using ReluTypes = TypeList<QUInt8, QInt32>;

// QuantizedRelu (kSix false) and QuantizedRelu6.
template <bool kSix>
class QuantizedReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const float lo = FirstFloat(ctx, 1), hi = FirstFloat(ctx, 2);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    Dispatch(ReluTypes(), in.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      const R zero = FloatToQuantized<R>(0.0f, lo, hi);
      const R six = kSix ? FloatToQuantized<R>(6.0f, lo, hi)
                         : std::numeric_limits<R>::max();
      const R* x = reinterpret_cast<const R*>(in.data());
      R* y = reinterpret_cast<R*>(out->data());
      for (int64_t i = 0; i < in.NumElements(); ++i) {
        y[i] = std::min(std::max(x[i], zero), six);
      }
    });
    SetRange(ctx, 1, lo, hi);
  }
};

// QuantizedMaxPool (kAvg false) and QuantizedAvgPool on quint8 NHWC.
template <bool kAvg>
class QuantizedPoolOp : public OpKernel {
 public:
  explicit QuantizedPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &ksize_));
    DFG_OP_REQUIRES(ctx, ksize_.size() == 4,
                    InvalidArgument("Sliding window ksize field must specify "
                                    "4 dimensions"));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFG_OP_REQUIRES(ctx, strides_.size() == 4,
                    InvalidArgument("Sliding window strides field must "
                                    "specify 4 dimensions"));
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
    DFG_OP_REQUIRES(ctx, ksize_[0] == 1 && strides_[0] == 1,
                    Unimplemented("Pooling is not yet supported on the batch "
                                  "dimension."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("tensor_in must be 4-dimensional"));
    DFG_OP_REQUIRES(ctx, ksize_[3] == 1 && strides_[3] == 1,
                    Unimplemented("Non-spatial pooling is not yet supported. "
                                  "Volunteers? :)"));
    Window rows{in.dim_size(1), ksize_[1], 1, strides_[1]};
    Window cols{in.dim_size(2), ksize_[2], 1, strides_[2]};
    DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &rows));
    DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &cols));
    const int64_t batch = in.dim_size(0), depth = in.dim_size(3);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({batch, rows.out, cols.out, depth}), &out));
    Dispatch(TypeList<QUInt8, QInt8>(), in.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      const R* x = reinterpret_cast<const R*>(in.data());
      R* y = reinterpret_cast<R*>(out->data());
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t r = 0; r < rows.out; ++r) {
          for (int64_t c = 0; c < cols.out; ++c) {
            R* o = y + ((b * rows.out + r) * cols.out + c) * depth;
            PoolWindow<R>(x, b, r, c, rows, cols, in, o);
          }
        }
      }
    });
    SetRange(ctx, 1, FirstFloat(ctx, 1), FirstFloat(ctx, 2));
  }

 private:
  template <typename R>
  void PoolWindow(const R* x, int64_t b, int64_t r, int64_t c,
                  const Window& rows, const Window& cols, const Tensor& in,
                  R* o) const {
    const int64_t depth = in.dim_size(3);
    const int64_t r0 = r * rows.stride - rows.pad_before;
    const int64_t c0 = c * cols.stride - cols.pad_before;
    const int64_t r1 = std::min(r0 + rows.k, rows.in),
                  rs = std::max<int64_t>(r0, 0);
    const int64_t c1 = std::min(c0 + cols.k, cols.in),
                  cs = std::max<int64_t>(c0, 0);
    for (int64_t d = 0; d < depth; ++d) {
      int32_t acc = kAvg ? 0 : std::numeric_limits<R>::lowest(), count = 0;
      for (int64_t i = rs; i < r1; ++i) {
        for (int64_t j = cs; j < c1; ++j) {
          const int32_t v = x[((b * rows.in + i) * cols.in + j) * depth + d];
          acc = kAvg ? acc + v : std::max(acc, v);
          ++count;
        }
      }
      o[d] = static_cast<R>(kAvg && count > 0 ? acc / count : acc);
    }
  }

  std::vector<int64_t> ksize_, strides_;
  Padding padding_ = Padding::kValid;
};

// quantization_utils' GetOutputMinAndMaxForQuantizedAdd.
float AddRangeMax(float a_min, float a_max, float b_min, float b_max) {
  return std::max(a_max, std::max(-a_min, std::max(b_max, -b_min))) * (1 << 17);
}

// Moves quantized values into the qint32 range [-m, m] (Eigen's float path).
template <typename R>
std::vector<int32_t> ToTotalSpace(const Tensor& t, float lo, float hi,
                                  float m) {
  const Dequantizer<R> dq(lo, hi);
  const Requantizer<int32_t> rq(-m, m);
  const R* x = reinterpret_cast<const R*>(t.data());
  std::vector<int32_t> out(t.NumElements());
  for (size_t i = 0; i < out.size(); ++i) out[i] = rq(dq(x[i]));
  return out;
}

class QuantizedBiasAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    const float in_lo = FirstFloat(ctx, 2), in_hi = FirstFloat(ctx, 3);
    const float b_lo = FirstFloat(ctx, 4), b_hi = FirstFloat(ctx, 5);
    DFG_OP_REQUIRES(ctx, in.dims() >= 2,
                    InvalidArgument("Input tensor must be at least 2D: {}",
                                    in.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, bias.dims() == 1,
        InvalidArgument("Biases must be 1D: {}", bias.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, bias.dim_size(0) == in.dim_size(in.dims() - 1),
        InvalidArgument("Must provide as many biases as the last dimension of "
                        "the input tensor: {} vs. {}",
                        bias.shape().DebugString(), in.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float m = AddRangeMax(in_lo, in_hi, b_lo, b_hi);
    const int32_t zero = FloatToQuantized<int32_t>(0.0f, -m, m);
    std::vector<int32_t> a, b;
    Dispatch(TypeList<QUInt8, QInt8>(), in.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      a = ToTotalSpace<R>(in, in_lo, in_hi, m);
      b = ToTotalSpace<R>(bias, b_lo, b_hi, m);
    });
    int32_t* y = reinterpret_cast<int32_t*>(out->data());
    const size_t n = b.size();
    for (size_t i = 0; i < a.size(); ++i) {
      // qint32 addition wraps, as Eigen's QInt32 does.
      y[i] = static_cast<int32_t>(static_cast<uint32_t>(a[i]) +
                                  static_cast<uint32_t>(b[i % n]) +
                                  static_cast<uint32_t>(zero));
    }
    SetRange(ctx, 1, -m, m);
  }
};

class QuantizedMatMulOp : public OpKernel {
 public:
  explicit QuantizedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckRanges(ctx));
    const float a_lo = FirstFloat(ctx, 2), a_hi = FirstFloat(ctx, 3);
    const float b_lo = FirstFloat(ctx, 4), b_hi = FirstFloat(ctx, 5);
    DFG_OP_REQUIRES(ctx, a_hi > a_lo,
                    InvalidArgument("max_a must be larger than min_a."));
    DFG_OP_REQUIRES(ctx, b_hi > b_lo,
                    InvalidArgument("max_b must be larger than min_b."));
    DFG_OP_REQUIRES(ctx, a.dims() == 2,
                    InvalidArgument("In[0] is not a matrix"));
    DFG_OP_REQUIRES(ctx, b.dims() == 2,
                    InvalidArgument("In[1] is not a matrix"));
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    DFG_OP_REQUIRES(
        ctx, k == b.dim_size(transpose_b_ ? 1 : 0),
        InvalidArgument("Matrix size-incompatible: In[0]: {}, "
                        "In[1]: {}",
                        a.shape().DebugString(), b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    Tensor* c = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    const int32_t off_a = static_cast<int32_t>(
        FloatToQuantizedUnclamped<uint8_t>(0.0f, a_lo, a_hi));
    const int32_t off_b = static_cast<int32_t>(
        FloatToQuantizedUnclamped<uint8_t>(0.0f, b_lo, b_hi));
    const uint8_t* x = reinterpret_cast<const uint8_t*>(a.data());
    const uint8_t* w = reinterpret_cast<const uint8_t*>(b.data());
    int32_t* y = reinterpret_cast<int32_t*>(c->data());
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        uint32_t acc = 0;  // int32 arithmetic that wraps
        for (int64_t p = 0; p < k; ++p) {
          const int32_t av = x[transpose_a_ ? p * m + i : i * k + p] - off_a;
          const int32_t bv = w[transpose_b_ ? j * k + p : p * n + j] - off_b;
          acc += static_cast<uint32_t>(av) * static_cast<uint32_t>(bv);
        }
        y[i * n + j] = static_cast<int32_t>(acc);
      }
    }
    // QuantizationRangeForMultiplication<quint8, quint8, qint32>.
    const float step = ((a_hi - a_lo) / 255.0f) * ((b_hi - b_lo) / 255.0f);
    SetRange(ctx, 1, step * -2147483648.0f, step * 2147483647.0f);
  }

 private:
  static Status CheckRanges(OpKernelContext* ctx) {
    const char* names[] = {"min_a", "max_a", "min_b", "max_b"};
    for (int i = 2; i < 6; ++i) {
      const Tensor& t = ctx->input(i);
      if (i == 2 ? t.dims() != 0 : t.NumElements() != 1) {
        return InvalidArgument("{} must be a scalar, but got shape{}",
                               names[i - 2], t.shape().DebugString());
      }
    }
    return Status::Ok();
  }

  bool transpose_a_ = false, transpose_b_ = false;
};

// QuantizedBatchNormWithGlobalNormalization (quint8 -> qint32) in
// TensorFlow's fixed point: per channel, scale and offset are quantized into
// [-2^20, 2^20], the input requantized there, and input * scale / one +
// offset computed in int32 (the product wraps, the division truncates).
class QuantizedBatchNormOp : public OpKernel {
 public:
  explicit QuantizedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("variance_epsilon", &epsilon_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("scale_after_normalization",
                                         &scale_after_normalization_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("input must be 4-dimensional{}",
                                    in.shape().DebugString()));
    const char* names[] = {"mean", "var", "beta", "gamma"};
    for (int i = 0; i < 4; ++i) {
      const Tensor& t = ctx->input(3 + 3 * i);
      DFG_OP_REQUIRES(ctx, t.dims() == 1,
                      InvalidArgument("{} must be 1-dimensional{}", names[i],
                                      t.shape().DebugString()));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    constexpr float kLo = -(1 << 20), kHi = 1 << 20;
    const int64_t depth = ctx->input(3).dim_size(0);
    std::vector<int32_t> scale(depth), offset(depth);
    for (int64_t c = 0; c < depth; ++c) {
      const float mean = Param(ctx, 3, c), var = Param(ctx, 6, c);
      const float beta = Param(ctx, 9, c), gamma = Param(ctx, 12, c);
      float s = 1.0f / std::sqrt(var + epsilon_);
      if (scale_after_normalization_) s *= gamma;
      scale[c] = FloatToQuantized<int32_t>(s, kLo, kHi);
      offset[c] = FloatToQuantized<int32_t>((-mean * s) + beta, kLo, kHi);
    }
    const int32_t one = FloatToQuantized<int32_t>(1.0f, kLo, kHi);
    const float in_lo = FirstFloat(ctx, 1), in_hi = FirstFloat(ctx, 2);
    const uint8_t* x = reinterpret_cast<const uint8_t*>(in.data());
    int32_t* y = reinterpret_cast<int32_t*>(out->data());
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const int64_t c = i % depth;
      const int32_t v = FloatToQuantized<int32_t>(
          QuantizedToFloat<uint8_t>(x[i], in_lo, in_hi), kLo, kHi);
      const int32_t product = static_cast<int32_t>(
          static_cast<uint32_t>(v) * static_cast<uint32_t>(scale[c]));
      y[i] = static_cast<int32_t>(static_cast<uint32_t>(product / one) +
                                  static_cast<uint32_t>(offset[c]));
    }
    SetRange(ctx, 1, kLo, kHi);
  }

 private:
  // Element c of quantized input i (quint8) with its range at i + 1, i + 2.
  static float Param(OpKernelContext* ctx, int i, int64_t c) {
    const uint8_t q = reinterpret_cast<const uint8_t*>(ctx->input(i).data())[c];
    return QuantizedToFloat<uint8_t>(q, FirstFloat(ctx, i + 1),
                                     FirstFloat(ctx, i + 2));
  }

  float epsilon_ = 0;
  bool scale_after_normalization_ = false;
};

}  // namespace

void RegisterQuantNnKernels(KernelRegistry* r) {
  for (const char* relu : {"QuantizedRelu", "QuantizedRelu6"}) {
    for (DataType t : {tensorflow::DT_QUINT8, tensorflow::DT_QINT32}) {
      const KernelTypeConstraint in{"Tinput", {t}}, out{"out_type", {t}};
      if (std::string(relu) == "QuantizedRelu") {
        r->Register<QuantizedReluOp<false>>(relu, {in, out});
      } else {
        r->Register<QuantizedReluOp<true>>(relu, {in, out});
      }
    }
  }
  const auto pool = TypeConstraint("T", TypeList<QUInt8, QInt8>());
  r->Register<QuantizedPoolOp<false>>("QuantizedMaxPool", {pool});
  r->Register<QuantizedPoolOp<true>>("QuantizedAvgPool", {pool});
  for (DataType t : {tensorflow::DT_QUINT8, tensorflow::DT_QINT8}) {
    r->Register<QuantizedBiasAddOp>(
        "QuantizedBiasAdd",
        {{"T1", {t}}, {"T2", {t}}, {"out_type", {tensorflow::DT_QINT32}}});
  }
  r->Register<QuantizedBatchNormOp>(
      "QuantizedBatchNormWithGlobalNormalization",
      {TypeConstraint("Tinput", TypeList<QUInt8>()),
       TypeConstraint("out_type", TypeList<QInt32>())});
  r->Register<QuantizedMatMulOp>(
      "QuantizedMatMul", {TypeConstraint("T1", TypeList<QUInt8>()),
                          TypeConstraint("T2", TypeList<QUInt8>()),
                          TypeConstraint("Toutput", TypeList<QInt32>())});
}

}  // namespace dfg
