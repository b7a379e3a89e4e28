// Select (same shape, scalar or row-vector condition), SelectV2 (three-way
// NumPy broadcasting) and ClipByValue.
#include "lib/kernels/cwise_ops.h"
#include "lib/kernels/variant.h"

namespace dfg {
namespace {

// Select of lists (DT_VARIANT) too: the gradients of loops over TensorLists.
using SelectTypes = decltype(AllTypes() + TypeList<ResourceHandle, Variant>());

// Strides of `in` walked in the index space of `out` (0 where broadcast).
std::vector<int64_t> BroadcastStrides(const TensorShape& in,
                                      const TensorShape& out) {
  const int rank = out.dims();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int id = d - (rank - in.dims());
    if (id < 0) break;
    if (in.dim_size(id) != 1) strides[d] = stride;
    stride *= in.dim_size(id);
  }
  return strides;
}

// Broadcast of a and b, or nullopt.
std::optional<TensorShape> Broadcast(const TensorShape& a,
                                     const TensorShape& b) {
  BCast bc(a, b);
  if (!bc.valid) return std::nullopt;
  return bc.output_shape;
}

// The output's dims with each operand's strides, adjacent dims merged where
// every operand walks them contiguously (or not at all), so the innermost
// loop runs as long as it can.
struct SelectWalk {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides[3];  // cond, then, else
};

SelectWalk MakeWalk(const Tensor& cond, const Tensor& t, const Tensor& e,
                    const TensorShape& shape) {
  const std::vector<int64_t> in[3] = {BroadcastStrides(cond.shape(), shape),
                                      BroadcastStrides(t.shape(), shape),
                                      BroadcastStrides(e.shape(), shape)};
  SelectWalk w;
  for (int d = 0; d < shape.dims(); ++d) {
    const int64_t size = shape.dim_size(d);
    if (size == 1) continue;
    bool merge = !w.dims.empty();
    for (int o = 0; o < 3 && merge; ++o) {
      merge = w.strides[o].back() == in[o][d] * size;
    }
    if (merge) {
      w.dims.back() *= size;
      for (int o = 0; o < 3; ++o) w.strides[o].back() = in[o][d];
      continue;
    }
    w.dims.push_back(size);
    for (int o = 0; o < 3; ++o) w.strides[o].push_back(in[o][d]);
  }
  if (w.dims.empty()) {
    w.dims.push_back(1);
    for (auto& s : w.strides) s.push_back(0);
  }
  return w;
}

// A row of the walk's innermost dim; each stride is 0 or 1 (broadcast or
// not), the all-1 case in a loop of its own that the compiler vectorizes.
template <typename T>
void SelectRow(const bool* c, int64_t cs, const T* t, int64_t ts, const T* e,
               int64_t es, T* o, int64_t n) {
  if (cs == 1 && ts == 1 && es == 1) {
    for (int64_t j = 0; j < n; ++j) o[j] = c[j] ? t[j] : e[j];
  } else if (cs == 1 && ts == 1 && es == 0) {
    for (int64_t j = 0; j < n; ++j) o[j] = c[j] ? t[j] : e[0];
  } else {
    for (int64_t j = 0; j < n; ++j) o[j] = c[j * cs] ? t[j * ts] : e[j * es];
  }
}

template <typename T>
void SelectBroadcast(const Tensor& cond, const Tensor& t, const Tensor& e,
                     Tensor* out) {
  if (out->NumElements() == 0) return;
  const SelectWalk w = MakeWalk(cond, t, e, out->shape());
  const int rank = static_cast<int>(w.dims.size());
  const int64_t inner = w.dims[rank - 1];
  const bool* c = static_cast<const bool*>(cond.data());
  const T* tp = static_cast<const T*>(t.data());
  const T* ep = static_cast<const T*>(e.data());
  T* o = static_cast<T*>(out->data());
  std::vector<int64_t> idx(rank, 0);
  int64_t off[3] = {0, 0, 0};
  const int64_t rows = out->NumElements() / inner;
  for (int64_t r = 0; r < rows; ++r) {
    SelectRow(c + off[0], w.strides[0][rank - 1], tp + off[1],
              w.strides[1][rank - 1], ep + off[2], w.strides[2][rank - 1],
              o + r * inner, inner);
    for (int d = rank - 2; d >= 0; --d) {
      for (int k = 0; k < 3; ++k) off[k] += w.strides[k][d];
      if (++idx[d] < w.dims[d]) break;
      for (int k = 0; k < 3; ++k) off[k] -= w.strides[k][d] * idx[d];
      idx[d] = 0;
    }
  }
}

Status ThenElseSameSize(const Tensor& t, const Tensor& e) {
  if (t.shape().IsSameSize(e.shape())) return Status::Ok();
  return InvalidArgument(
      "'then' and 'else' must have the same size.  but received: {} vs. {}",
      t.shape().DebugString(), e.shape().DebugString());
}

class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    if (cond.dims() == 0) {
      DFG_OP_REQUIRES_OK(ctx, ThenElseSameSize(t, e));
      ctx->set_output(0, cond.scalar<bool>() ? t : e);
      return;
    }
    if (cond.dims() == 1 && t.dims() != 1) {
      DFG_OP_REQUIRES(
          ctx, t.dims() >= 1,
          InvalidArgument("'then' must be at least a vector, but saw shape: {}",
                          t.shape().DebugString()));
      DFG_OP_REQUIRES(ctx, t.dim_size(0) == cond.NumElements(),
                      InvalidArgument("Number of batches of 'then' must match "
                                      "size of 'cond', but saw: {} vs. {}",
                                      t.dim_size(0), cond.NumElements()));
      DFG_OP_REQUIRES_OK(ctx, ThenElseSameSize(t, e));
    } else {
      for (int i = 1; i < 3; ++i) {
        DFG_OP_REQUIRES(
            ctx, ctx->input(i).shape().IsSameSize(cond.shape()),
            InvalidArgument("Inputs to operation {} of type {} must have the "
                            "same size and shape.  Input 0: {} != input {}: {}",
                            name(), type_string(), cond.shape().DebugString(),
                            i, ctx->input(i).shape().DebugString()));
      }
    }
    // Row select: the vector condition broadcasts over the trailing dims.
    TensorShape cshape = cond.shape();
    while (cshape.dims() < t.dims()) cshape.AddDim(1);
    Tensor c;
    c.CopyFrom(cond, cshape);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    Dispatch(SelectTypes(), t.dtype(),
             [&](auto v) { SelectBroadcast<decltype(v)>(c, t, e, out); });
  }
};

