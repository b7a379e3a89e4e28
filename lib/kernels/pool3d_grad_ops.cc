// The 3-D pooling gradients as TensorFlow's CPU kernels (pooling_ops_3d),
// NDHWC: MaxPool3DGrad sends each output's gradient to every window cell
// within 1e-5 of orig_output; MaxPool3DGradGrad takes the first cell equal
// to it; AvgPool3DGrad divides by the window's in-image cell count. Sums
// accumulate in T, as TensorFlow's `+=` on T does.
#include <cmath>

#include "lib/kernels/pool_grad_util.h"

namespace dfg {
namespace {

using pool_grad::AddInto;
using pool_grad::CheckRanks;
using pool_grad::CheckShape;
using pool_grad::FirstEqualGather;
using pool_grad::ForWindow;
using pool_grad::MakeGeom;
using pool_grad::PoolAttrs;
using pool_grad::PoolGeom;
using pool_grad::ReadPadding;
using pool_grad::RequireChannelsLast;

// ---- MaxPool3DGrad, MaxPool3DGradGrad, AvgPool3DGrad ----

// ksize/strides of a 3-D pool with TensorFlow's checks; `sizes` words the
// size message ("5" or "4 or 5").
Status ReadWindow3D(OpKernelConstruction* ctx, const char* sizes,
                    PoolAttrs* a) {
  DFG_RETURN_IF_ERROR(ctx->GetAttr("ksize", &a->ksize));
  if (a->ksize.size() != 5) {
    return InvalidArgument(
        "Sliding window ksize field must specify {} dimensions", sizes);
  }
  DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &a->strides));
  if (a->strides.size() != 5) {
    return InvalidArgument(
        "Sliding window strides field must specify {} dimensions", sizes);
  }
  DFG_RETURN_IF_ERROR(ReadPadding(ctx, &a->padding));
  if (a->ksize[0] != 1 || a->strides[0] != 1) {
    return Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  if (a->ksize[4] != 1 || a->strides[4] != 1) {
    return Unimplemented(
        "Pooling is not yet supported on the depth dimension.");
  }
  return Status::Ok();
}

// in_grad[b, cell] += grad[b, o] for every window cell within 1e-5 of
// orig_output (TensorFlow's select on |in - out| < 1e-5, in T).
template <typename T>
void ScatterNearMax(ThreadPoolInterface* pool, const PoolGeom& g, const T* in,
                    const T* orig_out, const T* grad, T* out) {
  const int64_t outs = g.OutVoxels(), image = g.InVoxels() * g.depth;
  const CalcType<T> eps = Load(Store<T>(1e-5));
  ParallelFor(pool, g.batch, outs * g.depth, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      T* dst = out + b * image;
      const T* src = in + b * image;
      std::fill(dst, dst + image, Store<T>(0));
      for (int64_t o = 0; o < outs; ++o) {
        const T* m = orig_out + (b * outs + o) * g.depth;
        const T* gr = grad + (b * outs + o) * g.depth;
        ForWindow(g, o, [&](int64_t cell) {
          for (int64_t c = 0; c < g.depth; ++c) {
            const T diff = Store<T>(Load(src[cell + c]) - Load(m[c]));
            if (std::abs(Load(diff)) < eps) AddInto(dst[cell + c], gr[c]);
          }
        });
      }
    }
  });
}

template <bool kGradGrad>
class MaxPool3DGradOp : public OpKernel {
 public:
  explicit MaxPool3DGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx,
        RequireChannelsLast(
            ctx, kGradGrad ? "MaxPooling3dGradGradOp" : "MaxPooling3dGradOp",
            true));
    DFG_OP_REQUIRES_OK(ctx, ReadWindow3D(ctx, "5", &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(
        ctx,
        CheckRanks(ctx, 5, kGradGrad ? "out_grad_backprop" : "out_backprop"));
    const Tensor& in = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    if (kGradGrad) {
      DFG_OP_REQUIRES(ctx, in.NumElements() > 0,
                      InvalidArgument("received empty tensor tensor_in: "
                                      "Tensor<type: {} shape: {} values: >",
                                      DataTypeString(in.dtype()),
                                      in.shape().DebugString()));
    }
    PoolGeom g;
    DFG_OP_REQUIRES_OK(ctx, MakeGeom(in.shape(), attrs_.ksize, attrs_.strides,
                                     attrs_.padding, &g));
    DFG_OP_REQUIRES_OK(ctx,
                       CheckShape("orig_output", g.Shape(true), ctx->input(1)));
    DFG_OP_REQUIRES_OK(ctx, CheckShape("grad", g.Shape(!kGradGrad), grad));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.Shape(kGradGrad), &out));
    if (out->NumElements() == 0) return;
    Dispatch(FloatTypes(), grad.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* src = in.flat<T>().data();
      const T* orig = ctx->input(1).flat<T>().data();
      if constexpr (kGradGrad) {
        FirstEqualGather(ctx->intra_op_pool(), g, src, orig,
                         grad.flat<T>().data(), out->flat<T>().data());
      } else {
        ScatterNearMax(ctx->intra_op_pool(), g, src, orig,
                       grad.flat<T>().data(), out->flat<T>().data());
      }
    });
  }

 private:
  PoolAttrs attrs_;
};

