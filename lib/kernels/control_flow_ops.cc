// Control-flow kernels. The executor implements frames, iterations and
// deadness; the kernels only forward values: Switch (one port), Merge (the
// live input and its index), Enter, Exit, NextIteration, LoopCond,
// ControlTrigger, and their Ref variants.
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

void Forward(OpKernelContext* ctx, int in, int out) {
  if (ctx->input_is_ref(in) && IsRefType(ctx->op_kernel().output_type(out))) {
    ctx->set_output_ref(out, ctx->input_ref_mutex(in), ctx->mutable_input(in));
  } else {
    ctx->set_output(out, ctx->input(in));
  }
}

class SwitchOp : public OpKernel {
 public:
  explicit SwitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, pred.dims() == 0 && pred.dtype() == tensorflow::DT_BOOL,
        InvalidArgument(
            "The second input must be a scalar, but it has shape {}",
            pred.shape().DebugString()));
    Forward(ctx, 0, pred.scalar<bool>() ? 1 : 0);
  }
};

// _SwitchN: forwards data to output `output_index`; an index outside
// [0, num_outs) picks the last output (TensorFlow's SwitchNOp).
class SwitchNOp : public OpKernel {
 public:
  explicit SwitchNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, index.dims() == 0,
        InvalidArgument(
            "The second input must be a scalar, but it has shape {}",
            index.shape().DebugString()));
    int32_t out = index.scalar<int32_t>();
    if (out < 0 || out >= ctx->num_outputs()) out = ctx->num_outputs() - 1;
    Forward(ctx, 0, out);
  }
};

class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    bool seen = false;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      DFG_OP_REQUIRES(
          ctx, !seen,
          Internal("Merge can not have more than one valid input."));
      seen = true;
      Forward(ctx, i, 0);
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
    }
  }
};

// Enter, Exit, NextIteration, LoopCond and Ref variants.
class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override { Forward(ctx, 0, 0); }
};

class ControlTriggerOp : public OpKernel {
 public:
  explicit ControlTriggerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext*) override {}
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry* r) {
  r->Register<SwitchOp>("Switch");
  r->Register<SwitchOp>("RefSwitch");
  r->Register<SwitchNOp>("_SwitchN");
  r->Register<MergeOp>("Merge");
  r->Register<MergeOp>("RefMerge");
  for (const char* op : {"Enter", "RefEnter", "Exit", "RefExit",
                         "NextIteration", "RefNextIteration", "LoopCond"}) {
    r->Register<ForwardOp>(op);
  }
  r->Register<ControlTriggerOp>("ControlTrigger");
}

}  // namespace dfg
