// Random ops on Philox4x32-10 streams, laid out exactly as TensorFlow's CPU
// kernels (core/kernels/random_op.cc, multinomial_op.cc,
// random_distributions.h) so that equal seeds give equal numbers:
//  - RandomUniform: [0, 1) values, four 32-bit draws per block (a double
//    takes two);
//  - RandomStandardNormal: Box-Muller on consecutive pairs of draws (a double
//    takes four draws);
//  - TruncatedNormal: Box-Muller samples with |x| >= 2 dropped; each group of
//    4 outputs (2 for double) restarts at its own offset of 256 blocks per
//    output, so a group's rejections never shift the next group;
//  - Multinomial: per row, an unnormalized CDF of exp(logit - max) over the
//    finite logits, and one uniform double (two draws) per sample.
// Seeds seed = seed2 = 0 mean "nondeterministic"; otherwise the kernel's
// generator starts at Philox(seed, seed2) and each Compute reserves 256
// blocks per output element, so successive steps draw fresh values.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

using RandomTypes = TypeList<Half, BFloat16, float, double>;

// The output shape from a 1-D int32/int64 tensor (TensorFlow's
// MakeShape).
Status ShapeFromShapeTensor(const Tensor& dims, TensorShape* shape) {
  if (dims.dims() > 1) {
    return InvalidArgument(
        "shape must be a vector of int32 or int64, got shape {}",
        dims.shape().DebugString());
  }
  return MakeShape(IntValues(dims), shape);
}

template <typename T>
void Fill(Philox4x32 gen, T* out, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const Philox4x32::Block b = gen.Next();
    if constexpr (std::is_same_v<T, double>) {
      for (int j = 0; j < 4 && i < n; j += 2) {
        out[i++] = Uint64ToUnitDouble(b[j], b[j + 1]);
      }
    } else {
      for (int j = 0; j < 4 && i < n; ++j) {
        if constexpr (std::is_same_v<T, float>) {
          out[i++] = Uint32ToUnitFloat(b[j]);
        } else if constexpr (std::is_same_v<T, Half>) {
          out[i++] = Store<T>(static_cast<float>(b[j] & 0x3ffu) / 1024.0f);
        } else {
          out[i++] = Store<T>(static_cast<float>(b[j] & 0x7fu) / 128.0f);
        }
      }
    }
  }
}

template <typename T>
void FillNormal(Philox4x32 gen, T* out, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const Philox4x32::Block b = gen.Next();
    if constexpr (std::is_same_v<T, double>) {
      double d[2];
      BoxMullerDouble(b[0], b[1], b[2], b[3], &d[0], &d[1]);
      for (int j = 0; j < 2 && i < n; ++j) out[i++] = d[j];
    } else {
      float f[4];
      BoxMullerFloat(b[0], b[1], &f[0], &f[1]);
      BoxMullerFloat(b[2], b[3], &f[2], &f[3]);
      for (int j = 0; j < 4 && i < n; ++j) out[i++] = Store<T>(f[j]);
    }
  }
}

// One group of TruncatedNormal outputs from its own stream.
template <typename T, int kGroup>
void TruncatedGroup(Philox4x32 gen, T* results) {
  constexpr double kTruncateValue = 2.0;
  SingleSampleAdapter single(&gen);
  int index = 0;
  while (true) {
    if constexpr (std::is_same_v<T, double>) {
      const uint32_t x0 = single(), x1 = single(), x2 = single(), x3 = single();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (double v : d) {
        if (std::abs(v) < kTruncateValue) {
          results[index++] = v;
          if (index >= kGroup) return;
        }
      }
    } else {
      const uint32_t x0 = single(), x1 = single();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (float v : f) {
        if (std::abs(v) < 2.0f) {
          results[index++] = Store<T>(v);
          if (index >= kGroup) return;
        }
      }
    }
  }
}

template <typename T>
void FillTruncatedNormal(const Philox4x32& base, T* out, int64_t n) {
  constexpr int kGroup = std::is_same_v<T, double> ? 2 : 4;
  // TensorFlow's kGeneratorSkipPerOutputGroup: 256 draws per output.
  constexpr uint64_t kSkipPerGroup = kGroup * 256 / 4;
  for (int64_t g = 0; g * kGroup < n; ++g) {
    Philox4x32 gen = base;
    gen.Skip(static_cast<uint64_t>(g) * kSkipPerGroup);
    T results[kGroup];
    TruncatedGroup<T, kGroup>(gen, results);
    const int64_t count = std::min<int64_t>(kGroup, n - g * kGroup);
    std::copy(results, results + count, out + g * kGroup);
  }
}

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

// A kernel-owned generator seeded from the seed/seed2 attrs
// (TensorFlow's GuardedPhiloxRandom).
class GuardedPhilox {
 public:
  Status Init(OpKernelConstruction* ctx) {
    int64_t seed = 0, seed2 = 0;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("seed", &seed));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = (int64_t{rd()} << 32) | rd();
      seed2 = (int64_t{rd()} << 32) | rd();
    }
    gen_ =
        Philox4x32(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    return Status::Ok();
  }
  // A copy of the generator for this step; the kernel's own skips ahead by
  // `outputs` * `multiplier` blocks.
  Philox4x32 ReserveRandomOutputs(int64_t outputs, int64_t multiplier) {
    std::lock_guard<std::mutex> lock(mu_);
    Philox4x32 local = gen_;
    gen_.Skip(static_cast<uint64_t>(outputs) * multiplier);
    return local;
  }

 private:
  std::mutex mu_;
  Philox4x32 gen_{0, 0};  // guarded by mu_
};

