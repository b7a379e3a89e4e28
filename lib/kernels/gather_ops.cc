// GatherV2 / Gather (with batch_dims), GatherNd, their Resource* forms (the
// same on a resource variable's value), Split, SplitV, OneHot and Where.
#include <fmt/format.h>

#include <cstring>

#include "lib/kernels/array_util.h"
#include "lib/kernels/resource_mgr.h"

namespace dfg {
namespace {

// TensorFlow's SliceDebugString: "[1,2]" for flat index `i` of `shape`, ""
// for a scalar.
std::string IndexString(const TensorShape& shape, int64_t i) {
  if (shape.dims() == 0) return "";
  std::vector<int64_t> coords(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    const int64_t n = std::max<int64_t>(1, shape.dim_size(d));
    coords[d] = i % n;
    i /= n;
  }
  return VectorString(coords);
}

// Copies `count` elements of `bytes` bytes each (any dtype) from src[si] to
// dst[di].
void CopyRun(DataType dtype, const void* src, int64_t si, void* dst, int64_t di,
             int64_t count) {
  VisitCopyType(dtype, [&](auto v) {
    using C = decltype(v);
    const C* s = static_cast<const C*>(src) + si;
    C* d = static_cast<C*>(dst) + di;
    std::copy(s, s + count, d);
  });
}

class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v2_ = ctx->num_inputs() == 3;
    if (ctx->HasAttr("batch_dims")) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    Gather(ctx, ctx->input(0), ctx->input(1));
  }

 protected:
  void Gather(OpKernelContext* ctx, const Tensor& params,
              const Tensor& indices) {
    int64_t axis = 0;
    if (v2_) {
      const Tensor& at = ctx->input(2);
      DFG_OP_REQUIRES(ctx, at.NumElements() == 1,
                      InvalidArgument("axis must be scalar"));
      axis = IntValues(at)[0];
    }
    const int prank = params.dims(), irank = indices.dims();
    DFG_OP_REQUIRES(ctx, axis >= -prank && axis < prank,
                    InvalidArgument("Expected axis in the range [{}, {}), but "
                                    "got {}",
                                    -prank, prank, axis));
    if (axis < 0) axis += prank;
    int64_t bd = batch_dims_ < 0 ? batch_dims_ + irank : batch_dims_;
    if (bd != 0) {
      DFG_OP_REQUIRES(ctx, bd >= 0 && bd < std::max(irank, 1),
                      InvalidArgument("batch_dims ({}) must be less than "
                                      "rank(indices) ({}).",
                                      batch_dims_, irank));
      DFG_OP_REQUIRES(ctx, bd <= axis,
                      InvalidArgument("batch_dims ({}) must be less than or "
                                      "equal to axis ({}).",
                                      batch_dims_, axis));
      for (int d = 0; d < bd; ++d) {
        DFG_OP_REQUIRES(
            ctx, params.dim_size(d) == indices.dim_size(d),
            InvalidArgument("params.shape[{}]: {} should be equal "
                            "to indices.shape[{}]: {}",
                            d, params.dim_size(d), d, indices.dim_size(d)));
      }
    }
    TensorShape shape;
    int64_t batch = 1, outer = 1, inner = 1, n = 1;
    for (int d = 0; d < bd; ++d) batch *= params.dim_size(d);
    for (int d = 0; d < axis; ++d) shape.AddDim(params.dim_size(d));
    for (int d = bd; d < axis; ++d) outer *= params.dim_size(d);
    for (int d = bd; d < irank; ++d) {
      shape.AddDim(indices.dim_size(d));
      n *= indices.dim_size(d);
    }
    for (int d = axis + 1; d < prank; ++d) {
      shape.AddDim(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    const int64_t limit = params.dim_size(axis);
    const std::vector<int64_t> idx = IntValues(indices);
    for (size_t i = 0; i < idx.size(); ++i) {
      DFG_OP_REQUIRES(
          ctx, idx[i] >= 0 && idx[i] < limit,
          InvalidArgument("indices{} = {} is not in [0, {})",
                          IndexString(indices.shape(), i), idx[i], limit));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    int64_t di = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t base = (b * outer + o) * limit;
        for (int64_t j = 0; j < n; ++j, di += inner) {
          CopyRun(params.dtype(), params.data(),
                  (base + idx[b * n + j]) * inner, out->data(), di, inner);
        }
      }
    }
  }

 private:
  bool v2_ = false;
  int64_t batch_dims_ = 0;
};

// The value of the resource variable input 0 names, read under its mutex
// (the buffer is shared; writers copy on write).
Status ReadResourceVariable(OpKernelContext* ctx, DataType dtype,
                            Tensor* value) {
  const Tensor& h = ctx->input(0);
  if (h.NumElements() != 1) {
    return InvalidArgument("Expected a scalar resource handle");
  }
  if (ctx->resource_manager() == nullptr) {
    return Internal("No resource manager.");
  }
  const ResourceHandle& handle = h.flat<ResourceHandle>()[0];
  DFG_ASSIGN_OR_RETURN(
      std::shared_ptr<Var> var,
      ctx->resource_manager()->Lookup(handle.container, handle.name));
  {
    std::lock_guard<std::mutex> lock(*var->mu());
    if (!var->is_initialized) {
      return FailedPrecondition(
          "Error while reading resource variable {} from Container: {}.",
          handle.name, handle.container);
    }
    *value = *var->tensor();
  }
  if (value->dtype() != dtype) {
    return InvalidArgument(
        "Trying to read variable with wrong dtype. Expected {} got {}",
        DataTypeString(value->dtype()), DataTypeString(dtype));
  }
  return Status::Ok();
}

// ResourceGather: Gather (axis 0, batch_dims) of a resource variable's value.
class ResourceGatherOp : public GatherOp {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* ctx) : GatherOp(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor params;
    DFG_OP_REQUIRES_OK(ctx, ReadResourceVariable(ctx, dtype_, &params));
    Gather(ctx, params, ctx->input(1));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    GatherNd(ctx, ctx->input(0), ctx->input(1));
  }

