// Index-mapping array kernels: Pad, PadV2, MirrorPad, Slice, StridedSlice
// (all masks), StridedSliceGrad and the strided slice assignments, Tile,
// ReverseV2, BroadcastTo. Each computes, per output dim, which input index
// every output position reads, then runs MapCopy.
#include <algorithm>

#include "lib/kernels/array_util.h"

namespace dfg {
namespace {

using Maps = std::vector<std::vector<int64_t>>;

std::vector<int64_t> Dims(const TensorShape& s) {
  return {s.dim_sizes().begin(), s.dim_sizes().end()};
}

// Fills `out` from input 0 through `maps`; `fill` points at one element of
// the input's dtype (null: zero).
void FillMapped(OpKernelContext* ctx, Tensor* out, const Maps& maps,
                const void* fill) {
  const Tensor& in = ctx->input(0);
  if (out->NumElements() == 0) return;
  VisitCopyType(in.dtype(), [&](auto v) {
    using C = decltype(v);
    const C zero{};
    MapCopy(ctx->intra_op_pool(), static_cast<const C*>(in.data()),
            Dims(in.shape()), maps, static_cast<C*>(out->data()),
            fill ? *static_cast<const C*>(fill) : zero);
  });
}

// Allocates output 0 with `shape` and fills it (FillMapped).
void EmitMapped(OpKernelContext* ctx, const TensorShape& shape,
                const Maps& maps, const void* fill) {
  Tensor* out = nullptr;
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  FillMapped(ctx, out, maps, fill);
}

enum class PadMode { kConstant, kReflect, kSymmetric };

template <PadMode kMode>
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kMode != PadMode::kConstant) {
      std::string mode;
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
      DFG_OP_REQUIRES(ctx, mode == "REFLECT" || mode == "SYMMETRIC",
                      InvalidArgument("mode must be either REFLECT or "
                                      "SYMMETRIC."));
      offset_ = mode == "REFLECT" ? 1 : 0;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& pads = ctx->input(1);
    const int rank = in.dims();
    DFG_OP_REQUIRES(ctx, pads.dims() == 2 && pads.dim_size(1) == 2,
                    InvalidArgument("paddings must be a matrix with 2 "
                                    "columns: {}",
                                    pads.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, pads.dim_size(0) == rank,
        InvalidArgument("The first dimension of paddings must be the rank "
                        "of inputs{}, {}",
                        pads.shape().DebugString(), in.shape().DebugString()));
    const void* fill = nullptr;
    if (ctx->num_inputs() == 3) {
      const Tensor& cv = ctx->input(2);
      DFG_OP_REQUIRES(ctx, cv.NumElements() == 1 && cv.dims() == 0,
                      InvalidArgument("constant_values must be a scalar. "
                                      "Got: {}",
                                      cv.shape().DebugString()));
      fill = cv.data();
    }
    const std::vector<int64_t> p = IntValues(pads);
    TensorShape shape;
    Maps maps(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t before = p[2 * d], after = p[2 * d + 1];
      const int64_t n = in.dim_size(d);
      DFG_OP_REQUIRES(ctx, before >= 0 && after >= 0,
                      InvalidArgument("Paddings must be non-negative: {} {}",
                                      before, after));
      if constexpr (kMode != PadMode::kConstant) {
        DFG_OP_REQUIRES(
            ctx, before <= n - offset_ && after <= n - offset_,
            InvalidArgument("paddings must be less than the dimension size: "
                            "{}, {} not less than {}",
                            before, after, n - offset_));
      }
      shape.AddDim(before + n + after);
    }
    // The output first: a padding too big to allocate fails here, before
    // the index maps (8 bytes an output row) are built for it.
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    for (int d = 0; d < rank; ++d) {
      const int64_t before = p[2 * d], after = p[2 * d + 1];
      const int64_t n = in.dim_size(d);
      for (int64_t o = 0; o < before + n + after; ++o) {
        int64_t i = o - before;
        if constexpr (kMode == PadMode::kConstant) {
          if (i >= n) i = -1;
        } else {
          if (i < 0) i = -i - 1 + offset_;
          if (i >= n) i = 2 * n - 1 - i - offset_;
        }
        maps[d].push_back(i);
      }
    }
    FillMapped(ctx, out, maps, fill);
  }

 private:
  int64_t offset_ = 0;
};

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_t_ = ctx->input(2);
    const int rank = in.dims();
    DFG_OP_REQUIRES(
        ctx,
        begin_t.dims() == 1 && size_t_.dims() == 1 &&
            begin_t.NumElements() == rank && size_t_.NumElements() == rank,
        InvalidArgument("Expected begin and size arguments to be 1-D tensors "
                        "of size {}, but got shapes {} and {} instead.",
                        rank, begin_t.shape().DebugString(),
                        size_t_.shape().DebugString()));
    const std::vector<int64_t> b = IntValues(begin_t);
    const std::vector<int64_t> s = IntValues(size_t_);
    TensorShape shape;
    Maps maps(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = in.dim_size(d);
      int64_t size = s[d] == -1 ? n - b[d] : s[d];
      DFG_OP_REQUIRES(ctx, b[d] >= 0 && b[d] <= n,
                      InvalidArgument("Expected begin[{}] in [0, {}], but "
                                      "got {}",
                                      d, n, b[d]));
      DFG_OP_REQUIRES(ctx, size >= 0 && size <= n - b[d],
                      InvalidArgument("Expected size[{}] in [0, {}], but "
                                      "got {}",
                                      d, n - b[d], size));
      shape.AddDim(size);
      for (int64_t j = 0; j < size; ++j) maps[d].push_back(b[d] + j);
    }
    EmitMapped(ctx, shape, maps, nullptr);
  }
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    for (auto [name, field] : {std::pair{"begin_mask", &begin_mask_},
                               {"end_mask", &end_mask_},
                               {"ellipsis_mask", &ellipsis_mask_},
                               {"new_axis_mask", &new_mask_},
                               {"shrink_axis_mask", &shrink_mask_}}) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr(name, field));
    }
  }

  void Compute(OpKernelContext* ctx) override;

 protected:
  // Which input index each output position of each input dim reads, and the
  // output shape (new and shrunk axes applied), for a slice of `in`.
  Status Plan(const TensorShape& in, const Tensor& bt, const Tensor& et,
              const Tensor& st, Maps* maps, TensorShape* shape) const;

 private:
  struct Dense {
    std::vector<int64_t> begin, end, stride;
    std::vector<bool> begin_masked, end_masked, shrink;
    std::vector<int64_t> final_gather;  // dense dim, or kNewAxis/kShrink
  };
  static constexpr int64_t kNewAxis = -1, kShrink = -2;
  Status BuildDense(const TensorShape& in, const std::vector<int64_t>& b,
                    const std::vector<int64_t>& e,
                    const std::vector<int64_t>& s, Dense* dense) const;

  int32_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_mask_ = 0,
          shrink_mask_ = 0;
};

