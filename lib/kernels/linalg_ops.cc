// Matrix structure ops over the last two dims: MatrixBandPart.
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

using PodTypes = decltype(NumberTypes() + TypeList<bool>());

// Keeps the band num_lower below / num_upper above the diagonal (negative:
// all), zeroes the rest.
class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(ctx, in.dims() >= 2,
                    InvalidArgument("input must be at least 2-dim, received "
                                    "shape: {}",
                                    in.shape().DebugString()));
    const int64_t rows = in.dim_size(in.dims() - 2);
    const int64_t cols = in.dim_size(in.dims() - 1);
    int64_t lower = 0, upper = 0;
    DFG_OP_REQUIRES_OK(ctx,
                       Bound(ctx->input(1), "num_lower", "rows", rows, &lower));
    DFG_OP_REQUIRES_OK(
        ctx, Bound(ctx->input(2), "num_upper", "columns", cols, &upper));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t batch =
        rows * cols == 0 ? 0 : in.NumElements() / (rows * cols);
    Dispatch(PodTypes(), in.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* src = static_cast<const T*>(in.data());
      T* dst = static_cast<T*>(out->data());
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j) {
            const int64_t at = (b * rows + i) * cols + j;
            const bool in_band =
                (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
            dst[at] = in_band ? src[at] : T{};
          }
        }
      }
    });
  }

 private:
  static Status Bound(const Tensor& t, const char* name, const char* dim,
                      int64_t size, int64_t* value) {
    if (t.dims() != 0) {
      return InvalidArgument("{} must be scalar, got shape {}", name,
                             t.shape().DebugString());
    }
    *value = IntValues(t)[0];
    if (*value > size) {
      return InvalidArgument(
          "{} must be negative or less or equal to number of {} ({}) got: {}",
          name, dim, size, *value);
    }
    return Status::Ok();
  }
};

}  // namespace

void RegisterLinalgKernels(KernelRegistry* r) {
  r->Register<MatrixBandPartOp>("MatrixBandPart",
                                {TypeConstraint("T", PodTypes())});
  r->Register<MatrixBandPartOp>("BatchMatrixBandPart",
                                {TypeConstraint("T", NumberTypes())});
}

}  // namespace dfg
