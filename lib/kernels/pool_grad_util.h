// Internal: what the pooling-gradient kernels (pool_grad_ops.cc,
// pool3d_grad_ops.cc) share. A pool runs over [batch, planes, rows, cols,
// depth]; a 2-D pool is one with a single plane. The helpers walk a window's
// in-image cells, find the first maximum or the first cell equal to a value,
// and check shapes with TensorFlow's texts.
#ifndef DFG_LIB_KERNELS_POOL_GRAD_UTIL_H_
#define DFG_LIB_KERNELS_POOL_GRAD_UTIL_H_

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace pool_grad {

struct PoolGeom {
  int rank = 4;  // of the op's tensors
  int64_t batch = 0, depth = 0;
  std::array<Window, 3> w;
  int64_t InVoxels() const { return w[0].in * w[1].in * w[2].in; }
  int64_t OutVoxels() const { return w[0].out * w[1].out * w[2].out; }
  TensorShape Shape(bool out) const {
    std::vector<int64_t> d = {batch};
    for (int i = 3 - (rank - 2); i < 3; ++i)
      d.push_back(out ? w[i].out : w[i].in);
    d.push_back(depth);
    return TensorShape(std::span<const int64_t>(d));
  }
};

// Fills *g from the input shape and the rank-long ksize/strides.
inline Status MakeGeom(const TensorShape& in, const std::vector<int64_t>& ksize,
                       const std::vector<int64_t>& strides, Padding padding,
                       PoolGeom* g) {
  g->rank = in.dims();
  g->batch = in.dim_size(0);
  g->depth = in.dim_size(g->rank - 1);
  const int first = 3 - (g->rank - 2);
  for (int i = 0; i < 3; ++i) {
    if (i < first) {  // the one plane of a 2-D pool
      g->w[i] = Window{1, 1, 1, 1};
      g->w[i].out = 1;
      continue;
    }
    const int d = i - first + 1;
    g->w[i] = Window{in.dim_size(d), ksize[d], 1, strides[d]};
    DFG_RETURN_IF_ERROR(ComputeWindow(padding, &g->w[i]));
  }
  return Status::Ok();
}

inline Status CheckShape(const char* what, const TensorShape& want,
                         const Tensor& got) {
  if (got.shape() == want) return Status::Ok();
  return InvalidArgument("Expected {} shape to be {}, but got {}", what,
                         want.DebugString(), got.shape().DebugString());
}

// Calls fn(cell) for the input voxels (b's image, flat, times depth) of
// output voxel o, in plane/row/col order, padding skipped.
template <typename Fn>
inline void ForWindow(const PoolGeom& g, int64_t o, const Fn& fn) {
  const int64_t oz = o / (g.w[1].out * g.w[2].out);
  const int64_t oy = (o / g.w[2].out) % g.w[1].out, ox = o % g.w[2].out;
  const int64_t pos[3] = {oz, oy, ox};
  int64_t lo[3], hi[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t start = pos[i] * g.w[i].stride - g.w[i].pad_before;
    lo[i] = std::max<int64_t>(start, 0);
    hi[i] = std::min(start + g.w[i].k, g.w[i].in);
  }
  for (int64_t z = lo[0]; z < hi[0]; ++z)
    for (int64_t y = lo[1]; y < hi[1]; ++y)
      for (int64_t x = lo[2]; x < hi[2]; ++x)
        fn(((z * g.w[1].in + y) * g.w[2].in + x) * g.depth);
}

// argmax[b, o, c] = flat index (within the image) of the first maximum of
// the window; max[...] its value. -1 for an empty window.
template <typename T>
void WindowArgmax(ThreadPoolInterface* pool, const PoolGeom& g, const T* in,
                  T* max, int64_t* argmax) {
  const int64_t outs = g.OutVoxels(), image = g.InVoxels() * g.depth;
  ParallelFor(pool, g.batch * outs, g.w[1].k * g.w[2].k * g.depth,
              [&](int64_t p0, int64_t p1) {
                for (int64_t p = p0; p < p1; ++p) {
                  const T* src = in + (p / outs) * image;
                  T* m = max + p * g.depth;
                  int64_t* a = argmax + p * g.depth;
                  std::fill(a, a + g.depth, -1);
                  ForWindow(g, p % outs, [&](int64_t cell) {
                    for (int64_t c = 0; c < g.depth; ++c) {
                      if (a[c] < 0 || Load(m[c]) < Load(src[cell + c])) {
                        m[c] = src[cell + c];
                        a[c] = cell + c;
                      }
                    }
                  });
                  for (int64_t c = 0; c < g.depth; ++c) {
                    if (a[c] < 0) m[c] = Store<T>(0);
                  }
                }
              });
}

template <typename T>
inline void AddInto(T& acc, T v) {
  acc = Store<T>(Load(acc) + Load(v));
}

// out[b, o, c] = grad at the first window cell equal to orig_output (0 if
// none): the *GradGrad ops, 2-D and 3-D.
template <typename T>
void FirstEqualGather(ThreadPoolInterface* pool, const PoolGeom& g, const T* in,
                      const T* orig_out, const T* grad, T* out) {
  const int64_t outs = g.OutVoxels(), image = g.InVoxels() * g.depth;
  ParallelFor(
      pool, g.batch * outs, g.w[1].k * g.w[2].k * g.depth,
      [&](int64_t p0, int64_t p1) {
        std::vector<char> found(g.depth);
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t base = (p / outs) * image;
          const T* o = orig_out + p * g.depth;
          T* dst = out + p * g.depth;
          std::fill(dst, dst + g.depth, Store<T>(0));
          std::fill(found.begin(), found.end(), 0);
          ForWindow(g, p % outs, [&](int64_t cell) {
            for (int64_t c = 0; c < g.depth; ++c) {
              if (!found[c] && Load(in[base + cell + c]) == Load(o[c])) {
                dst[c] = grad[base + cell + c];
                found[c] = 1;
              }
            }
          });
        }
      });
}

struct PoolAttrs {
  std::vector<int64_t> ksize, strides;
  Padding padding = Padding::kValid;
};

inline Status ReadPadding(OpKernelConstruction* ctx, Padding* p) {
  std::string padding;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  return ParsePadding(padding, p);
}

// The format check: `label` is TensorFlow's kernel class name.
inline Status RequireChannelsLast(OpKernelConstruction* ctx, const char* label,
                                  bool three_d) {
  std::string format;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != (three_d ? "NDHWC" : "NHWC")) {
    return InvalidArgument("Default {} only supports {} on device type CPU",
                           label, three_d ? "NDHWC" : "NHWC");
  }
  return Status::Ok();
}

// TensorFlow's checks of ksize/strides of the 2-D max-pool gradients;
// `depth_label` names the op in the depth-dimension message.
inline Status CheckRanks(OpKernelContext* ctx, int rank,
                         const char* grad_name) {
  const char* names[3] = {"tensor_in", "tensor_out", grad_name};
  for (int i = 0; i < 3; ++i) {
    if (ctx->input(i).dims() != rank) {
      return InvalidArgument("{} must be {}-dimensional", names[i], rank);
    }
  }
  return Status::Ok();
}

}  // namespace pool_grad
}  // namespace dfg

#endif  // DFG_LIB_KERNELS_POOL_GRAD_UTIL_H_
