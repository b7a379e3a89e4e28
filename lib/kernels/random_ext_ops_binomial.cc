// Binomial samplers (StatelessRandomBinomial, StatefulRandomBinomial) and
// the deprecated StatefulStandardNormal, as TensorFlow's CPU kernels
// (random_binomial_op.cc, stateful_random_ops.cc) draw them:
//  - the output is [samples..., batch...] with batch = broadcast(counts,
//    probs); element j (batch-major: j = batch * samples + sample) draws
//    from the generator skipped ahead by 256 * j blocks for Hormann's BTRS
//    (count * p >= 10) or 42 * j blocks for inversion (summing geometric
//    draws), both on double uniforms; p > 0.5 samples count - B(count, q);
//  - count * p and 1 - p are computed in the parameters' type, as
//    TensorFlow does, since they pick the method.
#include <cmath>
#include <limits>

#include "lib/kernels/random_ext_ops.h"
#include "lib/kernels/random_fill.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

// `v` rounded to T's precision (half/bfloat16/float/double).
template <typename T>
double RoundTo(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else {
    return Load(Store<T>(static_cast<float>(v)));
  }
}

double BinomialInversion(double count, double prob, Philox4x32* gen) {
  SampleBuffer<double, 2> uniform(&UniformDoubleBlock);
  double geom_sum = 0;
  int num_geom = 0;
  while (true) {
    const double geom =
        std::ceil(std::log(uniform.Next(gen)) / std::log1p(-prob));
    geom_sum += geom;
    if (geom_sum > count) break;
    ++num_geom;
  }
  return num_geom;
}

double StirlingApproxTail(double k) {
  static constexpr double kTailValues[] = {
      0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
      0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
      0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
      0.00833056343336287};
  if (k <= 9) return kTailValues[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Hormann's transformed rejection (BTRS).
double Btrs(double count, double prob, Philox4x32* gen) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  SampleBuffer<double, 2> uniform(&UniformDoubleBlock);
  while (true) {
    double u = uniform.Next(gen);
    double v = uniform.Next(gen);
    u = u - 0.5;
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upperbound =
        ((m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
         StirlingApproxTail(m) + StirlingApproxTail(count - m) -
         StirlingApproxTail(k) - StirlingApproxTail(count - k));
    if (v <= upperbound) return k;
  }
}

// One sample of element j for (count, prob) given in T's precision.
template <typename T>
double BinomialSample(double count, double prob, const Philox4x32& base,
                      int64_t j) {
  if (count <= 0.0 || prob <= 0.0) return 0.0;
  if (prob >= 1.0) return count;
  if (std::isnan(prob)) return NAN;
  const bool flip = prob > 0.5;
  const double p = flip ? RoundTo<T>(1.0 - prob) : prob;
  Philox4x32 gen = base;
  double k;
  if (RoundTo<T>(count * p) >= 10) {
    gen.Skip(256 * static_cast<uint64_t>(j));
    k = Btrs(count, p, &gen);
  } else {
    gen.Skip(42 * static_cast<uint64_t>(j));
    k = BinomialInversion(count, p, &gen);
  }
  return flip ? count - k : k;
}

using BinomialParamTypes = TypeList<Half, float, double>;
using BinomialOutTypes = TypeList<Half, float, double, int32_t, int64_t>;

// The checks and layout both binomial ops share (TensorFlow's order).
struct BinomialLayout {
  TensorShape out_shape;
  std::vector<std::vector<int64_t>> indices;  // counts, probs per batch
  int64_t samples_per_batch = 1;
  int64_t num_batches = 1;
};

Status BinomialArgs(const Tensor& shape_t, const Tensor& counts,
                    const Tensor& probs, BinomialLayout* l) {
  TensorShape bcast;
  if (!BroadcastIndices({counts.shape(), probs.shape()}, &bcast, &l->indices)) {
    return InvalidArgument(
        "counts and probs must have compatible batch dimensions: {} vs. {}",
        counts.shape().DebugString(), probs.shape().DebugString());
  }
  DFG_RETURN_IF_ERROR(RandomShapeArg(shape_t, &l->out_shape));
  if (!EndsWith(l->out_shape, bcast)) {
    return InvalidArgument("Shape passed in must end with broadcasted shape.");
  }
  // TensorFlow reads the dims through an int32 view of the shape input
  // (also for int64 shapes); the same words here.
  const int64_t n = shape_t.dim_size(0);
  const int64_t sample_dims = n - bcast.dims();
  auto word = [&](int64_t i) -> int64_t {
    if (shape_t.dtype() == tensorflow::DT_INT32) {
      return shape_t.flat<int32_t>()[i];
    }
    const int64_t v = shape_t.flat<int64_t>()[i / 2];
    return static_cast<int32_t>(static_cast<uint64_t>(v) >> (32 * (i % 2)));
  };
  for (int64_t i = 0; i < sample_dims; ++i) l->samples_per_batch *= word(i);
  for (int64_t i = sample_dims; i < n; ++i) l->num_batches *= word(i);
  return Status::Ok();
}

void FillBinomial(const Philox4x32& gen, const Tensor& counts,
                  const Tensor& probs, const BinomialLayout& l, Tensor* out) {
  const int64_t num = l.num_batches * l.samples_per_batch;
  Dispatch(BinomialParamTypes(), counts.dtype(), [&](auto tv) {
    using T = decltype(tv);
    const T* c = counts.flat<T>().data();
    const T* p = probs.flat<T>().data();
    Dispatch(BinomialOutTypes(), out->dtype(), [&](auto uv) {
      using U = decltype(uv);
      U* o = out->flat<U>().data();
      for (int64_t j = 0; j < num; ++j) {
        const int64_t b = j / l.samples_per_batch;
        const int64_t s = j % l.samples_per_batch;
        const int64_t ci = l.indices[0].empty() ? b : l.indices[0][b];
        const int64_t pi = l.indices[1].empty() ? b : l.indices[1][b];
        const double v =
            BinomialSample<T>(static_cast<double>(Load(c[ci])),
                              static_cast<double>(Load(p[pi])), gen, j);
        o[s * l.num_batches + b] = Store<U>(v);
      }
    });
  });
}

// StatelessRandomBinomial(shape, seed, counts, probs).
class StatelessBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(1);
    DFG_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    InvalidArgument("seed must have shape [2], not {}",
                                    seed.shape().DebugString()));
    BinomialLayout l;
    DFG_OP_REQUIRES_OK(
        ctx, BinomialArgs(ctx->input(0), ctx->input(2), ctx->input(3), &l));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, l.out_shape, &out));
    if (out->NumElements() == 0) return;
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx, PhiloxFromSeed(seed, &gen));
    FillBinomial(gen, ctx->input(2), ctx->input(3), l, out);
  }
};