// Expands the ellipsis (an implicit one at the end when absent) into full
// ranges, so that there is one entry per input dim.
Status StridedSliceOp::BuildDense(const TensorShape& in,
                                  const std::vector<int64_t>& b,
                                  const std::vector<int64_t>& e,
                                  const std::vector<int64_t>& s,
                                  Dense* dense) const {
  int sparse_dims = static_cast<int>(b.size());
  int64_t ellipsis = ellipsis_mask_;
  if ((ellipsis & (ellipsis - 1)) != 0) {
    return InvalidArgument("Multiple ellipses in slice spec not allowed");
  }
  if (ellipsis == 0) {
    ellipsis = int64_t{1} << sparse_dims;
    ++sparse_dims;
  }
  const int rank = in.dims();
  dense->begin.assign(rank, 0);
  dense->end.assign(rank, 0);
  dense->stride.assign(rank, 1);
  dense->begin_masked.assign(rank, false);
  dense->end_masked.assign(rank, false);
  dense->shrink.assign(rank, false);
  int new_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (seen && ((new_mask_ >> i) & 1)) ++new_after_ellipsis;
    if ((ellipsis >> i) & 1) seen = true;
  }
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const int64_t bit = int64_t{1} << i;
    if (ellipsis & bit) {
      const int next =
          std::min(rank - (sparse_dims - i) + 1 + new_after_ellipsis, rank);
      for (; full < next; ++full) {
        dense->begin_masked[full] = dense->end_masked[full] = true;
        dense->final_gather.push_back(full);
      }
    } else if (new_mask_ & bit) {
      dense->final_gather.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return InvalidArgument(
            "Index out of range using input dim {}; input has only {} dims",
            full, rank);
      }
      dense->begin[full] = b[i];
      dense->end[full] = e[i];
      dense->stride[full] = s[i];
      dense->begin_masked[full] = (begin_mask_ & bit) != 0;
      dense->end_masked[full] = (end_mask_ & bit) != 0;
      if (shrink_mask_ & bit) {
        dense->shrink[full] = true;
        dense->final_gather.push_back(kShrink);
      } else {
        dense->final_gather.push_back(full);
      }
      ++full;
    }
  }
  return Status::Ok();
}

