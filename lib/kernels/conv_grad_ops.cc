// Conv2DBackpropInput: the gradient of Conv2D with respect to its input,
// i.e. the transposed convolution of decoders; Conv2DBackpropFilter, its
// gradient with respect to the filter (im2col, then colᵀ · dy as one GEMM
// per chunk of images). Attrs, checks and error texts
// follow TensorFlow's Conv2DBackpropInputOp (conv_grad_input_ops.h,
// conv_grad_shape_utils.cc); like TensorFlow's CPU kernel it takes NHWC
// only and no dilation.
//
// Float/double: per image, col[out_pixels, kh*kw*in] = dy[out_pixels, out] x
// filter[kh*kw*in, out]^T with one sgemm/dgemm (several images at once while
// the col buffer stays bounded), then col2im sums each col row back into the
// input pixels its window covered. col2im is split by input row (a task
// adds, for its row, the col entries of the window rows landing on it), so
// it parallelizes without write conflicts. half/bfloat16 convert to float
// around that path; int32 runs direct loops with wrapping arithmetic.
// Float Conv2DBackpropInput runs through oneDNN's backward-data convolution
// instead when the pool's threads divide the batch (onednn_conv.h): 1.5
// against 1.8 ms on conv_grad_bench's shape, 1 thread.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/onednn_conv.h"

namespace dfg {
namespace {

// The attrs, read and checked in the order of TensorFlow's constructor.
Status ReadBackpropAttrs(OpKernelConstruction* ctx, bool filter,
                         int64_t* stride_rows, int64_t* stride_cols,
                         Padding* padding,
                         std::vector<int64_t>* explicit_paddings) {
  std::string format;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW") {
    return InvalidArgument("Invalid data format");
  }
  const bool nhwc = format == "NHWC";
  const int h = nhwc ? 1 : 2, w = nhwc ? 2 : 3, c = nhwc ? 3 : 1;
  std::vector<int64_t> strides, dilations;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides));
  DFG_RETURN_IF_ERROR(CheckConvWindowSize(strides, "strides"));
  DFG_RETURN_IF_ERROR(
      CheckConvWindowValues(strides, "strides", h, w, c, Code::kUnimplemented));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("dilations", &dilations));
  DFG_RETURN_IF_ERROR(CheckConvWindowSize(dilations, "dilations"));
  DFG_RETURN_IF_ERROR(CheckConvWindowValues(dilations, "dilations", h, w, c,
                                            Code::kUnimplemented));
  std::string padding_name;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding_name));
  DFG_RETURN_IF_ERROR(ParsePadding(padding_name, padding));
  std::vector<int64_t> pads;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &pads));
  DFG_RETURN_IF_ERROR(CheckExplicitPaddings(
      pads, *padding, h, w, c, /*list_negatives=*/false, explicit_paddings));
  const char* label = filter ? "Conv2DCustomBackpropFilterOp"
                             : "Conv2DBackpropInputOp [CPU or GPU(int32)]";
  if (!nhwc) {
    return InvalidArgument("{} only supports NHWC data format.", label);
  }
  if (dilations[h] != 1 || dilations[w] != 1) {
    return InvalidArgument("{} not yet support dilation rates larger than 1.",
                           label);
  }
  *stride_rows = strides[h];
  *stride_cols = strides[w];
  return Status::Ok();
}

// Conv2DBackpropComputeInputShape: input_sizes holds 4 dims, or 2 (H, W)
// with batch from out_backprop and depth from the filter.
Status InputShapeFromSizes(const Tensor& sizes, const Tensor& filter,
                           const Tensor& out_backprop, TensorShape* shape) {
  if (sizes.dims() != 1) {
    return InvalidArgument(
        "Conv2DBackpropInput: input_sizes input must be 1-dim, not {}",
        sizes.dims());
  }
  const std::vector<int64_t> v = IntValues(sizes);
  if (v.size() == 4) {
    for (int64_t d : v) {
      if (d < 0) return InvalidArgument("Dimension {} must be >= 0", d);
    }
    if (!TensorShape::IsValid(v)) {
      return InvalidArgument("Shape {} is too large", VectorString(v));
    }
    *shape = TensorShape(std::span<const int64_t>(v));
    return Status::Ok();
  }
  if (v.size() == 2) {
    if (v[0] < 0 || v[1] < 0) {
      return InvalidArgument(
          "Conv2DBackpropInput: elements of input_sizes must be >= 0, not "
          "{}x{}",
          v[0], v[1]);
    }
    const int64_t batch =
        out_backprop.dims() > 0 ? out_backprop.dim_size(0) : 0;
    const int64_t depth = filter.dims() > 2 ? filter.dim_size(2) : 0;
    *shape = TensorShape({batch, v[0], v[1], depth});
    return Status::Ok();
  }
  return InvalidArgument(
      "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 "
      "values, but got: {}",
      v.size());
}

