// Float NHWC convolutions through oneDNN (Debian's libdnnl 2.6), the one
// place dfg calls it.
//
// The convolution is split over the step's intra-op pool by dfg itself:
// whole images when the batch divides evenly, otherwise row bands of each
// image (each band its own primitive with the padding it needs), or, when
// the weights outweigh the activations (ResNet's last stages at small
// resolutions), parts of the output channels, so that each thread streams
// only its share of the weights; every shard runs on one OpenMP thread. So
// `--intra-threads N` bounds oneDNN's threads exactly as it bounds every other
// kernel's, two convolutions running at once never start more threads than the
// pool has, and no OpenMP team ever starts (which also keeps ThreadSanitizer
// builds free of libgomp's false reports). Primitives are built once per shape,
// band and fused activation and kept in a small LRU cache. Weights are
// reordered into the layout oneDNN picks once when the filter is a Const's
// value (kept with the Const's buffer, const_buffers.h), else on every call (a
// variable may change between steps). A 1x1 unpadded convolution folds the
// batch into the rows, so that its weights are read once per call, not once per
// image. The epilogue (ConvEpilogue): a bias and Relu / LeakyRelu as oneDNN
// post-ops, the rest (a folded batch norm's scale, Relu6, Elu) by dfg on
// each shard's output as soon as oneDNN has written it.
//
// Which path runs what (measured with dfg_bench's BM_Conv rows, 1 thread):
// - oneDNN: float Conv2D (grouped too), DepthwiseConv2dNative and
//   _FusedConv2D, e.g. 3x3 56x56x64 -> 64 2.0 ms against 3.0 ms for im2col,
//   the MobileNet stem (3x3/2 on 224x224x3) 0.24 against 0.78 ms, depthwise
//   3x3 on 112x112x32 0.12 against 3.7 ms (the direct loops).
// - im2col + sgemm: other dtypes; non-Const weights over 256 KB with fewer
//   than 400 output pixels (3x3 512 -> 512 on 7x7: 6.3 ms with oneDNN, 3.7
//   ms with im2col, the per-call weight reorder being most of it; a Const
//   filter reordered once: 3x3 512 -> 512 on 2x2x2 0.37 ms against 0.89 ms
//   for im2col); shapes for which oneDNN has only its reference kernel.
// - Conv2DBackpropInput: oneDNN's backward data when the threads divide the
//   batch (1.5 against 1.8 ms on conv_grad_bench's shape); else GEMM +
//   col2im, whose GEMM splits over the pool.
// - dfg's own loops: MaxPool and AvgPool (pooling_ops.cc says why);
//   Conv2DBackpropFilter (not ported).
#ifndef DFG_LIB_KERNELS_ONEDNN_CONV_H_
#define DFG_LIB_KERNELS_ONEDNN_CONV_H_

#include <cstdint>

#include "lib/base/status.h"
#include "lib/kernels/conv_util.h"
#include "lib/kernels/intra_op_pool.h"

namespace dfg {

// Runs out = epilogue(conv(in, filter)) through oneDNN when it is
// the faster path for this convolution: `dims` as ComputeConvDims fills it,
// `groups` = in_depth / patch_depth (the HWIO filter is [kh, kw,
// in_depth / groups, out_depth]; depthwise filters [kh, kw, in, mult] are
// the same layout with groups = in). Sets *ran to false, leaving `out`
// untouched, when it does not run it (see UseOneDnnConv in the .cc for which
// shapes stay on im2col + sgemm). Errors: kInternal for a failure inside
// oneDNN.
Status OneDnnConv2D(ThreadPoolInterface* pool, const ConvDims& dims,
                    int64_t groups, const float* in, const float* filter,
                    const ConvEpilogue& epilogue, float* out, bool* ran);

// dx = Conv2DBackpropInput(dy, filter) through oneDNN's backward-data
// convolution when it runs it (float, groups 1, `dims` the forward conv's,
// dx the conv's input [batch, in_rows, in_cols, in_depth]); *ran as above.
// Split over whole images only: a batch the pool's threads do not divide
// stays on GEMM + col2im.
Status OneDnnConv2DBackpropInput(ThreadPoolInterface* pool,
                                 const ConvDims& dims, const float* dy,
                                 const float* filter, float* dx, bool* ran);

// Process-wide switch (default on) so tests and benchmarks can compare the
// oneDNN and im2col paths on the same inputs. Thread-safe.
void SetOneDnnConvEnabled(bool enabled);
bool OneDnnConvEnabled();
// How many convolutions oneDNN has run in this process, and how many of them
// split over output channels (for tests).
int64_t OneDnnConvRuns();
int64_t OneDnnConvChannelSplitRuns();

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_ONEDNN_CONV_H_
