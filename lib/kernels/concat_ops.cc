// Joining tensors: ConcatV2 (axis last), Concat (axis first), Pack; and
// Unpack.
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Concatenates `values` along `axis` (already validated) into output 0.
void ConcatInto(OpKernelContext* ctx, const std::vector<const Tensor*>& values,
                int axis, const TensorShape& out_shape) {
  Tensor* out = nullptr;
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  if (out->NumElements() == 0) return;
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape.dim_size(d);
  std::vector<int64_t> row(values.size());  // elements per outer row
  int64_t out_row = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    row[i] = outer == 0 ? 0 : values[i]->NumElements() / outer;
    out_row += row[i];
  }
  for (int64_t o = 0; o < outer; ++o) {
    int64_t pos = o * out_row;
    for (size_t i = 0; i < values.size(); ++i) {
      CopyElements(*values[i], o * row[i], out, pos, row[i]);
      pos += row[i];
    }
  }
}

class ConcatOp : public OpKernel {
 public:
  // kAxisFirst: Concat (v1); else ConcatV2.
  ConcatOp(OpKernelConstruction* ctx, bool axis_first)
      : OpKernel(ctx), axis_first_(axis_first) {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const Tensor& axis_t = ctx->input(axis_first_ ? 0 : n);
    const int first = axis_first_ ? 1 : 0;
    DFG_OP_REQUIRES(ctx, axis_t.NumElements() == 1 && axis_t.dims() == 0,
                    InvalidArgument("Concat dim tensor should be a scalar "
                                    "integer, but got shape {}",
                                    axis_t.shape().DebugString()));
    const int64_t raw_axis = IntValues(axis_t)[0];
    std::vector<const Tensor*> values;
    for (int i = 0; i < n; ++i) values.push_back(&ctx->input(first + i));
    const Tensor& v0 = *values[0];
    const int rank = v0.dims();
    const int64_t axis = raw_axis < 0 ? raw_axis + rank : raw_axis;
    DFG_OP_REQUIRES(ctx, rank > 0 || axis_first_,
                    InvalidArgument("ConcatOp : Can't concatenate scalars "
                                    "(use tf.stack instead)"));
    DFG_OP_REQUIRES(ctx, axis >= 0 && axis < std::max(rank, 1),
                    InvalidArgument("ConcatOp : Expected concatenating "
                                    "dimensions in the range [{}, {}), but "
                                    "got {}",
                                    -rank, rank, raw_axis));
    DFG_OP_REQUIRES(ctx, rank > 0,
                    InvalidArgument("ConcatOp : Can't concatenate scalars "
                                    "(use tf.stack instead)"));
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& v = *values[i];
      DFG_OP_REQUIRES(ctx, v.dims() == rank,
                      InvalidArgument("ConcatOp : Ranks of all input tensors "
                                      "should match: shape[0] = {} vs. "
                                      "shape[{}] = {}",
                                      v0.shape().DebugString(), i,
                                      v.shape().DebugString()));
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        DFG_OP_REQUIRES(ctx, v.dim_size(d) == v0.dim_size(d),
                        InvalidArgument("ConcatOp : Dimension {} in both "
                                        "shapes must be equal: shape[0] = {} "
                                        "vs. shape[{}] = {}",
                                        d, v0.shape().DebugString(), i,
                                        v.shape().DebugString()));
      }
      total += v.dim_size(axis);
    }
    TensorShape shape = v0.shape();
    shape.set_dim(static_cast<int>(axis), total);
    ConcatInto(ctx, values, static_cast<int>(axis), shape);
  }

 private:
  bool axis_first_;
};

class ConcatV2Op : public ConcatOp {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : ConcatOp(ctx, false) {}
};
class ConcatV1Op : public ConcatOp {
 public:
  explicit ConcatV1Op(OpKernelConstruction* ctx) : ConcatOp(ctx, true) {}
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& v0 = ctx->input(0);
    const int out_rank = v0.dims() + 1;
    int64_t axis = axis_ < 0 ? axis_ + out_rank : axis_;
    DFG_OP_REQUIRES(ctx, axis >= 0 && axis < out_rank,
                    InvalidArgument("axis = {} not in [{}, {})", axis_,
                                    -out_rank, out_rank));
    std::vector<const Tensor*> values;
    TensorShape one = v0.shape();
    one.InsertDim(static_cast<int>(axis), 1);
    std::vector<Tensor> reshaped(n);
    for (int i = 0; i < n; ++i) {
      const Tensor& v = ctx->input(i);
      DFG_OP_REQUIRES(ctx, v.shape().IsSameSize(v0.shape()),
                      InvalidArgument("Shapes of all inputs must match: "
                                      "values[0].shape = {} != values[{}]"
                                      ".shape = {}",
                                      v0.shape().DebugString(), i,
                                      v.shape().DebugString()));
      reshaped[i].CopyFrom(v, one);
      values.push_back(&reshaped[i]);
    }
    TensorShape shape = v0.shape();
    shape.InsertDim(static_cast<int>(axis), n);
    ConcatInto(ctx, values, static_cast<int>(axis), shape);
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    DFG_OP_REQUIRES(
        ctx, axis >= 0 && axis < rank,
        InvalidArgument("axis = {} not in [{}, {})", axis_, -rank, rank));
    const int num = ctx->num_outputs();
    DFG_OP_REQUIRES(ctx, in.dim_size(static_cast<int>(axis)) == num,
                    InvalidArgument("Input shape axis {} must equal {}, got "
                                    "shape {}",
                                    axis, num, in.shape().DebugString()));
    TensorShape shape = in.shape();
    shape.RemoveDim(static_cast<int>(axis));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= in.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) {
      inner *= in.dim_size(d);
    }
    for (int i = 0; i < num; ++i) {
      Tensor* out = nullptr;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(i, shape, &out));
      for (int64_t o = 0; o < outer; ++o) {
        CopyElements(in, (o * num + i) * inner, out, o * inner, inner);
      }
    }
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

void RegisterConcatKernels(KernelRegistry* r) {
  r->Register<ConcatV2Op>("ConcatV2");
  r->Register<ConcatV1Op>("Concat");
  r->Register<PackOp>("Pack");
  r->Register<UnpackOp>("Unpack");
}

}  // namespace dfg