// One spatial dim: checks out_backprop's size against the forward conv.
Status CheckSpatialDim(const char* label, int dim, Padding padding,
                       int64_t pad_before, int64_t pad_after,
                       const TensorShape& in, const TensorShape& filter,
                       const Tensor& dy, int64_t stride, Window* w) {
  *w = Window{in.dim_size(dim), filter.dim_size(dim - 1), 1, stride};
  w->pad_before = pad_before;
  w->pad_after = pad_after;
  DFG_RETURN_IF_ERROR(ComputeWindow(padding, w));
  const int64_t actual = dy.dim_size(dim);
  if (actual != w->out) {
    return InvalidArgument(
        "{}: Size of out_backprop doesn't match computed: actual = {}, "
        "computed = {} spatial_dim: {} input: {} filter: {} output: {} "
        "stride: {} dilation: 1",
        label, actual, w->out, dim, w->in, w->k, actual, stride);
  }
  return Status::Ok();
}

// c[m, n] = a[m, k] · b[n, k]ᵀ.
template <typename T>
void Gemm(ThreadPoolInterface* pool, int64_t m, int64_t n, int64_t k,
          const T* a, const T* b, T* c) {
  ParallelGemm(pool, false, true, m, n, k, a, k, b, k, c, n);
}

// Bound on the col buffer, in elements (32 MB of floats); one image always
// fits, whatever its size.
constexpr int64_t kMaxColElements = int64_t{8} << 20;

// in[b, y, x, :] = sum over the (oy, ox, ky, kx) with oy*stride - pad + ky
// == y (same for x) of col[b, oy, ox, ky, kx, :], for images [b0, b1) and
// `col` holding those images. Each task owns whole input rows.
template <typename T>
void Col2Im(ThreadPoolInterface* pool, const ConvDims& d, int64_t b0,
            int64_t b1, const T* col, T* in) {
  const int64_t depth = d.in_depth;
  const int64_t row_len = d.filter_rows * d.filter_cols * depth;
  const Window& R = d.rows;
  const Window& C = d.cols;
  ParallelFor(
      pool, (b1 - b0) * d.in_rows, d.in_cols * depth * 4,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t b = r / d.in_rows, y = r % d.in_rows;
          T* dst_row = in + ((b0 + b) * d.in_rows + y) * d.in_cols * depth;
          std::fill(dst_row, dst_row + d.in_cols * depth, T(0));
          for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
            const int64_t ty = y + R.pad_before - ky;
            if (ty < 0 || ty % R.stride != 0 || ty / R.stride >= R.out) {
              continue;
            }
            // Within row y the writes are scattered: (ox, kx) -> x.
            const int64_t oy = ty / R.stride;
            const T* src_row = col + (b * R.out + oy) * C.out * row_len +
                               ky * d.filter_cols * depth;
            for (int64_t ox = 0; ox < C.out; ++ox) {
              const T* src = src_row + ox * row_len;
              const int64_t x0 = ox * C.stride - C.pad_before;
              for (int64_t kx = 0; kx < d.filter_cols; ++kx, src += depth) {
                const int64_t x = x0 + kx;
                if (x < 0 || x >= d.in_cols) continue;
                T* __restrict dst = dst_row + x * depth;
                for (int64_t c = 0; c < depth; ++c) dst[c] += src[c];
              }
            }
          }
        }
      });
}

