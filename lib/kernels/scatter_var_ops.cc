// Scatter kernels on variables: ScatterNd{Update,Add,Sub,Max,Min} and
// Scatter{Update,Add,Sub,Mul,Div,Min,Max} on ref variables (the ref is
// forwarded) and their ResourceScatter* forms on resource variables
// (ResourceGatherNd is with GatherNd in gather_ops.cc). Every update runs under
// the variable's mutex (dfg never races updates, so `use_locking` only has to
// be a valid attr) and, as the optimizers do, first gives the variable its own
// buffer when another tensor shares it.
#include <fmt/format.h>

#include "lib/kernels/scatter_ops.h"

namespace dfg {
namespace {

// Copy-on-write: the variable's tensor stops sharing its buffer.
void MakeWritable(Tensor* t) {
  if (!t->RefCountIsOne() && t->NumElements() > 0) *t = t->DeepCopy();
}

// The variable behind resource input 0, or an error.
Status LookupVar(OpKernelContext* ctx, std::shared_ptr<Var>* var) {
  const Tensor& h = ctx->input(0);
  if (h.dtype() != tensorflow::DT_RESOURCE || h.NumElements() != 1) {
    return InvalidArgument("Expected a scalar resource handle, got shape {}",
                           h.shape().DebugString());
  }
  if (ctx->resource_manager() == nullptr) {
    return Internal("No resource manager.");
  }
  const ResourceHandle& handle = h.flat<ResourceHandle>()[0];
  DFG_ASSIGN_OR_RETURN(
      *var, ctx->resource_manager()->Lookup(handle.container, handle.name));
  return Status::Ok();
}

Status CheckVar(Var& var, DataType dtype) {
  if (!var.is_initialized) {
    return FailedPrecondition("Attempting to use uninitialized variable");
  }
  if (var.tensor()->dtype() != dtype) {
    return InvalidArgument(
        "Trying to access variable with wrong dtype. Expected {} got {}",
        DataTypeString(var.tensor()->dtype()), DataTypeString(dtype));
  }
  return Status::Ok();
}

// The variable a kernel updates: a ref input's tensor and mutex, or a
// resource variable's (kept alive by `keep`).
struct Target {
  std::mutex* mu = nullptr;
  Tensor* tensor = nullptr;
  std::shared_ptr<Var> keep;
};

Status GetTarget(OpKernelContext* ctx, bool resource, DataType dtype,
                 Target* target) {
  if (!resource) {
    if (!ctx->input_is_ref(0)) {
      return InvalidArgument("ref input needs to be a ref type");
    }
    target->mu = ctx->input_ref_mutex(0);
    target->tensor = ctx->mutable_input(0);
    return Status::Ok();
  }
  DFG_RETURN_IF_ERROR(LookupVar(ctx, &target->keep));
  target->mu = target->keep->mu();
  target->tensor = target->keep->tensor();
  std::lock_guard<std::mutex> lock(*target->mu);
  return CheckVar(*target->keep, dtype);
}

// ScatterNd{Update,Add,...} (ref) and ResourceScatterNd{Update,Add,...}.
template <UpdateOp kOp, bool kResource>
class VarScatterNdOp : public OpKernel {
 public:
  explicit VarScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_allows_uninitialized_input(true);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
    DFG_OP_REQUIRES_OK(ctx, IgnoreBadIndices(ctx, &ignore_bad_));
  }
  void Compute(OpKernelContext* ctx) override {
    Target v;
    DFG_OP_REQUIRES_OK(ctx, GetTarget(ctx, kResource, dtype_, &v));
    {
      std::lock_guard<std::mutex> lock(*v.mu);
      DFG_OP_REQUIRES(ctx, v.tensor->IsInitialized(),
                      FailedPrecondition("Null ref for params"));
      MakeWritable(v.tensor);
      const TensorShape shape = v.tensor->shape();
      DFG_OP_REQUIRES_OK(ctx, ScatterNdInto(ctx->input(1), ctx->input(2), shape,
                                            kOp, ignore_bad_, v.tensor));
    }
    if (!kResource) ctx->set_output_ref(0, v.mu, v.tensor);
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
  bool ignore_bad_ = false;
};

// updates.shape == indices.shape + params.shape[1:], or a scalar.
bool ValidScatterShapes(const TensorShape& params, const TensorShape& indices,
                        const TensorShape& updates) {
  if (updates.dims() == 0) return true;
  if (updates.dims() != indices.dims() + params.dims() - 1) return false;
  for (int d = 0; d < indices.dims(); ++d) {
    if (updates.dim_size(d) != indices.dim_size(d)) return false;
  }
  for (int d = 1; d < params.dims(); ++d) {
    if (params.dim_size(d) != updates.dim_size(d - 1 + indices.dims())) {
      return false;
    }
  }
  return true;
}

// Scatter{Update,Add,...} rows of `params` (validated shapes): every index
// is checked first, then the rows update in order.
Status ScatterRows(const Tensor& indices, const Tensor& updates, UpdateOp op,
                   Tensor* params) {
  const std::vector<int64_t> idx = IntValues(indices);
  const int64_t rows = params->dim_size(0);
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0 || idx[i] >= rows) {
      return InvalidArgument("indices{} = {} is not in [0, {})",
                             SliceString(indices.shape(), i), idx[i], rows);
    }
  }
  if (idx.empty()) return Status::Ok();
  const int64_t row = rows == 0 ? 0 : params->NumElements() / rows;
  const bool scalar = updates.dims() == 0;
  VisitScatterType(params->dtype(), [&](auto v) {
    using T = decltype(v);
    T* p = static_cast<T*>(params->data());
    const T* u = static_cast<const T*>(updates.data());
    for (size_t i = 0; i < idx.size(); ++i) {
      T* dst = p + idx[i] * row;
      for (int64_t j = 0; j < row; ++j) {
        ApplyUpdate(op, dst + j, scalar ? u[0] : u[i * row + j]);
      }
    }
  });
  return Status::Ok();
}

