// Conv3D, MaxPool3D and AvgPool3D on NDHWC, as TensorFlow's CPU kernels
// (conv_ops_3d, pooling_ops_3d): SAME/VALID padding, strides; the CPU
// Conv3D rejects dilations other than 1 and NCDHW, like TensorFlow's.
//
// Conv3D lowers to GEMM like Conv2D: each output voxel's receptive field is
// one row of a [voxels, kd*kh*kw*in] im2col matrix (padding cells are
// zeros), multiplied by the DHWIO filter seen as a [kd*kh*kw*in, out]
// matrix with OpenBLAS. Half and bfloat16 convert to float around the GEMM.
#include <cblas.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "lib/kernels/blas_threads.h"
#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Reads data_format (NDHWC only on CPU) and a 5-entry list attr.
Status ReadDataFormat3D(OpKernelConstruction* ctx, const char* what) {
  std::string format;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NDHWC" && format != "NCDHW") {
    return InvalidArgument("Invalid data format");
  }
  if (format != "NDHWC") {
    return InvalidArgument("{}", what);
  }
  return Status::Ok();
}

struct Conv3DDims {
  int64_t batch = 0, depth = 0, out_depth = 0;
  std::array<int64_t, 3> in{}, k{};
  std::array<Window, 3> w;
};

template <typename T>
void Im2Col3D(const Conv3DDims& d, const T* in, int64_t p0, int64_t p1,
              T* col) {
  const int64_t row_len = d.k[0] * d.k[1] * d.k[2] * d.depth;
  const int64_t o1 = d.w[1].out, o2 = d.w[2].out;
  const int64_t voxels = d.w[0].out * o1 * o2;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t b = p / voxels, r = p % voxels;
    const int64_t oz = r / (o1 * o2), oy = (r / o2) % o1, ox = r % o2;
    T* dst = col + (p - p0) * row_len;
    for (int64_t kz = 0; kz < d.k[0]; ++kz) {
      const int64_t iz = oz * d.w[0].stride - d.w[0].pad_before + kz;
      for (int64_t ky = 0; ky < d.k[1]; ++ky) {
        const int64_t iy = oy * d.w[1].stride - d.w[1].pad_before + ky;
        for (int64_t kx = 0; kx < d.k[2]; ++kx, dst += d.depth) {
          const int64_t ix = ox * d.w[2].stride - d.w[2].pad_before + kx;
          if (iz < 0 || iz >= d.in[0] || iy < 0 || iy >= d.in[1] || ix < 0 ||
              ix >= d.in[2]) {
            std::fill(dst, dst + d.depth, T(0));
            continue;
          }
          const T* src =
              in +
              (((b * d.in[0] + iz) * d.in[1] + iy) * d.in[2] + ix) * d.depth;
          std::memcpy(dst, src, d.depth * sizeof(T));
        }
      }
    }
  }
}

template <typename T>
void Gemm(ThreadPoolInterface* pool, int64_t m, int64_t n, int64_t k,
          const T* a, const T* b, T* c) {
  ParallelGemm(pool, false, false, m, n, k, a, k, b, n, c, n);
}

constexpr int64_t kMaxColElements = int64_t{4} << 20;

template <typename T>
void GemmConv3D(ThreadPoolInterface* pool, const Conv3DDims& d, const T* in,
                const T* filter, T* out) {
  const int64_t total = d.batch * d.w[0].out * d.w[1].out * d.w[2].out;
  const int64_t k = d.k[0] * d.k[1] * d.k[2] * d.depth;
  const bool pointwise = d.k[0] * d.k[1] * d.k[2] == 1 && d.w[0].stride == 1 &&
                         d.w[1].stride == 1 && d.w[2].stride == 1;
  if (pointwise) {  // The input already is the [voxels, in] matrix.
    Gemm(pool, total, d.out_depth, k, in, filter, out);
    return;
  }
  const int64_t chunk = std::max<int64_t>(1, kMaxColElements / k);
  std::vector<T> col(std::min(chunk, total) * k);
  for (int64_t p0 = 0; p0 < total; p0 += chunk) {
    const int64_t p1 = std::min(total, p0 + chunk);
    ParallelFor(pool, p1 - p0, k, [&](int64_t b, int64_t e) {
      Im2Col3D(d, in, p0 + b, p0 + e, col.data() + b * k);
    });
    Gemm(pool, p1 - p0, d.out_depth, k, col.data(), filter,
         out + p0 * d.out_depth);
  }
}

std::vector<float> ToFloat(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  Dispatch(FloatTypes(), t.dtype(), [&](auto z) {
    using T = decltype(z);
    auto f = t.flat<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(Load(f[i]));
  });
  return v;
}

