// Cast between bool and every numeric dtype. float -> int truncates toward
// zero (out-of-range and NaN give the x86 "integer indefinite" value, as
// TensorFlow's CPU kernel does on x86); -> bool is x != 0; complex -> real
// keeps the real part; Truncate=true drops bits for float -> bfloat16
// instead of rounding to nearest even.
#include <cmath>
#include <limits>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

using CastTypes = decltype(RealTypes() + ComplexTypes() + TypeList<bool>());

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> ||
                            std::is_same_v<T, std::complex<double>>;

// float/double -> integer I, truncating.
template <typename I, typename F>
I FloatToInt(F x) {
  if constexpr (sizeof(I) < 4) {
    // Through int32, then wrap (what the compiled code does).
    return static_cast<I>(FloatToInt<int32_t>(x));
  } else if constexpr (std::is_same_v<I, uint32_t>) {
    return static_cast<uint32_t>(FloatToInt<int64_t>(x));
  } else if constexpr (std::is_same_v<I, uint64_t>) {
    if (x >= F(0) && x < F(18446744073709551616.0)) {
      return static_cast<uint64_t>(x);
    }
    return static_cast<uint64_t>(FloatToInt<int64_t>(x));
  } else {
    // int32/int64: NaN and out of range give the minimum value.
    const F lo = static_cast<F>(std::numeric_limits<I>::min());
    if (!(x >= lo && x < -lo)) return std::numeric_limits<I>::min();
    return static_cast<I>(x);
  }
}

template <typename S, typename D, bool kTruncate>
D CastOne(const S& s) {
  if constexpr (std::is_same_v<D, bool>) {
    if constexpr (kIsComplex<S>) {
      return s != S(0);
    } else {
      return Load(s) != CalcType<S>(0);
    }
  } else if constexpr (kIsComplex<D>) {
    if constexpr (kIsComplex<S>) {
      return D(s);
    } else {
      return D(static_cast<typename D::value_type>(Load(s)), 0);
    }
  } else {
    // Real destination: complex sources give their real part.
    auto v = [&] {
      if constexpr (kIsComplex<S>) {
        return s.real();
      } else {
        return Load(s);
      }
    }();
    using V = decltype(v);
    if constexpr (std::is_same_v<D, BFloat16> && kTruncate) {
      return FloatToBFloat16Truncate(static_cast<float>(v));
    } else if constexpr (kIsHalfLike<D>) {
      return Store<D>(static_cast<float>(v));
    } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<V>) {
      return FloatToInt<D>(v);
    } else {
      return static_cast<D>(v);
    }
  }
}

using CastFn = void (*)(ThreadPoolInterface*, const void*, void*, int64_t);

template <typename S, typename D, bool kTruncate>
void CastLoop(ThreadPoolInterface* pool, const void* in, void* out, int64_t n) {
  const S* s = static_cast<const S*>(in);
  D* d = static_cast<D*>(out);
  ForRange(pool, n, 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) d[i] = CastOne<S, D, kTruncate>(s[i]);
  });
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src, dst;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    bool truncate = false;
    if (ctx->HasAttr("Truncate")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate));
    }
    identity_ = src == dst;
    if (!identity_) {
      Dispatch(CastTypes(), src, [&](auto s) {
        Dispatch(CastTypes(), dst, [&](auto d) {
          using S = decltype(s);
          using D = decltype(d);
          fn_ = truncate ? &CastLoop<S, D, true> : &CastLoop<S, D, false>;
        });
      });
      DFG_OP_REQUIRES(ctx, fn_ != nullptr,
                      Unimplemented("Cast {} to {} is not supported",
                                    DataTypeString(src), DataTypeString(dst)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (identity_) {
      ctx->set_output(0, in);
      return;
    }
    const void* src = in.data();
    const TensorShape shape = in.shape();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    fn_(ctx->intra_op_pool(), src, out->data(), out->NumElements());
  }

 private:
  bool identity_ = false;
  CastFn fn_ = nullptr;
};

}  // namespace

void RegisterCastKernels(KernelRegistry* r) { r->Register<CastOp>("Cast"); }

}  // namespace dfg
