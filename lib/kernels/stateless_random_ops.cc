// Stateless random ops (TensorFlow's stateless_random_ops.cc and
// stateless_random_ops_v2.cc): the output is a pure function of the shape
// and the seed (v1: a 2-element seed scrambled by Philox into a key and a
// counter) or of an explicit key, counter and algorithm (v2, what
// tf.random.stateless_* and Keras 3's initializers and random layers emit).
// The numbers are the same distributions over the same Philox4x32-10 stream
// as the seeded ops (random_fill.h), so they match TensorFlow bit for bit.
//
// On CPU the only algorithm is Philox (1); "auto select" (3) means Philox.
#include <cstring>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"
#include "lib/kernels/random_fill.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

constexpr int kAlgPhilox = 1;
constexpr int kAlgThreeFry = 2;
constexpr int kAlgAutoSelect = 3;

enum class Dist { kUniform, kNormal, kTruncated, kInt, kFullInt };

Dist DistOf(std::string_view op) {
  if (op.starts_with("StatelessRandomUniformFullInt")) return Dist::kFullInt;
  if (op.starts_with("StatelessRandomUniformInt")) return Dist::kInt;
  if (op.starts_with("StatelessRandomNormal")) return Dist::kNormal;
  if (op.starts_with("StatelessTruncatedNormal")) return Dist::kTruncated;
  return Dist::kUniform;
}

Status ShapeArg(const Tensor& t, TensorShape* shape) {
  if (t.dims() > 1) {
    return InvalidArgument(
        "shape must be a vector of int32 or int64, got shape {}",
        t.shape().DebugString());
  }
  return MakeShape(IntValues(t), shape);
}

// TensorFlow's GetScalar for the alg input.
Status AlgArg(const Tensor& t, int index, int* alg) {
  if (t.dims() != 0) {
    return InvalidArgument("input {} (0-based) must have shape [], not {}",
                           index, t.shape().DebugString());
  }
  *alg = t.scalar<int32_t>();
  if (*alg == kAlgAutoSelect) *alg = kAlgPhilox;
  return Status::Ok();
}

// The v2 ops' key [1] and counter [>= counter size] uint64 inputs as a
// generator. TensorFlow checks the shapes before it rejects the algorithm.
Status KeyCounterArgs(const Tensor& key, const Tensor& counter, int alg,
                      Philox4x32* gen) {
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return InvalidArgument(
        "key must have shape [1], not {}. (Note that batched keys are not "
        "supported yet.)",
        key.shape().DebugString());
  }
  const int64_t counter_size = alg == kAlgThreeFry ? 1 : 2;
  if (alg == kAlgPhilox || alg == kAlgThreeFry) {
    if (counter.dims() != 1 || counter.dim_size(0) < counter_size) {
      return InvalidArgument(
          "counter must be a vector with length at least {}; got shape: {}. "
          "(Note that batched counters are not supported yet.)",
          counter_size, counter.shape().DebugString());
    }
  }
  if (alg != kAlgPhilox) {
    return InvalidArgument("Unsupported algorithm id: {}", alg);
  }
  const uint64_t k = key.flat<uint64_t>()[0];
  const uint64_t c0 = counter.flat<uint64_t>()[0];
  const uint64_t c1 = counter.flat<uint64_t>()[1];
  *gen =
      Philox4x32({static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
                  static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
                 {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
  return Status::Ok();
}

void FillDist(Dist dist, const Philox4x32& gen, OpKernelContext* ctx,
              Tensor* out) {
  const int64_t n = out->NumElements();
  if (dist == Dist::kInt) {
    const int lo = ctx->num_inputs() - 2;
    return FillIntRange(gen, ctx->input(lo), ctx->input(lo + 1), out);
  }
  if (dist == Dist::kFullInt) {
    Dispatch(IntRandomTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      FillFullInt<T>(gen, out->flat<T>().data(), n);
    });
    return;
  }
  Dispatch(RandomTypes(), out->dtype(), [&](auto v) {
    using T = decltype(v);
    T* data = out->flat<T>().data();
    if (dist == Dist::kUniform) return Fill<T>(gen, data, n);
    if (dist == Dist::kNormal) return FillNormal<T>(gen, data, n);
    FillTruncatedNormal<T>(gen, data, n);
  });
}

// StatelessRandomUniform/Normal/TruncatedNormal/UniformInt/UniformFullInt:
// (shape, seed[, minval, maxval]).
class StatelessV1Op : public OpKernel {
 public:
  explicit StatelessV1Op(OpKernelConstruction* ctx)
      : OpKernel(ctx), dist_(DistOf(def().op())) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeArg(ctx->input(0), &shape));
    const Tensor& seed = ctx->input(1);
    DFG_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    InvalidArgument("seed must have shape [2], not {}",
                                    seed.shape().DebugString()));
    if (dist_ == Dist::kInt) {
      DFG_OP_REQUIRES_OK(ctx, CheckIntRange(ctx->input(2), ctx->input(3),
                                            shape.num_elements() > 0));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx, PhiloxFromSeed(seed, &gen));
    FillDist(dist_, gen, ctx, out);
  }

 private:
  Dist dist_;
};