 protected:
  void GatherNd(OpKernelContext* ctx, const Tensor& params,
                const Tensor& indices) {
    DFG_OP_REQUIRES(ctx, params.dims() >= 1,
                    InvalidArgument("params must be at least a vector"));
    DFG_OP_REQUIRES(ctx, indices.dims() >= 1,
                    InvalidArgument("indices must be at least a vector"));
    const int64_t k = indices.dim_size(indices.dims() - 1);
    DFG_OP_REQUIRES(ctx, k <= params.dims(),
                    InvalidArgument("index innermost dimension length must "
                                    "be <= params rank; saw: {} vs. {}",
                                    k, params.dims()));
    TensorShape shape, prefix;
    for (int d = 0; d + 1 < indices.dims(); ++d) {
      shape.AddDim(indices.dim_size(d));
      prefix.AddDim(indices.dim_size(d));
    }
    int64_t inner = 1;
    for (int d = k; d < params.dims(); ++d) {
      shape.AddDim(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    const std::vector<int64_t> idx = IntValues(indices);
    const int64_t n = prefix.num_elements();
    std::vector<int64_t> offsets(n);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      bool ok = true;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t v = idx[i * k + j];
        ok = ok && v >= 0 && v < params.dim_size(j);
        off = off * params.dim_size(j) + v;
      }
      if (!ok) {
        std::vector<int64_t> bad(idx.begin() + i * k,
                                 idx.begin() + (i + 1) * k);
        ctx->SetStatus(InvalidArgument(
            "indices{} = [{}] does not index into param shape {}",
            IndexString(prefix, i), fmt::join(bad, ", "),
            params.shape().DebugString()));
        return;
      }
      offsets[i] = off * inner;
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    for (int64_t i = 0; i < n; ++i) {
      CopyRun(params.dtype(), params.data(), offsets[i], out->data(), i * inner,
              inner);
    }
  }
};

// ResourceGatherNd: GatherNd of a resource variable's value.
class ResourceGatherNdOp : public GatherNdOp {
 public:
  explicit ResourceGatherNdOp(OpKernelConstruction* ctx) : GatherNdOp(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor params;
    DFG_OP_REQUIRES_OK(ctx, ReadResourceVariable(ctx, dtype_, &params));
    GatherNd(ctx, params, ctx->input(1));
  }

 private:
  DataType dtype_ = tensorflow::DT_INVALID;
};

// Split / SplitV: output i gets sizes[i] entries along `axis`.
void SplitInto(OpKernelContext* ctx, const Tensor& in, int64_t axis,
               const std::vector<int64_t>& sizes) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= in.dim_size(d);
  for (int d = axis + 1; d < in.dims(); ++d) inner *= in.dim_size(d);
  const int64_t n = in.dim_size(axis);
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TensorShape shape = in.shape();
    shape.set_dim(axis, sizes[i]);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(i, shape, &out));
    const int64_t run = sizes[i] * inner;
    for (int64_t o = 0; o < outer && run > 0; ++o) {
      CopyRun(in.dtype(), in.data(), (o * n + start) * inner, out->data(),
              o * run, run);
    }
    start += sizes[i];
  }
}

