// Broadcasting comparisons (Less, LessEqual, Greater, GreaterEqual, Equal,
// NotEqual with incompatible_shape_error) and logical ops (LogicalAnd,
// LogicalOr, LogicalNot).
#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

struct LessF {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a < b;
  }
};
struct LessEqualF {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a <= b;
  }
};
struct GreaterF {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a > b;
  }
};
struct GreaterEqualF {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a >= b;
  }
};
struct EqualF {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a == b;
  }
};
struct NotEqualF {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a != b;
  }
};
struct LogicalAndF {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrF {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct LogicalNotF {
  bool operator()(bool a) const { return !a; }
};

using EqualityTypes = decltype(NumberTypes() + TypeList<bool, std::string>());
using BoolTypes = TypeList<bool>;

// Equal/NotEqual: with incompatible_shape_error=false, shapes that do not
// broadcast give a scalar `kMismatch` instead of an error.
template <typename F, bool kMismatch>
class EqualityOp : public BinaryOpKernel<F, EqualityTypes> {
 public:
  explicit EqualityOp(OpKernelConstruction* ctx)
      : BinaryOpKernel<F, EqualityTypes>(ctx) {
    if (ctx->HasAttr("incompatible_shape_error")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                           &incompatible_shape_error_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    if (!incompatible_shape_error_ &&
        !BCast(ctx->input(0).shape(), ctx->input(1).shape()).valid) {
      ctx->set_output(0, Tensor::Scalar<bool>(kMismatch));
      return;
    }
    BinaryOpKernel<F, EqualityTypes>::Compute(ctx);
  }

 private:
  bool incompatible_shape_error_ = true;
};

template <typename F, typename Types>
void RegisterBinary(KernelRegistry* r, const char* op, Types types) {
  r->Register<BinaryOpKernel<F, Types>>(op, {TypeConstraint("T", types)});
}

}  // namespace

void RegisterCwiseCompareKernels(KernelRegistry* r) {
  RegisterBinary<LessF>(r, "Less", RealTypes());
  RegisterBinary<LessEqualF>(r, "LessEqual", RealTypes());
  RegisterBinary<GreaterF>(r, "Greater", RealTypes());
  RegisterBinary<GreaterEqualF>(r, "GreaterEqual", RealTypes());
  r->Register<EqualityOp<EqualF, false>>(
      "Equal", {TypeConstraint("T", EqualityTypes())});
  r->Register<EqualityOp<NotEqualF, true>>(
      "NotEqual", {TypeConstraint("T", EqualityTypes())});
  r->Register<BinaryOpKernel<LogicalAndF, BoolTypes>>("LogicalAnd");
  r->Register<BinaryOpKernel<LogicalOrF, BoolTypes>>("LogicalOr");
  r->Register<UnaryOpKernel<LogicalNotF, BoolTypes>>("LogicalNot");
}

}  // namespace dfg
