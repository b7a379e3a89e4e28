// Shape manipulation that never copies elements: Reshape, ExpandDims,
// Squeeze; and shape queries: Shape, ShapeN, Size, Rank.
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/shape_args.h"

namespace dfg {

Status ReshapeShape(const Tensor& in, const Tensor& sizes, TensorShape* shape) {
  if (sizes.dims() > 1) {
    return InvalidArgument("sizes input must be 1-D, not {}",
                           sizes.shape().DebugString());
  }
  const std::vector<int64_t> s = IntValues(sizes);
  std::vector<int64_t> dims;
  int unknown = -1;
  int64_t product = 1;
  for (int d = 0; d < static_cast<int>(s.size()); ++d) {
    if (s[d] == -1) {
      if (unknown != -1) {
        return InvalidArgument(
            "Only one input size may be -1, not both {} "
            "and {}",
            unknown, d);
      }
      unknown = d;
      dims.push_back(1);
      continue;
    }
    if (s[d] < 0) {
      return InvalidArgument("Size {} must be non-negative, not {}", d, s[d]);
    }
    if (s[d] != 0 && product > INT64_MAX / s[d]) {
      return InvalidArgument("Shape {} is too large", VectorString(s));
    }
    product *= s[d];
    dims.push_back(s[d]);
  }
  const int64_t n = in.NumElements();
  if (unknown != -1) {
    if (product <= 0) {
      return InvalidArgument(
          "Reshape cannot infer the missing input size for an empty tensor "
          "unless all specified input sizes are non-zero");
    }
    const int64_t missing = n / product;
    if (product * missing != n) {
      return InvalidArgument(
          "Input to reshape is a tensor with {} values, but the requested "
          "shape requires a multiple of {}",
          n, product);
    }
    dims[unknown] = missing;
    product *= missing;
  }
  if (product != n) {
    return InvalidArgument(
        "Input to reshape is a tensor with {} values, but the requested shape "
        "has {}",
        n, product);
  }
  *shape = TensorShape(std::span<const int64_t>(dims));
  return Status::Ok();
}

namespace {

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ReshapeShape(in, ctx->input(1), &shape));
    Tensor out;
    out.CopyFrom(in, shape);
    ctx->set_output(0, std::move(out));
  }
};

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                    InvalidArgument("'dim' must be a tensor with a single "
                                    "value"));
    int64_t dim = IntValues(dim_t)[0];
    const int rank = in.dims();
    DFG_OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
                    InvalidArgument("Tried to expand dim index {} for tensor "
                                    "with {} dimensions.",
                                    dim, rank));
    if (dim < 0) dim += rank + 1;
    TensorShape shape = in.shape();
    shape.InsertDim(static_cast<int>(dim), 1);
    Tensor out;
    out.CopyFrom(in, shape);
    ctx->set_output(0, std::move(out));
  }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &squeeze_dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    std::vector<bool> drop(rank, false);
    for (int64_t d : squeeze_dims_) {
      DFG_OP_REQUIRES(ctx, d >= -rank && d < rank,
                      InvalidArgument("Tried to squeeze dim index {} for "
                                      "tensor with {} dimensions.",
                                      d, rank));
      const int64_t k = d < 0 ? d + rank : d;
      DFG_OP_REQUIRES(ctx, in.dim_size(k) == 1,
                      InvalidArgument("Can not squeeze dim[{}], expected a "
                                      "dimension of 1, got {}",
                                      k, in.dim_size(k)));
      drop[k] = true;
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      const bool squeeze =
          squeeze_dims_.empty() ? in.dim_size(d) == 1 : drop[d];
      if (!squeeze) dims.push_back(in.dim_size(d));
    }
    Tensor out;
    out.CopyFrom(in, TensorShape(std::span<const int64_t>(dims)));
    ctx->set_output(0, std::move(out));
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

// A 1-D int32/int64 tensor of `values`; int32 overflow is an error.
Status IntVector(DataType dtype, const std::vector<int64_t>& values,
                 Tensor* out) {
  *out = Tensor(dtype, TensorShape({static_cast<int64_t>(values.size())}));
  if (dtype == tensorflow::DT_INT64) {
    std::copy(values.begin(), values.end(), out->flat<int64_t>().begin());
    return Status::Ok();
  }
  auto f = out->flat<int32_t>();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > INT32_MAX) {
      return InvalidArgument("Shape output type is 32-bit  but dim {} is {}", i,
                             values[i]);
    }
    f[i] = static_cast<int32_t>(values[i]);
  }
  return Status::Ok();
}

class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      auto dims = ctx->input(i).shape().dim_sizes();
      Tensor out;
      DFG_OP_REQUIRES_OK(
          ctx, IntVector(output_type(i), {dims.begin(), dims.end()}, &out));
      ctx->set_output(i, std::move(out));
    }
  }
};

class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->input(0).NumElements();
    if (output_type(0) == tensorflow::DT_INT64) {
      ctx->set_output(0, Tensor::Scalar<int64_t>(n));
    } else {
      DFG_OP_REQUIRES(ctx, n <= INT32_MAX,
                      InvalidArgument("Number of elements was larger than "
                                      "representable by 32-bit output type"));
      ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(n)));
    }
  }
};

class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(ctx->input(0).dims()));
  }
};

}  // namespace

void RegisterShapeKernels(KernelRegistry* r) {
  r->Register<ReshapeOp>("Reshape");
  r->Register<ExpandDimsOp>("ExpandDims");
  r->Register<SqueezeOp>("Squeeze");
  r->Register<ShapeOp>("Shape");
  r->Register<ShapeOp>("ShapeN");
  r->Register<SizeOp>("Size");
  r->Register<RankOp>("Rank");
}

}  // namespace dfg
