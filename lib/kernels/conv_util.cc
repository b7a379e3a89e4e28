// Sliding-window attrs and the NHWC convolution shared by the conv kernels.
//
// Float convolution lowers to GEMM: each output pixel's receptive field is
// copied into one row of a [pixels, kh*kw*in] matrix (im2col; padding cells
// are zeros), which is multiplied by the HWIO filter seen as a
// [kh*kw*in, out] matrix. Rows are processed in chunks so the im2col buffer
// stays bounded; a 1x1 stride-1 unpadded conv needs no im2col at all. Grouped
// convs run one GEMM per group on that group's channels and filter columns.
#include "lib/kernels/conv_util.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/onednn_conv.h"
#include "lib/kernels/simd/vec_math.h"

namespace dfg {

Status ParsePadding(const std::string& s, Padding* p) {
  if (s == "VALID") {
    *p = Padding::kValid;
  } else if (s == "SAME") {
    *p = Padding::kSame;
  } else if (s == "EXPLICIT") {
    *p = Padding::kExplicit;
  } else {
    return InvalidArgument("Unknown padding type: {}", s);
  }
  return Status::Ok();
}

Status ComputeWindow(Padding padding, Window* w) {
  if (w->stride <= 0) {
    return InvalidArgument("Stride must be > 0, but got {}", w->stride);
  }
  if (w->dilation < 1) {
    return InvalidArgument("Dilation rate must be >= 1, but got {}",
                           w->dilation);
  }
  const int64_t effective = (w->k - 1) * w->dilation + 1;
  switch (padding) {
    case Padding::kValid:
      w->out = (w->in - effective + w->stride) / w->stride;
      w->pad_before = w->pad_after = 0;
      break;
    case Padding::kSame: {
      w->out = (w->in + w->stride - 1) / w->stride;
      const int64_t needed =
          std::max<int64_t>(0, (w->out - 1) * w->stride + effective - w->in);
      w->pad_before = needed / 2;
      w->pad_after = needed - w->pad_before;
      break;
    }
    case Padding::kExplicit:
      w->out = (w->in + w->pad_before + w->pad_after - effective + w->stride) /
               w->stride;
      break;
  }
  if (w->out < 0) {
    return InvalidArgument(
        "Computed output size would be negative: {} [input_size: {}, "
        "effective_filter_size: {}, stride: {}]",
        w->out, w->in, effective, w->stride);
  }
  return Status::Ok();
}

Status CheckConvWindowSize(const std::vector<int64_t>& v, const char* field) {
  if (v.size() != 4) {
    return InvalidArgument("Sliding window {} field must specify 4 dimensions",
                           field);
  }
  return Status::Ok();
}

Status CheckConvWindowValues(const std::vector<int64_t>& v, const char* field,
                             int h, int w, int c, Code batch_depth_code) {
  if (v[0] != 1 || v[c] != 1) {
    return Status(batch_depth_code,
                  fmt::format("Current implementation does not yet support {} "
                              "in the batch and depth dimensions.",
                              field));
  }
  if (v[h] <= 0 || v[w] <= 0) {
    return Status(Code::kInvalidArgument,
                  std::string_view(field) == "strides"
                      ? "Row and column strides should be larger than 0."
                      : "Dilated rates should be larger than 0.");
  }
  return Status::Ok();
}

Status CheckExplicitPaddings(const std::vector<int64_t>& pads, Padding padding,
                             int h, int w, int c, bool list_negatives,
                             std::vector<int64_t>* rows_cols) {
  if (padding != Padding::kExplicit) {
    if (pads.empty()) return Status::Ok();
    return InvalidArgument(
        "explicit_paddings attribute must be empty if the padding attribute "
        "is not EXPLICIT");
  }
  if (pads.size() != 8) {
    return InvalidArgument(
        "explicit_paddings attribute must contain 8 values, but got: {}",
        pads.size());
  }
  for (int64_t p : pads) {
    if (p < 0) {
      return InvalidArgument(
          "All explicit padding values must be nonnegative, got {}",
          list_negatives ? VectorString(pads) : std::to_string(p));
    }
  }
  if (pads[0] != 0 || pads[1] != 0 || pads[2 * c] != 0 ||
      pads[2 * c + 1] != 0) {
    return InvalidArgument(
        "Nonzero explicit padding in the batch or depth dimensions is not "
        "supported");
  }
  *rows_cols = {pads[2 * h], pads[2 * h + 1], pads[2 * w], pads[2 * w + 1]};
  return Status::Ok();
}

Status ReadConv2DAttrs(OpKernelConstruction* ctx, Conv2DAttrs* a,
                       bool read_dilations) {
  std::string format = "NHWC";
  if (ctx->HasAttr("data_format")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  }
  if (format != "NHWC" && format != "NCHW") {
    return InvalidArgument("Invalid data format");
  }
  a->nhwc = format == "NHWC";
  const int h = a->nhwc ? 1 : 2, w = a->nhwc ? 2 : 3, c = a->nhwc ? 3 : 1;
  std::vector<int64_t> strides;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides));
  DFG_RETURN_IF_ERROR(CheckConvWindowSize(strides, "strides"));
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  if (read_dilations && ctx->HasAttr("dilations")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("dilations", &dilations));
  }
  DFG_RETURN_IF_ERROR(CheckConvWindowSize(dilations, "dilations"));
  DFG_RETURN_IF_ERROR(CheckConvWindowValues(strides, "strides", h, w, c,
                                            Code::kInvalidArgument));
  DFG_RETURN_IF_ERROR(CheckConvWindowValues(dilations, "dilations", h, w, c,
                                            Code::kInvalidArgument));
  a->stride_rows = strides[h];
  a->stride_cols = strides[w];
  a->dilation_rows = dilations[h];
  a->dilation_cols = dilations[w];
  std::string padding;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  DFG_RETURN_IF_ERROR(ParsePadding(padding, &a->padding));
  std::vector<int64_t> explicit_paddings;
  if (ctx->HasAttr("explicit_paddings")) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &explicit_paddings));
  }
  return CheckExplicitPaddings(explicit_paddings, a->padding, h, w, c,
                               /*list_negatives=*/true, &a->explicit_paddings);
}