Status StridedSliceOp::Plan(const TensorShape& in, const Tensor& bt,
                            const Tensor& et, const Tensor& st, Maps* out_maps,
                            TensorShape* out_shape) const {
  if (!(bt.dims() == 1 && et.dims() == 1 && st.dims() == 1 &&
        bt.NumElements() == et.NumElements() &&
        bt.NumElements() == st.NumElements())) {
    return InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but "
        "got shapes {}, {}, and {} instead.",
        bt.shape().DebugString(), et.shape().DebugString(),
        st.shape().DebugString());
  }
  if (bt.NumElements() > 32) {
    return InvalidArgument("Too many dimensions in slice spec: {}",
                           bt.NumElements());
  }
  Dense dense;
  DFG_RETURN_IF_ERROR(
      BuildDense(in, IntValues(bt), IntValues(et), IntValues(st), &dense));
  const int rank = in.dims();
  Maps& maps = *out_maps;
  maps.assign(rank, {});
  std::vector<int64_t> sizes(rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t n = in.dim_size(i), stride = dense.stride[i];
    int64_t begin = dense.begin[i], end = dense.end[i];
    if (stride == 0) {
      return InvalidArgument("strides[{}] must be non-zero", i);
    }
    const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? n : n - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (stride > 0) != is_end ? lo : hi;
      const int64_t fwd = x < 0 ? n + x : x;
      return std::clamp(fwd, lo, hi);
    };
    if (dense.shrink[i]) {
      const int64_t fwd = begin < 0 ? n + begin : begin;
      if (fwd < 0 || fwd >= n) {
        return InvalidArgument("slice index {} of dimension {} out of bounds.",
                               begin, i);
      }
      begin = fwd;
      end = fwd + 1;
    } else {
      begin = canonical(begin, dense.begin_masked[i], false);
      end = canonical(end, dense.end_masked[i], true);
    }
    const int64_t len = end - begin;
    int64_t size = 0;
    if (len != 0 && (len < 0) == (stride < 0)) {
      size = len / stride + (len % stride != 0 ? 1 : 0);
    }
    sizes[i] = size;
    for (int64_t j = 0; j < size; ++j) maps[i].push_back(begin + j * stride);
  }
  TensorShape& shape = *out_shape;
  shape = TensorShape();
  for (int64_t g : dense.final_gather) {
    if (g == kNewAxis) {
      shape.AddDim(1);
    } else if (g >= 0) {
      shape.AddDim(sizes[g]);
    }
  }
  return Status::Ok();
}