// The v2 forms: (shape, key, counter, alg[, minval, maxval]).
class StatelessV2Op : public OpKernel {
 public:
  explicit StatelessV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx), dist_(DistOf(def().op())) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeArg(ctx->input(0), &shape));
    // Only the int op checks its key and counter before an empty output.
    if (dist_ != Dist::kInt && shape.num_elements() == 0) {
      Tensor* out = nullptr;
      DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    int alg = 0;
    DFG_OP_REQUIRES_OK(ctx, AlgArg(ctx->input(3), 3, &alg));
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx,
                       KeyCounterArgs(ctx->input(1), ctx->input(2), alg, &gen));
    if (dist_ == Dist::kInt) {
      DFG_OP_REQUIRES_OK(ctx, CheckIntRange(ctx->input(4), ctx->input(5),
                                            shape.num_elements() > 0));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    FillDist(dist_, gen, ctx, out);
  }

 private:
  Dist dist_;
};

// StatelessRandomGetKeyCounter(seed) -> key, counter and
// StatelessRandomGetKeyCounterAlg(seed) -> key, counter, alg: the v1
// scrambling of the seed, as the v2 ops' inputs.
class GetKeyCounterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(0);
    DFG_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    InvalidArgument("seed must have shape [2], not {}",
                                    seed.shape().DebugString()));
    const std::vector<int64_t> v = IntValues(seed);
    Philox4x32 mixer({static_cast<uint32_t>(v[0]),
                      static_cast<uint32_t>(static_cast<uint64_t>(v[0]) >> 32),
                      static_cast<uint32_t>(v[1]),
                      static_cast<uint32_t>(static_cast<uint64_t>(v[1]) >> 32)},
                     {0x3ec8f720u, 0x02461e29u});
    const Philox4x32::Block mix = mixer.Next();
    Tensor* key = nullptr;
    Tensor* counter = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({2}), &counter));
    key->flat<uint64_t>()[0] = mix[0] | (uint64_t{mix[1]} << 32);
    counter->flat<uint64_t>()[0] = 0;
    counter->flat<uint64_t>()[1] = mix[2] | (uint64_t{mix[3]} << 32);
    if (ctx->num_outputs() > 2) {
      ctx->set_output(2, Tensor::Scalar<int32_t>(kAlgPhilox));
    }
  }
};

class GetAlgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(kAlgPhilox));
  }
};

// StatelessShuffle(value, key, counter, alg): RandomShuffle's order from
// the given generator.
class StatelessShuffleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    int alg = 0;
    DFG_OP_REQUIRES_OK(ctx, AlgArg(ctx->input(3), 3, &alg));
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx,
                       KeyCounterArgs(ctx->input(1), ctx->input(2), alg, &gen));
    const Tensor& in = ctx->input(0);
    if (in.NumElements() <= 1 || in.dims() == 0 || in.dim_size(0) <= 1) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    DFG_OP_REQUIRES_OK(ctx, ShuffleRows(gen, in, out));
  }
};

}  // namespace

void RegisterStatelessRandomKernels(KernelRegistry* r) {
  for (const char* op : {"StatelessRandomUniform", "StatelessRandomNormal",
                         "StatelessTruncatedNormal"}) {
    r->Register<StatelessV1Op>(op, {TypeConstraint("dtype", RandomTypes())});
  }
  for (const char* op : {"StatelessRandomUniformV2", "StatelessRandomNormalV2",
                         "StatelessTruncatedNormalV2"}) {
    r->Register<StatelessV2Op>(op, {TypeConstraint("dtype", RandomTypes())});
  }
  r->Register<StatelessV1Op>("StatelessRandomUniformInt");
  r->Register<StatelessV1Op>("StatelessRandomUniformFullInt");
  // TensorFlow's CPU kernel draws int32 and int64 only.
  r->Register<StatelessV2Op>(
      "StatelessRandomUniformIntV2",
      {TypeConstraint("dtype", TypeList<int32_t, int64_t>())});
  r->Register<StatelessV2Op>("StatelessRandomUniformFullIntV2");
  r->Register<GetKeyCounterOp>("StatelessRandomGetKeyCounter");
  r->Register<GetKeyCounterOp>("StatelessRandomGetKeyCounterAlg");
  r->Register<GetAlgOp>("StatelessRandomGetAlg");
  r->Register<StatelessShuffleOp>("StatelessShuffle");
}

}  // namespace dfg
