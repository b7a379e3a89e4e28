// Kernels of the linalg_ext family that are not decompositions: the
// deprecated AdjustContrast (v1: float output clamped to [min, max]).
#include <algorithm>

#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

// Per image and channel: (x - mean) * factor + mean over the image's height
// and width, clamped to [min_value, max_value], as float.
class AdjustContrastV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() >= 3,
                    InvalidArgument("input must be at least 3-D, got shape{}",
                                    in.shape().DebugString()));
    const char* names[] = {"contrast_factor", "min_value", "max_value"};
    float scalars[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i + 1);
      DFG_OP_REQUIRES(ctx, t.dims() == 0,
                      InvalidArgument("{} must be scalar: {}", names[i],
                                      t.shape().DebugString()));
      scalars[i] = *static_cast<const float*>(t.data());
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const int64_t pixels =
        in.dim_size(in.dims() - 3) * in.dim_size(in.dims() - 2);
    const int64_t channels = in.dim_size(in.dims() - 1);
    const int64_t images = in.NumElements() / (pixels * channels);
    float* dst = static_cast<float*>(out->data());
    using Types = TypeList<uint8_t, int8_t, int16_t, int32_t, float, double>;
    Dispatch(Types(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      for (int64_t i = 0; i < images; ++i) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = i * pixels * channels + c;
          double sum = 0;
          for (int64_t p = 0; p < pixels; ++p)
            sum += static_cast<float>(src[base + p * channels]);
          const float mean =
              static_cast<float>(sum) / static_cast<float>(pixels);
          for (int64_t p = 0; p < pixels; ++p) {
            const float x = static_cast<float>(src[base + p * channels]);
            const float y = (x - mean) * scalars[0] + mean;
            dst[base + p * channels] =
                std::max(std::min(y, scalars[2]), scalars[1]);
          }
        }
      }
    });
  }
};

}  // namespace

void RegisterLinalgBandKernels(KernelRegistry* r);
void RegisterLinalgMatFuncKernels(KernelRegistry* r);

void RegisterLinalgExtMiscKernels(KernelRegistry* r) {
  RegisterLinalgBandKernels(r);
  RegisterLinalgMatFuncKernels(r);
  r->Register<AdjustContrastV1Op>(
      "AdjustContrast",
      {TypeConstraint(
          "T", TypeList<uint8_t, int8_t, int16_t, int32_t, float, double>())});
}

}  // namespace dfg
