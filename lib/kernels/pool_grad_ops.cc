// The max-pool gradients dfg's pooling_ops.cc does not cover, as
// TensorFlow's CPU kernels (maxpooling_op): MaxPoolGradV2,
// MaxPoolGradGrad(V2), MaxPoolWithArgmax, MaxPoolGradWithArgmax, NHWC.
// The 3-D ones are in pool3d_grad_ops.cc.
//
// Which input cell a max-pool output "came from" differs between the ops,
// and each follows its TensorFlow kernel: the 2-D gradients and
// MaxPoolWithArgmax take the first maximum of the window in row-major order
// (a NaN only wins in the first cell); the *GradGrad ops take the first cell
// equal to orig_output; MaxPool3DGrad sends the gradient to every cell within
// 1e-5 of orig_output. Gradients accumulate in T (each sum rounded), as
// TensorFlow's `+=` on T does.
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
using pool_grad::WindowArgmax;

Status CheckWindow2D(const PoolAttrs& a, const char* depth_label) {
  if (a.ksize.size() != 4) {
    return InvalidArgument(
        "Sliding window ksize field must specify 4 dimensions");
  }
  if (a.strides.size() != 4) {
    return InvalidArgument(
        "Sliding window strides field must specify 4 dimensions");
  }
  if (a.ksize[0] != 1 || a.strides[0] != 1) {
    return Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  if (a.ksize[3] != 1 || a.strides[3] != 1) {
    return Unimplemented("{} is not yet supported on the depth dimension.",
                         depth_label);
  }
  return Status::Ok();
}

// ---- MaxPoolGradV2, MaxPoolGradGrad, MaxPoolGradGradV2 ----

template <bool kGradGrad>
class MaxPoolGrad2DOp : public OpKernel {
 public:
  explicit MaxPoolGrad2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, RequireChannelsLast(
                 ctx, kGradGrad ? "MaxPoolingGradGradOp" : "MaxPoolingGradOp",
                 false));
    DFG_OP_REQUIRES_OK(ctx, ReadPadding(ctx, &attrs_.padding));
    v2_ = ctx->num_inputs() == 5;
    if (!v2_) {
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &attrs_.ksize));
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &attrs_.strides));
      DFG_OP_REQUIRES_OK(ctx,
                         CheckWindow2D(attrs_, kGradGrad ? "MaxPoolingGradGrad"
                                                         : "MaxPoolingGrad"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    DFG_OP_REQUIRES_OK(
        ctx,
        CheckRanks(ctx, 4, kGradGrad ? "out_grad_backprop" : "out_backprop"));
    PoolAttrs a = attrs_;
    if (v2_) {
      a.ksize = IntValues(ctx->input(3));
      a.strides = IntValues(ctx->input(4));
    }
    DFG_OP_REQUIRES_OK(ctx, CheckWindow2D(a, "MaxPoolingGrad"));
    const Tensor& in = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    PoolGeom g;
    DFG_OP_REQUIRES_OK(ctx,
                       MakeGeom(in.shape(), a.ksize, a.strides, a.padding, &g));
    DFG_OP_REQUIRES_OK(ctx,
                       CheckShape("orig_output", g.Shape(true), ctx->input(1)));
    DFG_OP_REQUIRES_OK(
        ctx, CheckShape("grad", g.Shape(kGradGrad ? false : true), grad));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(0, kGradGrad ? g.Shape(true) : in.shape(), &out));
    if (out->NumElements() == 0) return;
    Dispatch(RealTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* src = in.flat<T>().data();
      if constexpr (kGradGrad) {
        FirstEqualGather(ctx->intra_op_pool(), g, src,
                         ctx->input(1).flat<T>().data(), grad.flat<T>().data(),
                         out->flat<T>().data());
      } else {
        ScatterToArgmax(ctx->intra_op_pool(), g, src, grad.flat<T>().data(),
                        out->flat<T>().data());
      }
    });
  }

  // out[b, cell] = sum of grad over the outputs whose first maximum it is.
  template <typename T>
  static void ScatterToArgmax(ThreadPoolInterface* pool, const PoolGeom& g,
                              const T* in, const T* grad, T* out) {
    const int64_t n = g.batch * g.OutVoxels() * g.depth;
    std::vector<T> max(n);
    std::vector<int64_t> argmax(n);
    WindowArgmax(pool, g, in, max.data(), argmax.data());
    const int64_t per_out = g.OutVoxels() * g.depth;
    const int64_t image = g.InVoxels() * g.depth;
    ParallelFor(pool, g.batch, per_out, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        T* dst = out + b * image;
        std::fill(dst, dst + image, Store<T>(0));
        for (int64_t i = b * per_out; i < (b + 1) * per_out; ++i) {
          if (argmax[i] >= 0) AddInto(dst[argmax[i]], grad[i]);
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
  bool v2_ = false;
};

// ---- MaxPoolWithArgmax, MaxPoolGradWithArgmax ----

Status ReadArgmaxAttrs(OpKernelConstruction* ctx, PoolAttrs* a,
                       bool* include_batch) {
  DFG_RETURN_IF_ERROR(ctx->GetAttr("ksize", &a->ksize));
  if (a->ksize.size() != 4) {
    return InvalidArgument(
        "Sliding window ksize field must specify 4 dimensions");
  }
  DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &a->strides));
  if (a->strides.size() != 4) {
    return InvalidArgument(
        "Sliding window stride field must specify 4 dimensions");
  }
  DFG_RETURN_IF_ERROR(ReadPadding(ctx, &a->padding));
  if (a->ksize[0] != 1 || a->strides[0] != 1) {
    return Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  return ctx->GetAttr("include_batch_in_index", include_batch);
}

// TensorFlow's PoolParameters checks on a depth window. A valid one
// (spatial window 1x1) leaves TensorFlow's argmax kernels pooling 1x1
// windows, an identity, while the gradient expects out_backprop of the
// pooled depth: *pooled_depth is that depth (the input's without one).
Status CheckDepthWindow(const PoolAttrs& a, const TensorShape& in,
                        int64_t* pooled_depth) {
  *pooled_depth = in.dim_size(3);
  if (a.ksize[3] == 1) return Status::Ok();
  if (a.ksize[1] != 1 || a.ksize[2] != 1) {
    return Unimplemented(
        "MaxPooling supports exactly one of pooling across depth or pooling "
        "across width/height.");
  }
  if (a.ksize[3] <= 0 || in.dim_size(3) % a.ksize[3] != 0) {
    return Unimplemented(
        "Depthwise max pooling requires the depth window to evenly divide "
        "the input depth");
  }
  if (a.strides[3] != a.ksize[3]) {
    return Unimplemented(
        "Depthwise max pooling requires the depth window to equal the depth "
        "stride");
  }
  if (a.strides[1] != 1 || a.strides[2] != 1) {
    return Unimplemented(
        "depthwise max pooling with spatial strides is not supported with "
        "argmax");
  }
  *pooled_depth = in.dim_size(3) / a.ksize[3];
  return Status::Ok();
}

class MaxPoolWithArgmaxOp : public OpKernel {
 public:
  explicit MaxPoolWithArgmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadArgmaxAttrs(ctx, &attrs_, &include_batch_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("tensor_in must be 4-dimensional (2)"));
    DFG_OP_REQUIRES(ctx, in.NumElements() > 0,
                    InvalidArgument("tensor_in must not be empty (2)"));
    int64_t pooled_depth = 0;
    DFG_OP_REQUIRES_OK(ctx,
                       CheckDepthWindow(attrs_, in.shape(), &pooled_depth));
    PoolGeom g;
    DFG_OP_REQUIRES_OK(ctx, MakeGeom(in.shape(), attrs_.ksize, attrs_.strides,
                                     attrs_.padding, &g));
    Tensor* out = nullptr;
    Tensor* argmax = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.Shape(true), &out));
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, g.Shape(true), &argmax));
    if (out->NumElements() == 0) return;
    std::vector<int64_t> index(out->NumElements());
    Dispatch(RealTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      WindowArgmax(ctx->intra_op_pool(), g, in.flat<T>().data(),
                   out->flat<T>().data(), index.data());
    });
    const int64_t per_out = g.OutVoxels() * g.depth;
    const int64_t image = g.InVoxels() * g.depth;
    for (size_t i = 0; i < index.size(); ++i) {
      if (include_batch_) index[i] += (i / per_out) * image;
    }
    if (argmax->dtype() == tensorflow::DT_INT32) {
      auto a = argmax->flat<int32_t>();
      for (size_t i = 0; i < index.size(); ++i) {
        a[i] = static_cast<int32_t>(index[i]);
      }
    } else {
      auto a = argmax->flat<int64_t>();
      std::copy(index.begin(), index.end(), a.begin());
    }
  }

 private:
  PoolAttrs attrs_;
  bool include_batch_ = false;
};

