// Scatter kernels (TensorFlow's scatter_nd_op.cc, scatter_op.cc and the
// resource forms of resource_variable_ops.cc):
//  - ScatterNd, TensorScatter{Update,Add,Sub,Max,Min} and
//    ScatterNdNonAliasingAdd build a new tensor;
//  - ScatterNd{Update,Add,Sub,Max,Min} and Scatter{Update,Add,Sub,Mul,Div,
//    Min,Max} update a ref variable in place and forward the ref;
//  - ResourceScatterNd* and ResourceScatter* update a resource variable;
//  - ResourceGatherNd reads slices of one.
// Updates run in index order, so duplicate indices accumulate (add, sub...)
// or the last one wins (update), as TensorFlow's CPU kernels do. A variable
// update never writes into a buffer another tensor shares (copy-on-write, as
// the optimizers of training_ops.cc).
#include "lib/kernels/scatter_ops.h"

#include <fmt/format.h>

namespace dfg {

void RegisterScatterVarKernels(KernelRegistry* r);  // scatter_var_ops.cc

std::string SliceString(const TensorShape& shape, int64_t i) {
  if (shape.dims() == 0) return "";
  std::vector<int64_t> coords(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    const int64_t n = std::max<int64_t>(1, shape.dim_size(d));
    coords[d] = i % n;
    i /= n;
  }
  return VectorString(coords);
}

namespace {

// True when the element counts leave no update without a destination.
bool ValidEmptyOutput(int64_t inputs, int64_t indices, int64_t updates) {
  if (indices == 0 && updates == 0) return true;
  return inputs != 0 && indices != 0 && updates != 0;
}

// updates.shape must be indices.shape[:-1] + shape[indices.shape[-1]:].
Status CheckUpdateShape(const TensorShape& shape, const Tensor& indices,
                        const Tensor& updates) {
  const int64_t slice_dim =
      indices.dims() > 1 ? indices.dim_size(indices.dims() - 1) : 1;
  const int64_t batch_dim = indices.dims() > 1 ? indices.dims() - 1 : 1;
  const TensorShape& us = updates.shape();
  auto prefix_error = [&] {
    return InvalidArgument(
        "Dimensions [0,{}) of indices[shape={}] must match dimensions [0,{}) "
        "of updates[shape={}]",
        batch_dim, indices.shape().DebugString(), batch_dim, us.DebugString());
  };
  auto suffix_error = [&] {
    return InvalidArgument(
        "Dimensions [{},{}) of input[shape={}] must match dimensions [{},{}) "
        "of updates[shape={}]",
        slice_dim, shape.dims(), shape.DebugString(), batch_dim, us.dims(),
        us.DebugString());
  };
  if (us.dims() < batch_dim) return prefix_error();
  if (shape.dims() < slice_dim + (us.dims() - batch_dim)) {
    return suffix_error();
  }
  if (us.dims() != batch_dim + shape.dims() - slice_dim) return suffix_error();
  for (int d = 0; d < batch_dim; ++d) {
    if (us.dim_size(d) != indices.dim_size(d)) return prefix_error();
  }
  for (int d = 0; d < us.dims() - batch_dim; ++d) {
    if (us.dim_size(d + batch_dim) != shape.dim_size(d + slice_dim)) {
      return suffix_error();
    }
  }
  return Status::Ok();
}

}  // namespace

Status ScatterNdInto(const Tensor& indices, const Tensor& updates,
                     const TensorShape& shape, UpdateOp op, bool ignore_bad,
                     Tensor* out) {
  if (shape.dims() < 1) {
    return InvalidArgument("Output must be at least 1-D, got shape: {}",
                           shape.DebugString());
  }
  if (!ValidEmptyOutput(shape.num_elements(), indices.NumElements(),
                        updates.NumElements())) {
    return InvalidArgument(
        "Indices and updates specified for empty output.  indices shape: {}",
        indices.shape().DebugString());
  }
  if (indices.dims() == 0 || updates.dims() == 0) {
    // TensorFlow's shape functions reject these at graph construction.
    return InvalidArgument(
        "Indices and updates must have rank at least one. "
        "indices shape: {}, updates shape: {}",
        indices.shape().DebugString(), updates.shape().DebugString());
  }
  if (updates.dim_size(0) != indices.dim_size(0)) {
    return InvalidArgument(
        "Dimensions [0,1) of indices[shape={}] = {} must match dimensions "
        "[0,1) of updates[shape={}] = {}",
        indices.shape().DebugString(), indices.dim_size(0),
        updates.shape().DebugString(), updates.dim_size(0));
  }
  DFG_RETURN_IF_ERROR(CheckUpdateShape(shape, indices, updates));
  const int64_t slice_dim =
      indices.dims() > 1 ? indices.dim_size(indices.dims() - 1) : 1;
  int64_t slice_size = 1;
  for (int d = slice_dim; d < shape.dims(); ++d) {
    slice_size *= shape.dim_size(d);
  }
  if (shape.num_elements() == 0) return Status::Ok();
  if (slice_dim < 1 || slice_dim > 7) {
    return InvalidArgument(
        "Only indices.shape[-1] values between 1 and 7 are currently "
        "supported.  Requested rank: {}",
        slice_dim);
  }
  // Index tuples are the rows of indices flattened to [-1, last dim]: for
  // 1-D indices TensorFlow reads one tuple, the first slice_dim entries.
  const int64_t stride = indices.dim_size(indices.dims() - 1);
  const int64_t num_updates = stride == 0 ? 0 : indices.NumElements() / stride;
  const std::vector<int64_t> idx = IntValues(indices);
  int64_t bad = -1;
  VisitScatterType(out->dtype(), [&](auto v) {
    using T = decltype(v);
    T* o = static_cast<T*>(out->data());
    const T* u = static_cast<const T*>(updates.data());
    for (int64_t i = 0; i < num_updates; ++i) {
      int64_t offset = 0;
      bool in_range = true;
      for (int64_t d = 0; d < slice_dim; ++d) {
        const int64_t x = idx[i * stride + d];
        in_range = in_range && x >= 0 && x < shape.dim_size(d);
        offset = offset * shape.dim_size(d) + x;
      }
      if (!in_range) {
        if (ignore_bad) continue;
        bad = i;
        return;
      }
      T* dst = o + offset * slice_size;
      const T* src = u + i * slice_size;
      for (int64_t j = 0; j < slice_size; ++j) ApplyUpdate(op, dst + j, src[j]);
    }
  });
  if (bad < 0) return Status::Ok();
  TensorShape prefix = indices.shape();
  prefix.RemoveDim(prefix.dims() - 1);
  std::vector<int64_t> tuple(idx.begin() + bad * stride,
                             idx.begin() + bad * stride + slice_dim);
  return InvalidArgument("indices{} = [{}] does not index into shape {}",
                         SliceString(prefix, bad), fmt::join(tuple, ", "),
                         shape.DebugString());
}

Status IgnoreBadIndices(OpKernelConstruction* ctx, bool* ignore) {
  std::string policy;
  if (ctx->HasAttr("bad_indices_policy")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("bad_indices_policy", &policy));
  }
  if (policy.empty() || policy == "DEFAULT" || policy == "ERROR") {
    *ignore = false;
  } else if (policy == "IGNORE") {
    *ignore = true;
  } else {
    return InvalidArgument("Unknown bad indices handling attribute: {}",
                           policy);
  }
  return Status::Ok();
}

