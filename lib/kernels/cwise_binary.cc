// Broadcasting arithmetic: Add (also string concatenation), AddV2, Sub, Mul,
// RealDiv, Div, FloorDiv, FloorMod, Maximum, Minimum, Pow,
// SquaredDifference; and AddN (same shapes, no broadcasting). The float32
// loops of the functors naming a kVec run simd/vec_math.h's.
#include <cmath>
#include <limits>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

template <typename C>
constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;

template <typename C>
constexpr bool kIsFloat = std::is_floating_point_v<C>;

struct AddF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kAdd;
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return a + b;
  }
};
struct SubF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kSub;
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return a - b;
  }
};
struct MulF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kMul;
  template <typename C>
  C operator()(const C& a, const C& b) const {
    return a * b;
  }
};

// Floats: a / b. Integers: C division, error on zero (TF's safe_div).
struct DivF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kDiv;
  bool error = false;
  static Status Error() { return InvalidArgument("Integer division by zero"); }
  template <typename C>
  C operator()(const C& a, const C& b) {
    if constexpr (kIsInt<C>) {
      if (b == 0) {
        error = true;
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return static_cast<C>(0 - static_cast<uint64_t>(a));
      }
      return a / b;
    } else {
      return a / b;
    }
  }
};

struct FloorDivF {
  bool error = false;
  static Status Error() { return InvalidArgument("Integer division by zero"); }
  template <typename C>
  C operator()(const C& a, const C& b) {
    if constexpr (kIsInt<C>) {
      if (b == 0) {
        error = true;
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return static_cast<C>(0 - static_cast<uint64_t>(a));
        const C q = a / b;
        return ((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
      } else {
        return a / b;
      }
    } else {
      return std::floor(a / b);
    }
  }
};

struct FloorModF {
  bool error = false;
  static Status Error() { return InvalidArgument("Integer division by zero"); }
  template <typename C>
  C operator()(const C& a, const C& b) {
    if constexpr (kIsInt<C>) {
      if (b == 0) {
        error = true;
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;
        const C r = a % b;
        return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
      } else {
        return a % b;
      }
    } else {
      const C r = std::fmod(a, b);
      return (r != 0 && ((b < 0) != (r < 0))) ? r + b : r;
    }
  }
};

// NaN-propagating, as TensorFlow's CPU kernels.
struct MaximumF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kMax;
  template <typename C>
  C operator()(const C& a, const C& b) const {
    if constexpr (kIsFloat<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};
struct MinimumF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kMin;
  template <typename C>
  C operator()(const C& a, const C& b) const {
    if constexpr (kIsFloat<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

struct PowF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kPow;
  bool error = false;
  static Status Error() {
    return InvalidArgument(
        "Integers to negative integer powers are not allowed");
  }
  template <typename C>
  C operator()(const C& a, const C& b) {
    if constexpr (kIsInt<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (b < 0) {
          error = true;
          return 0;
        }
      }
      // Exponentiation by squaring, wrapping like the C++ types.
      using U = std::make_unsigned_t<C>;
      U base = static_cast<U>(a), result = 1;
      for (U e = static_cast<U>(b); e != 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<C>(result);
    } else {
      return std::pow(a, b);
    }
  }
};

struct SquaredDifferenceF {
  static constexpr simd::BinaryOp kVec = simd::BinaryOp::kSqDiff;
  template <typename C>
  C operator()(const C& a, const C& b) const {
    const C d = a - b;
    if constexpr (requires { std::conj(d); } && !kIsFloat<C> && !kIsInt<C>) {
      return d * std::conj(d);
    } else {
      return d * d;
    }
  }
};

// Add (not AddV2) has no kernel for uint16, uint32, uint64 in TensorFlow.
using AddTypes =
    decltype(FloatTypes() + SignedIntTypes() + TypeList<uint8_t>() +
             ComplexTypes() + TypeList<std::string>());
using ArithTypes = decltype(RealTypes() + ComplexTypes());
using FloatComplexTypes = decltype(FloatTypes() + ComplexTypes());
using DivTypes = decltype(FloatTypes() + ComplexTypes() + IntTypes());
using PowTypes = decltype(FloatTypes() + ComplexTypes() + SignedIntTypes());
using SqDiffTypes =
    decltype(FloatTypes() + ComplexTypes() + TypeList<int32_t, int64_t>());

template <typename F, typename Types>
void RegisterBinary(KernelRegistry* r, const char* op, Types types) {
  r->Register<BinaryOpKernel<F, Types>>(op, {TypeConstraint("T", types)});
}

// AddN: sum of N same-shape tensors.
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Dispatch(ArithTypes(), ctx->output_type(0),
             [&](auto t) { fn_ = &Run<decltype(t)>; });
    if (fn_ == nullptr) {
      ctx->SetStatus(InvalidArgument("AddN does not support {}",
                                     DataTypeString(ctx->output_type(0))));
    }
  }
  void Compute(OpKernelContext* ctx) override { fn_(ctx); }

 private:
  template <typename T>
  static void Run(OpKernelContext* ctx) {
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      if (!ctx->input(i).shape().IsSameSize(first.shape())) {
        ctx->SetStatus(InvalidArgument(
            "Inputs to operation AddN of type AddN must have the same size "
            "and shape.  Input 0: {} != input {}: {}",
            first.shape().DebugString(), i,
            ctx->input(i).shape().DebugString()));
        return;
      }
    }
    std::vector<const T*> in(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      in[i] = static_cast<const T*>(ctx->input(i).data());
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    T* o = static_cast<T*>(out->data());
    const int64_t n = first.NumElements();
    ForRange(ctx->intra_op_pool(), n, in.size(), [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) o[j] = in[0][j];
      for (size_t i = 1; i < in.size(); ++i) {
        const T* __restrict src = in[i];
        for (int64_t j = b; j < e; ++j) {
          o[j] = Store<T>(Load(o[j]) + Load(src[j]));
        }
      }
    });
  }

  void (*fn_)(OpKernelContext*) = nullptr;
};

}  // namespace

void RegisterCwiseBinaryKernels(KernelRegistry* r) {
  RegisterBinary<AddF>(r, "Add", AddTypes());
  RegisterBinary<AddF>(r, "AddV2", ArithTypes());
  RegisterBinary<SubF>(r, "Sub", ArithTypes());
  RegisterBinary<MulF>(r, "Mul", ArithTypes());
  RegisterBinary<DivF>(r, "RealDiv", FloatComplexTypes());
  RegisterBinary<DivF>(r, "Div", DivTypes());
  RegisterBinary<FloorDivF>(r, "FloorDiv", RealTypes());
  RegisterBinary<FloorModF>(r, "FloorMod", RealTypes());
  RegisterBinary<MaximumF>(r, "Maximum", RealTypes());
  RegisterBinary<MinimumF>(r, "Minimum", RealTypes());
  RegisterBinary<PowF>(r, "Pow", PowTypes());
  RegisterBinary<SquaredDifferenceF>(r, "SquaredDifference", SqDiffTypes());
  r->Register<AddNOp>("AddN", {TypeConstraint("T", ArithTypes())});
}

}  // namespace dfg
