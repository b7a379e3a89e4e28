// Element-wise unary math: Neg, Abs, Square, Sqrt, Rsqrt, Exp, Expm1, Log,
// Log1p, Reciprocal/Inv, Sin, Cos, Erf, Sigmoid, Tanh, Relu, Relu6, Elu,
// Selu, Softplus, Softsign, Floor, Ceil, Round (half to even), Sign, IsNan,
// IsInf, IsFinite. The float32 loops of the functors naming a kVec run the
// vector math of simd/vec_math.h (TensorFlow's Eigen packet math).
#include <cmath>
#include <complex>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

template <typename C>
constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <typename C>
constexpr bool kIsFloat = std::is_floating_point_v<C>;

struct NegF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kNeg;
  template <typename C>
  C operator()(const C& x) const {
    if constexpr (kIsInt<C>) {
      return static_cast<C>(0 - static_cast<std::make_unsigned_t<C>>(x));
    } else {
      return -x;
    }
  }
};
struct AbsF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kAbs;
  template <typename C>
  C operator()(const C& x) const {
    if constexpr (kIsInt<C>) {
      return x < 0 ? NegF()(x) : x;
    } else {
      return std::fabs(x);
    }
  }
};
struct SquareF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kSquare;
  template <typename C>
  C operator()(const C& x) const {
    return x * x;
  }
};
struct SqrtF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kSqrt;
  template <typename C>
  C operator()(const C& x) const {
    return std::sqrt(x);
  }
};
struct RsqrtF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kRsqrt;
  template <typename C>
  C operator()(const C& x) const {
    return C(1) / std::sqrt(x);
  }
};
struct ExpF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kExp;
  template <typename C>
  C operator()(const C& x) const {
    return std::exp(x);
  }
};
struct Expm1F {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kExpm1;
  template <typename C>
  C operator()(const C& x) const {
    if constexpr (kIsFloat<C>) {
      return std::expm1(x);
    } else {
      return std::exp(x) - C(1);
    }
  }
};
struct LogF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kLog;
  template <typename C>
  C operator()(const C& x) const {
    return std::log(x);
  }
};
struct Log1pF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kLog1p;
  template <typename C>
  C operator()(const C& x) const {
    if constexpr (kIsFloat<C>) {
      return std::log1p(x);
    } else {
      return std::log(C(1) + x);
    }
  }
};
struct ReciprocalF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kReciprocal;
  template <typename C>
  C operator()(const C& x) const {
    return C(1) / x;
  }
};
struct SinF {
  template <typename C>
  C operator()(const C& x) const {
    return std::sin(x);
  }
};
struct CosF {
  template <typename C>
  C operator()(const C& x) const {
    return std::cos(x);
  }
};
struct ErfF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kErf;
  template <typename C>
  C operator()(const C& x) const {
    return std::erf(x);
  }
};
struct SigmoidF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kSigmoid;
  template <typename C>
  C operator()(const C& x) const {
    return C(1) / (C(1) + std::exp(-x));
  }
};
struct TanhF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kTanh;
  template <typename C>
  C operator()(const C& x) const {
    return std::tanh(x);
  }
};
struct ReluF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kRelu;
  template <typename C>
  C operator()(const C& x) const {
    return x < C(0) ? C(0) : x;
  }
};
struct Relu6F {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kRelu6;
  template <typename C>
  C operator()(const C& x) const {
    return x < C(0) ? C(0) : (C(6) < x ? C(6) : x);
  }
};
struct EluF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kElu;
  template <typename C>
  C operator()(const C& x) const {
    return x < C(0) ? std::expm1(x) : x;
  }
};
struct SeluF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kSelu;
  template <typename C>
  C operator()(const C& x) const {
    const C scale = C(1.0507009873554804934193349852946);
    const C alpha = C(1.6732632423543772848170429916717);
    return x < C(0) ? scale * alpha * std::expm1(x) : scale * x;
  }
};
struct SoftplusF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kSoftplus;
  template <typename C>
  C operator()(const C& x) const {
    // log(1 + exp(x)) without overflow.
    return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};