class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    std::optional<TensorShape> shape = Broadcast(cond.shape(), t.shape());
    if (shape) shape = Broadcast(*shape, e.shape());
    DFG_OP_REQUIRES(
        ctx, shape.has_value(),
        InvalidArgument("condition {}, then {}, and else {} must "
                        "be broadcastable",
                        cond.shape().DebugString(), t.shape().DebugString(),
                        e.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    Dispatch(SelectTypes(), t.dtype(),
             [&](auto v) { SelectBroadcast<decltype(v)>(cond, t, e, out); });
  }
};

class ClipByValueOp : public OpKernel {
 public:
  explicit ClipByValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    const bool ok = (lo.shape() == x.shape() || lo.dims() == 0) &&
                    (hi.shape() == x.shape() || hi.dims() == 0);
    DFG_OP_REQUIRES(
        ctx, ok,
        InvalidArgument("clip_value_min and clip_value_max must be either of "
                        "the same shape as input, or a scalar. input shape: "
                        "{}clip_value_min shape: {}clip_value_max shape: {}",
                        x.shape().DebugString(), lo.shape().DebugString(),
                        hi.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    Dispatch(RealTypes(), x.dtype(), [&](auto v) {
      using T = decltype(v);
      auto xs = x.flat<T>();
      auto ls = lo.flat<T>();
      auto hs = hi.flat<T>();
      auto o = out->flat<T>();
      const bool lo_scalar = lo.dims() == 0, hi_scalar = hi.dims() == 0;
      for (size_t i = 0; i < o.size(); ++i) {
        auto v = Load(xs[i]);
        const auto h = Load(hs[hi_scalar ? 0 : i]);
        const auto l = Load(ls[lo_scalar ? 0 : i]);
        if (h < v) v = h;
        if (v < l) v = l;
        o[i] = Store<T>(v);
      }
    });
  }
};

}  // namespace

void RegisterSelectKernels(KernelRegistry* r) {
  r->Register<SelectOp>("Select", {TypeConstraint("T", SelectTypes())});
  r->Register<SelectV2Op>("SelectV2", {TypeConstraint("T", SelectTypes())});
  r->Register<ClipByValueOp>(
      "ClipByValue", {TypeConstraint("T", FloatTypes() + SignedIntTypes() +
                                              TypeList<uint8_t, uint16_t>())});
}

}  // namespace dfg