Status ComputeConvDims(const Conv2DAttrs& a, const Tensor& input,
                       const Tensor& filter, ConvDims* d) {
  if (input.dims() != 4) {
    return InvalidArgument("input must be 4-dimensional{}",
                           input.shape().DebugString());
  }
  if (filter.dims() != 4) {
    return InvalidArgument("filter must be 4-dimensional: {}",
                           filter.shape().DebugString());
  }
  const int h = a.nhwc ? 1 : 2, w = a.nhwc ? 2 : 3, c = a.nhwc ? 3 : 1;
  d->batch = input.dim_size(0);
  d->in_rows = input.dim_size(h);
  d->in_cols = input.dim_size(w);
  d->in_depth = input.dim_size(c);
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  d->patch_depth = filter.dim_size(2);
  d->out_depth = filter.dim_size(3);
  if (d->patch_depth <= 0) {
    return InvalidArgument("filter depth must be stricly positive, got {}",
                           d->patch_depth);
  }
  if (d->in_depth % d->patch_depth != 0) {
    return InvalidArgument(
        "input depth must be evenly divisible by filter depth: {} vs {}",
        d->in_depth, d->patch_depth);
  }
  d->rows = Window{d->in_rows, d->filter_rows, a.dilation_rows, a.stride_rows};
  d->cols = Window{d->in_cols, d->filter_cols, a.dilation_cols, a.stride_cols};
  if (a.padding == Padding::kExplicit) {
    d->rows.pad_before = a.explicit_paddings[0];
    d->rows.pad_after = a.explicit_paddings[1];
    d->cols.pad_before = a.explicit_paddings[2];
    d->cols.pad_after = a.explicit_paddings[3];
  }
  DFG_RETURN_IF_ERROR(ComputeWindow(a.padding, &d->rows));
  DFG_RETURN_IF_ERROR(ComputeWindow(a.padding, &d->cols));
  return Status::Ok();
}