// Each output's gradient, divided by its window's in-image cell count, added
// to those cells. (TensorFlow's CPU kernel reads data_format but pools
// NDHWC whatever it says.)
class AvgPool3DGradOp : public OpKernel {
 public:
  explicit AvgPool3DGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadWindow3D(ctx, "4 or 5", &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, shape.dims() == 1 && shape.NumElements() == 5,
        InvalidArgument("orig_input_shape must be 1-dimensional and 5 "
                        "elements"));
    const std::vector<int64_t> dims = IntValues(shape);
    DFG_OP_REQUIRES(
        ctx, TensorShape::IsValid(dims),
        InvalidArgument("Invalid orig_input_shape {}", VectorString(dims)));
    const TensorShape in_shape{std::span<const int64_t>(dims)};
    PoolGeom g;
    DFG_OP_REQUIRES_OK(ctx, MakeGeom(in_shape, attrs_.ksize, attrs_.strides,
                                     attrs_.padding, &g));
    DFG_OP_REQUIRES_OK(ctx, CheckShape("grad", g.Shape(true), grad));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    if (out->NumElements() == 0) return;
    Dispatch(FloatTypes(), grad.dtype(), [&](auto z) {
      using T = decltype(z);
      Spread(ctx->intra_op_pool(), g, grad.flat<T>().data(),
             out->flat<T>().data());
    });
  }

 private:
  template <typename T>
  static void Spread(ThreadPoolInterface* pool, const PoolGeom& g,
                     const T* grad, T* out) {
    const int64_t outs = g.OutVoxels(), image = g.InVoxels() * g.depth;
    ParallelFor(pool, g.batch, outs * g.depth, [&](int64_t b0, int64_t b1) {
      std::vector<T> share(g.depth);
      for (int64_t b = b0; b < b1; ++b) {
        T* dst = out + b * image;
        std::fill(dst, dst + image, Store<T>(0));
        for (int64_t o = 0; o < outs; ++o) {
          int64_t count = 0;
          ForWindow(g, o, [&](int64_t) { ++count; });
          const T* gr = grad + (b * outs + o) * g.depth;
          const CalcType<T> n = Load(Store<T>(count));
          for (int64_t c = 0; c < g.depth; ++c) {
            share[c] = Store<T>(Load(gr[c]) / n);
          }
          ForWindow(g, o, [&](int64_t cell) {
            for (int64_t c = 0; c < g.depth; ++c) {
              AddInto(dst[cell + c], share[c]);
            }
          });
        }
      }
    });
  }

  PoolAttrs attrs_;
};

}  // namespace

void RegisterPool3DGradKernels(KernelRegistry* r) {
  const auto bf16_f32 = TypeConstraint("T", TypeList<float, BFloat16>());
  // TensorFlow registers T and TInput only as equal pairs.
  for (DataType t : {tensorflow::DT_FLOAT, tensorflow::DT_BFLOAT16}) {
    r->Register<MaxPool3DGradOp<false>>(
        "MaxPool3DGrad",
        {KernelTypeConstraint{"T", {t}}, KernelTypeConstraint{"TInput", {t}}});
  }
  r->Register<MaxPool3DGradOp<true>>("MaxPool3DGradGrad", {bf16_f32});
  r->Register<AvgPool3DGradOp>("AvgPool3DGrad", {bf16_f32});
}

}  // namespace dfg
