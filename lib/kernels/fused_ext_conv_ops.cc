// FusedPadConv2D and FusedResizeAndPadConv2D: the TF1 graph-transform
// fusions of MirrorPad (and a bilinear ResizeBilinear before it) into an
// NHWC Conv2D, as TensorFlow's conv_ops_fused.cc computes them: each patch
// row of the im2col matrix is sampled straight from the input through the
// mirror padding (and the legacy, corner-aligned resize), then one GEMM with
// the filter. The patch origins follow that kernel's own rounding of the
// VALID offset, not Conv2D's. Also Conv, the generic N-d convolution, which
// TensorFlow's CPU kernel runs as Conv2D or Conv3D.
#include <cmath>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/conv_util.h"
#include "lib/kernels/cwise_ops.h"

namespace dfg {
namespace {

// Sizes of one call: the (resized) image, its mirror padding, the filter
// and the output.
struct PadConvDims {
  int64_t batch = 0, depth = 0, in_h = 0, in_w = 0;  // the input image
  int64_t rows = 0, cols = 0;                        // resized size
  int64_t top = 0, left = 0, padded_h = 0, padded_w = 0;
  int64_t fh = 0, fw = 0, out_depth = 0, out_h = 0, out_w = 0;
  int64_t top_offset = 0, left_offset = 0;  // patch origin shifts
  float scale_h = 1.0f, scale_w = 1.0f;
};

// Maps a padded coordinate to the (resized) image as TensorFlow's fused
// kernel does: mirrored at the borders (offset 1: REFLECT, 0: SYMMETRIC),
// then scaled to the input.
float MirrorCoord(int64_t padded, int64_t before, int64_t size, int offset,
                  float scale) {
  float c = static_cast<float>(padded - before);
  if (c < 0) {
    c = -(c + 1.0f - offset);
  } else if (c >= size) {
    c = size * 2.0f - (c + 1.0f + offset);
  }
  return c * scale;
}

class FusedPadConv2DOp : public OpKernel {
 public:
  FusedPadConv2DOp(OpKernelConstruction* ctx, bool resize)
      : OpKernel(ctx), resize_(resize) {
    if (resize_) {
      DFG_OP_REQUIRES_OK(ctx,
                         ctx->GetAttr("resize_align_corners", &align_corners_));
    }
    std::string mode, padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
    offset_ = mode == "REFLECT" ? 1 : 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFG_OP_REQUIRES(ctx, strides_.size() == 4,
                    InvalidArgument("Sliding window strides field must "
                                    "specify 4 dimensions"));
    DFG_OP_REQUIRES(
        ctx, strides_[0] == 1 && strides_[3] == 1,
        InvalidArgument("Current implementation does not yet support "
                        "strides in the batch and depth dimensions."));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    PadConvDims d;
    DFG_OP_REQUIRES_OK(ctx, Resized(ctx, &d));
    DFG_OP_REQUIRES_OK(ctx, Padded(ctx, &d));
    DFG_OP_REQUIRES_OK(ctx, Output(ctx->input(resize_ ? 3 : 2), &d));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({d.batch, d.out_h, d.out_w, d.out_depth}), &out));
    Dispatch(TypeList<float, double, Half, BFloat16>(), out->dtype(),
             [&](auto v) { Run<decltype(v)>(ctx, d, out); });
  }