class PhiloxRandomOp : public OpKernel {
 public:
  explicit PhiloxRandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = def().op();
    dist_ = op == "RandomStandardNormal" ? Distribution::kNormal
            : op == "TruncatedNormal"    ? Distribution::kTruncatedNormal
                                         : Distribution::kUniform;
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeFromShapeTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    const Philox4x32 gen = generator_.ReserveRandomOutputs(n, 256);
    Dispatch(RandomTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      T* data = out->flat<T>().data();
      switch (dist_) {
        case Distribution::kUniform:
          return Fill<T>(gen, data, n);
        case Distribution::kNormal:
          return FillNormal<T>(gen, data, n);
        case Distribution::kTruncatedNormal:
          return FillTruncatedNormal<T>(gen, data, n);
      }
    });
  }

 private:
  Distribution dist_;
  GuardedPhilox generator_;
};

// Samples one row: the index of the first CDF entry above u * total.
template <typename T, typename Out>
void SampleRow(const T* logits, int64_t classes, int64_t samples,
               SingleSampleAdapter* single, std::vector<double>* cdf,
               Out* out) {
  using C = CalcType<T>;
  // Any start below every finite logit gives TensorFlow's maximum.
  C max = std::numeric_limits<C>::lowest();
  for (int64_t j = 0; j < classes; ++j) {
    if (std::isfinite(Load(logits[j]))) max = std::max(max, Load(logits[j]));
  }
  const double max_logit = static_cast<double>(max);
  double total = 0;
  for (int64_t j = 0; j < classes; ++j) {
    const double logit = static_cast<double>(Load(logits[j]));
    if (std::isfinite(logit)) total += std::exp(logit - max_logit);
    (*cdf)[j] = total;
  }
  for (int64_t s = 0; s < samples; ++s) {
    const uint32_t x0 = (*single)();
    const uint32_t x1 = (*single)();
    const double to_find = Uint64ToUnitDouble(x0, x1) * total;
    out[s] = static_cast<Out>(
        std::upper_bound(cdf->begin(), cdf->end(), to_find) - cdf->begin());
  }
}

class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& num_samples_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, logits.dims() == 2,
                    InvalidArgument("logits should be a matrix, got shape {}",
                                    logits.shape().DebugString()));
    DFG_OP_REQUIRES(
        ctx, num_samples_t.dims() == 0,
        InvalidArgument("num_samples should be a scalar, got shape {}",
                        num_samples_t.shape().DebugString()));
    const int32_t num_samples = num_samples_t.scalar<int32_t>();
    DFG_OP_REQUIRES(ctx, num_samples >= 0,
                    InvalidArgument("num_samples should be nonnegative, got {}",
                                    num_samples));
    for (int i = 0; i < 2; ++i) {
      DFG_OP_REQUIRES(ctx,
                      logits.dim_size(i) <= std::numeric_limits<int32_t>::max(),
                      InvalidArgument("logits.shape = {} too large for int",
                                      logits.shape().DebugString()));
    }
    const int64_t batch = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);
    DFG_OP_REQUIRES(
        ctx, classes > 0,
        InvalidArgument("num_classes should be positive, got {}", classes));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, num_samples}), &out));
    if (out->NumElements() == 0) return;
    // Two draws per sample, rounded up to whole blocks, as TensorFlow's CPU
    // kernel reserves them. The rows then share one stream (TensorFlow's
    // single-shard case: its sharded path skips ahead per shard).
    const int64_t ceil4 = (num_samples + 3) / 4 * 4 * 2;
    Philox4x32 gen = generator_.ReserveRandomOutputs(batch * ceil4, 256);
    SingleSampleAdapter single(&gen);
    std::vector<double> cdf(classes);
    Dispatch(RandomTypes(), logits.dtype(), [&](auto v) {
      using T = decltype(v);
      const T* in = logits.flat<T>().data();
      for (int64_t b = 0; b < batch; ++b) {
        if (out->dtype() == tensorflow::DT_INT32) {
          SampleRow(in + b * classes, classes, num_samples, &single, &cdf,
                    out->flat<int32_t>().data() + b * num_samples);
        } else {
          SampleRow(in + b * classes, classes, num_samples, &single, &cdf,
                    out->flat<int64_t>().data() + b * num_samples);
        }
      }
    });
  }

 private:
  GuardedPhilox generator_;
};

}  // namespace

void RegisterRandomKernels(KernelRegistry* r) {
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    r->Register<PhiloxRandomOp>(op, {TypeConstraint("dtype", RandomTypes())});
  }
  r->Register<MultinomialOp>("Multinomial",
                             {TypeConstraint("T", RandomTypes())});
}

}  // namespace dfg