class Conv3DOp : public OpKernel {
 public:
  explicit Conv3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(
        ctx, ReadDataFormat3D(ctx,
                              "CPU implementation of Conv3D currently only "
                              "supports the NHWC tensor format."));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFG_OP_REQUIRES(ctx, strides_.size() == 5,
                    InvalidArgument("Sliding window strides field must "
                                    "specify 5 dimensions"));
    DFG_OP_REQUIRES(ctx, strides_[0] == 1 && strides_[4] == 1,
                    InvalidArgument("Current implementation does not yet "
                                    "support strides in the batch and depth "
                                    "dimensions."));
    DFG_OP_REQUIRES(
        ctx, strides_[1] > 0 && strides_[2] > 0 && strides_[3] > 0,
        InvalidArgument("Spatial strides should be larger than 0."));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations_));
    DFG_OP_REQUIRES(ctx, dilations_.size() == 5,
                    InvalidArgument("Dilation rates field must specify 5 "
                                    "dimensions"));
    DFG_OP_REQUIRES(ctx, dilations_[0] == 1 && dilations_[4] == 1,
                    InvalidArgument("Current implementation does not yet "
                                    "support dilation rates in the batch and "
                                    "depth dimensions."));
    DFG_OP_REQUIRES(ctx,
                    dilations_[1] > 0 && dilations_[2] > 0 && dilations_[3] > 0,
                    InvalidArgument("Dilated rates should be larger than 0."));
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DFG_OP_REQUIRES(ctx, input.dims() == 5,
                    InvalidArgument("input must be 5-dimensional"));
    DFG_OP_REQUIRES(ctx, filter.dims() == 5,
                    InvalidArgument("filter must be 5-dimensional"));
    Conv3DDims d;
    d.batch = input.dim_size(0);
    d.depth = input.dim_size(4);
    d.out_depth = filter.dim_size(4);
    const int64_t filter_depth = filter.dim_size(3);
    DFG_OP_REQUIRES(ctx, filter_depth != 0,
                    InvalidArgument("filter_depth must be non-zero"));
    DFG_OP_REQUIRES(ctx, d.depth % filter_depth == 0,
                    InvalidArgument("Input depth must be evenly divisible by "
                                    "filter depth: {} vs {}",
                                    d.depth, filter_depth));
    for (int i = 0; i < 3; ++i) {
      d.in[i] = input.dim_size(i + 1);
      d.k[i] = filter.dim_size(i);
      d.w[i] = Window{d.in[i], d.k[i], dilations_[i + 1], strides_[i + 1]};
      DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &d.w[i]));
    }
    Tensor* output = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0,
                                  TensorShape({d.batch, d.w[0].out, d.w[1].out,
                                               d.w[2].out, d.out_depth}),
                                  &output));
    if (output->NumElements() == 0) return;
    DFG_OP_REQUIRES(
        ctx, dilations_[1] == 1 && dilations_[2] == 1 && dilations_[3] == 1,
        InvalidArgument("CPU implementation of Conv3D currently "
                        "only supports dilated rates of 1."));
    DFG_OP_REQUIRES(
        ctx, filter_depth == d.depth,
        InvalidArgument("Number of channels in filter ({}) must match last "
                        "dimension of input ({})",
                        filter_depth, d.depth));
    Run(ctx, d, input, filter, output);
  }

 private:
  static void Run(OpKernelContext* ctx, const Conv3DDims& d,
                  const Tensor& input, const Tensor& filter, Tensor* output) {
    if (input.NumElements() == 0 || filter.NumElements() == 0) {
      Dispatch(FloatTypes(), output->dtype(), [&](auto z) {
        using T = decltype(z);
        auto f = output->flat<T>();
        std::fill(f.begin(), f.end(), Store<T>(0.0f));
      });
      return;
    }
    ThreadPoolInterface* pool = ctx->intra_op_pool();
    if (input.dtype() == tensorflow::DT_FLOAT) {
      GemmConv3D(pool, d, input.flat<float>().data(),
                 filter.flat<float>().data(), output->flat<float>().data());
    } else if (input.dtype() == tensorflow::DT_DOUBLE) {
      GemmConv3D(pool, d, input.flat<double>().data(),
                 filter.flat<double>().data(), output->flat<double>().data());
    } else {  // half, bfloat16
      const std::vector<float> in = ToFloat(input), f = ToFloat(filter);
      std::vector<float> out(output->NumElements());
      GemmConv3D(pool, d, in.data(), f.data(), out.data());
      Dispatch(TypeList<Half, BFloat16>(), output->dtype(), [&](auto z) {
        using T = decltype(z);
        auto o = output->flat<T>();
        for (size_t i = 0; i < out.size(); ++i) o[i] = Store<T>(out[i]);
      });
    }
  }

  std::vector<int64_t> strides_, dilations_;
  Padding padding_ = Padding::kValid;
};

