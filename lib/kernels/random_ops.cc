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
#include "lib/kernels/random_fill.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

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

// Multinomial (seed attrs) and StatelessMultinomial (seed input).
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    stateless_ = def().op() == "StatelessMultinomial";
    if (!stateless_) DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    Philox4x32 stateless_gen(0, 0);
    if (stateless_) {
      DFG_OP_REQUIRES_OK(ctx, PhiloxFromSeed(ctx->input(2), &stateless_gen));
    }
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
    Philox4x32 gen = stateless_
                         ? stateless_gen
                         : generator_.ReserveRandomOutputs(batch * ceil4, 256);
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
  bool stateless_ = false;
  GuardedPhilox generator_;
};

// RandomUniformInt: integers in [minval, maxval).
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeFromShapeTensor(ctx->input(0), &shape));
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    DFG_OP_REQUIRES_OK(ctx, CheckIntRange(lo, hi, shape.num_elements() > 0));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    const Philox4x32 gen = generator_.ReserveRandomOutputs(n, 256);
    FillIntRange(gen, lo, hi, out);
  }

 private:
  GuardedPhilox generator_;
};

// RandomShuffle(value): its rows in a random order.
class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (in.NumElements() <= 1 || in.dims() == 0 || in.dim_size(0) <= 1) {
      ctx->set_output(0, in);
      return;
    }
    // One draw per swap, reserved in whole 128-bit blocks.
    const int64_t samples = in.dim_size(0) - 1;
    const Philox4x32 gen =
        generator_.ReserveRandomOutputs((samples + 3) / 4, 1);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    DFG_OP_REQUIRES_OK(ctx, ShuffleRows(gen, in, out));
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
  r->Register<MultinomialOp>("StatelessMultinomial",
                             {TypeConstraint("T", RandomTypes())});
  r->Register<RandomUniformIntOp>("RandomUniformInt");
  r->Register<RandomShuffleOp>("RandomShuffle");
}

}  // namespace dfg
