// Assert (TensorFlow's core/kernels/logging_ops.cc): a false condition fails
// the step with kInvalidArgument "assertion failed: [d0] [d1] ...", each data
// tensor printed as TensorFlow's Tensor::SummarizeValue(summarize) prints it
// (the v1 form: "1 2 3..." for a vector, "[1 2][3 4]" for a matrix, strings
// unquoted and C-escaped, floats in %g with 6 or 9 digits).
#include <complex>

#include "lib/base/strings.h"
#include "lib/base/summarize.h"
#include "lib/kernels/kernel_util.h"

namespace dfg {
namespace {

template <typename T>
std::string Element(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return Utf8SafeCEscape(v);
  } else if constexpr (std::is_same_v<T, float> || kIsHalfLike<T>) {
    return FloatToString(Load(v));
  } else if constexpr (std::is_same_v<T, double>) {
    return DoubleToString(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return "(" + FloatToString(v.real()) + "," + FloatToString(v.imag()) + ")";
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    return "(" + DoubleToString(v.real()) + "," + DoubleToString(v.imag()) +
           ")";
  } else {
    return std::to_string(v);
  }
}

std::string SummarizeV1(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  if (max_entries < 0) max_entries = n;
  const int64_t limit = std::min(max_entries, n);
  if (limit > 0 && !t.IsInitialized()) {
    return fmt::format("uninitialized Tensor of {} elements of type {}", n,
                       static_cast<int>(t.dtype()));
  }
  std::string out;
  const bool known = Dispatch(AllTypes(), t.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* data = limit > 0 ? t.flat<T>().data() : nullptr;
    out = SummarizeElements(t.shape().dim_sizes(), limit,
                            [data](int64_t i) { return Element(data[i]); });
  });
  if (!known) return "<" + DataTypeString(t.dtype()) + ">";
  if (n > limit) out += "...";
  return out;
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const bool legacy_scalar =
        cond.dims() == 0 || (cond.dims() == 1 && cond.dim_size(0) == 1);
    DFG_OP_REQUIRES(ctx, legacy_scalar,
                    InvalidArgument("In[0] should be a scalar: {}",
                                    cond.shape().DebugString()));
    if (cond.flat<bool>()[0]) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      msg += "[" + SummarizeV1(ctx->input(i), summarize_) + "]";
      if (i < ctx->num_inputs() - 1) msg += " ";
    }
    ctx->SetStatus(InvalidArgument("{}", msg));
  }

 private:
  int64_t summarize_ = 3;
};

}  // namespace

void RegisterLoggingKernels(KernelRegistry* r) {
  r->Register<AssertOp>("Assert");
}

}  // namespace dfg
