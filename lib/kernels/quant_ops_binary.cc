// QuantizedAdd and QuantizedMul (quint8 x quint8 -> qint32) as TensorFlow's
// quantized_add_op.cc / quantized_mul_op.cc, broadcasting only the shapes
// those kernels handle: one side a scalar, equal shapes, or one "vector"
// repeated over the other (TensorFlow's collapsed broadcast has at most two
// dims; more is Unimplemented, as there).
//
// Add moves both operands into a symmetric qint32 range 2^14 times the
// widest input range by the affine map code0 + q * (code1 - code0) (a
// scalar operand goes through the float reference instead) and adds. Mul
// multiplies the values minus their zero points.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

// TensorFlow's BCast: the number of dims after dropping dims that are 1 in
// both shapes and merging neighbours broadcast the same way; -1 if the
// shapes are incompatible.
int CollapsedDims(const Tensor& x, const Tensor& y, TensorShape* out) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> dims(rank);
  int count = 0, prev = -1;
  for (int i = 0; i < rank; ++i) {
    const int xi = x.dims() - rank + i, yi = y.dims() - rank + i;
    const int64_t a = xi >= 0 ? x.dim_size(xi) : 1;
    const int64_t b = yi >= 0 ? y.dim_size(yi) : 1;
    if (a != b && a != 1 && b != 1) return -1;
    dims[i] = a == 1 ? b : a;
    if (a == 1 && b == 1) continue;
    const int state = a == b ? 0 : (a == 1 ? 1 : 2);
    if (state != prev) ++count;
    prev = state;
  }
  *out = TensorShape(std::span<const int64_t>(dims));
  return std::max(count, 1);
}