// MaxPool3D / AvgPool3D. Avg divides by the in-bounds cells of the window.
class Pool3DOp : public OpKernel {
 public:
  explicit Pool3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    max_ = ctx->def().op() == "MaxPool3D";
    DFG_OP_REQUIRES_OK(
        ctx,
        ReadDataFormat3D(ctx,
                         "Default Pooling3DOp only supports NDHWC on device "
                         "type CPU"));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &ksize_));
    DFG_OP_REQUIRES(ctx, ksize_.size() == 5,
                    InvalidArgument("Sliding window ksize field must specify "
                                    "5 dimensions"));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFG_OP_REQUIRES(ctx, strides_.size() == 5,
                    InvalidArgument("Sliding window stride field must "
                                    "specify 5 dimensions"));
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
    DFG_OP_REQUIRES(ctx, ksize_[0] == 1 && strides_[0] == 1,
                    Unimplemented("Pooling is not yet supported on the batch "
                                  "dimension."));
    DFG_OP_REQUIRES(ctx, ksize_[4] == 1 && strides_[4] == 1,
                    Unimplemented("Pooling is not yet supported on the depth "
                                  "dimension."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() == 5,
                    InvalidArgument("tensor_in must be 5-dimensional"));
    std::array<Window, 3> w;
    for (int i = 0; i < 3; ++i) {
      w[i] = Window{in.dim_size(i + 1), ksize_[i + 1], 1, strides_[i + 1]};
      DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &w[i]));
    }
    const int64_t batch = in.dim_size(0), depth = in.dim_size(4);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({batch, w[0].out, w[1].out, w[2].out, depth}),
                 &out));
    if (out->NumElements() == 0) return;
    Dispatch(FloatTypes(), in.dtype(), [&](auto z) {
      using T = decltype(z);
      Pool(ctx->intra_op_pool(), w, batch, depth, in.flat<T>().data(),
           out->flat<T>().data());
    });
  }

 private:
  template <typename T>
  void Pool(ThreadPoolInterface* pool, const std::array<Window, 3>& w,
            int64_t batch, int64_t depth, const T* in, T* out) const {
    using C = CalcType<T>;
    const int64_t voxels = w[0].out * w[1].out * w[2].out;
    const int64_t cost = w[0].k * w[1].k * w[2].k * depth;
    ParallelFor(pool, batch * voxels, cost, [&](int64_t p0, int64_t p1) {
      std::vector<C> acc(depth);
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t b = p / voxels, r = p % voxels;
        const int64_t o[3] = {r / (w[1].out * w[2].out),
                              (r / w[2].out) % w[1].out, r % w[2].out};
        int64_t lo[3], hi[3];
        for (int i = 0; i < 3; ++i) {
          const int64_t start = o[i] * w[i].stride - w[i].pad_before;
          lo[i] = std::max<int64_t>(start, 0);
          hi[i] = std::min(start + w[i].k, w[i].in);
        }
        std::fill(acc.begin(), acc.end(),
                  max_ ? std::numeric_limits<C>::lowest() : C(0));
        for (int64_t z = lo[0]; z < hi[0]; ++z) {
          for (int64_t y = lo[1]; y < hi[1]; ++y) {
            for (int64_t x = lo[2]; x < hi[2]; ++x) {
              const T* src =
                  in +
                  (((b * w[0].in + z) * w[1].in + y) * w[2].in + x) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                const C v = Load(src[c]);
                acc[c] = max_ ? (v > acc[c] ? v : acc[c]) : acc[c] + v;
              }
            }
          }
        }
        const C count =
            static_cast<C>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
        T* dst = out + p * depth;
        for (int64_t c = 0; c < depth; ++c) {
          dst[c] = Store<T>(max_ ? acc[c] : acc[c] / count);
        }
      }
    });
  }

  bool max_ = true;
  std::vector<int64_t> ksize_, strides_;
  Padding padding_ = Padding::kValid;
};

}  // namespace

void RegisterConv3DKernels(KernelRegistry* r) {
  r->Register<Conv3DOp>("Conv3D", {TypeConstraint("T", FloatTypes())});
  // TensorFlow's CPU kernels: float and bfloat16 only.
  const auto pool_types = TypeList<float, BFloat16>();
  r->Register<Pool3DOp>("MaxPool3D", {TypeConstraint("T", pool_types)});
  r->Register<Pool3DOp>("AvgPool3D", {TypeConstraint("T", pool_types)});
}

}  // namespace dfg