class MaxPoolGradWithArgmaxOp : public OpKernel {
 public:
  explicit MaxPoolGradWithArgmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ReadArgmaxAttrs(ctx, &attrs_, &include_batch_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    const Tensor& argmax = ctx->input(2);
    DFG_OP_REQUIRES(ctx, in.dims() == 4,
                    InvalidArgument("tensor_in_shape must have 2 spatial "
                                    "dimensions. {} 0",
                                    in.dims()));
    int64_t pooled_depth = 0;
    DFG_OP_REQUIRES_OK(ctx,
                       CheckDepthWindow(attrs_, in.shape(), &pooled_depth));
    PoolGeom g;
    DFG_OP_REQUIRES_OK(ctx, MakeGeom(in.shape(), attrs_.ksize, attrs_.strides,
                                     attrs_.padding, &g));
    const TensorShape pooled({g.batch, g.w[1].out, g.w[2].out, pooled_depth});
    DFG_OP_REQUIRES_OK(ctx, CheckShape("grad", pooled, grad));
    DFG_OP_REQUIRES_OK(ctx, CheckShape("argmax", pooled, argmax));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    // Where each gradient goes, checked to stay in its image (TensorFlow
    // aborts the process on an index outside it).
    const std::vector<int64_t> index = IntValues(argmax);
    const int64_t per_out = pooled.num_elements() / g.batch;
    const int64_t image = g.InVoxels() * g.depth;
    std::vector<int64_t> dest(index.size());
    for (size_t i = 0; i < index.size(); ++i) {
      const int64_t b = i / per_out;
      dest[i] = index[i] + (include_batch_ ? 0 : b * image);
      DFG_OP_REQUIRES(
          ctx, dest[i] >= b * image && dest[i] < (b + 1) * image,
          InvalidArgument("Invalid output gradient index: {}, {}, {}", dest[i],
                          b * image, (b + 1) * image));
    }
    Dispatch(RealTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      auto o = out->flat<T>();
      auto gr = grad.flat<T>();
      std::fill(o.begin(), o.end(), Store<T>(0));
      for (size_t i = 0; i < dest.size(); ++i) AddInto(o[dest[i]], gr[i]);
    });
  }

 private:
  PoolAttrs attrs_;
  bool include_batch_ = false;
};

}  // namespace

