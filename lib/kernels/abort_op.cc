// Abort (attrs error_msg, exit_without_error).
//
// TensorFlow's AbortOp ends the whole process: with exit_without_error false
// it LOG(FATAL)s "Abort_op intentional failure; <error_msg>" (the process
// dies with SIGABRT); with exit_without_error true it logs "Exiting the
// process: <error_msg>" and calls exit(0). dfg never ends the process from a
// kernel: both cases fail the step with an Aborted status carrying the same
// text, so `dfg run` reports it like any kernel error and the caller decides.
#include <string>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

class AbortOp : public OpKernel {
 public:
  explicit AbortOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("error_msg", &error_msg_));
    DFG_OP_REQUIRES_OK(
        ctx, ctx->GetAttr("exit_without_error", &exit_without_error_));
    set_is_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    if (exit_without_error_) {
      ctx->SetStatus(Aborted("Exiting the process: {}", error_msg_));
    } else {
      ctx->SetStatus(Aborted("Abort_op intentional failure; {}", error_msg_));
    }
  }

 private:
  std::string error_msg_;
  bool exit_without_error_ = false;
};

}  // namespace

void RegisterAbortKernels(KernelRegistry* r) { r->Register<AbortOp>("Abort"); }

}  // namespace dfg
