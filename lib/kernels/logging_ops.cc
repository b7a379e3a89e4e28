// Assert, Print, PrintV2 and Timestamp (TensorFlow's
// core/kernels/logging_ops.cc): a false condition fails the step with
// kInvalidArgument "assertion failed: [d0] [d1] ...", each data tensor
// printed as TensorFlow's Tensor::SummarizeValue(summarize) prints it (the v1
// form: "1 2 3..." for a vector, "[1 2][3 4]" for a matrix, strings unquoted
// and C-escaped, floats in %g with 6 or 9 digits). Print writes
// "<message>[d0][d1]..." to stderr and passes its input through; PrintV2
// writes its string to the output stream its attr names.
#include <chrono>
#include <complex>
#include <fstream>
#include <iostream>
#include <mutex>

#include "lib/base/strings.h"
#include "lib/base/summarize.h"
#include "lib/kernels/file_policy.h"
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

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("first_n", &first_n_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (calls_ >= first_n_) return;
      ++calls_;
    }
    std::string msg = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      msg += "[" + SummarizeV1(ctx->input(i), summarize_) + "]";
    }
    std::cerr << msg << std::endl;
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  // The first_n count is the one piece of state TensorFlow's kernel keeps
  // across steps.
  mutable std::mutex mu_;
  mutable int64_t calls_ = 0;
};

class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_is_expensive(false);
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_stream", &stream_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("end", &end_));
    if (stream_.rfind("file://", 0) == 0) {
      file_ = stream_.substr(7);
      return;
    }
    static const char* const kStreams[] = {"stdout", "stderr", "log(info)",
                                           "log(warning)", "log(error)"};
    std::string valid;
    bool known = false;
    for (const char* s : kStreams) {
      valid += std::string(" ") + s;
      known |= stream_ == s;
    }
    DFG_OP_REQUIRES(ctx, known,
                    InvalidArgument("Unknown output stream: {}, Valid streams "
                                    "are:{}",
                                    stream_, valid));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, in.dims() == 0,
        InvalidArgument("Input is expected to be scalar, but got {}",
                        in.shape().DebugString()));
    const std::string msg = in.scalar<std::string>() + end_;
    if (!file_.empty()) {
      DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, file_));
      std::ofstream f(file_, std::ios::app | std::ios::binary);
      f << msg;
      DFG_OP_REQUIRES(ctx, f.good(),
                      Internal("could not append to file {}", file_));
      return;
    }
    // TensorFlow's log(...) streams go through its logger to stderr.
    std::ostream& out = stream_ == "stdout" ? std::cout : std::cerr;
    out << msg << std::flush;
  }

 private:
  std::string stream_;
  std::string end_;
  std::string file_;
};

// Seconds since the Unix epoch, with microsecond resolution as TensorFlow's
// EnvTime::NowMicros gives it.
class TimestampOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    ctx->set_output(0, Tensor::Scalar<double>(micros / 1.0e6));
  }
};

}  // namespace

void RegisterLoggingKernels(KernelRegistry* r) {
  r->Register<AssertOp>("Assert");
  r->Register<PrintOp>("Print");
  r->Register<PrintV2Op>("PrintV2");
  r->Register<TimestampOp>("Timestamp");
}

}  // namespace dfg
