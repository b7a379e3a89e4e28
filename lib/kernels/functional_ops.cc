// The functional ops: If, StatelessIf, Case, StatelessCase, While,
// StatelessWhile, PartitionedCall, StatefulPartitionedCall, and a call of a
// library function by its op name. Each runs library functions through the
// step's FunctionCallInterface (TensorFlow's functional_ops.cc and
// partitioned_function_ops.cc, run synchronously: the body runs on the
// thread that computes the node, so loops never grow the stack and never wait
// for a pool thread).
#include "lib/kernels/functional_ops.h"

#include <string>
#include <utility>
#include <vector>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using tensorflow::NameAttrList;

Status FuncAttr(OpKernelConstruction* ctx, const std::string& name,
                NameAttrList* fn) {
  auto it = ctx->def().attr().find(name);
  if (it == ctx->def().attr().end()) {
    return NotFound("No attr named '{}' in NodeDef:", name);
  }
  if (!it->second.has_func()) {
    return InvalidArgument(
        "AttrValue had value with type '{}' when 'func' "
        "expected",
        it->second.has_list() ? "list" : "scalar");
  }
  *fn = it->second.func();
  return Status::Ok();
}

Status FuncListAttr(OpKernelConstruction* ctx, const std::string& name,
                    std::vector<NameAttrList>* fns) {
  auto it = ctx->def().attr().find(name);
  if (it == ctx->def().attr().end()) {
    return NotFound("No attr named '{}' in NodeDef:", name);
  }
  fns->assign(it->second.list().func().begin(), it->second.list().func().end());
  return Status::Ok();
}

FunctionCallInterface* Library(OpKernelContext* ctx) {
  return ctx->function_library();
}

// TensorFlow's ToBool for If's cond and While's cond result: a scalar is
// true when non-zero (non-empty for strings); any other shape is true when
// it has elements.
Status ToBool(const Tensor& t, bool* v) {
  if (t.dims() != 0) {
    *v = t.NumElements() > 0;
    return Status::Ok();
  }
  switch (t.dtype()) {
    case tensorflow::DT_BOOL:
      *v = t.scalar<bool>();
      return Status::Ok();
    case tensorflow::DT_STRING:
      *v = !t.scalar<std::string>().empty();
      return Status::Ok();
    default:
      break;
  }
  bool ok = Dispatch(
      TypeList<float, double, int32_t, uint8_t, int16_t, int8_t, int64_t>(),
      t.dtype(), [&](auto zero) {
        using T = decltype(zero);
        *v = t.scalar<T>() != T(0);
      });
  if (!ok) {
    return InvalidArgument("{} cannot be converted to a boolean",
                           DataTypeString(t.dtype()));
  }
  return Status::Ok();
}

// TensorFlow's SetOutputs: the function's results become the node's outputs.
Status SetOutputs(const OpKernel& kernel, OpKernelContext* ctx,
                  std::vector<Tensor>& rets) {
  if (static_cast<int>(rets.size()) != ctx->num_outputs()) {
    return Internal("Expect to produce {} tensors, but only get {}",
                    ctx->num_outputs(), rets.size());
  }
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    if (rets[i].dtype() != kernel.output_type(i)) {
      return Internal("Expect {}-th output is of type {} but get {}", i,
                      DataTypeString(kernel.output_type(i)),
                      DataTypeString(rets[i].dtype()));
    }
    ctx->set_output(i, std::move(rets[i]));
  }
  return Status::Ok();
}

// The node's inputs from `first` on, as a function's args. The tensors are
// shared, not copied: a function reads its args and never writes them.
void InputsFrom(OpKernelContext* ctx, int first, std::vector<Tensor>* args) {
  args->clear();
  args->reserve(ctx->num_inputs() - first);
  for (int i = first; i < ctx->num_inputs(); ++i)
    args->push_back(ctx->input(i));
}

Status NoLibrary() { return Internal("No function library"); }

// Runs `fn` on the node's inputs from `first` on and sets the node's outputs
// to its results.
void CallWithInputs(OpKernel& kernel, OpKernelContext* ctx, FunctionRef& fn,
                    int first) {
  FunctionCallInterface* lib = Library(ctx);
  DFG_OP_REQUIRES(ctx, lib != nullptr, NoLibrary());
  std::vector<Tensor> args, rets;
  InputsFrom(ctx, first, &args);
  DFG_OP_REQUIRES_OK(ctx, fn.Run(lib, ctx->step(), args, &rets));
  DFG_OP_REQUIRES_OK(ctx, SetOutputs(kernel, ctx, rets));
}

class IfOp : public OpKernel {
 public:
  explicit IfOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, FuncAttr(ctx, "then_branch", then_.mutable_fn()));
    DFG_OP_REQUIRES_OK(ctx, FuncAttr(ctx, "else_branch", else_.mutable_fn()));
  }
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES(ctx, Library(ctx) != nullptr, NoLibrary());
    bool cond = false;
    DFG_OP_REQUIRES_OK(ctx, ToBool(ctx->input(0), &cond));
    CallWithInputs(*this, ctx, cond ? then_ : else_, 1);
  }

 private:
  FunctionRef then_;
  FunctionRef else_;
};

