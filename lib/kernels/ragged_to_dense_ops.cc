// RaggedTensorToTensor and RaggedTensorToSparse (TensorFlow's core/kernels/
// ragged_tensor_to_tensor_op.cc, ragged_tensor_to_sparse_kernel.cc): a
// ragged tensor given as flat values plus row partitions (ROW_SPLITS, or
// FIRST_DIM_SIZE then VALUE_ROWIDS) made dense, padded with a default value
// and cut to a requested shape, or listed as sparse coordinates.
#include <algorithm>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Row lengths of one partition level over `nrows` parents.
struct Level {
  std::vector<int64_t> parent;  // parent row of each child item
  std::vector<int64_t> pos;     // position of each child within its row
  int64_t widest = 0;
};

Status FromSplits(const std::vector<int64_t>& splits, int64_t nrows, Level* l) {
  if (splits.empty() || splits[0] != 0) {
    return InvalidArgument(
        "Invalid ragged splits: first element of ragged "
        "splits  must be 0 but is {}",
        splits.empty() ? -1 : splits[0]);
  }
  if (static_cast<int64_t>(splits.size()) != nrows + 1) {
    return InvalidArgument("Invalid ragged splits: expected {} splits, got {}",
                           nrows + 1, splits.size());
  }
  for (int64_t r = 0; r < nrows; ++r) {
    if (splits[r + 1] < splits[r]) {
      return InvalidArgument(
          "Invalid ragged splits: ragged splits must be "
          "monotonically increasing, but ragged_splits[{}]"
          "={} is smaller than row_splits[{}]={}",
          r + 1, splits[r + 1], r, splits[r]);
    }
    l->widest = std::max(l->widest, splits[r + 1] - splits[r]);
    for (int64_t j = splits[r]; j < splits[r + 1]; ++j) {
      l->parent.push_back(r);
      l->pos.push_back(j - splits[r]);
    }
  }
  return Status::Ok();
}

Status FromRowIds(const std::vector<int64_t>& ids, int64_t nrows, Level* l) {
  std::vector<int64_t> count(nrows, 0);
  int64_t prev = 0;
  for (int64_t id : ids) {
    if (id < prev || id >= nrows) {
      return InvalidArgument(
          "Invalid value_rowids: must be sorted and in "
          "[0, {}), got {}",
          nrows, id);
    }
    prev = id;
    l->parent.push_back(id);
    l->pos.push_back(count[id]++);
    l->widest = std::max(l->widest, count[id]);
  }
  return Status::Ok();
}

// Every level of partitions from input `first` on; nrows0 = rows at top.
Status ReadLevels(OpKernelContext* ctx, int first, int count,
                  const std::vector<std::string>& types,
                  std::vector<Level>* levels, int64_t* nrows0) {
  int t = 0;
  int64_t nrows = -1;
  if (!types.empty() && types[0] == "FIRST_DIM_SIZE") {
    nrows = IntValues(ctx->input(first))[0];
    t = 1;
  }
  for (int i = t; i < count; ++i) {
    const std::vector<int64_t> p = IntValues(ctx->input(first + i));
    Level l;
    if (types[i] == "ROW_SPLITS") {
      if (nrows < 0) nrows = static_cast<int64_t>(p.size()) - 1;
      DFG_RETURN_IF_ERROR(FromSplits(p, nrows, &l));
    } else if (types[i] == "VALUE_ROWIDS") {
      DFG_RETURN_IF_ERROR(FromRowIds(p, nrows, &l));
    } else {
      return InvalidArgument("Unsupported partition type: {}", types[i]);
    }
    if (levels->empty()) *nrows0 = nrows;
    nrows = static_cast<int64_t>(l.parent.size());
    levels->push_back(std::move(l));
  }
  if (levels->empty()) return InvalidArgument("No row partition tensors");
  return Status::Ok();
}