template <typename T>
void GemmBackprop(ThreadPoolInterface* pool, const ConvDims& d, const T* dy,
                  const T* filter, T* in) {
  const int64_t pixels = d.rows.out * d.cols.out;
  const int64_t k = d.filter_rows * d.filter_cols * d.in_depth;
  const int64_t per_image = pixels * k;
  const int64_t images = std::clamp<int64_t>(
      kMaxColElements / std::max<int64_t>(per_image, 1), 1, d.batch);
  std::vector<T> col(images * per_image);
  for (int64_t b0 = 0; b0 < d.batch; b0 += images) {
    const int64_t b1 = std::min(d.batch, b0 + images);
    Gemm(pool, (b1 - b0) * pixels, k, d.out_depth,
         dy + b0 * pixels * d.out_depth, filter, col.data());
    Col2Im(pool, d, b0, b1, col.data(), in);
  }
}

// int32 (and any T): in[b,y,x,c] = sum dy[b,oy,ox,o] * filter[ky,kx,c,o],
// in unsigned arithmetic so overflow wraps as in TensorFlow.
void DirectBackprop(ThreadPoolInterface* pool, const ConvDims& d,
                    const int32_t* dy, const int32_t* filter, int32_t* in) {
  const Window& R = d.rows;
  const Window& C = d.cols;
  const int64_t od = d.out_depth, id = d.in_depth;
  ParallelFor(
      pool, d.batch * d.in_rows * d.in_cols,
      d.filter_rows * d.filter_cols * id * od, [&](int64_t p0, int64_t p1) {
        std::vector<uint32_t> acc(id);
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t b = p / (d.in_rows * d.in_cols);
          const int64_t y = (p / d.in_cols) % d.in_rows, x = p % d.in_cols;
          std::fill(acc.begin(), acc.end(), 0u);
          for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
            const int64_t ty = y + R.pad_before - ky;
            if (ty < 0 || ty % R.stride != 0 || ty / R.stride >= R.out) {
              continue;
            }
            for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
              const int64_t tx = x + C.pad_before - kx;
              if (tx < 0 || tx % C.stride != 0 || tx / C.stride >= C.out) {
                continue;
              }
              const int32_t* g =
                  dy +
                  ((b * R.out + ty / R.stride) * C.out + tx / C.stride) * od;
              const int32_t* f = filter + (ky * d.filter_cols + kx) * id * od;
              for (int64_t c = 0; c < id; ++c) {
                uint32_t sum = 0;
                for (int64_t o = 0; o < od; ++o) {
                  sum += static_cast<uint32_t>(g[o]) *
                         static_cast<uint32_t>(f[c * od + o]);
                }
                acc[c] += sum;
              }
            }
          }
          for (int64_t c = 0; c < id; ++c) {
            in[p * id + c] = static_cast<int32_t>(acc[c]);
          }
        }
      });
}

template <typename T>
std::vector<float> ToFloat(const Tensor& t) {
  std::vector<float> out(t.NumElements());
  const T* src = static_cast<const T*>(t.data());
  for (size_t i = 0; i < out.size(); ++i) out[i] = Load(src[i]);
  return out;
}

// ConvBackpropComputeDimensionsV2 with the CPU kernels' depth checks.
Status ComputeBackpropDims(const char* kLabel, const TensorShape& in,
                           const TensorShape& filter, const Tensor& dy,
                           Padding padding,
                           const std::vector<int64_t>& explicit_paddings,
                           int64_t stride_rows, int64_t stride_cols,
                           ConvDims* d) {
  if (in.dims() != 4) {
    return InvalidArgument("{}: input must be 4-dimensional", kLabel);
  }
  if (filter.dims() != 4) {
    return InvalidArgument("{}: filter must be 4-dimensional", kLabel);
  }
  if (dy.dims() != 4) {
    return InvalidArgument("{}: out_backprop must be 4-dimensional", kLabel);
  }
  d->batch = in.dim_size(0);
  if (d->batch != dy.dim_size(0)) {
    return InvalidArgument(
        "{}: input and out_backprop must have the same batch size. Input "
        "batch: {}, outbackprop batch: {}, batch_dim: 0",
        kLabel, d->batch, dy.dim_size(0));
  }
  d->in_rows = in.dim_size(1);
  d->in_cols = in.dim_size(2);
  d->in_depth = in.dim_size(3);
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  d->patch_depth = filter.dim_size(2);
  d->out_depth = filter.dim_size(3);
  if (d->patch_depth <= 0) {
    return InvalidArgument(
        "{}: filter depth must be strictly greated than zero", kLabel);
  }
  if (d->in_depth % d->patch_depth != 0) {
    return InvalidArgument(
        "{}: input depth must be evenly divisible by filter depth", kLabel);
  }
  if (d->out_depth != dy.dim_size(3)) {
    return InvalidArgument(
        "{}: filter and out_backprop must have the same out_depth", kLabel);
  }
  const std::vector<int64_t>& p = explicit_paddings;
  const bool ex = padding == Padding::kExplicit;
  DFG_RETURN_IF_ERROR(CheckSpatialDim(kLabel, 1, padding, ex ? p[0] : 0,
                                      ex ? p[1] : 0, in, filter, dy,
                                      stride_rows, &d->rows));
  DFG_RETURN_IF_ERROR(CheckSpatialDim(kLabel, 2, padding, ex ? p[2] : 0,
                                      ex ? p[3] : 0, in, filter, dy,
                                      stride_cols, &d->cols));
  // TensorFlow's CPU kernel has no grouped backprop.
  if (d->in_depth != d->patch_depth) {
    return InvalidArgument(
        "Computed input depth {} doesn't match filter input depth {}",
        d->in_depth, d->patch_depth);
  }
  return Status::Ok();
}

