// The max-pool gradients dfg's pooling_ops.cc does not cover, and the 3-D
// pooling gradients, as TensorFlow's CPU kernels (maxpooling_op,
// pooling_ops_3d): MaxPoolGradV2, MaxPoolGradGrad(V2), MaxPoolWithArgmax,
// MaxPoolGradWithArgmax, MaxPool3DGrad, MaxPool3DGradGrad, AvgPool3DGrad.
// All work on NHWC / NDHWC; a 2-D pool is a 3-D one with one plane.
//
// Which input cell a max-pool output "came from" differs between the ops,
// and each follows its TensorFlow kernel: the 2-D gradients and
// MaxPoolWithArgmax take the first maximum of the window in row-major order
// (a NaN only wins in the first cell); the *GradGrad ops take the first cell
// equal to orig_output; MaxPool3DGrad sends the gradient to every cell within
// 1e-5 of orig_output. Gradients accumulate in T (each sum rounded), as
// TensorFlow's `+=` on T does.
#include <array>
#include <cmath>
#include <limits>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// A pool over [batch, planes, rows, cols, depth]; 2-D pools have planes = 1.
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
Status MakeGeom(const TensorShape& in, const std::vector<int64_t>& ksize,
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

Status CheckShape(const char* what, const TensorShape& want,
                  const Tensor& got) {
  if (got.shape() == want) return Status::Ok();
  return InvalidArgument("Expected {} shape to be {}, but got {}", what,
                         want.DebugString(), got.shape().DebugString());
}

// Calls fn(cell) for the input voxels (b's image, flat, times depth) of
// output voxel o, in plane/row/col order, padding skipped.
template <typename Fn>
void ForWindow(const PoolGeom& g, int64_t o, const Fn& fn) {
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

// ---- The 2-D and 3-D attrs ----

struct PoolAttrs {
  std::vector<int64_t> ksize, strides;
  Padding padding = Padding::kValid;
};

Status ReadPadding(OpKernelConstruction* ctx, Padding* p) {
  std::string padding;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  return ParsePadding(padding, p);
}

// The format check: `label` is TensorFlow's kernel class name.
Status RequireChannelsLast(OpKernelConstruction* ctx, const char* label,
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

Status CheckRanks(OpKernelContext* ctx, int rank, const char* grad_name) {
  const char* names[3] = {"tensor_in", "tensor_out", grad_name};
  for (int i = 0; i < 3; ++i) {
    if (ctx->input(i).dims() != rank) {
      return InvalidArgument("{} must be {}-dimensional", names[i], rank);
    }
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

// TensorFlow's PoolParameters checks on a depth window (which these kernels
// then cannot run).
Status CheckNoDepthWindow(const PoolAttrs& a, const TensorShape& in) {
  if (a.ksize[3] == 1 && a.strides[3] == 1) return Status::Ok();
  if (a.ksize[1] != 1 || a.ksize[2] != 1 || a.strides[1] != 1 ||
      a.strides[2] != 1) {
    return Unimplemented(
        "MaxPooling supports exactly one of pooling across depth or pooling "
        "across width/height.");
  }
  if (a.ksize[3] <= 0 || in.dim_size(3) % a.ksize[3] != 0) {
    return Unimplemented(
        "Depthwise max pooling requires the depth window to evenly divide "
        "the input depth");
  }
  return Unimplemented("depthwise max pooling is not supported with argmax");
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
    DFG_OP_REQUIRES_OK(ctx, CheckNoDepthWindow(attrs_, in.shape()));
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
    DFG_OP_REQUIRES_OK(ctx, CheckNoDepthWindow(attrs_, in.shape()));
    PoolGeom g;
    DFG_OP_REQUIRES_OK(ctx, MakeGeom(in.shape(), attrs_.ksize, attrs_.strides,
                                     attrs_.padding, &g));
    DFG_OP_REQUIRES_OK(ctx, CheckShape("grad", g.Shape(true), grad));
    DFG_OP_REQUIRES_OK(ctx, CheckShape("argmax", g.Shape(true), argmax));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    // Where each gradient goes, checked to stay in its image (TensorFlow
    // aborts the process on an index outside it).
    const std::vector<int64_t> index = IntValues(argmax);
    const int64_t per_out = g.OutVoxels() * g.depth;
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

void RegisterPoolGradKernels(KernelRegistry* r) {
  const auto real = TypeConstraint("T", RealTypes());
  r->Register<MaxPoolGrad2DOp<false>>("MaxPoolGradV2", {real});
  r->Register<MaxPoolGrad2DOp<true>>("MaxPoolGradGrad", {real});
  r->Register<MaxPoolGrad2DOp<true>>("MaxPoolGradGradV2", {real});
  r->Register<MaxPoolWithArgmaxOp>("MaxPoolWithArgmax", {real});
  r->Register<MaxPoolGradWithArgmaxOp>(
      "MaxPoolGradWithArgmax",
      {real, TypeConstraint("Targmax", TypeList<int64_t>())});
  const auto bf16_f32 = TypeConstraint("T", TypeList<float, BFloat16>());
  r->Register<MaxPool3DGradOp<false>>(
      "MaxPool3DGrad",
      {bf16_f32, TypeConstraint("TInput", TypeList<float, BFloat16>())});
  r->Register<MaxPool3DGradOp<true>>("MaxPool3DGradGrad", {bf16_f32});
  r->Register<AvgPool3DGradOp>("AvgPool3DGrad", {bf16_f32});
}

}  // namespace dfg
