// Conv3DBackpropInputV2 / Conv3DBackpropFilterV2 and their deprecated
// first versions (shapes from the input / filter tensors themselves), as
// TensorFlow's CPU kernels (conv_grad_ops_3d): NDHWC, SAME/VALID, strides,
// dilations of 1 only, input depth equal to the filter's.
//
// Direct loops, summing in double and rounded once to T: at least as close to
// the exact sums as TensorFlow's Eigen contractions. The input gradient runs
// per image, the filter gradient per filter tap, so no two threads write one
// value.
#include <array>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

struct Conv3DGradDims {
  int64_t batch = 0, in_depth = 0, out_depth = 0;
  std::array<int64_t, 3> k{};
  std::array<Window, 3> w;  // w[i].in: input size, w[i].out: out_backprop's
  int64_t InVoxels() const { return w[0].in * w[1].in * w[2].in; }
  int64_t OutVoxels() const { return w[0].out * w[1].out * w[2].out; }
  int64_t Taps() const { return k[0] * k[1] * k[2]; }
};

// TensorFlow's ConvBackpropComputeDimensionsV2 for 3-D, in its words;
// `label` is "Conv3DBackpropInputOp" or "Conv3DBackpropFilterOp".
Status ComputeDims(const char* label, const TensorShape& input,
                   const TensorShape& filter, const TensorShape& out_backprop,
                   const std::vector<int64_t>& strides, Padding padding,
                   Conv3DGradDims* d) {
  if (input.dims() != 5) {
    return InvalidArgument("input tensor must have 5 dimensions");
  }
  if (filter.dims() != 5) {
    return InvalidArgument("filter_sizes tensor must have 5 dimensions");
  }
  if (out_backprop.dims() != 5) {
    return InvalidArgument("out_backprop tensor must have 5 dimensions");
  }
  d->batch = input.dim_size(0);
  if (d->batch != out_backprop.dim_size(0)) {
    return InvalidArgument(
        "Input and out_backprop must have the same batch size. Input batch: "
        "{}, outbackprop batch: {}, batch_dim: 0",
        d->batch, out_backprop.dim_size(0));
  }
  d->in_depth = input.dim_size(4);
  if (d->in_depth != filter.dim_size(3)) {
    return InvalidArgument(
        "input and filter_sizes must have the same number of channels. Got "
        "{} for input and {} for filter_sizes",
        d->in_depth, filter.dim_size(3));
  }
  d->out_depth = filter.dim_size(4);
  if (d->out_depth != out_backprop.dim_size(4)) {
    return InvalidArgument(
        "out_backprop and filter_sizes must have the same number of "
        "channels. Got {} for out_backprop and {} for filter_sizes",
        out_backprop.dim_size(4), d->out_depth);
  }
  for (int i = 0; i < 3; ++i) {
    d->k[i] = filter.dim_size(i);
    Window& w = d->w[i];
    w = Window{input.dim_size(i + 1), d->k[i], 1, strides[i + 1]};
    DFG_RETURN_IF_ERROR(ComputeWindow(padding, &w));
    const int64_t actual = out_backprop.dim_size(i + 1);
    if (w.out != actual) {
      return InvalidArgument(
          "{}: Size of out_backprop doesn't match computed: actual = {}, "
          "computed = {} spatial_dim: {} input: {} filter: {} output: {} "
          "stride: {} dilation: 1",
          label, actual, w.out, i + 1, w.in, d->k[i], actual, w.stride);
    }
  }
  return Status::Ok();
}