namespace {

Status RankAtLeastOne(const Tensor& indices, const Tensor& updates) {
  if (indices.dims() < 1) {
    return InvalidArgument(
        "Indices shape must have rank at least one. Found:{}",
        indices.shape().DebugString());
  }
  if (updates.dims() < 1) {
    return InvalidArgument(
        "Updates shape must have rank at least one. Found:{}",
        updates.shape().DebugString());
  }
  return Status::Ok();
}

// Zeros (empty strings, false) of `t`'s dtype.
void FillZero(Tensor* t) {
  VisitScatterType(t->dtype(), [&](auto v) {
    using T = decltype(v);
    for (T& x : t->flat<T>()) x = T{};
  });
}

class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, IgnoreBadIndices(ctx, &ignore_bad_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_in = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, RankAtLeastOne(indices, updates));
    const std::vector<int64_t> dims = IntValues(shape_in);
    for (int64_t d : dims) {
      DFG_OP_REQUIRES(ctx, d >= 0,
                      InvalidArgument("Dimension {} must be >= 0", d));
    }
    const TensorShape shape{std::span<const int64_t>(dims)};
    DFG_OP_REQUIRES(
        ctx,
        ValidEmptyOutput(shape_in.NumElements(), indices.NumElements(),
                         updates.NumElements()),
        InvalidArgument(
            "Indices and updates specified for empty output shape"));
    const int64_t outer = indices.dims() - 1;
    const TensorShape& us = updates.shape();
    for (int i = 0; i < outer; ++i) {
      DFG_OP_REQUIRES(
          ctx, indices.dim_size(i) == us.dim_size(i),
          InvalidArgument("Dimensions [0,{}) of indices[shape={}] must match "
                          "dimensions [0,{}) of updates[shape={}]",
                          outer, indices.shape().DebugString(), outer,
                          us.DebugString()));
    }
    const int64_t ix = indices.dim_size(outer);
    bool inner_ok = us.dims() - outer == shape.dims() - ix;
    for (int i = 0; inner_ok && i + outer < us.dims(); ++i) {
      inner_ok = us.dim_size(i + outer) == shape.dim_size(ix + i);
    }
    DFG_OP_REQUIRES(
        ctx, inner_ok,
        InvalidArgument("Dimensions [{},{}) of input[shape={}] must match "
                        "dimensions [{},{}) of updates[shape={}]",
                        ix, shape.dims(), shape.DebugString(), outer, us.dims(),
                        us.DebugString()));
    DFG_OP_REQUIRES(ctx, shape_in.dims() == 1,
                    InvalidArgument("Shape must be a vector"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillZero(out);
    DFG_OP_REQUIRES_OK(ctx, ScatterNdInto(indices, updates, shape,
                                          UpdateOp::kAdd, ignore_bad_, out));
  }

 private:
  bool ignore_bad_ = false;
};

// A copy of `in` that this kernel may write.
Tensor WritableCopy(const Tensor& in) { return in.DeepCopy(); }

// TensorScatter{Update,Add,Sub,Max,Min}.
class TensorScatterOp : public OpKernel {
 public:
  TensorScatterOp(OpKernelConstruction* ctx, UpdateOp op)
      : OpKernel(ctx), op_(op) {
    DFG_OP_REQUIRES_OK(ctx, IgnoreBadIndices(ctx, &ignore_bad_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, RankAtLeastOne(indices, updates));
    const TensorShape& shape = input.shape();
    DFG_OP_REQUIRES(
        ctx,
        ValidEmptyOutput(shape.num_elements(), indices.NumElements(),
                         updates.NumElements()),
        InvalidArgument(
            "Indices and updates specified for empty output shape"));
    const int64_t outer = indices.dims() - 1;
    const TensorShape& us = updates.shape();
    for (int i = 0; i < outer; ++i) {
      DFG_OP_REQUIRES(
          ctx, indices.dim_size(i) == us.dim_size(i),
          InvalidArgument("Outer dimensions of indices and update must match. "
                          "Indices shape: {}, updates shape:{}",
                          indices.shape().DebugString(), us.DebugString()));
    }
    const int64_t ix = indices.dim_size(outer);
    DFG_OP_REQUIRES(
        ctx, us.dims() - outer == shape.dims() - ix,
        InvalidArgument("Inner dimensions of output shape must match inner "
                        "dimensions of updates shape. Output: {} updates: {}",
                        shape.DebugString(), us.DebugString()));
    for (int i = 0; i + outer < us.dims(); ++i) {
      DFG_OP_REQUIRES(
          ctx, us.dim_size(i + outer) == shape.dim_size(ix + i),
          InvalidArgument("The inner {} dimensions of output.shape={} must "
                          "match the inner {} dimensions of updates.shape={}",
                          shape.dims() - ix, shape.DebugString(),
                          us.dims() - outer, us.DebugString()));
    }
    Tensor out = WritableCopy(input);
    DFG_OP_REQUIRES_OK(
        ctx, ScatterNdInto(indices, updates, shape, op_, ignore_bad_, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  UpdateOp op_;
  bool ignore_bad_ = false;
};

template <UpdateOp kOp>
class TensorScatter : public TensorScatterOp {
 public:
  explicit TensorScatter(OpKernelConstruction* ctx)
      : TensorScatterOp(ctx, kOp) {}
};

// ScatterNdNonAliasingAdd: input + the updates, as a new tensor.
class ScatterNdNonAliasingAddOp : public OpKernel {
 public:
  explicit ScatterNdNonAliasingAddOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, IgnoreBadIndices(ctx, &ignore_bad_));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor out = WritableCopy(ctx->input(0));
    DFG_OP_REQUIRES_OK(ctx,
                       ScatterNdInto(ctx->input(1), ctx->input(2), out.shape(),
                                     UpdateOp::kAdd, ignore_bad_, &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  bool ignore_bad_ = false;
};

}  // namespace

void RegisterScatterKernels(KernelRegistry* r) {
  const auto idx = TypeConstraint("Tindices", TypeList<int32_t, int64_t>());
  r->Register<ScatterNdOp>("ScatterNd",
                           {TypeConstraint("T", UpdateTypes()), idx});
  r->Register<TensorScatter<UpdateOp::kAssign>>(
      "TensorScatterUpdate", {TypeConstraint("T", UpdateTypes()), idx});
  r->Register<TensorScatter<UpdateOp::kAdd>>(
      "TensorScatterAdd", {TypeConstraint("T", AddTypes()), idx});
  r->Register<TensorScatter<UpdateOp::kSub>>(
      "TensorScatterSub", {TypeConstraint("T", AddTypes()), idx});
  r->Register<TensorScatter<UpdateOp::kMax>>(
      "TensorScatterMax", {TypeConstraint("T", MinMaxTypes()), idx});
  r->Register<TensorScatter<UpdateOp::kMin>>(
      "TensorScatterMin", {TypeConstraint("T", MinMaxTypes()), idx});
  r->Register<ScatterNdNonAliasingAddOp>(
      "ScatterNdNonAliasingAdd",
      {TypeConstraint("T", AddTypes() + TypeList<bool>()), idx});
  RegisterScatterVarKernels(r);
}

}  // namespace dfg