void StridedSliceOp::Compute(OpKernelContext* ctx) {
  Maps maps;
  TensorShape shape;
  DFG_OP_REQUIRES_OK(ctx, Plan(ctx->input(0).shape(), ctx->input(1),
                               ctx->input(2), ctx->input(3), &maps, &shape));
  EmitMapped(ctx, shape, maps, nullptr);
}

// Writes `value` (any dtype; its elements in row-major order over the maps)
// into `out` at out index (maps[0][i0], maps[1][i1], ...).
void WriteMapped(const Maps& maps, const Tensor& value, Tensor* out) {
  if (value.NumElements() == 0) return;
  const int rank = out->dims();
  VisitCopyType(value.dtype(), [&](auto v) {
    using C = decltype(v);
    C* o = static_cast<C*>(out->data());
    const C* g = static_cast<const C*>(value.data());
    std::vector<int64_t> stride(rank, 1), idx(rank, 0);
    for (int d = rank - 2; d >= 0; --d) {
      stride[d] = stride[d + 1] * out->dim_size(d + 1);
    }
    for (int64_t k = 0; k < value.NumElements(); ++k) {
      int64_t offset = 0;
      for (int d = 0; d < rank; ++d) offset += maps[d][idx[d]] * stride[d];
      o[offset] = g[k];
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < static_cast<int64_t>(maps[d].size())) break;
        idx[d] = 0;
      }
    }
  });
}

// StridedSliceGrad(shape, begin, end, strides, dy): zeros of `shape` with dy
// written at the positions StridedSlice would read.
class StridedSliceGradOp : public StridedSliceOp {
 public:
  using StridedSliceOp::StridedSliceOp;
  void Compute(OpKernelContext* ctx) override {
    const std::vector<int64_t> dims = IntValues(ctx->input(0));
    DFG_OP_REQUIRES(ctx, TensorShape::IsValid(dims),
                    InvalidArgument("Invalid shape {}", VectorString(dims)));
    const TensorShape in{std::span<const int64_t>(dims)};
    Maps maps;
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, Plan(in, ctx->input(1), ctx->input(2),
                                 ctx->input(3), &maps, &shape));
    const Tensor& dy = ctx->input(4);
    DFG_OP_REQUIRES(
        ctx, dy.shape() == shape,
        InvalidArgument("shape of dy was {} instead of {}",
                        dy.shape().DebugString(), shape.DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in, &out));
    VisitCopyType(dy.dtype(), [&](auto v) {
      using C = decltype(v);
      C* o = static_cast<C*>(out->data());
      std::fill(o, o + out->NumElements(), C{});
    });
    WriteMapped(maps, dy, out);
  }
};

// `value` broadcast (numpy rules) to `shape`.
Status BroadcastTo(const TensorShape& shape, Tensor* value) {
  const int rank = shape.dims(), vrank = value->dims();
  bool ok = vrank <= rank;
  Maps maps(rank);
  for (int d = 0; ok && d < rank; ++d) {
    const int vd = d - (rank - vrank);
    const int64_t n = vd < 0 ? 1 : value->dim_size(vd);
    ok = n == shape.dim_size(d) || n == 1;
    for (int64_t i = 0; ok && i < shape.dim_size(d); ++i) {
      maps[d].push_back(n == 1 ? 0 : i);
    }
  }
  if (!ok) {
    return InvalidArgument(
        "Cannot broadcast input shape {} into final shape {}",
        value->shape().DebugString(), shape.DebugString());
  }
  std::vector<int64_t> dims(rank, 1);
  for (int d = 0; d < vrank; ++d) dims[d + rank - vrank] = value->dim_size(d);
  Tensor out(value->dtype(), shape);
  if (out.NumElements() > 0) {
    VisitCopyType(value->dtype(), [&](auto v) {
      using C = decltype(v);
      MapCopy(nullptr, static_cast<const C*>(value->data()), dims, maps,
              static_cast<C*>(out.data()), C{});
    });
  }
  *value = std::move(out);
  return Status::Ok();
}