// The kernel both ops share: range checks, broadcast, and per-element
// work: to_x / to_y map an operand's values, combine joins them.
class QuantizedBinaryOp : public OpKernel {
 public:
  explicit QuantizedBinaryOp(OpKernelConstruction* ctx, bool add)
      : OpKernel(ctx), add_(add) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, CheckScalars(ctx));
    const float lo_x = ctx->input(2).flat<float>()[0];
    const float hi_x = ctx->input(3).flat<float>()[0];
    const float lo_y = ctx->input(4).flat<float>()[0];
    const float hi_y = ctx->input(5).flat<float>()[0];
    TensorShape shape;
    const int ndims = CollapsedDims(x, y, &shape);
    DFG_OP_REQUIRES(
        ctx, ndims > 0,
        InvalidArgument("Incompatible shapes: {} vs. {}",
                        x.shape().DebugString(), y.shape().DebugString()));
    Tensor* z = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &z));
    DFG_OP_REQUIRES(
        ctx, hi_x > lo_x,
        InvalidArgument("{}", add_ ? "max_x must be larger than min_x."
                                   : "max_x must be larger than min_a."));
    DFG_OP_REQUIRES(
        ctx, hi_y > lo_y,
        InvalidArgument("{}", add_ ? "max_y must be larger than min_y."
                                   : "max_x must be larger than min_b."));
    float lo_z, hi_z;
    if (add_) {
      const float widest = std::max(std::fabs(std::min(lo_x, lo_y)),
                                    std::fabs(std::max(hi_x, hi_y)));
      hi_z = widest * (1 << 14);
      lo_z = -hi_z;
    } else {
      const float step = ((hi_x - lo_x) / 255.0f) * ((hi_y - lo_y) / 255.0f);
      lo_z = step * -2147483648.0f;
      hi_z = step * 2147483647.0f;
    }
    const Operand a{reinterpret_cast<const uint8_t*>(x.data()), x.NumElements(),
                    lo_x, hi_x};
    const Operand b{reinterpret_cast<const uint8_t*>(y.data()), y.NumElements(),
                    lo_y, hi_y};
    int32_t* out = reinterpret_cast<int32_t*>(z->data());
    if (ndims <= 1) {
      if (a.n == 1) {
        Scalar(b, a, lo_z, hi_z, out);
      } else if (b.n == 1) {
        Scalar(a, b, lo_z, hi_z, out);
      } else {
        Each(a, b, lo_z, hi_z, a.n, out);
      }
    } else if (ndims == 2) {
      const bool x_smaller = a.n < b.n;
      const Operand& vec = x_smaller ? a : b;
      const Operand& full = x_smaller ? b : a;
      DFG_OP_REQUIRES(ctx, !add_ || vec.n > 0,
                      InvalidArgument("Must have some elements to add"));
      Each(full, vec, lo_z, hi_z, full.n, out);
    } else {
      ctx->SetStatus(
          Unimplemented("Broadcast between {} and {} is not supported yet.",
                        x.shape().DebugString(), y.shape().DebugString()));
      return;
    }
    ctx->set_output(1, Tensor::Scalar(lo_z));
    ctx->set_output(2, Tensor::Scalar(hi_z));
  }

 private:
  struct Operand {
    const uint8_t* data;
    int64_t n;
    float lo, hi;
  };

  Status CheckScalars(OpKernelContext* ctx) const {
    const char* names[] = {"min_x", "max_x", "min_y", "max_y"};
    for (int i = 2; i < 6; ++i) {
      if (ctx->input(i).dims() == 0) continue;
      if (add_) {
        return InvalidArgument("`{}` must be rank 0 but is rank {}",
                               names[i - 2], ctx->input(i).dims());
      }
      return InvalidArgument("{} must be a scalar", names[i - 2]);
    }
    return Status::Ok();
  }

  // Add: the operand's affine map into [lo_z, hi_z]; Mul: its offset.
  struct Map {
    int64_t code0 = 0;
    int32_t mult = 1, offset = 0;
  };
  Map MapOf(const Operand& o, float lo_z, float hi_z) const {
    Map m;
    if (add_) {
      m.code0 = FloatToQuantizedUnclamped<int32_t>(
          QuantizedToFloat<uint8_t>(0, o.lo, o.hi), lo_z, hi_z);
      const int64_t code1 = FloatToQuantizedUnclamped<int32_t>(
          QuantizedToFloat<uint8_t>(1, o.lo, o.hi), lo_z, hi_z);
      m.mult = static_cast<int32_t>(code1 - m.code0);
    } else {
      m.offset = static_cast<int32_t>(
          FloatToQuantizedUnclamped<uint8_t>(0.0f, o.lo, o.hi));
    }
    return m;
  }
  int32_t Apply(const Map& m, uint8_t q) const {
    if (!add_) return int32_t{q} - m.offset;
    return static_cast<int32_t>(std::clamp<int64_t>(
        m.code0 + int64_t{q} * m.mult, std::numeric_limits<int32_t>::min(),
        std::numeric_limits<int32_t>::max()));
  }
  int32_t Combine(int32_t a, int32_t b) const {
    // int32 arithmetic that wraps, as TensorFlow's qint32.
    const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    return static_cast<int32_t>(add_ ? ua + ub : ua * ub);
  }

  // full[i] with the single value of `scalar`.
  void Scalar(const Operand& full, const Operand& scalar, float lo_z,
              float hi_z, int32_t* out) const {
    const Map m = MapOf(full, lo_z, hi_z);
    int32_t s;
    if (add_) {
      s = FloatToQuantized<int32_t>(
          QuantizedToFloat<uint8_t>(scalar.data[0], scalar.lo, scalar.hi), lo_z,
          hi_z);
    } else {
      s = Apply(MapOf(scalar, lo_z, hi_z), scalar.data[0]);
    }
    for (int64_t i = 0; i < full.n; ++i) {
      out[i] = Combine(Apply(m, full.data[i]), s);
    }
  }

  // full[i] with other[i % other.n] for i < n.
  void Each(const Operand& full, const Operand& other, float lo_z, float hi_z,
            int64_t n, int32_t* out) const {
    const Map mf = MapOf(full, lo_z, hi_z), mo = MapOf(other, lo_z, hi_z);
    for (int64_t i = 0; i < n; ++i) {
      out[i] =
          Combine(Apply(mf, full.data[i]), Apply(mo, other.data[i % other.n]));
    }
  }

  bool add_;
};

template <bool kAdd>
class QuantizedArithOp : public QuantizedBinaryOp {
 public:
  explicit QuantizedArithOp(OpKernelConstruction* ctx)
      : QuantizedBinaryOp(ctx, kAdd) {}
};

}  // namespace

void RegisterQuantBinaryKernels(KernelRegistry* r) {
  const std::vector<KernelTypeConstraint> types = {
      TypeConstraint("T1", TypeList<QUInt8>()),
      TypeConstraint("T2", TypeList<QUInt8>()),
      TypeConstraint("Toutput", TypeList<QInt32>())};
  r->Register<QuantizedArithOp<true>>("QuantizedAdd", types);
  r->Register<QuantizedArithOp<false>>("QuantizedMul", types);
}

}  // namespace dfg