struct SoftsignF {
  static constexpr simd::UnaryOp kVec = simd::UnaryOp::kSoftsign;
  template <typename C>
  C operator()(const C& x) const {
    return x / (C(1) + std::fabs(x));
  }
};
struct FloorF {
  template <typename C>
  C operator()(const C& x) const {
    return std::floor(x);
  }
};
struct CeilF {
  template <typename C>
  C operator()(const C& x) const {
    return std::ceil(x);
  }
};
// Half to even (the default FE_TONEAREST mode of nearbyint); ints unchanged.
struct RoundF {
  template <typename C>
  C operator()(const C& x) const {
    if constexpr (kIsInt<C>) {
      return x;
    } else {
      return std::nearbyint(x);
    }
  }
};
struct SignF {
  template <typename C>
  C operator()(const C& x) const {
    if constexpr (kIsInt<C>) {
      return static_cast<C>((x > 0) - (x < 0));
    } else if constexpr (kIsFloat<C>) {
      if (std::isnan(x)) return x;
      return static_cast<C>((x > 0) - (x < 0));
    } else {
      const auto a = std::abs(x);
      return a == 0 ? C(0) : x / a;
    }
  }
};
struct IsNanF {
  template <typename C>
  bool operator()(const C& x) const {
    return std::isnan(x);
  }
};
struct IsInfF {
  template <typename C>
  bool operator()(const C& x) const {
    return std::isinf(x);
  }
};
struct IsFiniteF {
  template <typename C>
  bool operator()(const C& x) const {
    return std::isfinite(x);
  }
};

using FloatComplexTypes = decltype(FloatTypes() + ComplexTypes());
using NegTypes = decltype(SignedRealTypes() + ComplexTypes());

template <typename F, typename Types>
void RegisterUnary(KernelRegistry* r, const char* op, Types types) {
  r->Register<UnaryOpKernel<F, Types>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterCwiseUnaryKernels(KernelRegistry* r) {
  RegisterUnary<NegF>(r, "Neg", NegTypes());
  RegisterUnary<AbsF>(r, "Abs", SignedRealTypes());
  RegisterUnary<SquareF>(r, "Square", NumberTypes());
  RegisterUnary<SqrtF>(r, "Sqrt", FloatComplexTypes());
  RegisterUnary<RsqrtF>(r, "Rsqrt", FloatComplexTypes());
  RegisterUnary<ExpF>(r, "Exp", FloatComplexTypes());
  RegisterUnary<Expm1F>(r, "Expm1", FloatComplexTypes());
  RegisterUnary<LogF>(r, "Log", FloatComplexTypes());
  RegisterUnary<Log1pF>(r, "Log1p", FloatComplexTypes());
  RegisterUnary<ReciprocalF>(r, "Reciprocal", FloatComplexTypes());
  RegisterUnary<ReciprocalF>(r, "Inv", FloatComplexTypes());
  RegisterUnary<SinF>(r, "Sin", FloatComplexTypes());
  RegisterUnary<CosF>(r, "Cos", FloatComplexTypes());
  RegisterUnary<ErfF>(r, "Erf", FloatTypes());
  RegisterUnary<SigmoidF>(r, "Sigmoid", FloatComplexTypes());
  RegisterUnary<TanhF>(r, "Tanh", FloatComplexTypes());
  RegisterUnary<ReluF>(r, "Relu", RealTypes());
  RegisterUnary<Relu6F>(r, "Relu6", RealTypes());
  RegisterUnary<EluF>(r, "Elu", FloatTypes());
  RegisterUnary<SeluF>(r, "Selu", FloatTypes());
  RegisterUnary<SoftplusF>(r, "Softplus", FloatTypes());
  RegisterUnary<SoftsignF>(r, "Softsign", FloatTypes());
  RegisterUnary<FloorF>(r, "Floor", FloatTypes());
  RegisterUnary<CeilF>(r, "Ceil", FloatTypes());
  RegisterUnary<RoundF>(r, "Round",
                        FloatTypes() + TypeList<int32_t, int64_t>());
  RegisterUnary<SignF>(r, "Sign", NegTypes());
  RegisterUnary<IsNanF>(r, "IsNan", FloatTypes());
  RegisterUnary<IsInfF>(r, "IsInf", FloatTypes());
  RegisterUnary<IsFiniteF>(r, "IsFinite", FloatTypes());
}

}  // namespace dfg