// TensorStridedSliceUpdate (a copy of the input), StridedSliceAssign (a ref
// variable, forwarded) and ResourceStridedSliceAssign: `value` written at
// the positions StridedSlice would read. A variable's buffer is copied first
// when another tensor shares it.
class StridedSliceAssignOp : public StridedSliceOp {
 public:
  explicit StridedSliceAssignOp(OpKernelConstruction* ctx)
      : StridedSliceOp(ctx) {
    set_allows_uninitialized_input(true);
  }
  void Compute(OpKernelContext* ctx) override {
    const std::string& op = type_string();
    if (op == "TensorStridedSliceUpdate") {
      Tensor out = ctx->input(0).DeepCopy();
      DFG_OP_REQUIRES_OK(ctx, Assign(ctx, &out));
      ctx->set_output(0, std::move(out));
    } else if (op == "StridedSliceAssign") {
      std::mutex* mu = ctx->input_ref_mutex(0);
      {
        std::lock_guard<std::mutex> lock(*mu);
        Tensor* t = ctx->mutable_input(0);
        DFG_OP_REQUIRES(ctx, t->IsInitialized(),
                        FailedPrecondition("Attempting to use uninitialized "
                                           "value {}",
                                           requested_input(0)));
        DFG_OP_REQUIRES_OK(ctx, Assign(ctx, t));
      }
      ctx->set_output_ref(0, mu, ctx->mutable_input(0));
    } else {
      const Tensor& h = ctx->input(0);
      DFG_OP_REQUIRES(ctx, ctx->resource_manager() != nullptr,
                      Internal("No resource manager."));
      const ResourceHandle& handle = h.flat<ResourceHandle>()[0];
      auto var = ctx->resource_manager()->Lookup(handle.container, handle.name);
      DFG_OP_REQUIRES_OK(ctx, var.status());
      std::lock_guard<std::mutex> lock(*(*var)->mu());
      DFG_OP_REQUIRES_OK(ctx, Assign(ctx, (*var)->tensor()));
    }
  }

 private:
  Status Assign(OpKernelContext* ctx, Tensor* t) const {
    Maps maps;
    TensorShape shape;
    DFG_RETURN_IF_ERROR(Plan(t->shape(), ctx->input(1), ctx->input(2),
                             ctx->input(3), &maps, &shape));
    int64_t n = 1;
    for (const auto& m : maps) n *= static_cast<int64_t>(m.size());
    if (n == 0) return Status::Ok();
    Tensor value = ctx->input(4);
    if (value.shape() != shape) {
      DFG_RETURN_IF_ERROR(BroadcastTo(shape, &value));
    }
    if (!t->RefCountIsOne()) *t = t->DeepCopy();
    WriteMapped(maps, value, t);
    return Status::Ok();
  }
};

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& mt = ctx->input(1);
    DFG_OP_REQUIRES(ctx, mt.dims() == 1 && mt.NumElements() == in.dims(),
                    InvalidArgument("Expected multiples argument to be a "
                                    "vector of length {} but got length {}",
                                    in.dims(), mt.dim_size(0)));
    const std::vector<int64_t> m = IntValues(mt);
    TensorShape shape;
    Maps maps(in.dims());
    for (int d = 0; d < in.dims(); ++d) {
      DFG_OP_REQUIRES(
          ctx, m[d] >= 0,
          InvalidArgument("Expected multiples[{}] >= 0, but got {}", d, m[d]));
      const int64_t n = in.dim_size(d);
      shape.AddDim(n * m[d]);
      for (int64_t j = 0; j < n * m[d]; ++j) maps[d].push_back(j % n);
    }
    EmitMapped(ctx, shape, maps, nullptr);
  }
};