void RegisterPool3DGradKernels(KernelRegistry* r);
void RegisterConv3DGradKernels(KernelRegistry* r);
void RegisterMorphKernels(KernelRegistry* r);
void RegisterFractionalPoolKernels(KernelRegistry* r);
void RegisterGlimpsePatchKernels(KernelRegistry* r);
void RegisterIgammaGradKernels(KernelRegistry* r);

// The family's kernels (this file's and those of pool3d_grad_ops.cc,
// conv3d_grad_ops.cc, morph_ops.cc, fractional_pool_ops.cc,
// glimpse_patch_ops.cc, igamma_grad_ops.cc): one entry in RegisterAllKernels.
void RegisterPoolGradFamilyKernels(KernelRegistry* r) {
  RegisterPool3DGradKernels(r);
  RegisterConv3DGradKernels(r);
  RegisterMorphKernels(r);
  RegisterFractionalPoolKernels(r);
  RegisterGlimpsePatchKernels(r);
  RegisterIgammaGradKernels(r);
  const auto real = TypeConstraint("T", RealTypes());
  r->Register<MaxPoolGrad2DOp<false>>("MaxPoolGradV2", {real});
  r->Register<MaxPoolGrad2DOp<true>>("MaxPoolGradGrad", {real});
  r->Register<MaxPoolGrad2DOp<true>>("MaxPoolGradGradV2", {real});
  r->Register<MaxPoolWithArgmaxOp>("MaxPoolWithArgmax", {real});
  r->Register<MaxPoolGradWithArgmaxOp>(
      "MaxPoolGradWithArgmax",
      {real, TypeConstraint("Targmax", TypeList<int64_t>())});
}

}  // namespace dfg
