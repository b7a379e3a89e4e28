// Internal: what Conv2D, DepthwiseConv2dNative, _FusedConv2D and the pooling
// kernels share: padding kinds, windowed output sizes, the strides /
// dilations / explicit_paddings attrs with TensorFlow's checks and error
// texts, and the NHWC convolution itself (im2col + sgemm for float).
#ifndef DFG_LIB_KERNELS_CONV_UTIL_H_
#define DFG_LIB_KERNELS_CONV_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/intra_op_pool.h"
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/tensor.h"

namespace dfg {

enum class Padding { kValid, kSame, kExplicit };

// One spatial dim of a sliding window. pad_before/pad_after are inputs for
// kExplicit and outputs otherwise.
struct Window {
  int64_t in = 0, k = 1, dilation = 1, stride = 1;
  int64_t pad_before = 0, pad_after = 0;
  int64_t out = 0;
};

// TensorFlow's GetWindowedOutputSizeVerbose: fills w->out (and the pads for
// VALID/SAME). Errors: "Stride must be > 0, but got <s>", "Computed output
// size would be negative: <o> [input_size: <i>, effective_filter_size: <e>,
// stride: <s>]".
Status ComputeWindow(Padding padding, Window* w);

// Attrs of a 2-D sliding-window op: padding, strides, dilations (absent →
// 1s), explicit_paddings, data_format.
struct Conv2DAttrs {
  Padding padding = Padding::kValid;
  bool nhwc = true;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  std::vector<int64_t> explicit_paddings;  // 8 entries for kExplicit
};

// Reads and checks the attrs as TensorFlow's InitConv2DParameters.
// `read_dilations` false: the `dilations` attr is neither read nor checked and
// the dilations stay 1 (TensorFlow's CPU DepthwiseConv2dNative never reads
// it).
Status ReadConv2DAttrs(OpKernelConstruction* ctx, Conv2DAttrs* attrs,
                       bool read_dilations = true);
// Parses "SAME"/"VALID"/"EXPLICIT".
Status ParsePadding(const std::string& s, Padding* p);

// The checks TensorFlow's convolution constructors share, in its words.
// `field` is "strides" or "dilations"; h, w, c index the rows, columns and
// depth of the data format. CheckConvWindowSize: 4 entries.
// CheckConvWindowValues: 1 in batch and depth (else `batch_depth_code`:
// kInvalidArgument in Conv2D, kUnimplemented in its gradients), rows and
// columns above 0.
Status CheckConvWindowSize(const std::vector<int64_t>& v, const char* field);
Status CheckConvWindowValues(const std::vector<int64_t>& v, const char* field,
                             int h, int w, int c, Code batch_depth_code);
// The explicit_paddings attr against `padding`: 8 non-negative values with 0
// in batch and depth for kExplicit (kept as rows before/after, cols
// before/after in *rows_cols), none otherwise. `list_negatives`: a negative
// value's message lists all values (Conv2D) or names the one (gradients).
Status CheckExplicitPaddings(const std::vector<int64_t>& pads, Padding padding,
                             int h, int w, int c, bool list_negatives,
                             std::vector<int64_t>* rows_cols);

// The dimensions of an NHWC Conv2D, checked like ComputeConv2DDimension.
struct ConvDims {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, patch_depth = 0, out_depth = 0;
  Window rows, cols;
};
Status ComputeConvDims(const Conv2DAttrs& attrs, const Tensor& input,
                       const Tensor& filter, ConvDims* dims);

// The outer loop of the direct (window by window) NHWC convolutions, on
// `pool`: for each output pixel p (b, oy, ox), out_depth accumulators of C
// start at 0; tap(acc, src, k) adds filter tap k = ky * filter_cols + kx for
// each tap whose input pixel is inside the image (src: its in_depth values);
// then out[p * out_depth + o] = Store<T>(acc[o]). `cost`: per pixel.
template <typename C, typename T, typename Tap>
void ForEachConvWindow(ThreadPoolInterface* pool, const ConvDims& d,
                       int64_t out_depth, int64_t cost, const T* in, T* out,
                       const Tap& tap) {
  const int64_t pixels = d.rows.out * d.cols.out;
  ParallelFor(pool, d.batch * pixels, cost, [&](int64_t p0, int64_t p1) {
    std::vector<C> acc(out_depth);
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t b = p / pixels, oy = (p % pixels) / d.cols.out,
                    ox = p % d.cols.out;
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t ky = 0; ky < d.filter_rows; ++ky) {
        const int64_t iy =
            oy * d.rows.stride - d.rows.pad_before + ky * d.rows.dilation;
        if (iy < 0 || iy >= d.in_rows) continue;
        for (int64_t kx = 0; kx < d.filter_cols; ++kx) {
          const int64_t ix =
              ox * d.cols.stride - d.cols.pad_before + kx * d.cols.dilation;
          if (ix < 0 || ix >= d.in_cols) continue;
          tap(acc.data(),
              in + ((b * d.in_rows + iy) * d.in_cols + ix) * d.in_depth,
              ky * d.filter_cols + kx);
        }
      }
      T* dst = out + p * out_depth;
      for (int64_t o = 0; o < out_depth; ++o) dst[o] = Store<T>(acc[o]);
    }
  });
}