 private:
  // The input's checks and the resized size (the input's without resize).
  Status Resized(OpKernelContext* ctx, PadConvDims* d) const {
    const Tensor& input = ctx->input(0);
    if (input.NumElements() == 0) {
      return InvalidArgument("Input tensor can't be empty");
    }
    if (input.dims() != 4 && resize_) {
      return InvalidArgument("input must be 4-dimensional{}",
                             input.shape().DebugString());
    }
    if (input.dims() != 4) {
      return InvalidArgument(
          "Fused mirror padding only supports four-dimensional inputs, but {} "
          "requested",
          input.dims());
    }
    d->batch = input.dim_size(0);
    d->in_h = d->rows = input.dim_size(1);
    d->in_w = d->cols = input.dim_size(2);
    d->depth = input.dim_size(3);
    if (!resize_) return Status::Ok();
    const Tensor& size = ctx->input(1);
    if (size.dims() != 1) {
      return InvalidArgument("shape_t must be 1-dimensional{}",
                             size.shape().DebugString());
    }
    if (size.NumElements() != 2) {
      return InvalidArgument("shape_t must have two elements{}",
                             size.shape().DebugString());
    }
    d->rows = size.flat<int32_t>()[0];
    d->cols = size.flat<int32_t>()[1];
    if (d->rows <= 0 || d->cols <= 0) {
      return InvalidArgument("output dimensions must be positive");
    }
    d->scale_h = ResizeScale(d->in_h, d->rows, align_corners_);
    d->scale_w = ResizeScale(d->in_w, d->cols, align_corners_);
    return Status::Ok();
  }

  // The paddings' checks, in TensorFlow's words.
  Status Padded(OpKernelContext* ctx, PadConvDims* d) const {
    const Tensor& p = ctx->input(resize_ ? 2 : 1);
    const TensorShape resized({d->batch, d->rows, d->cols, d->depth});
    if (p.dims() != 2 || p.dim_size(1) != 2) {
      return InvalidArgument("paddings must be a matrix with 2 columns: {}",
                             p.shape().DebugString());
    }
    if (p.dim_size(0) != 4) {
      return InvalidArgument(
          "The first dimension of paddings must be the rank of inputs: 4 {} {}",
          p.shape().DebugString(), resized.DebugString());
    }
    auto v = p.flat<int32_t>();
    for (int k = 0; k < 4; ++k) {
      const int64_t before = v[2 * k], after = v[2 * k + 1],
                    size = resized.dim_size(k);
      if (before < 0 || after < 0) {
        return InvalidArgument("paddings must be non-negative: {} {}", before,
                               after);
      }
      if (offset_ == 0 && (before > size || after > size)) {
        return InvalidArgument(
            "paddings must be no greater than the dimension size: {}, {} "
            "greater than {}",
            before, after, size);
      }
      if (offset_ == 1 && (before >= size || after >= size)) {
        return InvalidArgument(
            "paddings must be less than the dimension size: {}, {} not less "
            "than {}",
            before, after, size);
      }
    }
    if (v[0] != 0 || v[1] != 0) {
      return InvalidArgument(
          "Fused mirror padding only support spatial padding, not batches: {}",
          p.DebugString());
    }
    if (v[6] != 0 || v[7] != 0) {
      return InvalidArgument(
          "Fused mirror padding only support spatial padding, not channels: {}",
          p.DebugString());
    }
    d->top = v[2];
    d->left = v[4];
    d->padded_h = v[2] + d->rows + v[3];
    d->padded_w = v[4] + d->cols + v[5];
    return Status::Ok();
  }

  // The filter's checks and the output size.
  Status Output(const Tensor& filter, PadConvDims* d) const {
    if (filter.dims() != 4) {
      return InvalidArgument("filter must be 4-dimensional: {}",
                             filter.shape().DebugString());
    }
    if (filter.dim_size(2) != d->depth) {
      return InvalidArgument(
          "input and filter must have the same depth: {} vs {}", d->depth,
          filter.dim_size(2));
    }
    d->fh = filter.dim_size(0);
    d->fw = filter.dim_size(1);
    d->out_depth = filter.dim_size(3);
    Window rows{d->padded_h, d->fh, 1, strides_[1]};
    Window cols{d->padded_w, d->fw, 1, strides_[2]};
    DFG_RETURN_IF_ERROR(ComputeWindow(padding_, &rows));
    DFG_RETURN_IF_ERROR(ComputeWindow(padding_, &cols));
    d->out_h = rows.out;
    d->out_w = cols.out;
    if (d->batch * d->out_h * d->out_w * d->out_depth == 0) {
      return InvalidArgument("Output tensor can't be empty");
    }
    // TensorFlow's fused kernel rounds VALID's (non-positive) slack up.
    const int64_t slack_h = (d->out_h - 1) * strides_[1] + d->fh - d->padded_h;
    const int64_t slack_w = (d->out_w - 1) * strides_[2] + d->fw - d->padded_w;
    const int64_t up = padding_ == Padding::kValid ? 1 : 0;
    d->top_offset = (slack_h + up) / 2;
    d->left_offset = (slack_w + up) / 2;
    return Status::Ok();
  }

