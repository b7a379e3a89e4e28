// QuantizedReshape (Reshape with the range passed through) and
// QuantizedConcat as TensorFlow's quantized_concat_op.cc: the output range
// spans every input's [min, max] (symmetric around 0 for qint32); an input with
// another range is requantized into it (dequantize and quantize in float, as
// its Eigen expressions), the others are copied; then a plain concat along
// concat_dim.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "lib/kernels/quant_ops.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

class QuantizedConcatOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dim_t = ctx->input(0);
    DFG_OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                    InvalidArgument("Concat dim tensor should be a scalar "
                                    "integer, but got shape {}",
                                    dim_t.shape().DebugString()));
    const int64_t axis = dim_t.flat<int32_t>()[0];
    const int n = (ctx->num_inputs() - 1) / 3;
    const Tensor& first = ctx->input(1);
    DFG_OP_REQUIRES(ctx, 0 <= axis && axis < first.dims(),
                    InvalidArgument("ConcatOp : Expected concatenating "
                                    "dimensions in the range [0, {}), but got "
                                    "{}",
                                    first.dims(), axis));
    float lo = std::numeric_limits<float>::max();
    float hi = std::numeric_limits<float>::lowest();
    for (int i = 0; i < n; ++i) {
      lo = std::min(lo, ctx->input(1 + n + i).flat<float>()[0]);
      hi = std::max(hi, ctx->input(1 + 2 * n + i).flat<float>()[0]);
    }
    if (first.dtype() == tensorflow::DT_QINT32) {
      // A signed type gets a range symmetric around zero.
      hi = std::max(std::fabs(lo), std::fabs(hi));
      lo = -hi;
    }
    int64_t outer = 1, total = 0;
    for (int64_t d = 0; d < axis; ++d) outer *= first.dim_size(d);
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(1 + i);
      DFG_OP_REQUIRES_OK(ctx, CheckShape(first, in, i, axis));
      total += in.dim_size(axis);
    }
    TensorShape shape = first.shape();
    shape.set_dim(axis, total);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Dispatch(TypeList<QUInt8, QInt32>(), first.dtype(), [&](auto z) {
      using R = QRaw<decltype(z)>;
      R* y = reinterpret_cast<R*>(out->data());
      const int64_t row = outer == 0 ? 0 : out->NumElements() / outer;
      int64_t col = 0;
      for (int i = 0; i < n; ++i) {
        const Tensor& in = ctx->input(1 + i);
        const int64_t width = outer == 0 ? 0 : in.NumElements() / outer;
        const std::vector<R> v =
            InRange<R>(in, ctx->input(1 + n + i).flat<float>()[0],
                       ctx->input(1 + 2 * n + i).flat<float>()[0], lo, hi);
        for (int64_t o = 0; o < outer; ++o) {
          std::copy_n(v.data() + o * width, width, y + o * row + col);
        }
        col += width;
      }
    });
    ctx->set_output(1, Tensor::Scalar(lo));
    ctx->set_output(2, Tensor::Scalar(hi));
  }

 private:
  static Status CheckShape(const Tensor& first, const Tensor& in, int i,
                           int64_t axis) {
    if (in.dims() != first.dims()) {
      return InvalidArgument(
          "ConcatOp : Ranks of all input tensors should match: shape[0] = {} "
          "vs. shape[{}] = {}",
          first.shape().DebugString(), i, in.shape().DebugString());
    }
    for (int d = 0; d < in.dims(); ++d) {
      if (d != axis && in.dim_size(d) != first.dim_size(d)) {
        return InvalidArgument(
            "ConcatOp : Dimensions of inputs should match: shape[0] = {} vs. "
            "shape[{}] = {}",
            first.shape().DebugString(), i, in.shape().DebugString());
      }
    }
    return Status::Ok();
  }

  // The input's values in the output range [lo, hi].
  template <typename R>
  static std::vector<R> InRange(const Tensor& in, float in_lo, float in_hi,
                                float lo, float hi) {
    const R* x = reinterpret_cast<const R*>(in.data());
    std::vector<R> v(x, x + in.NumElements());
    if (in_lo == lo && in_hi == hi) return v;
    const Dequantizer<R> dq(in_lo, in_hi);
    const Requantizer<R> rq(lo, hi);
    for (R& e : v) e = rq(dq(e));
    return v;
  }
};

// Reshape, the range passed through.
class QuantizedReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ReshapeShape(in, ctx->input(1), &shape));
    Tensor out;
    out.CopyFrom(in, shape);
    ctx->set_output(0, std::move(out));
    for (int i : {2, 3}) {
      DFG_OP_REQUIRES(ctx, ctx->input(i).NumElements() > 0,
                      InvalidArgument("{} must not be empty",
                                      i == 2 ? "input_min" : "input_max"));
      ctx->set_output(i - 1, Tensor::Scalar(ctx->input(i).flat<float>()[0]));
    }
  }
};

}  // namespace

void RegisterQuantArrayKernels(KernelRegistry* r) {
  r->Register<QuantizedConcatOp>(
      "QuantizedConcat", {TypeConstraint("T", TypeList<QUInt8, QInt32>())});
  r->Register<QuantizedReshapeOp>(
      "QuantizedReshape", {TypeConstraint("T", TypeList<QUInt8, QInt32>())});
}

}  // namespace dfg