// What _FusedConv2D can have applied to the convolution's output inside it:
// y = conv * scale + bias per channel (a folded FusedBatchNorm; no scale:
// BiasAdd), then an activation. oneDNN applies a bias and Relu / LeakyRelu
// itself (exact there); the rest is applied by dfg on each shard's output
// right after oneDNN wrote it, while it is still in cache (oneDNN's clip for
// Relu6 turns NaN into a bound, TensorFlow's keeps it; its exp is an
// approximation).
enum class ConvActivation { kNone, kRelu, kLeakyRelu, kRelu6, kElu };
struct ConvEpilogue {
  const float* scale = nullptr;  // [out_depth], or null. Not owned.
  const float* bias = nullptr;   // [out_depth], or null. Not owned.
  ConvActivation activation = ConvActivation::kNone;
  float alpha = 0.0f;  // kLeakyRelu's slope below 0
};

// Applies `e` to y ([rows, channels]) in place, as ConvEpilogue says.
void ApplyConvEpilogue(const ConvEpilogue& e, int64_t channels, float* y,
                       int64_t size);

// output (allocated [batch, rows.out, cols.out, out_depth], same dtype) =
// the NHWC convolution of input with the HWIO filter, grouped when in_depth
// is a multiple of patch_depth. Float: oneDNN where it is faster
// (onednn_conv.h), else im2col + sgemm; other dtypes: direct loops. Errors:
// the group checks ("output depth must be evenly divisible by number of
// groups: ..."), unsupported dtypes, kInternal from oneDNN.
Status Conv2DCompute(ThreadPoolInterface* pool, const ConvDims& dims,
                     const Tensor& input, const Tensor& filter, Tensor* output);
// The same, with `epilogue` applied by oneDNN when it runs the convolution
// (float only): *epilogue_done tells whether it was; if not, output holds
// the bare convolution.
Status Conv2DCompute(ThreadPoolInterface* pool, const ConvDims& dims,
                     const Tensor& input, const Tensor& filter,
                     const ConvEpilogue& epilogue, Tensor* output,
                     bool* epilogue_done);

// Checks a depthwise convolution's input and filter as TensorFlow's
// DepthwiseConv2dNative (its texts) and shapes `d` as a plain conv with one
// input channel per group; *mult: the filter's channel multiplier.
Status DepthwiseConvDims(const Conv2DAttrs& attrs, const Tensor& input,
                         const Tensor& filter, ConvDims* d, int64_t* mult);
// [batch, rows.out, cols.out, in_depth * mult].
TensorShape DepthwiseOutputShape(const ConvDims& d, int64_t mult);
// output (allocated DepthwiseOutputShape, input's dtype) = the depthwise
// convolution. Float through oneDNN, which applies `epilogue` too when it
// runs it (*epilogue_done); else direct loops and the bare convolution.
Status DepthwiseConv2DCompute(ThreadPoolInterface* pool, const ConvDims& d,
                              int64_t mult, const Tensor& input,
                              const Tensor& filter,
                              const ConvEpilogue& epilogue, Tensor* output,
                              bool* epilogue_done);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_CONV_UTIL_H_
