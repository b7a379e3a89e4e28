// Conv2D (NHWC; grouped when the input depth is a multiple of the filter's)
// and DepthwiseConv2dNative. The convolution itself is in conv_util.cc; float
// depthwise convs run through oneDNN (onednn_conv.h), the direct loops below
// keep the other dtypes.
#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/onednn_conv.h"

namespace dfg {
namespace {

class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadConv2DAttrs(ctx, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ConvDims d;
    DFG_OP_REQUIRES_OK(ctx, ComputeConvDims(attrs_, input, filter, &d));
    DFG_OP_REQUIRES(
        ctx, attrs_.nhwc,
        Unimplemented("The Conv2D op currently only supports the NHWC tensor "
                      "format on the CPU. The op was given the format: NCHW"));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({d.batch, d.rows.out, d.cols.out, d.out_depth}),
                 &out));
    DFG_OP_REQUIRES_OK(
        ctx, Conv2DCompute(ctx->intra_op_pool(), d, input, filter, out));
  }

 private:
  Conv2DAttrs attrs_;
};

// out[b,y,x,c*mult+m] = sum_{ky,kx} in[b,y',x',c] * filter[ky,kx,c,m].
template <typename T>
void DepthwiseConv(ThreadPoolInterface* pool, const ConvDims& d, int64_t mult,
                   const T* in, const T* filter, T* out) {
  using C = CalcType<T>;
  const int64_t out_depth = d.in_depth * mult;
  const int64_t cost = d.filter_rows * d.filter_cols * out_depth * 2;
  ForEachConvWindow<C>(pool, d, out_depth, cost, in, out,
                       [&](C* acc, const T* src, int64_t tap) {
                         const T* f = filter + tap * out_depth;
                         for (int64_t c = 0; c < d.in_depth; ++c) {
                           const C v = Load(src[c]);
                           for (int64_t m = 0; m < mult; ++m) {
                             acc[c * mult + m] += v * Load(f[c * mult + m]);
                           }
                         }
                       });
}

class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // TensorFlow's CPU kernel never reads `dilations`: a dilated node runs
    // undilated (Keras dilates depthwise convs through SpaceToBatchND).
    DFG_OP_REQUIRES_OK(ctx,
                       ReadConv2DAttrs(ctx, &attrs_, /*read_dilations=*/false));
    DFG_OP_REQUIRES(ctx, attrs_.stride_rows == attrs_.stride_cols,
                    InvalidArgument("Current implementation only supports "
                                    "equal length strides in the row and "
                                    "column dimensions."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    ConvDims d;
    int64_t mult = 0;
    DFG_OP_REQUIRES_OK(ctx,
                       DepthwiseConvDims(attrs_, input, filter, &d, &mult));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, DepthwiseOutputShape(d, mult), &out));
    bool done = false;
    DFG_OP_REQUIRES_OK(
        ctx, DepthwiseConv2DCompute(ctx->intra_op_pool(), d, mult, input,
                                    filter, ConvEpilogue(), out, &done));
  }

 private:
  Conv2DAttrs attrs_;
};

}  // namespace

Status DepthwiseConvDims(const Conv2DAttrs& attrs, const Tensor& input,
                         const Tensor& filter, ConvDims* d, int64_t* mult) {
  if (input.dims() != 4) {
    return InvalidArgument("input must be 4-dimensional{}",
                           input.shape().DebugString());
  }
  if (filter.dims() != 4) {
    return InvalidArgument("filter must be 4-dimensional: {}",
                           filter.shape().DebugString());
  }
  const int64_t in_depth = input.dim_size(attrs.nhwc ? 3 : 1);
  if (in_depth != filter.dim_size(2)) {
    return InvalidArgument(
        "input and filter must have the same depth: {} vs {}", in_depth,
        filter.dim_size(2));
  }
  if (!attrs.nhwc) {
    return Unimplemented(
        "Depthwise convolution on CPU is only supported for NHWC format");
  }
  // Shaped as a plain conv with one input channel per group.
  DFG_RETURN_IF_ERROR(ComputeConvDims(attrs, input, filter, d));
  *mult = filter.dim_size(3);
  return Status::Ok();
}

TensorShape DepthwiseOutputShape(const ConvDims& d, int64_t mult) {
  return TensorShape({d.batch, d.rows.out, d.cols.out, d.in_depth * mult});
}

Status DepthwiseConv2DCompute(ThreadPoolInterface* pool, const ConvDims& d,
                              int64_t mult, const Tensor& input,
                              const Tensor& filter,
                              const ConvEpilogue& epilogue, Tensor* out,
                              bool* epilogue_done) {
  *epilogue_done = false;
  if (out->NumElements() == 0) return Status::Ok();
  const int64_t out_depth = d.in_depth * mult;
  if (input.dtype() == tensorflow::DT_FLOAT) {
    // oneDNN's depthwise kernels: a grouped conv, one input channel and
    // `mult` outputs per group (the filter layout is the same).
    ConvDims grouped = d;
    grouped.patch_depth = 1;
    grouped.out_depth = out_depth;
    bool ran = false;
    DFG_RETURN_IF_ERROR(OneDnnConv2D(pool, grouped, d.in_depth,
                                     input.flat<float>().data(),
                                     filter.flat<float>().data(), epilogue,
                                     out->flat<float>().data(), &ran));
    if (ran) {
      *epilogue_done = true;
      return Status::Ok();
    }
  }
  Dispatch(TypeList<float, double, Half, BFloat16>(), input.dtype(),
           [&](auto v) {
             using T = decltype(v);
             DepthwiseConv(pool, d, mult, static_cast<const T*>(input.data()),
                           static_cast<const T*>(filter.data()),
                           static_cast<T*>(out->data()));
           });
  return Status::Ok();
}

void RegisterConvKernels(KernelRegistry* r) {
  r->Register<Conv2DOp>(
      "Conv2D", {TypeConstraint(
                    "T", TypeList<float, double, Half, BFloat16, int32_t>())});
  r->Register<DepthwiseConv2dNativeOp>(
      "DepthwiseConv2dNative",
      {TypeConstraint("T", TypeList<float, double, Half, BFloat16>())});
}

}  // namespace dfg