class CaseOp : public OpKernel {
 public:
  explicit CaseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<NameAttrList> fns;
    DFG_OP_REQUIRES_OK(ctx, FuncListAttr(ctx, "branches", &fns));
    DFG_OP_REQUIRES(ctx, !fns.empty(),
                    InvalidArgument("Case requires at least one branch"));
    branches_ = std::vector<FunctionRef>(fns.size());
    for (size_t i = 0; i < fns.size(); ++i) {
      *branches_[i].mutable_fn() = std::move(fns[i]);
    }
  }
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES(ctx, Library(ctx) != nullptr, NoLibrary());
    const Tensor& index = ctx->input(0);
    DFG_OP_REQUIRES(ctx, index.dims() == 0,
                    InvalidArgument("branch_index must be scalar"));
    int64_t branch = index.scalar<int32_t>();
    // The last branch is the default one.
    if (branch < 0 || branch >= static_cast<int64_t>(branches_.size())) {
      branch = static_cast<int64_t>(branches_.size()) - 1;
    }
    CallWithInputs(*this, ctx, branches_[branch], 1);
  }

 private:
  std::vector<FunctionRef> branches_;
};

// The loop variables live in two vectors that trade places each iteration
// (the body's results become the next args), so an iteration copies no
// tensor and, after the first, allocates no vector.
class WhileOp : public OpKernel {
 public:
  explicit WhileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, FuncAttr(ctx, "cond", cond_.mutable_fn()));
    DFG_OP_REQUIRES_OK(ctx, FuncAttr(ctx, "body", body_.mutable_fn()));
  }
  void Compute(OpKernelContext* ctx) override {
    FunctionCallInterface* lib = Library(ctx);
    DFG_OP_REQUIRES(ctx, lib != nullptr, NoLibrary());
    std::vector<Tensor> vars, next, cond_rets;
    InputsFrom(ctx, 0, &vars);
    for (;;) {
      DFG_OP_REQUIRES(ctx, !ctx->is_cancelled(), Cancelled("Step cancelled"));
      DFG_OP_REQUIRES_OK(ctx, cond_.Run(lib, ctx->step(), vars, &cond_rets));
      DFG_OP_REQUIRES(
          ctx, cond_rets.size() == 1,
          InvalidArgument(
              "Expected a single scalar return value from WhileOp cond, got "
              "{} tensors.",
              cond_rets.size()));
      bool go_on = false;
      DFG_OP_REQUIRES_OK(ctx, ToBool(cond_rets[0], &go_on));
      if (!go_on) break;
      DFG_OP_REQUIRES_OK(ctx, body_.Run(lib, ctx->step(), vars, &next));
      DFG_OP_REQUIRES_OK(ctx, CheckBodyResults(vars, next));
      vars.swap(next);
    }
    DFG_OP_REQUIRES_OK(ctx, SetOutputs(*this, ctx, vars));
  }

 private:
  static Status CheckBodyResults(const std::vector<Tensor>& vars,
                                 const std::vector<Tensor>& next) {
    if (next.size() != vars.size()) {
      return InvalidArgument(
          "Expected {} return values from WhileOp body, got {} tensors.",
          vars.size(), next.size());
    }
    for (size_t i = 0; i < vars.size(); ++i) {
      if (next[i].dtype() != vars[i].dtype()) {
        return InvalidArgument(
            "Expected body to return {} for output {}, but got {}",
            DataTypeString(vars[i].dtype()), i,
            DataTypeString(next[i].dtype()));
      }
    }
    return Status::Ok();
  }

  FunctionRef cond_;
  FunctionRef body_;
};

// PartitionedCall, StatefulPartitionedCall (attr `f`), and a node whose op is
// a library function (the call's attrs are the node's own).
class CallOp : public OpKernel {
 public:
  explicit CallOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->def().op() == "PartitionedCall" ||
        ctx->def().op() == "StatefulPartitionedCall") {
      DFG_OP_REQUIRES_OK(ctx, FuncAttr(ctx, "f", fn_.mutable_fn()));
      return;
    }
    NameAttrList* fn = fn_.mutable_fn();
    fn->set_name(ctx->def().op());
    for (const auto& [name, value] : ctx->def().attr()) {
      if (!name.empty() && name[0] != '_') (*fn->mutable_attr())[name] = value;
    }
  }
  void Compute(OpKernelContext* ctx) override {
    CallWithInputs(*this, ctx, fn_, 0);
  }

 private:
  FunctionRef fn_;
};

}  // namespace

std::unique_ptr<OpKernel> CreateFunctionCallKernel(OpKernelConstruction* ctx) {
  return std::make_unique<CallOp>(ctx);
}

void RegisterFunctionalKernels(KernelRegistry* r) {
  r->Register<IfOp>("If");
  r->Register<IfOp>("StatelessIf");
  r->Register<CaseOp>("Case");
  r->Register<CaseOp>("StatelessCase");
  r->Register<WhileOp>("While");
  r->Register<WhileOp>("StatelessWhile");
  r->Register<CallOp>("PartitionedCall");
  r->Register<CallOp>("StatefulPartitionedCall");
  // The function runtime resolves "SymbolicGradient" to f's gradient.
  r->Register<CallOp>("SymbolicGradient");
}

}  // namespace dfg