  template <typename T>
  void Run(OpKernelContext* ctx, const PadConvDims& d, Tensor* out) const {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const int64_t k = d.fh * d.fw * d.depth;
    const int64_t patches = d.batch * d.out_h * d.out_w;
    std::vector<C> cols(patches * k), filter(k * d.out_depth),
        result(patches * d.out_depth);
    auto f = ctx->input(resize_ ? 3 : 2).flat<T>();
    for (size_t i = 0; i < filter.size(); ++i) filter[i] = Load(f[i]);
    const T* in = ctx->input(0).flat<T>().data();
    ParallelFor(
        ctx->intra_op_pool(), patches, k * 8, [&](int64_t p0, int64_t p1) {
          for (int64_t p = p0; p < p1; ++p) {
            const int64_t b = p / (d.out_h * d.out_w);
            const int64_t oy = (p / d.out_w) % d.out_h, ox = p % d.out_w;
            C* row = cols.data() + p * k;
            for (int64_t fy = 0; fy < d.fh; ++fy) {
              for (int64_t fx = 0; fx < d.fw; ++fx) {
                Sample(d, in, b, oy * strides_[1] - d.top_offset + fy,
                       ox * strides_[2] - d.left_offset + fx,
                       row + (fy * d.fw + fx) * d.depth);
              }
            }
          }
        });
    ParallelGemm(ctx->intra_op_pool(), false, false, patches, d.out_depth, k,
                 cols.data(), k, filter.data(), d.out_depth, result.data(),
                 d.out_depth);
    auto o = out->flat<T>();
    for (size_t i = 0; i < result.size(); ++i) o[i] = Store<T>(result[i]);
  }

  // The depth values of padded pixel (y, x) of image b (zeros outside).
  template <typename T, typename C>
  void Sample(const PadConvDims& d, const T* in, int64_t b, int64_t y,
              int64_t x, C* dst) const {
    if (y < 0 || y >= d.padded_h || x < 0 || x >= d.padded_w) {
      std::fill_n(dst, d.depth, C(0));
      return;
    }
    const float in_y = MirrorCoord(y, d.top, d.rows, offset_, d.scale_h);
    const float in_x = MirrorCoord(x, d.left, d.cols, offset_, d.scale_w);
    const int64_t y0 = static_cast<int64_t>(std::floor(in_y));
    const int64_t x0 = static_cast<int64_t>(std::floor(in_x));
    auto at = [&](int64_t yy, int64_t xx) {
      return in + ((b * d.in_h + yy) * d.in_w + xx) * d.depth;
    };
    if (!resize_) {  // nearest: the coordinates are whole
      const T* src = at(y0, x0);
      for (int64_t c = 0; c < d.depth; ++c) dst[c] = Load(src[c]);
      return;
    }
    const int64_t y1 =
        std::min(static_cast<int64_t>(std::ceil(in_y)), d.in_h - 1);
    const int64_t x1 =
        std::min(static_cast<int64_t>(std::ceil(in_x)), d.in_w - 1);
    // In T, as TensorFlow interpolates: half rounds after each operation.
    auto r = [](C v) { return Load(Store<T>(v)); };
    const C ly = r(in_y - y0), lx = r(in_x - x0);
    const T *tl = at(y0, x0), *tr = at(y0, x1), *bl = at(y1, x0),
            *br = at(y1, x1);
    for (int64_t c = 0; c < d.depth; ++c) {
      const C top = r(Load(tl[c]) + r(r(Load(tr[c]) - Load(tl[c])) * lx));
      const C bottom = r(Load(bl[c]) + r(r(Load(br[c]) - Load(bl[c])) * lx));
      dst[c] = r(top + r(r(bottom - top) * ly));
    }
  }