class RaggedTensorToTensorOp : public OpKernel {
 public:
  explicit RaggedTensorToTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("row_partition_types", &types_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_row_partition_tensors", &n_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(1);
    const Tensor& dflt = ctx->input(2);
    std::vector<Level> levels;
    int64_t nrows = 0;
    DFG_OP_REQUIRES_OK(ctx, ReadLevels(ctx, 3, n_, types_, &levels, &nrows));
    DFG_OP_REQUIRES(
        ctx,
        values.dims() >= 1 &&
            values.dim_size(0) ==
                static_cast<int64_t>(levels.back().parent.size()),
        InvalidArgument("Invalid first partition input. Tensor requires at "
                        "least {} values, but values has shape {}",
                        levels.back().parent.size(),
                        values.shape().DebugString()));
    // The natural shape, then the requested one where it says.
    std::vector<int64_t> dims = {nrows};
    for (const Level& l : levels) dims.push_back(l.widest);
    for (int d = 1; d < values.dims(); ++d) dims.push_back(values.dim_size(d));
    const Tensor& shape_t = ctx->input(0);
    if (shape_t.dims() == 1 && shape_t.NumElements() > 0) {
      const std::vector<int64_t> want = IntValues(shape_t);
      DFG_OP_REQUIRES(ctx, want.size() == dims.size(),
                      InvalidArgument("rt_input.shape and shape={} are "
                                      "incompatible",
                                      VectorString(want)));
      for (size_t d = 0; d < dims.size(); ++d) {
        if (want[d] >= 0) dims[d] = want[d];
      }
    }
    const size_t ragged = levels.size();
    for (size_t d = ragged + 1; d < dims.size(); ++d) {
      DFG_OP_REQUIRES(
          ctx, dims[d] == values.dim_size(d - ragged),
          InvalidArgument("rt_input.shape and shape={} are incompatible",
                          VectorString(dims)));
    }
    const int64_t inner =
        values.dims() > 1 ? values.NumElements() / values.dim_size(0) : 1;
    DFG_OP_REQUIRES(
        ctx, dflt.NumElements() == 1 || dflt.NumElements() == inner,
        InvalidArgument("default_value.shape={} and rt_input.flat_values."
                        "shape={} are incompatible",
                        dflt.shape().DebugString(),
                        values.shape().DebugString()));
    // Output slot of each item, level by level (-1: cut off).
    std::vector<int64_t> slot(nrows);
    for (int64_t r = 0; r < nrows; ++r) slot[r] = r < dims[0] ? r : -1;
    for (size_t k = 0; k < ragged; ++k) {
      const Level& l = levels[k];
      std::vector<int64_t> next(l.parent.size());
      for (size_t i = 0; i < next.size(); ++i) {
        const int64_t p = slot[l.parent[i]];
        next[i] =
            p < 0 || l.pos[i] >= dims[k + 1] ? -1 : p * dims[k + 1] + l.pos[i];
      }
      slot = std::move(next);
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t out_rows = inner == 0 ? 0 : out->NumElements() / inner;
    for (int64_t r = 0; r < out_rows; ++r) {
      if (dflt.NumElements() == 1) {
        for (int64_t e = 0; e < inner; ++e) {
          CopyElements(dflt, 0, out, r * inner + e, 1);
        }
      } else {
        CopyElements(dflt, 0, out, r * inner, inner);
      }
    }
    for (size_t i = 0; i < slot.size(); ++i) {
      if (slot[i] >= 0)
        CopyElements(values, i * inner, out, slot[i] * inner, inner);
    }
  }

 private:
  std::vector<std::string> types_;
  int64_t n_ = 1;
};

class RaggedTensorToSparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int ragged = ctx->num_inputs() - 1;
    const Tensor& values = ctx->input(ragged);
    std::vector<Level> levels;
    int64_t nrows = 0;
    std::vector<std::string> types(ragged, "ROW_SPLITS");
    DFG_OP_REQUIRES_OK(ctx, ReadLevels(ctx, 0, ragged, types, &levels, &nrows));
    const int64_t items = static_cast<int64_t>(levels.back().parent.size());
    DFG_OP_REQUIRES(
        ctx, values.dims() >= 1 && values.dim_size(0) == items,
        InvalidArgument("Final value of ragged splits must match the length "
                        "the corresponding ragged values."));
    // Coordinates of each item: its ancestors' positions, outermost first.
    const int inner_rank = values.dims() - 1;
    const int rank = ragged + 1 + inner_rank;
    std::vector<std::vector<int64_t>> coord(items);
    for (int64_t i = 0; i < items; ++i) {
      int64_t at = i;
      std::vector<int64_t> c;
      for (int k = ragged - 1; k >= 0; --k) {
        c.push_back(levels[k].pos[at]);
        at = levels[k].parent[at];
      }
      c.push_back(at);
      std::reverse(c.begin(), c.end());
      coord[i] = std::move(c);
    }
    const int64_t inner = items == 0 ? 0 : values.NumElements() / items;
    const int64_t total = values.NumElements();
    Tensor *ix, *vals, *shape;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {total, rank}, &ix));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, {total}, &vals));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, {rank}, &shape));
    CopyElements(values, 0, vals, 0, total);
    auto o = ix->flat<int64_t>();
    int64_t n = 0;
    for (int64_t i = 0; i < items; ++i) {
      for (int64_t e = 0; e < inner; ++e, ++n) {
        int64_t* row = o.data() + n * rank;
        std::copy(coord[i].begin(), coord[i].end(), row);
        int64_t rem = e;
        for (int d = inner_rank; d >= 1; --d) {
          row[ragged + d] = rem % values.dim_size(d);
          rem /= values.dim_size(d);
        }
      }
    }
    auto s = shape->flat<int64_t>();
    s[0] = nrows;
    for (int k = 0; k < ragged; ++k) s[k + 1] = levels[k].widest;
    for (int d = 1; d <= inner_rank; ++d) s[ragged + d] = values.dim_size(d);
  }
};

}  // namespace

void RegisterRaggedToDenseKernels(KernelRegistry* r) {
  r->Register<RaggedTensorToTensorOp>("RaggedTensorToTensor");
  r->Register<RaggedTensorToSparseOp>("RaggedTensorToSparse");
}

}  // namespace dfg