class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    std::vector<bool> rev(rank, false);
    const std::vector<int64_t> axes = IntValues(ctx->input(1));
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i];
      DFG_OP_REQUIRES(ctx, a >= -rank && a < rank,
                      InvalidArgument("'axis'[{}] = {} is out of valid range "
                                      "[{}, {}",
                                      i, a, -rank, rank - 1));
      const int64_t k = a < 0 ? a + rank : a;
      DFG_OP_REQUIRES(ctx, !rev[k],
                      InvalidArgument("axis {} specified more than once.", k));
      rev[k] = true;
    }
    Maps maps(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = in.dim_size(d);
      for (int64_t j = 0; j < n; ++j) maps[d].push_back(rev[d] ? n - 1 - j : j);
    }
    EmitMapped(ctx, in.shape(), maps, nullptr);
  }
};

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const std::vector<int64_t> dims = IntValues(ctx->input(1));
    const int rank = static_cast<int>(dims.size());
    DFG_OP_REQUIRES(ctx, TensorShape::IsValid(dims),
                    InvalidArgument("Invalid shape {}", VectorString(dims)));
    const TensorShape out_shape{std::span<const int64_t>(dims)};
    DFG_OP_REQUIRES(ctx, in.dims() <= rank,
                    InvalidArgument("Rank of input ({}) must be no greater "
                                    "than rank of output shape ({}).",
                                    in.dims(), rank));
    // The input seen with leading 1s up to the output rank.
    std::vector<int64_t> in_dims(rank - in.dims(), 1);
    for (int64_t d : in.shape().dim_sizes()) in_dims.push_back(d);
    Maps maps(rank);
    for (int d = 0; d < rank; ++d) {
      DFG_OP_REQUIRES(
          ctx, in_dims[d] == dims[d] || in_dims[d] == 1,
          InvalidArgument("Incompatible shapes: {} vs. {}",
                          in.shape().DebugString(), out_shape.DebugString()));
      for (int64_t j = 0; j < dims[d]; ++j) {
        maps[d].push_back(in_dims[d] == 1 ? 0 : j);
      }
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    // Only leading dims broadcast (a [T, D] position table to [B, T, D]):
    // the input repeated whole, copies doubling in size.
    int lead = 0;
    while (lead < rank && in_dims[lead] == 1) ++lead;
    bool repeat = in.NumElements() > 0;
    for (int d = lead; d < rank; ++d) repeat &= in_dims[d] == dims[d];
    if (repeat) {
      const int64_t n = in.NumElements(), total = out->NumElements();
      CopyElements(in, 0, out, 0, n);
      for (int64_t done = n; done < total; done *= 2) {
        CopyElements(*out, 0, out, done, std::min(done, total - done));
      }
      return;
    }
    VisitCopyType(in.dtype(), [&](auto v) {
      using C = decltype(v);
      MapCopy(ctx->intra_op_pool(), static_cast<const C*>(in.data()), in_dims,
              maps, static_cast<C*>(out->data()), C{});
    });
  }
};

}  // namespace

void RegisterSliceKernels(KernelRegistry* r) {
  r->Register<PadOp<PadMode::kConstant>>("Pad");
  r->Register<PadOp<PadMode::kConstant>>("PadV2");
  r->Register<PadOp<PadMode::kReflect>>("MirrorPad");
  r->Register<SliceOp>("Slice");
  r->Register<StridedSliceOp>("StridedSlice");
  r->Register<StridedSliceGradOp>("StridedSliceGrad");
  for (const char* op : {"TensorStridedSliceUpdate", "StridedSliceAssign",
                         "ResourceStridedSliceAssign"}) {
    r->Register<StridedSliceAssignOp>(op);
  }
  r->Register<TileOp>("Tile");
  r->Register<ReverseV2Op>("ReverseV2");
  r->Register<BroadcastToOp>("BroadcastTo");
}

}  // namespace dfg