  bool resize_ = false;
  bool align_corners_ = false;
  int offset_ = 1;
  std::vector<int64_t> strides_;
  Padding padding_ = Padding::kValid;
};

class FusedPadOnlyConv2DOp : public FusedPadConv2DOp {
 public:
  explicit FusedPadOnlyConv2DOp(OpKernelConstruction* ctx)
      : FusedPadConv2DOp(ctx, false) {}
};
class FusedResizeAndPadConv2DOp : public FusedPadConv2DOp {
 public:
  explicit FusedResizeAndPadConv2DOp(OpKernelConstruction* ctx)
      : FusedPadConv2DOp(ctx, true) {}
};

// Conv: by its strides' length, a Conv2D or Conv3D kernel built from the
// same attrs (CHANNELS_LAST/FIRST as NHWC/NCHW or NDHWC/NCDHW) computes it.
// Like TensorFlow's CPU kernel: 2 or 3 spatial dims, batch_dims 1, groups 1.
class ConvOp : public OpKernel {
 public:
  explicit ConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> strides;
    std::string format;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("groups", &groups_));
    const bool conv3d = strides.size() == 5;
    NodeDef inner = ctx->def();
    inner.set_op(conv3d ? "Conv3D" : "Conv2D");
    auto& attrs = *inner.mutable_attr();
    for (const char* name : {"batch_dims", "groups"}) attrs.erase(name);
    if (conv3d) attrs.erase("explicit_paddings");
    const bool last = format == "CHANNELS_LAST";
    attrs["data_format"].set_s(conv3d ? (last ? "NDHWC" : "NCDHW")
                                      : (last ? "NHWC" : "NCHW"));
    if (attrs.count("dilations") && attrs["dilations"].list().i_size() == 0) {
      attrs.erase("dilations");  // Conv2D/Conv3D's default: all 1
    }
    auto kernel = KernelRegistry::Global().CreateKernel(
        inner, ctx->device_type(), ctx->input_types(), ctx->output_types());
    if (kernel.ok()) {
      inner_ = std::move(*kernel);
    } else {  // reported when computed, without the inner node's suffix
      const std::string& m = kernel.status().message();
      inner_status_ =
          Status(kernel.status().code(), m.substr(0, m.find("\n\t [[")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t spatial = ctx->input(0).dims() - batch_dims_ - 1;
    DFG_OP_REQUIRES(
        ctx, spatial == 2 || spatial == 3,
        InvalidArgument(
            "The input must have 2 or 3 spatial dimensions but got {}",
            spatial));
    DFG_OP_REQUIRES(
        ctx, groups_ == 1,
        Unimplemented("Grouped/Depthwise Convolutions are not supported yet."));
    DFG_OP_REQUIRES(ctx, batch_dims_ == 1,
                    Unimplemented("Conv supports only batch_dims 1 on CPU"));
    DFG_OP_REQUIRES_OK(ctx, inner_status_);
    inner_->Compute(ctx);
  }

 private:
  int64_t batch_dims_ = 1, groups_ = 1;
  std::unique_ptr<OpKernel> inner_;
  Status inner_status_;
};

}  // namespace

void RegisterFusedExtConvKernels(KernelRegistry* r) {
  r->Register<ConvOp>(
      "Conv", {TypeConstraint(
                  "T", TypeList<float, double, Half, BFloat16, int32_t>())});
  r->Register<FusedPadOnlyConv2DOp>(
      "FusedPadConv2D",
      {TypeConstraint("T", TypeList<float, double, Half, BFloat16>())});
  r->Register<FusedResizeAndPadConv2DOp>(
      "FusedResizeAndPadConv2D",
      {TypeConstraint("T", TypeList<float, double, Half>())});
}

}  // namespace dfg
