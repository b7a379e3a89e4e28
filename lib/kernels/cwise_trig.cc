// Element-wise trigonometric and hyperbolic math (Tan, Asin, Acos, Atan,
// Sinh, Cosh, Asinh, Acosh, Atanh) and the binary Atan2 and DivNoNan, with
// the dtypes of TensorFlow's CPU kernels (cwise_op_<name>.cc). 16-bit floats
// compute in float.
#include <cmath>
#include <complex>

#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

#define DFG_UNARY_FUNCTOR(Name, fn)  \
  struct Name {                      \
    template <typename C>            \
    C operator()(const C& x) const { \
      return std::fn(x);             \
    }                                \
  };
DFG_UNARY_FUNCTOR(TanF, tan)
DFG_UNARY_FUNCTOR(AsinF, asin)
DFG_UNARY_FUNCTOR(AcosF, acos)
DFG_UNARY_FUNCTOR(AtanF, atan)
DFG_UNARY_FUNCTOR(SinhF, sinh)
DFG_UNARY_FUNCTOR(CoshF, cosh)
DFG_UNARY_FUNCTOR(AsinhF, asinh)
DFG_UNARY_FUNCTOR(AcoshF, acosh)
DFG_UNARY_FUNCTOR(AtanhF, atanh)
#undef DFG_UNARY_FUNCTOR

struct Atan2F {
  template <typename C>
  C operator()(const C& y, const C& x) const {
    return std::atan2(y, x);
  }
};

// x / y, and 0 wherever y is 0 (even for x 0, inf or nan).
struct DivNoNanF {
  template <typename C>
  C operator()(const C& x, const C& y) const {
    return y == C(0) ? C(0) : x / y;
  }
};

using RealFloatTypes = TypeList<Half, BFloat16, float, double>;
using HyperbolicTypes = decltype(FloatTypes() + ComplexTypes());

template <typename F, typename Types>
void RegisterUnary(KernelRegistry* r, const char* op, Types types) {
  r->Register<UnaryOpKernel<F, Types>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterCwiseTrigKernels(KernelRegistry* r) {
  RegisterUnary<TanF>(r, "Tan", TypeList<float, double>());
  RegisterUnary<AsinF>(r, "Asin", RealFloatTypes());
  RegisterUnary<AcosF>(r, "Acos", RealFloatTypes());
  RegisterUnary<AtanF>(r, "Atan", RealFloatTypes());
  RegisterUnary<SinhF>(r, "Sinh", HyperbolicTypes());
  RegisterUnary<CoshF>(r, "Cosh", HyperbolicTypes());
  RegisterUnary<AsinhF>(r, "Asinh", HyperbolicTypes());
  RegisterUnary<AcoshF>(r, "Acosh", HyperbolicTypes());
  RegisterUnary<AtanhF>(r, "Atanh", HyperbolicTypes());
  r->Register<BinaryOpKernel<Atan2F, RealFloatTypes>>(
      "Atan2", {TypeConstraint("T", RealFloatTypes())});
  r->Register<BinaryOpKernel<DivNoNanF, HyperbolicTypes>>(
      "DivNoNan", {TypeConstraint("T", HyperbolicTypes())});
}

}  // namespace dfg
