// The stacks of TF1 while-loop gradients (TensorFlow's stack_ops.cc):
// StackV2, StackPushV2, StackPopV2, StackCloseV2, and the older Stack,
// StackPush, StackPop, StackClose (a Ref(string) handle, no max_size). The
// forward loop pushes a value per iteration, the gradient loop pops them in
// reverse. A stack is a step resource, kept like a TensorArray (a DT_VARIANT
// Var in the step's container, dropped when the step ends).
#include <atomic>
#include <memory>
#include <mutex>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/step_container.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

struct StackState {
  std::mutex mu;
  DataType dtype = tensorflow::DT_INVALID;
  int64_t max_size = -1;  // < 0: unbounded
  bool closed = false;
  std::string name;
  std::vector<Tensor> values;
  // Stack (v1)'s ["_stacks", name] handle, which its Ref output points to.
  Tensor string_handle;
};

class StackValue : public VariantValue {
 public:
  explicit StackValue(std::shared_ptr<StackState> s) : state(std::move(s)) {}
  std::string TypeName() const override { return "tensorflow::Stack"; }
  std::string DebugString() const override { return "Stack"; }
  std::shared_ptr<StackState> state;
};

StatusOr<std::shared_ptr<StackState>> GetStack(OpKernelContext* ctx) {
  DFG_ASSIGN_OR_RETURN(std::shared_ptr<StackState> state,
                       GetStepResource<StackValue>(ctx, "stack"));
  if (state->closed) {
    return InvalidArgument("Stack[{}] has already been closed.", state->name);
  }
  return state;
}

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &dtype_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("stack_name", &name_));
    if (name_.empty()) name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor max =
        num_inputs() == 0 ? Tensor::Scalar<int32_t>(-1) : ctx->input(0);
    DFG_OP_REQUIRES(ctx, max.NumElements() == 1 && IsIntTensor(max),
                    InvalidArgument("max_size must be an int32 scalar, got {}",
                                    max.shape().DebugString()));
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    auto state = std::make_shared<StackState>();
    state->dtype = dtype_;
    state->max_size = IntValues(max)[0];
    state->name = name_ + "_" + std::to_string(counter_.fetch_add(1));
    ResourceHandle h;
    h.container = StepContainer(ctx->step_id());
    h.name = state->name;
    h.maybe_type_name = "N10tensorflow5StackE";
    DFG_OP_REQUIRES_OK(
        ctx, PutStepResource(rm, h, std::make_shared<StackValue>(state)));
    if (num_inputs() == 0) {  // Stack (v1): a Ref to a string handle
      std::lock_guard<std::mutex> lock(state->mu);
      state->string_handle = Tensor::Vector<std::string>({"_stacks", h.name});
      ctx->set_output_ref(0, &state->mu, &state->string_handle);
      return;
    }
    ctx->set_output(0, Tensor::Scalar<ResourceHandle>(std::move(h)));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  std::string name_;
  std::atomic<int64_t> counter_{0};
};

class PushOp : public OpKernel {
 public:
  explicit PushOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    auto s = GetStack(ctx);
    DFG_OP_REQUIRES_OK(ctx, s.status());
    const Tensor& value = ctx->input(1);
    StackState& st = **s;
    std::lock_guard<std::mutex> lock(st.mu);
    DFG_OP_REQUIRES(ctx, value.dtype() == st.dtype,
                    InvalidArgument("Stack[{}] elem type is {} but the pushed "
                                    "value is {}",
                                    st.name, DataTypeString(st.dtype),
                                    DataTypeString(value.dtype())));
    DFG_OP_REQUIRES(
        ctx,
        st.max_size < 0 || static_cast<int64_t>(st.values.size()) < st.max_size,
        InvalidArgument("Stack[{}] overflowed its max_size ({})", st.name,
                        st.max_size));
    st.values.push_back(value);
    ctx->set_output(0, value);
  }
};

class PopOp : public OpKernel {
 public:
  explicit PopOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto s = GetStack(ctx);
    DFG_OP_REQUIRES_OK(ctx, s.status());
    StackState& st = **s;
    std::lock_guard<std::mutex> lock(st.mu);
    DFG_OP_REQUIRES(ctx, st.dtype == dtype_,
                    InvalidArgument("Stack[{}] elem type is {} but the op "
                                    "expects {}",
                                    st.name, DataTypeString(st.dtype),
                                    DataTypeString(dtype_)));
    DFG_OP_REQUIRES(ctx, !st.values.empty(),
                    InvalidArgument("Stack[{}] is empty.", st.name));
    ctx->set_output(0, std::move(st.values.back()));
    st.values.pop_back();
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

class CloseOp : public OpKernel {
 public:
  explicit CloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    auto s = GetStack(ctx);
    DFG_OP_REQUIRES_OK(ctx, s.status());
    std::lock_guard<std::mutex> lock((*s)->mu);
    (*s)->closed = true;
    (*s)->values.clear();
  }
};

}  // namespace

void RegisterStackKernels(KernelRegistry* r) {
  r->Register<StackOp>("StackV2");
  r->Register<PushOp>("StackPushV2");
  r->Register<PopOp>("StackPopV2");
  r->Register<CloseOp>("StackCloseV2");
  r->Register<StackOp>("Stack");
  r->Register<PushOp>("StackPush");
  r->Register<PopOp>("StackPop");
  r->Register<CloseOp>("StackClose");
}

}  // namespace dfg
