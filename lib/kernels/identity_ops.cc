// Forwarding kernels: Identity, RefIdentity, IdentityN, Snapshot,
// StopGradient, PreventGradient, NoOp, CheckNumerics.
#include <cmath>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Output i = input i, for every input; refs stay refs.
class IdentityOp : public OpKernel {
 public:
  explicit IdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (ctx->input_is_ref(i) && IsRefType(output_type(i))) {
        ctx->set_output_ref(i, ctx->input_ref_mutex(i), ctx->mutable_input(i));
      } else {
        ctx->set_output(i, ctx->input(i));
      }
    }
  }
};

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext*) override {}
};

// A copy that later writes to a variable cannot change.
class SnapshotOp : public OpKernel {
 public:
  explicit SnapshotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (ctx->params()->allow_input_forwarding && in.RefCountIsOne()) {
      ctx->set_output(0, in);
    } else {
      ctx->set_output(0, in.DeepCopy());
    }
  }
};

class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool nan = false, inf = false;
    Dispatch(FloatTypes(), in.dtype(), [&](auto v) {
      for (const auto& e : in.flat<decltype(v)>()) {
        const auto x = Load(e);
        nan |= std::isnan(x);
        inf |= std::isinf(x);
      }
    });
    if (nan || inf) {
      ctx->SetStatus(InvalidArgument(
          "{} : Tensor had {}{}{} values", message_, inf ? "Inf" : "",
          inf && nan ? " and " : "", nan ? "NaN" : ""));
      return;
    }
    ctx->set_output(0, in);
  }

 private:
  std::string message_;
};

}  // namespace

void RegisterIdentityKernels(KernelRegistry* r) {
  r->Register<IdentityOp>("Identity");
  r->Register<IdentityOp>("RefIdentity");
  r->Register<IdentityOp>("IdentityN");
  r->Register<IdentityOp>("StopGradient");
  r->Register<IdentityOp>("PreventGradient");
  r->Register<SnapshotOp>("Snapshot");
  r->Register<NoOp>("NoOp");
  r->Register<CheckNumericsOp>("CheckNumerics",
                               {TypeConstraint("T", FloatTypes())});
}

}  // namespace dfg