// Calls fn(in_voxel, out_voxel, tap) for every (output voxel, filter tap)
// pair whose input voxel is inside the image, image by image.
template <typename Fn>
void ForTaps(const Conv3DGradDims& d, int64_t o, const Fn& fn) {
  const int64_t o1 = d.w[1].out, o2 = d.w[2].out;
  const int64_t pos[3] = {o / (o1 * o2), (o / o2) % o1, o % o2};
  int64_t start[3];
  for (int i = 0; i < 3; ++i) {
    start[i] = pos[i] * d.w[i].stride - d.w[i].pad_before;
  }
  for (int64_t kz = 0; kz < d.k[0]; ++kz) {
    const int64_t z = start[0] + kz;
    if (z < 0 || z >= d.w[0].in) continue;
    for (int64_t ky = 0; ky < d.k[1]; ++ky) {
      const int64_t y = start[1] + ky;
      if (y < 0 || y >= d.w[1].in) continue;
      for (int64_t kx = 0; kx < d.k[2]; ++kx) {
        const int64_t x = start[2] + kx;
        if (x < 0 || x >= d.w[2].in) continue;
        fn((z * d.w[1].in + y) * d.w[2].in + x,
           (kz * d.k[1] + ky) * d.k[2] + kx);
      }
    }
  }
}

// dx[b, v, ci] = sum over (o, tap) hitting v and co of dy[b, o, co] *
// f[tap, ci, co].
template <typename T>
void InputGrad(ThreadPoolInterface* pool, const Conv3DGradDims& d,
               const T* filter, const T* dy, T* dx) {
  const int64_t image = d.InVoxels() * d.in_depth;
  const int64_t cost = d.OutVoxels() * d.Taps() * d.in_depth * d.out_depth;
  ParallelFor(pool, d.batch, cost, [&](int64_t b0, int64_t b1) {
    std::vector<double> acc(image);
    for (int64_t b = b0; b < b1; ++b) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t o = 0; o < d.OutVoxels(); ++o) {
        const T* g = dy + (b * d.OutVoxels() + o) * d.out_depth;
        ForTaps(d, o, [&](int64_t v, int64_t tap) {
          double* a = acc.data() + v * d.in_depth;
          const T* f = filter + tap * d.in_depth * d.out_depth;
          for (int64_t ci = 0; ci < d.in_depth; ++ci) {
            double s = 0;
            for (int64_t co = 0; co < d.out_depth; ++co) {
              s += double(Load(f[ci * d.out_depth + co])) * double(Load(g[co]));
            }
            a[ci] += s;
          }
        });
      }
      for (int64_t i = 0; i < image; ++i) dx[b * image + i] = Store<T>(acc[i]);
    }
  });
}

// df[tap, ci, co] = sum over b and o of x[b, v(o, tap), ci] * dy[b, o, co].
template <typename T>
void FilterGrad(ThreadPoolInterface* pool, const Conv3DGradDims& d, const T* x,
                const T* dy, T* df) {
  const int64_t per_tap = d.in_depth * d.out_depth;
  const int64_t cost = d.batch * d.OutVoxels() * per_tap;
  std::vector<double> acc(d.Taps() * per_tap, 0.0);
  // Each chunk of output voxels adds into its own copy; copies are summed
  // after, so the loop parallelizes over voxels without locks.
  const int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>(8, d.OutVoxels()));
  std::vector<std::vector<double>> part(chunks,
                                        std::vector<double>(acc.size(), 0.0));
  ParallelFor(pool, chunks, cost / chunks, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t o0 = d.OutVoxels() * c / chunks;
      const int64_t o1 = d.OutVoxels() * (c + 1) / chunks;
      for (int64_t b = 0; b < d.batch; ++b) {
        for (int64_t o = o0; o < o1; ++o) {
          const T* g = dy + (b * d.OutVoxels() + o) * d.out_depth;
          ForTaps(d, o, [&](int64_t v, int64_t tap) {
            const T* in = x + (b * d.InVoxels() + v) * d.in_depth;
            double* a = part[c].data() + tap * per_tap;
            for (int64_t ci = 0; ci < d.in_depth; ++ci) {
              const double xv = Load(in[ci]);
              for (int64_t co = 0; co < d.out_depth; ++co) {
                a[ci * d.out_depth + co] += xv * double(Load(g[co]));
              }
            }
          });
        }
      }
    }
  });
  for (const auto& p : part) {
    for (size_t i = 0; i < acc.size(); ++i) acc[i] += p[i];
  }
  for (size_t i = 0; i < acc.size(); ++i) df[i] = Store<T>(acc[i]);
}

