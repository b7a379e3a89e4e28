// Element-wise math beyond cwise_unary/cwise_binary: Erfc, Erfinv, Ndtri,
// Lgamma, Digamma, Rint; Mod, TruncateMod, TruncateDiv; InvGrad and
// ReciprocalGrad; the bitwise ops (BitwiseAnd/Or/Xor, Invert, LeftShift,
// RightShift, PopulationCount); Xdivy, Xlogy, Xlog1py, MulNoNan,
// ApproximateEqual, NextAfter.
//
// Float results: <cmath> where it has the function, special_math.cc where it
// does not; half and bfloat16 compute in float (CalcType) as TensorFlow does.
#include <bit>
#include <cmath>
#include <complex>

#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/special_math.h"

namespace dfg {
namespace {

template <typename C>
constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <typename C>
constexpr bool kIsFloat = std::is_floating_point_v<C>;

struct ErfcF {
  template <typename C>
  C operator()(const C& x) const {
    return std::erfc(x);
  }
};
struct ErfinvF {
  template <typename C>
  C operator()(const C& x) const {
    return static_cast<C>(Erfinv(x));
  }
};
struct NdtriF {
  template <typename C>
  C operator()(const C& x) const {
    return static_cast<C>(Ndtri(x));
  }
};
struct LgammaF {
  template <typename C>
  C operator()(const C& x) const {
    int sign = 0;  // lgamma_r: the reentrant form (lgamma writes signgam)
    if constexpr (std::is_same_v<C, float>) {
      return lgammaf_r(x, &sign);
    } else {
      return lgamma_r(x, &sign);
    }
  }
};
struct DigammaF {
  template <typename C>
  C operator()(const C& x) const {
    return static_cast<C>(Digamma(x));
  }
};
struct RintF {
  template <typename C>
  C operator()(const C& x) const {
    return std::nearbyint(x);
  }
};

// Mod / TruncateMod: the sign of the dividend (C's %, fmod). Integer
// division by zero: TensorFlow's "Integer division by zero" for Mod; its
// TruncateMod / TruncateDiv report that they did not expect the error.
template <bool kMod>
struct TruncModF {
  bool error = false;
  static Status Error() {
    if constexpr (kMod) {
      return InvalidArgument("Integer division by zero");
    } else {
      return Internal(
          "Unexpected error in binary operator (only integer div and mod "
          "should have errors)");
    }
  }
  template <typename C>
  C operator()(const C& a, const C& b) {
    if constexpr (kIsInt<C>) {
      if (b == 0) {
        error = true;
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;  // INT_MIN % -1 overflows in C
      }
      return a % b;
    } else {
      return std::fmod(a, b);
    }
  }
};

struct TruncDivF {
  bool error = false;
  static Status Error() { return TruncModF<false>::Error(); }
  template <typename C>
  C operator()(const C& a, const C& b) {
    if constexpr (kIsInt<C>) {
      if (b == 0) {
        error = true;
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        // Wraps as two's complement: INT_MIN / -1 = INT_MIN.
        if (b == -1) return static_cast<C>(0 - static_cast<uint64_t>(a));
      }
      return a / b;
    } else {
      return std::trunc(a / b);
    }
  }
};

// d(1/x) = -dy * y^2 with y = 1/x (conjugated for complex).
struct InvGradF {
  template <typename C>
  C operator()(const C& y, const C& dy) const {
    if constexpr (kIsFloat<C>) {
      return -dy * y * y;
    } else {
      return -dy * std::conj(y * y);
    }
  }
};

struct BitAndF {
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return static_cast<C>(a & b);
  }
};
struct BitOrF {
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return static_cast<C>(a | b);
  }
};
struct BitXorF {
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return static_cast<C>(a ^ b);
  }
};
struct InvertF {
  template <typename C>
  C operator()(const C& x) const {
    return static_cast<C>(~x);
  }
};
// Shifts clamp the amount to [0, bits - 1] (TensorFlow's defined
// behaviour); left shifts run unsigned so that they wrap instead of being
// undefined.
template <typename C>
int ShiftAmount(C b) {
  constexpr int kMax = static_cast<int>(sizeof(C) * 8) - 1;
  if (b < C(0)) return 0;
  return b > C(kMax) ? kMax : static_cast<int>(b);
}
struct LeftShiftF {
  template <typename C>
  C operator()(const C& a, const C& b) const {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) << ShiftAmount(b)));
  }
};
struct RightShiftF {
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return static_cast<C>(a >> ShiftAmount(b));
  }
};