// Scatter{Update,Add,Sub,Mul,Div,Min,Max} on a ref variable.
template <UpdateOp kOp>
class RefScatterOp : public OpKernel {
 public:
  explicit RefScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_allows_uninitialized_input(true);
    bool use_locking = false;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
  }
  void Compute(OpKernelContext* ctx) override {
    Target v;
    DFG_OP_REQUIRES_OK(ctx, GetTarget(ctx, false, input_type(2), &v));
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    {
      std::lock_guard<std::mutex> lock(*v.mu);
      Tensor* params = v.tensor;
      DFG_OP_REQUIRES(ctx, params->IsInitialized(),
                      FailedPrecondition("Null ref for params"));
      DFG_OP_REQUIRES(ctx, params->dims() >= 1,
                      InvalidArgument("params must be at least 1-D, got shape "
                                      "{}",
                                      params->shape().DebugString()));
      DFG_OP_REQUIRES(
          ctx,
          ValidScatterShapes(params->shape(), indices.shape(), updates.shape()),
          InvalidArgument("Must have updates.shape = indices.shape + "
                          "params.shape[1:] or updates.shape = [], got "
                          "updates.shape {}, indices.shape {}, params.shape {}",
                          updates.shape().DebugString(),
                          indices.shape().DebugString(),
                          params->shape().DebugString()));
      MakeWritable(params);
      DFG_OP_REQUIRES_OK(ctx, ScatterRows(indices, updates, kOp, params));
    }
    ctx->set_output_ref(0, v.mu, v.tensor);
  }
};