// Both ops; kInput: the input gradient. V2 (`sizes` input of the other
// operand's shape) or V1 (the operand tensor itself).
template <bool kInput>
class Conv3DBackpropOp : public OpKernel {
 public:
  explicit Conv3DBackpropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v2_ = ctx->HasAttr("data_format");
    if (v2_) {
      std::string format;
      DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
      DFG_OP_REQUIRES(ctx, format == "NDHWC" || format == "NCDHW",
                      InvalidArgument("Invalid data format"));
      DFG_OP_REQUIRES(
          ctx, format == "NDHWC",
          InvalidArgument("Conv3DBackprop{}OpV2 only supports NDHWC on the "
                          "CPU.",
                          kInput ? "Input" : "Filter"));
    }
    DFG_OP_REQUIRES_OK(ctx, ReadAttrs(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& operand = ctx->input(kInput ? 1 : 0);  // filter or input
    const Tensor& dy = ctx->input(2);
    TensorShape sizes = ctx->input(kInput ? 0 : 1).shape();
    if (v2_) {
      const std::vector<int64_t> dims = IntValues(ctx->input(kInput ? 0 : 1));
      DFG_OP_REQUIRES(ctx, TensorShape::IsValid(dims),
                      InvalidArgument("Dimension -1 must be >= 0"));
      sizes = TensorShape(std::span<const int64_t>(dims));
    }
    const TensorShape& input = kInput ? sizes : operand.shape();
    const TensorShape& filter = kInput ? operand.shape() : sizes;
    Conv3DGradDims d;
    DFG_OP_REQUIRES_OK(
        ctx,
        ComputeDims(kInput ? "Conv3DBackpropInputOp" : "Conv3DBackpropFilterOp",
                    input, filter, dy.shape(), strides_, padding_, &d));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, kInput ? input : filter, &out));
    if (out->NumElements() == 0) return;
    Dispatch(FloatTypes(), dy.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (kInput) {
        InputGrad<T>(ctx->intra_op_pool(), d, operand.flat<T>().data(),
                     dy.flat<T>().data(), out->flat<T>().data());
      } else {
        FilterGrad<T>(ctx->intra_op_pool(), d, operand.flat<T>().data(),
                      dy.flat<T>().data(), out->flat<T>().data());
      }
    });
  }

 private:
  Status ReadAttrs(OpKernelConstruction* ctx) {
    DFG_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides_));
    if (strides_.size() != 5) {
      return InvalidArgument(
          "Sliding window strides field must specify 5 dimensions");
    }
    std::vector<int64_t> dilations = {1, 1, 1, 1, 1};
    if (ctx->HasAttr("dilations")) {
      DFG_RETURN_IF_ERROR(ctx->GetAttr("dilations", &dilations));
    }
    if (dilations.size() != 5) {
      return InvalidArgument("Dilation rates field must specify 5 dimensions");
    }
    if (strides_[0] != 1 || strides_[4] != 1) {
      return InvalidArgument(
          "Current implementation does not yet support strides in the batch "
          "and depth dimensions.");
    }
    if (dilations[0] != 1 || dilations[4] != 1) {
      return InvalidArgument(
          "Current implementation does not yet support dilation rates in the "
          "batch and depth dimensions.");
    }
    if (dilations[1] != 1 || dilations[2] != 1 || dilations[3] != 1) {
      return InvalidArgument(
          "Current CPU implementation does not yet support dilation rates "
          "larger than 1.");
    }
    std::string padding;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
    return ParsePadding(padding, &padding_);
  }

  bool v2_ = true;
  std::vector<int64_t> strides_;
  Padding padding_ = Padding::kValid;
};

}  // namespace

void RegisterConv3DGradKernels(KernelRegistry* r) {
  const auto v2 = TypeConstraint("T", FloatTypes());
  const auto v1 = TypeConstraint("T", TypeList<float, double, Half>());
  r->Register<Conv3DBackpropOp<true>>("Conv3DBackpropInputV2", {v2});
  r->Register<Conv3DBackpropOp<false>>("Conv3DBackpropFilterV2", {v2});
  r->Register<Conv3DBackpropOp<true>>("Conv3DBackpropInput", {v1});
  r->Register<Conv3DBackpropOp<false>>("Conv3DBackpropFilter", {v1});
}

}  // namespace dfg