class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, ReadBackpropAttrs(ctx, false, &stride_rows_, &stride_cols_,
                               &padding_, &explicit_paddings_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    TensorShape in_shape;
    DFG_OP_REQUIRES_OK(
        ctx, InputShapeFromSizes(ctx->input(0), filter, dy, &in_shape));
    ConvDims d;
    DFG_OP_REQUIRES_OK(
        ctx, ComputeBackpropDims(
                 "Conv2DBackpropInput", in_shape, filter.shape(), dy, padding_,
                 explicit_paddings_, stride_rows_, stride_cols_, &d));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    if (out->NumElements() == 0) return;
    ThreadPoolInterface* pool = ctx->intra_op_pool();
    if (dy.NumElements() == 0 || filter.NumElements() == 0) {
      std::memset(out->data(), 0, out->TotalBytes());
      return;
    }
    Dispatch(
        TypeList<float, double, Half, BFloat16, int32_t>(), dy.dtype(),
        [&](auto v) {
          using T = decltype(v);
          T* in = static_cast<T*>(out->data());
          if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
            if constexpr (std::is_same_v<T, float>) {
              bool ran = false;
              DFG_OP_REQUIRES_OK(ctx,
                                 OneDnnConv2DBackpropInput(
                                     pool, d, dy.flat<float>().data(),
                                     filter.flat<float>().data(), in, &ran));
              if (ran) return;
            }
            GemmBackprop(pool, d, static_cast<const T*>(dy.data()),
                         static_cast<const T*>(filter.data()), in);
          } else if constexpr (kIsHalfLike<T>) {
            const std::vector<float> g = ToFloat<T>(dy), f = ToFloat<T>(filter);
            std::vector<float> result(out->NumElements());
            GemmBackprop(pool, d, g.data(), f.data(), result.data());
            for (size_t i = 0; i < result.size(); ++i) {
              in[i] = Store<T>(result[i]);
            }
          } else {
            DirectBackprop(pool, d, static_cast<const int32_t*>(dy.data()),
                           static_cast<const int32_t*>(filter.data()), in);
          }
        });
  }

 private:
  int64_t stride_rows_ = 1, stride_cols_ = 1;
  Padding padding_ = Padding::kValid;
  std::vector<int64_t> explicit_paddings_;
};

// col[(b, oy, ox), (ky, kx, c)] = x[b, oy*s - pad + ky, ox*s - pad + kx, c]
// (0 outside), for images [b0, b1).
template <typename T>
void Im2Col(ThreadPoolInterface* pool, const ConvDims& d, const T* x,
            int64_t b0, int64_t b1, T* col) {
  const Window& R = d.rows;
  const Window& C = d.cols;
  const int64_t depth = d.in_depth;
  const int64_t row_len = d.filter_rows * d.filter_cols * depth;
  ParallelFor(
      pool, (b1 - b0) * R.out * C.out, row_len, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t b = b0 + p / (R.out * C.out);
          const int64_t oy = (p / C.out) % R.out, ox = p % C.out;
          T* dst = col + p * row_len;
          for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
            const int64_t y = oy * R.stride - R.pad_before + ky;
            for (int64_t kx = 0; kx < d.filter_cols; ++kx, dst += depth) {
              const int64_t xx = ox * C.stride - C.pad_before + kx;
              if (y < 0 || y >= d.in_rows || xx < 0 || xx >= d.in_cols) {
                std::fill(dst, dst + depth, T(0));
              } else {
                const T* src =
                    x + ((b * d.in_rows + y) * d.in_cols + xx) * depth;
                std::copy(src, src + depth, dst);
              }
            }
          }
        }
      });
}