namespace {

// Copies the receptive fields of output pixels [p0, p1) (flattened over
// batch, rows, cols) for the channels [c0, c0 + depth) into `col`, one row
// of kh*kw*depth per pixel.
template <typename T>
void Im2Col(const ConvDims& d, const T* in, int64_t c0, int64_t depth,
            int64_t p0, int64_t p1, T* col) {
  const int64_t row_len = d.filter_rows * d.filter_cols * depth;
  const int64_t pixels = d.rows.out * d.cols.out;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t b = p / pixels, oy = (p % pixels) / d.cols.out,
                  ox = p % d.cols.out;
    T* dst = col + (p - p0) * row_len;
    for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
      const int64_t iy =
          oy * d.rows.stride - d.rows.pad_before + ky * d.rows.dilation;
      for (int64_t kx = 0; kx < d.filter_cols; ++kx, dst += depth) {
        const int64_t ix =
            ox * d.cols.stride - d.cols.pad_before + kx * d.cols.dilation;
        if (iy < 0 || iy >= d.in_rows || ix < 0 || ix >= d.in_cols) {
          std::fill(dst, dst + depth, T(0));
          continue;
        }
        const T* src =
            in + ((b * d.in_rows + iy) * d.in_cols + ix) * d.in_depth + c0;
        std::memcpy(dst, src, depth * sizeof(T));
      }
    }
  }
}

// Bound on the im2col buffer, in elements (16 MB of floats).
constexpr int64_t kMaxColElements = int64_t{4} << 20;

template <typename T>
void GemmConv(ThreadPoolInterface* pool, const ConvDims& d, int64_t groups,
              const T* in, const T* filter, T* out) {
  const int64_t total = d.batch * d.rows.out * d.cols.out;
  const int64_t depth = d.patch_depth;
  const int64_t k = d.filter_rows * d.filter_cols * depth;
  const int64_t out_per_group = d.out_depth / groups;
  const bool direct = groups == 1 && d.filter_rows == 1 && d.filter_cols == 1 &&
                      d.rows.stride == 1 && d.cols.stride == 1 &&
                      d.rows.pad_before == 0 && d.cols.pad_before == 0 &&
                      d.rows.out == d.in_rows && d.cols.out == d.in_cols;
  if (direct) {  // The input already is the [pixels, in] matrix.
    ParallelGemm(pool, false, false, total, d.out_depth, k, in, k, filter,
                 d.out_depth, out, d.out_depth);
    return;
  }
  const int64_t chunk = std::max<int64_t>(1, kMaxColElements / k);
  std::vector<T> col(std::min(chunk, total) * k);
  for (int64_t p0 = 0; p0 < total; p0 += chunk) {
    const int64_t p1 = std::min(total, p0 + chunk);
    for (int64_t g = 0; g < groups; ++g) {
      ParallelFor(pool, p1 - p0, k, [&](int64_t b, int64_t e) {
        Im2Col(d, in, g * depth, depth, p0 + b, p0 + e, col.data() + b * k);
      });
      ParallelGemm(pool, false, false, p1 - p0, out_per_group, k, col.data(), k,
                   filter + g * out_per_group, d.out_depth,
                   out + p0 * d.out_depth + g * out_per_group, d.out_depth);
    }
  }
}

// Any dtype: out[b,y,x,o] = sum over the window and the group's channels.
template <typename T>
void DirectConv(ThreadPoolInterface* pool, const ConvDims& d, int64_t groups,
                const T* in, const T* filter, T* out) {
  using C = CalcType<T>;
  const int64_t out_per_group = d.out_depth / groups;
  const int64_t cost =
      d.filter_rows * d.filter_cols * d.patch_depth * d.out_depth * 2;
  ForEachConvWindow<C>(
      pool, d, d.out_depth, cost, in, out,
      [&](C* acc, const T* src, int64_t tap) {
        const T* f = filter + tap * d.patch_depth * d.out_depth;
        for (int64_t o = 0; o < d.out_depth; ++o) {
          const int64_t c0 = (o / out_per_group) * d.patch_depth;
          C sum = 0;
          for (int64_t c = 0; c < d.patch_depth; ++c) {
            sum += Load(src[c0 + c]) * Load(f[c * d.out_depth + o]);
          }
          acc[o] += sum;
        }
      });
}

}  // namespace