// x / y, 0 where x is 0.
struct XdivyF {
  template <typename C>
  C operator()(const C& x, const C& y) const {
    return x == C(0) ? C(0) : x / y;
  }
};
// x * log(y), 0 where x is 0.
struct XlogyF {
  template <typename C>
  C operator()(const C& x, const C& y) const {
    return x == C(0) ? C(0) : x * std::log(y);
  }
};
// x * log1p(y), 0 where x is 0.
struct Xlog1pyF {
  template <typename C>
  C operator()(const C& x, const C& y) const {
    if (x == C(0)) return C(0);
    if constexpr (kIsFloat<C>) {
      return x * std::log1p(y);
    } else {
      return x * std::log(C(1) + y);
    }
  }
};
// x * y, 0 where y is 0 (even if x is inf or NaN).
struct MulNoNanF {
  template <typename C>
  C operator()(const C& x, const C& y) const {
    return y == C(0) ? C(0) : x * y;
  }
};
struct NextAfterF {
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return std::nextafter(a, b);
  }
};

// |x - y| < tolerance, elementwise, same shapes only.
class ApproximateEqualOp : public OpKernel {
 public:
  explicit ApproximateEqualOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("tolerance", &tolerance_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, x.shape().IsSameSize(y.shape()),
        InvalidArgument("x and y must be of the same shape. x shape: {}. y "
                        "shape: {}",
                        x.shape().DebugString(), y.shape().DebugString()));
    Tensor* z = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &z));
    bool* zp = static_cast<bool*>(z->data());
    Dispatch(TypeList<float, double>(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* xp = static_cast<const T*>(x.data());
      const T* yp = static_cast<const T*>(y.data());
      const T tol = static_cast<T>(tolerance_);
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        zp[i] = std::fabs(xp[i] - yp[i]) < tol;
      }
    });
  }

 private:
  float tolerance_ = 1e-5f;
};

class PopulationCountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    uint8_t* yp = static_cast<uint8_t*>(y->data());
    Dispatch(IntTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      using U = std::make_unsigned_t<T>;
      const T* xp = static_cast<const T*>(x.data());
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        yp[i] = static_cast<uint8_t>(std::popcount(static_cast<U>(xp[i])));
      }
    });
  }
};

using HalfFloatTypes = TypeList<float, double, Half>;
using F32F64 = TypeList<float, double>;
using FloatComplexTypes = decltype(FloatTypes() + ComplexTypes());
using ModTypes = TypeList<int32_t, int64_t, float, double>;

template <typename F, typename Types>
void Unary(KernelRegistry* r, const char* op, Types types) {
  r->Register<UnaryOpKernel<F, Types>>(op, {TypeConstraint("T", types)});
}
template <typename F, typename Types>
void Binary(KernelRegistry* r, const char* op, Types types) {
  r->Register<BinaryOpKernel<F, Types>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterMathExtKernels(KernelRegistry* r) {
  Unary<ErfcF>(r, "Erfc", FloatTypes());
  Unary<ErfinvF>(r, "Erfinv", F32F64());
  Unary<NdtriF>(r, "Ndtri", F32F64());
  Unary<LgammaF>(r, "Lgamma", HalfFloatTypes());
  Unary<DigammaF>(r, "Digamma", HalfFloatTypes());
  Unary<RintF>(r, "Rint", F32F64());
  Binary<TruncModF<true>>(r, "Mod", ModTypes());
  Binary<TruncModF<false>>(r, "TruncateMod", ModTypes());
  Binary<TruncDivF>(r, "TruncateDiv", RealTypes());
  Binary<InvGradF>(r, "InvGrad", FloatComplexTypes());
  Binary<InvGradF>(r, "ReciprocalGrad", FloatComplexTypes());
  Binary<BitAndF>(r, "BitwiseAnd", IntTypes());
  Binary<BitOrF>(r, "BitwiseOr", IntTypes());
  Binary<BitXorF>(r, "BitwiseXor", IntTypes());
  Unary<InvertF>(r, "Invert", IntTypes());
  Binary<LeftShiftF>(r, "LeftShift", IntTypes());
  Binary<RightShiftF>(r, "RightShift", IntTypes());
  r->Register<PopulationCountOp>("PopulationCount",
                                 {TypeConstraint("T", IntTypes())});
  Binary<XdivyF>(r, "Xdivy", FloatComplexTypes());
  Binary<XlogyF>(r, "Xlogy", FloatComplexTypes());
  Binary<Xlog1pyF>(r, "Xlog1py", FloatComplexTypes());
  Binary<MulNoNanF>(r, "MulNoNan", FloatComplexTypes());
  r->Register<ApproximateEqualOp>("ApproximateEqual",
                                  {TypeConstraint("T", F32F64())});
  Binary<NextAfterF>(r, "NextAfter", F32F64());
}

}  // namespace dfg