// dW[(ky, kx, c), o] = sum over images and output pixels of col · dy: one
// GEMM colᵀ · dy per chunk of images, summed.
template <typename T>
void GemmFilterBackprop(ThreadPoolInterface* pool, const ConvDims& d,
                        const T* x, const T* dy, T* dw) {
  const int64_t pixels = d.rows.out * d.cols.out;
  const int64_t k = d.filter_rows * d.filter_cols * d.in_depth;
  const int64_t per_image = pixels * k;
  const int64_t images = std::clamp<int64_t>(
      kMaxColElements / std::max<int64_t>(per_image, 1), 1, d.batch);
  std::vector<T> col(images * per_image), part(k * d.out_depth);
  std::fill(dw, dw + k * d.out_depth, T(0));
  for (int64_t b0 = 0; b0 < d.batch; b0 += images) {
    const int64_t b1 = std::min(d.batch, b0 + images);
    Im2Col(pool, d, x, b0, b1, col.data());
    ParallelGemm(pool, true, false, k, d.out_depth, (b1 - b0) * pixels,
                 col.data(), k, dy + b0 * pixels * d.out_depth, d.out_depth,
                 b0 == 0 ? dw : part.data(), d.out_depth);
    if (b0 > 0) {
      for (size_t i = 0; i < part.size(); ++i) dw[i] += part[i];
    }
  }
}

class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, ReadBackpropAttrs(ctx, true, &stride_rows_, &stride_cols_,
                               &padding_, &explicit_paddings_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    DFG_OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.NumElements() == 4,
                    InvalidArgument("Conv2DBackpropFilter: filter_sizes input "
                                    "must be 1-dim, not {}",
                                    sizes.dims()));
    const std::vector<int64_t> fs = IntValues(sizes);
    DFG_OP_REQUIRES(
        ctx, TensorShape::IsValid(fs),
        InvalidArgument("Invalid filter_sizes {}", VectorString(fs)));
    const TensorShape filter_shape{std::span<const int64_t>(fs)};
    ConvDims d;
    DFG_OP_REQUIRES_OK(
        ctx, ComputeBackpropDims("Conv2DBackpropFilter", x.shape(),
                                 filter_shape, dy, padding_, explicit_paddings_,
                                 stride_rows_, stride_cols_, &d));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    if (out->NumElements() == 0) return;
    ThreadPoolInterface* pool = ctx->intra_op_pool();
    if (x.NumElements() == 0 || dy.NumElements() == 0) {
      std::memset(out->data(), 0, out->TotalBytes());
      return;
    }
    Dispatch(FloatTypes(), dy.dtype(), [&](auto v) {
      using T = decltype(v);
      T* dw = static_cast<T*>(out->data());
      if constexpr (kIsHalfLike<T>) {
        const std::vector<float> xf = ToFloat<T>(x), g = ToFloat<T>(dy);
        std::vector<float> result(out->NumElements());
        GemmFilterBackprop(pool, d, xf.data(), g.data(), result.data());
        for (size_t i = 0; i < result.size(); ++i) dw[i] = Store<T>(result[i]);
      } else {
        GemmFilterBackprop(pool, d, static_cast<const T*>(x.data()),
                           static_cast<const T*>(dy.data()), dw);
      }
    });
  }

 private:
  int64_t stride_rows_ = 1, stride_cols_ = 1;
  Padding padding_ = Padding::kValid;
  std::vector<int64_t> explicit_paddings_;
};

}  // namespace

void RegisterConvGradKernels(KernelRegistry* r) {
  r->Register<Conv2DBackpropFilterOp>("Conv2DBackpropFilter",
                                      {TypeConstraint("T", FloatTypes())});
  r->Register<Conv2DBackpropInputOp>(
      "Conv2DBackpropInput",
      {TypeConstraint("T",
                      TypeList<float, double, Half, BFloat16, int32_t>())});
}

}  // namespace dfg
