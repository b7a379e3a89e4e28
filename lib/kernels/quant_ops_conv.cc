// QuantizedConv2D (quint8 input and filter, qint32 output) as TensorFlow's
// quantized_conv_ops.cc: an NHWC convolution of the values minus their zero
// points, exact in int32 (padding contributes nothing: TensorFlow pads with
// the input's zero point). The output range is the product of the input
// steps over qint32's span.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/kernels/conv_util.h"
#include "lib/kernels/quant_ops.h"

namespace dfg {
namespace {

class QuantizedConv2DOp : public OpKernel {
 public:
  explicit QuantizedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFG_OP_REQUIRES(ctx, strides_.size() == 4,
                    InvalidArgument("Sliding window strides field must "
                                    "specify 4 dimensions"));
    DFG_OP_REQUIRES(ctx, strides_[1] == strides_[2],
                    InvalidArgument("Current implementation only supports "
                                    "equal length strides in the row and "
                                    "column dimensions."));
    DFG_OP_REQUIRES(ctx, strides_[0] == 1 && strides_[3] == 1,
                    InvalidArgument("Current implementation does not yet "
                                    "support strides in the batch and depth "
                                    "dimensions."));
    std::vector<int64_t> dilations;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations));
    DFG_OP_REQUIRES(ctx, dilations.size() == 4,
                    InvalidArgument("Dilations field must specify 4 "
                                    "dimensions"));
    DFG_OP_REQUIRES(ctx, dilations[1] == 1 && dilations[2] == 1,
                    InvalidArgument("Current implementation only supports "
                                    "dilated rate as 1 in the row and column "
                                    "dimensions."));
    DFG_OP_REQUIRES(ctx, dilations[0] == 1 && dilations[3] == 1,
                    InvalidArgument("Current implementation does not yet "
                                    "support dilations in the batch and depth "
                                    "dimensions."));
    std::string padding;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFG_OP_REQUIRES_OK(ctx, ParsePadding(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    DFG_OP_REQUIRES_OK(ctx, Check(ctx, in, filter));
    const float in_lo = ctx->input(2).flat<float>()[0];
    const float in_hi = ctx->input(3).flat<float>()[0];
    const float f_lo = ctx->input(4).flat<float>()[0];
    const float f_hi = ctx->input(5).flat<float>()[0];
    Window rows{in.dim_size(1), filter.dim_size(0), 1, strides_[1]};
    Window cols{in.dim_size(2), filter.dim_size(1), 1, strides_[1]};
    DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &rows));
    DFG_OP_REQUIRES_OK(ctx, ComputeWindow(padding_, &cols));
    const int64_t batch = in.dim_size(0), out_depth = filter.dim_size(3);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({batch, rows.out, cols.out, out_depth}), &out));
    const int32_t off_in = static_cast<int32_t>(
        FloatToQuantizedUnclamped<uint8_t>(0.0f, in_lo, in_hi));
    const int32_t off_f = static_cast<int32_t>(
        FloatToQuantizedUnclamped<uint8_t>(0.0f, f_lo, f_hi));
    int32_t* y = reinterpret_cast<int32_t*>(out->data());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < rows.out; ++r) {
        for (int64_t c = 0; c < cols.out; ++c) {
          Pixel(in, filter, off_in, off_f, b, r, c, rows, cols,
                y + ((b * rows.out + r) * cols.out + c) * out_depth);
        }
      }
    }
    const float step = ((in_hi - in_lo) / 255.0f) * ((f_hi - f_lo) / 255.0f);
    ctx->set_output(1, Tensor::Scalar(step * -2147483648.0f));
    ctx->set_output(2, Tensor::Scalar(step * 2147483647.0f));
  }

 private:
  static Status Check(OpKernelContext* ctx, const Tensor& in,
                      const Tensor& filter) {
    if (in.dims() != 4) {
      return InvalidArgument("input must be rank 4 but is rank {}", in.dims());
    }
    if (filter.dims() != 4) {
      return InvalidArgument("filter must be rank 4 but is rank {}",
                             filter.dims());
    }
    const char* names[] = {"min_input", "max_input", "min_filter",
                           "max_filter"};
    for (int i = 2; i < 6; ++i) {
      if (ctx->input(i).dims() != 0) {
        return InvalidArgument("{} must be rank 0 but is rank {}", names[i - 2],
                               ctx->input(i).dims());
      }
    }
    if (in.dim_size(3) != filter.dim_size(2)) {
      return InvalidArgument(
          "input and filter must have the same depth: {} "
          "vs {}",
          in.dim_size(3), filter.dim_size(2));
    }
    return Status::Ok();
  }

  // One output pixel: every output channel, int32 arithmetic that wraps.
  static void Pixel(const Tensor& in, const Tensor& filter, int32_t off_in,
                    int32_t off_f, int64_t b, int64_t r, int64_t c,
                    const Window& rows, const Window& cols, int32_t* o) {
    const int64_t depth = in.dim_size(3), out_depth = filter.dim_size(3);
    const uint8_t* x = reinterpret_cast<const uint8_t*>(in.data());
    const uint8_t* w = reinterpret_cast<const uint8_t*>(filter.data());
    std::vector<uint32_t> acc(out_depth, 0);
    for (int64_t fr = 0; fr < rows.k; ++fr) {
      const int64_t ir = r * rows.stride - rows.pad_before + fr;
      if (ir < 0 || ir >= rows.in) continue;
      for (int64_t fc = 0; fc < cols.k; ++fc) {
        const int64_t ic = c * cols.stride - cols.pad_before + fc;
        if (ic < 0 || ic >= cols.in) continue;
        const uint8_t* xp = x + ((b * rows.in + ir) * cols.in + ic) * depth;
        const uint8_t* wp = w + (fr * cols.k + fc) * depth * out_depth;
        for (int64_t d = 0; d < depth; ++d) {
          const uint32_t xv = static_cast<uint32_t>(xp[d] - off_in);
          for (int64_t od = 0; od < out_depth; ++od) {
            acc[od] +=
                xv * static_cast<uint32_t>(wp[d * out_depth + od] - off_f);
          }
        }
      }
    }
    for (int64_t od = 0; od < out_depth; ++od) {
      o[od] = static_cast<int32_t>(acc[od]);
    }
  }

  std::vector<int64_t> strides_;
  Padding padding_ = Padding::kValid;
};

}  // namespace

void RegisterQuantConvKernels(KernelRegistry* r) {
  r->Register<QuantizedConv2DOp>(
      "QuantizedConv2D", {TypeConstraint("Tinput", TypeList<QUInt8>()),
                          TypeConstraint("Tfilter", TypeList<QUInt8>()),
                          TypeConstraint("out_type", TypeList<QInt32>())});
}

}  // namespace dfg
