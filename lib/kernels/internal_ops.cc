// Internal ops that TensorFlow's own rewrites put in graphs, as its CPU
// kernels run them: _HostCast (Cast), _DeviceArg/_DeviceRetval (_Arg and
// _Retval), _If/_While (If, While), Send/Recv (_Send, _Recv), For and
// RemoteCall (a library function called in a loop, or on this device),
// _ArrayToList/_ListToArray (forward their inputs),
// _VarHandlesOp/_ReadVariablesOp (N VarHandleOps and ReadVariableOps in one
// node), IsTensorFloat32Enabled, DeviceIndex and FakeParam.
#include <algorithm>
#include <cstring>

#include "lib/kernels/function_interface.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      ctx->set_output(i, ctx->input(i));
    }
  }
};

class IsTensorFloat32EnabledOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  // TensorFloat-32 is on unless a program turns it off; nothing in a graph
  // can.
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<bool>(true));
  }
};

// The index of the kernel's device type ("CPU") in device_names, or their
// count when absent.
class DeviceIndexOp : public OpKernel {
 public:
  explicit DeviceIndexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<std::string> names;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("device_names", &names));
    auto it = std::find(names.begin(), names.end(), ctx->device_type());
    index_ = static_cast<int32_t>(it - names.begin());
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(index_));
  }

 private:
  int32_t index_ = 0;
};

// A placeholder of dtype and shape whose value nothing reads (TensorFlow
// leaves it uninitialized; dfg zeroes it).
class FakeParamOp : public OpKernel {
 public:
  explicit FakeParamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype;
    TensorShapeProto proto;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &proto));
    // Unknown dims are 0, as TensorFlow's PartialTensorShape::AsTensorShape.
    TensorShape shape;
    if (!proto.unknown_rank()) {
      for (const auto& d : proto.dim())
        shape.AddDim(std::max<int64_t>(0, d.size()));
    }
    auto value = Tensor::TryAllocate(dtype, shape);
    DFG_OP_REQUIRES_OK(ctx, value.status());
    if (value->TotalBytes() > 0 && dtype != tensorflow::DT_STRING &&
        dtype != tensorflow::DT_VARIANT && dtype != tensorflow::DT_RESOURCE) {
      std::memset(value->data(), 0, value->TotalBytes());
    }
    value_ = *std::move(value);
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};

class VarHandlesOp : public OpKernel {
 public:
  explicit VarHandlesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    std::vector<DataType> dtypes;
    std::vector<TensorShapeProto> shapes;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("containers", &containers_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_names", &names_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shapes", &shapes));
    const size_t n = static_cast<size_t>(ctx->num_outputs());
    DFG_OP_REQUIRES(ctx,
                    containers_.size() == n && names_.size() == n &&
                        dtypes.size() == n && shapes.size() == n,
                    InvalidArgument("Number of containers ({}), shared_names "
                                    "({}), dtypes ({}) and shapes ({}) must "
                                    "be {}",
                                    containers_.size(), names_.size(),
                                    dtypes.size(), shapes.size(), n));
    for (size_t i = 0; i < n; ++i) {
      ResourceHandle::DtypeAndShape ds;
      ds.dtype = dtypes[i];
      ds.unknown_rank = shapes[i].unknown_rank();
      for (const auto& d : shapes[i].dim()) ds.dims.push_back(d.size());
      dtypes_and_shapes_.push_back(std::move(ds));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    for (size_t i = 0; i < names_.size(); ++i) {
      ResourceHandle h;
      h.device = def().device();
      h.container =
          containers_[i].empty() ? rm->default_container() : containers_[i];
      h.name = names_[i];
      h.maybe_type_name = kVarTypeName;
      h.dtypes_and_shapes.push_back(dtypes_and_shapes_[i]);
      ctx->set_output(i, Tensor::Scalar<ResourceHandle>(std::move(h)));
    }
  }

 private:
  std::vector<std::string> containers_, names_;
  std::vector<ResourceHandle::DtypeAndShape> dtypes_and_shapes_;
};

class ReadVariablesOp : public OpKernel {
 public:
  explicit ReadVariablesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const ResourceHandle& h = ctx->input(i).flat<ResourceHandle>()[0];
      auto var = rm->Lookup(h.container, h.name);
      Status status = var.status();
      if (status.ok()) {
        std::lock_guard<std::mutex> lock(*(*var)->mu());
        if ((*var)->is_initialized) {
          const Tensor& t = *(*var)->tensor();
          DFG_OP_REQUIRES(
              ctx, t.dtype() == dtypes_[i],
              InvalidArgument("Trying to read variable {} from Container: {} "
                              "with wrong dtype. Expected {} got {}",
                              h.name, h.container, DataTypeString(dtypes_[i]),
                              DataTypeString(t.dtype())));
          ctx->set_output(i, t);
          continue;
        }
        status = NotFound("Resource {}/{}/{} is not initialized.", h.container,
                          h.name, kVarTypeName);
      }
      ctx->SetStatus(FailedPrecondition(
          "Could not find variable {}. This could mean that the variable has "
          "been deleted. In TF1, it can also mean the variable is "
          "uninitialized. Debug info: container={}, status={}",
          h.name, h.container, status.ToString()));
      return;
    }
  }

 private:
  std::vector<DataType> dtypes_;
};