// StatefulRandomBinomial(resource, algorithm, shape, counts, probs): the
// tf.random.Generator state moves on by 256 blocks per reserved sample.
class StatefulBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    BinomialLayout l;
    DFG_OP_REQUIRES_OK(
        ctx, BinomialArgs(ctx->input(2), ctx->input(3), ctx->input(4), &l));
    const Tensor& alg_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, alg_t.dims() == 0,
                    InvalidArgument("algorithm must be of shape [], not {}",
                                    alg_t.shape().DebugString()));
    const int64_t alg = alg_t.scalar<int64_t>();
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, l.out_shape, &out));
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(
        ctx, WithRngState(ctx, 0, [&](Tensor* state) {
          if (alg != 1) {
            return InvalidArgument("Unsupported algorithm id: {}", alg);
          }
          if (state->NumElements() < 3) {
            return InvalidArgument(
                "For Philox algorithm, the size of state must "
                "be at least 3; got {}",
                state->NumElements());
          }
          int64_t* words = state->flat<int64_t>().data();
          gen = PhiloxAtState(words);
          const int64_t reserved =
              l.num_batches * 2 * 100 * (l.samples_per_batch + 3) / 4;
          SkipState(words, static_cast<uint64_t>(reserved) * 256);
          return Status::Ok();
        }));
    FillBinomial(gen, ctx->input(3), ctx->input(4), l, out);
  }
};

// StatefulStandardNormal(resource, shape): the deprecated form whose state
// is [algorithm, counter, counter, key].
class StatefulStandardNormalV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(1);
    DFG_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    InvalidArgument("shape must be a vector of {{int32,int64}}"
                                    ", got shape {}",
                                    shape_t.shape().DebugString()));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, MakeShape(IntValues(shape_t), &shape));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx, WithRngState(ctx, 0, [&](Tensor* state) {
                         return TakeState(state, n, &gen);
                       }));
    Dispatch(RandomTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      FillNormal<T>(gen, out->flat<T>().data(), n);
    });
  }

 private:
  static Status TakeState(Tensor* state, int64_t n, Philox4x32* gen) {
    if (state->NumElements() < 1) {
      return InvalidArgument("Size of tensor must be at least 1");
    }
    int64_t* words = state->flat<int64_t>().data();
    int64_t alg = words[0];
    if (alg == 3) alg = 1;
    if (alg == 2) {
      return Unimplemented(
          "Non-XLA devices don't support the ThreeFry algorithm.");
    }
    if (alg != 1) return InvalidArgument("Unsupported algorithm id: {}", alg);
    if (state->NumElements() < 4) {
      return InvalidArgument(
          "For the Philox algorithm, the size of state must be at least 4; "
          "got {}",
          state->NumElements());
    }
    *gen = PhiloxAtState(words + 1);
    SkipState(words + 1, static_cast<uint64_t>(n) * 256);
    return Status::Ok();
  }
};

}  // namespace

void RegisterRandomExtPtnKernels(KernelRegistry* r);

void RegisterRandomExtBinomialKernels(KernelRegistry* r) {
  RegisterRandomExtPtnKernels(r);
  const std::vector<KernelTypeConstraint> types = {
      TypeConstraint("T", BinomialParamTypes()),
      TypeConstraint("dtype", BinomialOutTypes())};
  r->Register<StatelessBinomialOp>("StatelessRandomBinomial", types);
  r->Register<StatefulBinomialOp>("StatefulRandomBinomial", types);
  r->Register<StatefulStandardNormalV1Op>(
      "StatefulStandardNormal", {TypeConstraint("dtype", RandomTypes())});
}

}  // namespace dfg