Status CheckSplitDim(const Tensor& in, int64_t* axis) {
  const int rank = in.dims();
  if (*axis < -rank || *axis >= rank) {
    return InvalidArgument(
        "-input rank(-{}) <= split_dim < input rank ({}), but got {}", rank,
        rank, *axis);
  }
  if (*axis < 0) *axis += rank;
  return Status::Ok();
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(1);
    int64_t axis = IntValues(ctx->input(0)).at(0);
    DFG_OP_REQUIRES_OK(ctx, CheckSplitDim(in, &axis));
    const int64_t k = ctx->num_outputs();
    const int64_t n = in.dim_size(axis);
    DFG_OP_REQUIRES(ctx, n % k == 0,
                    InvalidArgument("Number of ways to split should evenly "
                                    "divide the split dimension, but got "
                                    "split_dim {} (size = {}) and num_split {}",
                                    axis, n, k));
    SplitInto(ctx, in, axis, std::vector<int64_t>(k, n / k));
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> sizes;
    Dispatch(IntTypes(), ctx->input(1).dtype(), [&](auto v) {
      for (auto e : ctx->input(1).flat<decltype(v)>()) sizes.push_back(e);
    });
    int64_t axis = IntValues(ctx->input(2)).at(0);
    DFG_OP_REQUIRES_OK(ctx, CheckSplitDim(in, &axis));
    DFG_OP_REQUIRES(
        ctx, static_cast<int>(sizes.size()) == ctx->num_outputs(),
        InvalidArgument("Received a split_sizes input with {} elements but "
                        "num_split is {}",
                        sizes.size(), ctx->num_outputs()));
    const int64_t n = in.dim_size(axis);
    int64_t sum = 0, unknown = -1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1) {
        DFG_OP_REQUIRES(ctx, unknown == -1,
                        InvalidArgument("There can only be one -1 in the "
                                        "input."));
        unknown = i;
      } else {
        DFG_OP_REQUIRES(ctx, sizes[i] >= 0,
                        InvalidArgument("Split size at index {} must be >= 0. "
                                        "Got: {}",
                                        i, sizes[i]));
        sum += sizes[i];
      }
    }
    DFG_OP_REQUIRES(
        ctx, (unknown == -1 && sum == n) || (unknown != -1 && sum <= n),
        InvalidArgument("Determined shape must either match input shape "
                        "along split_dim exactly if fully specified, or be "
                        "less than the size of the input along split_dim if "
                        "not fully specified.  Got: {}",
                        sum));
    if (unknown != -1) sizes[unknown] = n - sum;
    SplitInto(ctx, in, axis, sizes);
  }
};

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int rank = indices.dims();
    DFG_OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
                    InvalidArgument("Expected axis to be -1 or between [0, "
                                    "{}).  But received: {}",
                                    rank + 1, axis_));
    DFG_OP_REQUIRES(ctx, depth_t.dims() == 0,
                    InvalidArgument("depth must be a scalar, but got: {}",
                                    depth_t.shape().DebugString()));
    const int64_t depth = IntValues(depth_t)[0];
    DFG_OP_REQUIRES(
        ctx, depth >= 0,
        InvalidArgument("depth must be non-negative, got: {}", depth));
    DFG_OP_REQUIRES(ctx, on.dims() == 0,
                    InvalidArgument("on_value must be a scalar, but got: {}",
                                    on.shape().DebugString()));
    DFG_OP_REQUIRES(ctx, off.dims() == 0,
                    InvalidArgument("off_value must be a scalar, but got: {}",
                                    off.shape().DebugString()));
    const int axis = axis_ == -1 ? rank : static_cast<int>(axis_);
    TensorShape shape = indices.shape();
    shape.InsertDim(axis, depth);
    int64_t prefix = 1, suffix = 1;
    for (int d = 0; d < axis; ++d) prefix *= indices.dim_size(d);
    for (int d = axis; d < rank; ++d) suffix *= indices.dim_size(d);
    std::vector<int64_t> idx;
    Dispatch(IntTypes(), indices.dtype(), [&](auto v) {
      for (auto e : indices.flat<decltype(v)>()) {
        idx.push_back(static_cast<int64_t>(e));
      }
    });
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int64_t di = 0;
    for (int64_t p = 0; p < prefix; ++p) {
      for (int64_t d = 0; d < depth; ++d) {
        for (int64_t s = 0; s < suffix; ++s, ++di) {
          const Tensor& src = idx[p * suffix + s] == d ? on : off;
          CopyRun(on.dtype(), src.data(), 0, out->data(), di, 1);
        }
      }
    }
  }

 private:
  int64_t axis_ = -1;
};

class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> hits;
    Dispatch(NumberTypes() + TypeList<bool>(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      auto f = in.flat<T>();
      for (size_t i = 0; i < f.size(); ++i) {
        if (Load(f[i]) != decltype(Load(f[i]))(0)) hits.push_back(i);
      }
    });
    const int rank = in.dims();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({static_cast<int64_t>(hits.size()), rank}), &out));
    int64_t* o = static_cast<int64_t*>(out->data());
    for (size_t h = 0; h < hits.size(); ++h) {
      int64_t rem = hits[h];
      for (int d = rank - 1; d >= 0; --d) {
        o[h * rank + d] = rem % in.dim_size(d);
        rem /= in.dim_size(d);
      }
    }
  }
};

}  // namespace

void RegisterGatherKernels(KernelRegistry* r) {
  r->Register<GatherOp>("GatherV2");
  r->Register<GatherOp>("Gather");
  r->Register<ResourceGatherOp>("ResourceGather");
  r->Register<GatherNdOp>("GatherNd");
  r->Register<ResourceGatherNdOp>("ResourceGatherNd");
  r->Register<SplitOp>("Split");
  r->Register<SplitVOp>("SplitV");
  r->Register<OneHotOp>("OneHot");
  r->Register<WhereOp>("Where",
                       {TypeConstraint("T", NumberTypes() + TypeList<bool>())});
}

}  // namespace dfg