Status FuncAttr(const OpKernel& k, const char* name,
                tensorflow::NameAttrList* fn) {
  auto it = k.def().attr().find(name);
  if (it == k.def().attr().end() || !it->second.has_func()) {
    return NotFound("No attr named '{}' in NodeDef:", name);
  }
  *fn = it->second.func();
  return Status::Ok();
}

// The function's results as the node's outputs (TensorFlow's SetOutputs).
void SetOutputs(OpKernelContext* ctx, std::vector<Tensor>& rets) {
  const OpKernel& k = ctx->op_kernel();
  DFG_OP_REQUIRES(ctx, static_cast<int>(rets.size()) == ctx->num_outputs(),
                  Internal("Expect to produce {} tensors, but only get {}",
                           ctx->num_outputs(), rets.size()));
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    DFG_OP_REQUIRES(ctx, rets[i].dtype() == k.output_type(i),
                    Internal("Expect {}-th output is of type {} but get {}", i,
                             DataTypeString(k.output_type(i)),
                             DataTypeString(rets[i].dtype())));
    ctx->set_output(i, std::move(rets[i]));
  }
}

// RemoteCall(target, args; f): f on the target device, which in one process
// is this one.
class RemoteCallOp : public OpKernel {
 public:
  explicit RemoteCallOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, FuncAttr(*this, "f", &fn_));
  }
  void Compute(OpKernelContext* ctx) override {
    FunctionCallInterface* lib = ctx->function_library();
    DFG_OP_REQUIRES(ctx, lib != nullptr, Internal("No function library"));
    std::vector<Tensor> args, rets;
    for (int i = 1; i < ctx->num_inputs(); ++i) args.push_back(ctx->input(i));
    DFG_OP_REQUIRES_OK(ctx, lib->Call(fn_, ctx->step(), args, &rets));
    SetOutputs(ctx, rets);
  }

 private:
  tensorflow::NameAttrList fn_;
};

Status ScalarInt(const Tensor& t, const char* label, int32_t* v) {
  if (t.dims() != 0) {
    return InvalidArgument("{} must be a scalar, but {}", label,
                           t.shape().DebugString());
  }
  *v = t.scalar<int32_t>();
  return Status::Ok();
}

// For(start, limit, delta, input; body): input = body(i, input) for i from
// start towards limit by delta.
class ForOp : public OpKernel {
 public:
  explicit ForOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, FuncAttr(*this, "body", &body_));
  }
  void Compute(OpKernelContext* ctx) override {
    FunctionCallInterface* lib = ctx->function_library();
    DFG_OP_REQUIRES(ctx, lib != nullptr, Internal("No function library"));
    int32_t i = 0, limit = 0, delta = 0;
    DFG_OP_REQUIRES_OK(ctx, ScalarInt(ctx->input(0), "start", &i));
    DFG_OP_REQUIRES_OK(ctx, ScalarInt(ctx->input(1), "limit", &limit));
    DFG_OP_REQUIRES_OK(ctx, ScalarInt(ctx->input(2), "delta", &delta));
    DFG_OP_REQUIRES(ctx,
                    (delta > 0 && i <= limit) || (delta < 0 && i >= limit) ||
                        (delta == 0 && i == limit),
                    InvalidArgument("Invalid start/limit/delta: {} {} {}", i,
                                    limit, delta));
    std::vector<Tensor> vars;
    for (int k = 3; k < ctx->num_inputs(); ++k) vars.push_back(ctx->input(k));
    const size_t n = vars.size();
    for (; delta > 0 ? i < limit : i > limit; i += delta) {
      DFG_OP_REQUIRES(ctx, !ctx->is_cancelled(), Cancelled("Step cancelled"));
      DFG_OP_REQUIRES(ctx, vars.size() <= n,
                      InvalidArgument("For loop body returned {} arguments. "
                                      "Expected: {}",
                                      vars.size(), n));
      std::vector<Tensor> args = {Tensor::Scalar<int32_t>(i)};
      args.insert(args.end(), vars.begin(), vars.end());
      std::vector<Tensor> next;
      DFG_OP_REQUIRES_OK(ctx, lib->Call(body_, ctx->step(), args, &next));
      vars = std::move(next);
    }
    SetOutputs(ctx, vars);
  }

 private:
  tensorflow::NameAttrList body_;
};

// Registers `from`'s kernels for `to` too (ops with `from`'s signature).
void Alias(KernelRegistry* r, const std::string& from, const std::string& to) {
  for (const KernelRegistration* reg : r->Registrations(from)) {
    KernelRegistration copy = *reg;
    copy.op = to;
    r->Register(std::move(copy));
  }
}

}  // namespace

void RegisterInternalKernels(KernelRegistry* r) {
  Alias(r, "Cast", "_HostCast");
  Alias(r, "_Arg", "_DeviceArg");
  Alias(r, "_Retval", "_DeviceRetval");
  Alias(r, "If", "_If");
  Alias(r, "While", "_While");
  Alias(r, "_Send", "Send");
  Alias(r, "_Recv", "Recv");
  r->Register<ForOp>("For");
  r->Register<RemoteCallOp>("RemoteCall");
  r->Register<ForwardOp>("_ArrayToList");
  r->Register<ForwardOp>("_ListToArray");
  r->Register<IsTensorFloat32EnabledOp>("IsTensorFloat32Enabled");
  r->Register<DeviceIndexOp>("DeviceIndex");
  r->Register<FakeParamOp>("FakeParam");
  r->Register<VarHandlesOp>("_VarHandlesOp");
  r->Register<ReadVariablesOp>("_ReadVariablesOp");
}

}  // namespace dfg
