// Variables: VariableV2 (ref output) and Assign; resource variables
// VarHandleOp, ReadVariableOp, AssignVariableOp. Values live in the step's
// ResourceMgr. Assignment replaces the variable's tensor (sharing the
// value's buffer, never writing into a buffer a reader may hold).
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

constexpr char kVarTypeName[] = "N10tensorflow3VarE";

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    dtype_ = BaseType(ctx->output_type(0));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
    TensorShapeProto shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape));
    StatusOr<TensorShape> full = TensorShape::FromProto(shape);
    if (full.ok()) shape_ = *full;
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    const std::string& container =
        container_.empty() ? rm->default_container() : container_;
    StatusOr<std::shared_ptr<Var>> var =
        rm->LookupOrCreate(container, shared_name_, dtype_);
    DFG_OP_REQUIRES_OK(ctx, var.status());
    Var* v = var->get();
    {
      std::lock_guard<std::mutex> lock(*v->mu());
      if (!v->tensor()->IsInitialized() && shape_.has_value()) {
        v->tensor()->set_shape_uninitialized(*shape_);
      }
    }
    // The ResourceMgr keeps the Var alive.
    ctx->set_output_ref(0, v->mu(), v->tensor());
  }

 private:
  DataType dtype_;
  std::string container_, shared_name_;
  std::optional<TensorShape> shape_;
};

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    set_allows_uninitialized_input(true);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
    DFG_OP_REQUIRES(ctx, IsRefType(ctx->input_type(0)),
                    InvalidArgument("lhs input needs to be a ref type"));
  }
  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES(ctx, ctx->input_is_ref(0),
                    InvalidArgument("lhs input needs to be a ref type"));
    const Tensor& rhs = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
      Tensor* lhs = ctx->mutable_input(0);
      if (validate_shape_) {
        DFG_OP_REQUIRES(
            ctx, lhs->shape().IsSameSize(rhs.shape()),
            InvalidArgument("Assign requires shapes of both tensors to match. "
                            "lhs shape= {} rhs shape= {}",
                            lhs->shape().DebugString(),
                            rhs.shape().DebugString()));
      }
      *lhs = rhs;
    }
    ctx->set_output_ref(0, ctx->input_ref_mutex(0), ctx->mutable_input(0));
  }

 private:
  bool validate_shape_ = true;
};

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_and_shape_.dtype));
    TensorShapeProto shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape));
    dtype_and_shape_.unknown_rank = shape.unknown_rank();
    for (const auto& d : shape.dim()) dtype_and_shape_.dims.push_back(d.size());
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    DFG_OP_REQUIRES(ctx, rm != nullptr, Internal("No resource manager."));
    ResourceHandle h;
    h.device = def().device();
    h.container = container_.empty() ? rm->default_container() : container_;
    h.name = shared_name_;
    h.maybe_type_name = kVarTypeName;
    h.dtypes_and_shapes.push_back(dtype_and_shape_);
    ctx->set_output(0, Tensor::Scalar<ResourceHandle>(std::move(h)));
  }

 private:
  std::string container_, shared_name_;
  ResourceHandle::DtypeAndShape dtype_and_shape_;
};

Status HandleFromInput(OpKernelContext* ctx, const ResourceHandle** h) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() != tensorflow::DT_RESOURCE || t.NumElements() != 1) {
    return InvalidArgument(
        "Expected a scalar resource handle, got a {} of "
        "shape {}",
        DataTypeString(t.dtype()), t.shape().DebugString());
  }
  *h = &t.flat<ResourceHandle>()[0];
  if (ctx->resource_manager() == nullptr) {
    return Internal("No resource manager.");
  }
  return Status::Ok();
}

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* h = nullptr;
    DFG_OP_REQUIRES_OK(ctx, HandleFromInput(ctx, &h));
    StatusOr<std::shared_ptr<Var>> var =
        ctx->resource_manager()->Lookup(h->container, h->name);
    Status status = var.status();
    if (status.ok()) {
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      if (!(*var)->is_initialized) {
        status = NotFound("Resource {}/{}/{} is not initialized.", h->container,
                          h->name, kVarTypeName);
      } else {
        const Tensor& t = *(*var)->tensor();
        DFG_OP_REQUIRES(
            ctx, t.dtype() == dtype_,
            InvalidArgument("Trying to read variable with wrong "
                            "dtype. Expected {} got {}",
                            DataTypeString(dtype_), DataTypeString(t.dtype())));
        ctx->set_output(0, t);
        return;
      }
    }
    ctx->SetStatus(FailedPrecondition(
        "Could not find variable {}. This could mean that the variable has "
        "been deleted. In TF1, it can also mean the variable is "
        "uninitialized. Debug info: container={}, status={}",
        h->name, h->container, status.ToString()));
  }

 private:
  DataType dtype_;
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    if (ctx->HasAttr("validate_shape")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, value.dtype() == dtype_,
        InvalidArgument("Variable and value dtypes don't match; "
                        "respectively, {} and {}",
                        DataTypeString(dtype_), DataTypeString(value.dtype())));
    const ResourceHandle* h = nullptr;
    DFG_OP_REQUIRES_OK(ctx, HandleFromInput(ctx, &h));
    ResourceMgr* rm = ctx->resource_manager();
    StatusOr<std::shared_ptr<Var>> var =
        rm->LookupOrCreate(h->container, h->name, dtype_);
    if (!var.ok()) {
      StatusOr<std::shared_ptr<Var>> existing =
          rm->Lookup(h->container, h->name);
      DFG_OP_REQUIRES_OK(ctx, existing.status());
      ctx->SetStatus(InvalidArgument(
          "Trying to assign variable with wrong dtype. Expected {} got {}",
          DataTypeString((*existing)->tensor()->dtype()),
          DataTypeString(dtype_)));
      return;
    }
    Var* v = var->get();
    std::lock_guard<std::mutex> lock(*v->mu());
    if (validate_shape_ && v->is_initialized) {
      DFG_OP_REQUIRES(
          ctx, v->tensor()->shape().IsSameSize(value.shape()),
          InvalidArgument("Trying to assign to variable with tensor with "
                          "wrong shape. Expected {} got {}",
                          v->tensor()->shape().DebugString(),
                          value.shape().DebugString()));
    }
    *v->tensor() = value;
    v->is_initialized = true;
  }

 private:
  DataType dtype_;
  bool validate_shape_ = false;
};

}  // namespace

void RegisterVariableKernels(KernelRegistry* r) {
  r->Register<VariableOp>("VariableV2");
  r->Register<VariableOp>("Variable");
  r->Register<AssignOp>("Assign");
  r->Register<VarHandleOp>("VarHandleOp");
  r->Register<ReadVariableOp>("ReadVariableOp");
  r->Register<AssignVariableOp>("AssignVariableOp");
}

}  // namespace dfg