namespace {

// y = act(y) over n floats; one loop per activation so that each
// vectorizes.
void Activate(ConvActivation act, float alpha, float* y, int64_t n) {
  switch (act) {
    case ConvActivation::kNone:
      return;
    case ConvActivation::kRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] > 0 ? y[i] : 0.0f;
      return;
    case ConvActivation::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] > 0 ? y[i] : y[i] * alpha;
      return;
    case ConvActivation::kRelu6:
      // min(max(y, 0), 6) as std::min / std::max compute it (NaN and -0
      // kept, as TensorFlow's Relu6 does), at the machine's vector width:
      // MobileNets apply it to most of their convolutions' outputs.
      simd::Unary(simd::UnaryOp::kRelu6, y, y, static_cast<size_t>(n));
      return;
    case ConvActivation::kElu:
      simd::Unary(simd::UnaryOp::kElu, y, y, static_cast<size_t>(n));
      return;
  }
}

}  // namespace

void ApplyConvEpilogue(const ConvEpilogue& e, int64_t channels, float* y,
                       int64_t size) {
  if (e.scale != nullptr || e.bias != nullptr) {
    for (int64_t r = 0; r < size; r += channels) {
      float* row = y + r;
      if (e.scale != nullptr) {
        for (int64_t c = 0; c < channels; ++c) row[c] *= e.scale[c];
      }
      if (e.bias != nullptr) {
        for (int64_t c = 0; c < channels; ++c) row[c] += e.bias[c];
      }
    }
  }
  Activate(e.activation, e.alpha, y, size);
}

Status Conv2DCompute(ThreadPoolInterface* pool, const ConvDims& d,
                     const Tensor& input, const Tensor& filter,
                     Tensor* output) {
  bool unused = false;
  return Conv2DCompute(pool, d, input, filter, ConvEpilogue(), output, &unused);
}

Status Conv2DCompute(ThreadPoolInterface* pool, const ConvDims& d,
                     const Tensor& input, const Tensor& filter,
                     const ConvEpilogue& epilogue, Tensor* output,
                     bool* epilogue_done) {
  *epilogue_done = false;
  if (filter.NumElements() <= 0) {
    return InvalidArgument(
        "filter must not have zero elements (i.e. all dimensions must be "
        "non-zero)");
  }
  const int64_t groups = d.in_depth / d.patch_depth;
  if (groups <= 0) {
    return InvalidArgument("number of groups must be stricly positive, got {}",
                           groups);
  }
  if (d.out_depth % groups != 0 || d.out_depth < groups) {
    return InvalidArgument(
        "output depth must be evenly divisible by number of groups: {} vs {}",
        d.out_depth, groups);
  }
  if (output->NumElements() == 0) return Status::Ok();
  Status status;
  bool ok = Dispatch(
      TypeList<float, double, Half, BFloat16, int32_t>(), input.dtype(),
      [&](auto v) {
        using T = decltype(v);
        const T* in = static_cast<const T*>(input.data());
        const T* f = static_cast<const T*>(filter.data());
        T* out = static_cast<T*>(output->data());
        bool ran = false;
        if (input.NumElements() == 0) {
          std::fill(out, out + output->NumElements(), Store<T>(0));
        } else if constexpr (std::is_same_v<T, float> ||
                             std::is_same_v<T, double>) {
          if constexpr (std::is_same_v<T, float>) {
            status = OneDnnConv2D(pool, d, groups, in, f, epilogue, out, &ran);
            *epilogue_done = ran;
          }
          if (!ran && status.ok()) {
            GemmConv(pool, d, groups, in, f, out);
          }
        } else {
          DirectConv(pool, d, groups, in, f, out);
        }
      });
  if (!ok) {
    return InvalidArgument("Conv2D does not support {}",
                           DataTypeString(input.dtype()));
  }
  return status;
}

}  // namespace dfg