// ResourceScatter{Update,Add,Sub,Mul,Div,Min,Max}.
template <UpdateOp kOp>
class ResourceScatterOp : public OpKernel {
 public:
  explicit ResourceScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    Target v;
    DFG_OP_REQUIRES_OK(ctx, GetTarget(ctx, true, dtype_, &v));
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    std::lock_guard<std::mutex> lock(*v.mu);
    Tensor* params = v.tensor;
    // TensorFlow checks the ranks and that indices.shape starts
    // updates.shape; it writes out of bounds when the inner dims differ,
    // which dfg reports with the same message instead.
    DFG_OP_REQUIRES(
        ctx,
        (updates.dims() == 0 ||
         updates.dims() == indices.dims() + params->dims() - 1) &&
            (params->dims() >= 1 || updates.dims() == 0),
        InvalidArgument("Must have updates.shape = indices.shape + "
                        "params.shape[1:] or updates.shape = [], got "
                        "updates.shape {}, indices.shape {}, params.shape {}",
                        updates.shape().DebugString(),
                        indices.shape().DebugString(),
                        params->shape().DebugString()));
    bool prefix = true;
    for (int d = 0; d < indices.dims() && updates.dims() > 0; ++d) {
      prefix = prefix && updates.dim_size(d) == indices.dim_size(d);
    }
    DFG_OP_REQUIRES(ctx, prefix || indices.NumElements() == 0,
                    InvalidArgument("The shape of indices ({}) must be a "
                                    "prefix of the shape of updates ({})",
                                    indices.shape().DebugString(),
                                    updates.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx,
        ValidScatterShapes(params->shape(), indices.shape(), updates.shape()),
        InvalidArgument("Must have updates.shape = indices.shape + "
                        "params.shape[1:] or updates.shape = [], got "
                        "updates.shape {}, indices.shape {}, params.shape {}",
                        updates.shape().DebugString(),
                        indices.shape().DebugString(),
                        params->shape().DebugString()));
    if (indices.NumElements() == 0) return;
    MakeWritable(params);
    DFG_OP_REQUIRES_OK(ctx, ScatterRows(indices, updates, kOp, params));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

template <UpdateOp kOp>
void RegisterNd(KernelRegistry* r, const char* ref_op,
                const char* resource_op) {
  const auto idx = TypeConstraint("Tindices", TypeList<int32_t, int64_t>());
  const KernelTypeConstraint types{"T", TypesFor(kOp)};
  r->Register<VarScatterNdOp<kOp, false>>(ref_op, {types, idx});
  r->Register<VarScatterNdOp<kOp, true>>(resource_op, {types, idx});
}

template <UpdateOp kOp>
void RegisterRows(KernelRegistry* r, const char* ref_op,
                  const char* resource_op) {
  const auto idx = TypeConstraint("Tindices", TypeList<int32_t, int64_t>());
  std::vector<DataType> types = TypesFor(kOp);
  if (kOp == UpdateOp::kAssign) types.push_back(tensorflow::DT_RESOURCE);
  r->Register<RefScatterOp<kOp>>(ref_op, {{"T", types}, idx});
  if (kOp == UpdateOp::kAssign) types.pop_back();
  r->Register<ResourceScatterOp<kOp>>(resource_op, {{"dtype", types}, idx});
}

}  // namespace

void RegisterScatterVarKernels(KernelRegistry* r) {
  RegisterNd<UpdateOp::kAssign>(r, "ScatterNdUpdate",
                                "ResourceScatterNdUpdate");
  RegisterNd<UpdateOp::kAdd>(r, "ScatterNdAdd", "ResourceScatterNdAdd");
  RegisterNd<UpdateOp::kSub>(r, "ScatterNdSub", "ResourceScatterNdSub");
  RegisterNd<UpdateOp::kMax>(r, "ScatterNdMax", "ResourceScatterNdMax");
  RegisterNd<UpdateOp::kMin>(r, "ScatterNdMin", "ResourceScatterNdMin");
  RegisterRows<UpdateOp::kAssign>(r, "ScatterUpdate", "ResourceScatterUpdate");
  RegisterRows<UpdateOp::kAdd>(r, "ScatterAdd", "ResourceScatterAdd");
  RegisterRows<UpdateOp::kSub>(r, "ScatterSub", "ResourceScatterSub");
  RegisterRows<UpdateOp::kMul>(r, "ScatterMul", "ResourceScatterMul");
  RegisterRows<UpdateOp::kDiv>(r, "ScatterDiv", "ResourceScatterDiv");
  RegisterRows<UpdateOp::kMin>(r, "ScatterMin", "ResourceScatterMin");
  RegisterRows<UpdateOp::kMax>(r, "ScatterMax", "ResourceScatterMax");
}

}  // namespace dfg
