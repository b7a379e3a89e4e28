// tf.random.Generator's ops: the generator's state is an int64 resource
// variable [counter_lo, counter_hi, key] (Philox: a 128-bit counter and a
// 64-bit key). RngReadAndSkip / RngSkip advance the counter by 256 * `delta`
// 128-bit blocks (ReadAndSkip outputs the state before); StatefulUniform,
// StatefulUniformInt, StatefulUniformFullInt, StatefulStandardNormalV2 and
// StatefulTruncatedNormal fill their output from the current state, as the
// stateless ops do, then advance it by 256 blocks per output element
// (TensorFlow's stateful_random_ops.cc).
#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"
#include "lib/kernels/random_fill.h"
#include "lib/kernels/resource_mgr.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

constexpr int64_t kPhilox = 1;
constexpr int64_t kThreeFry = 2;
constexpr int64_t kAutoSelect = 3;
constexpr int64_t kPhiloxStateSize = 3;

// Runs `fn(state)` (state: the 3 int64 words, to update in place) under the
// variable's lock; the variable gets a fresh buffer, so earlier reads of it
// keep their value.
template <typename Fn>
Status WithState(OpKernelContext* ctx, int64_t alg, Fn fn) {
  const Tensor& h = ctx->input(0);
  if (h.dtype() != tensorflow::DT_RESOURCE || h.NumElements() != 1) {
    return InvalidArgument("Expected a scalar resource handle");
  }
  const ResourceHandle& handle = h.flat<ResourceHandle>()[0];
  DFG_ASSIGN_OR_RETURN(
      std::shared_ptr<Var> var,
      ctx->resource_manager()->Lookup(handle.container, handle.name));
  std::lock_guard<std::mutex> lock(*var->mu());
  if (!var->is_initialized) {
    return NotFound("Resource {}/{}/{} is not initialized.", handle.container,
                    handle.name, kVarTypeName);
  }
  Tensor* t = var->tensor();
  if (t->dtype() != tensorflow::DT_INT64) {
    return InvalidArgument("dtype of RNG state variable must be int64, not {}",
                           DataTypeString(t->dtype()));
  }
  if (alg == kAutoSelect) alg = kPhilox;
  if (alg != kPhilox && alg != kThreeFry) {
    return InvalidArgument("Unsupported algorithm id: {}", alg);
  }
  if (t->dims() != 1) {
    return InvalidArgument(
        "RNG state must have one and only one dimension, not {}", t->dims());
  }
  const int64_t size = alg == kPhilox ? kPhiloxStateSize : 2;
  if (t->dim_size(0) < size) {
    return InvalidArgument("The size of the state must be at least {}; got {}",
                           size, t->dim_size(0));
  }
  if (alg != kPhilox) {
    return InvalidArgument("Unsupported algorithm id: {}", alg);
  }
  Tensor next = t->DeepCopy();
  fn(next.flat<int64_t>().data());
  *t = std::move(next);
  return Status::Ok();
}

// RngReadAndSkip(resource, alg int32, delta uint64) -> the old state, and
// RngSkip(resource, algorithm int64, delta int64).
class RngSkipOp : public OpKernel {
 public:
  explicit RngSkipOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), read_(def().op() == "RngReadAndSkip") {}

  void Compute(OpKernelContext* ctx) override {
    const int64_t alg = IntValues(ctx->input(1))[0];
    const uint64_t delta =
        read_ ? ctx->input(2).scalar<uint64_t>()
              : static_cast<uint64_t>(ctx->input(2).scalar<int64_t>());
    Tensor old(tensorflow::DT_INT64, TensorShape({kPhiloxStateSize}));
    DFG_OP_REQUIRES_OK(ctx, WithState(ctx, alg, [&](int64_t* state) {
                         std::copy_n(state, kPhiloxStateSize,
                                     old.flat<int64_t>().data());
                         SkipState(state, delta * 256);
                       }));
    if (read_) ctx->set_output(0, std::move(old));
  }

 private:
  bool read_;
};

enum class Dist { kUniform, kNormal, kTruncated, kInt, kFullInt };

// Stateful{Uniform,StandardNormalV2,TruncatedNormal,UniformInt,
// UniformFullInt}(resource, algorithm, shape[, minval, maxval]).
class StatefulRandomOp : public OpKernel {
 public:
  explicit StatefulRandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = def().op();
    dist_ = op == "StatefulUniform"            ? Dist::kUniform
            : op == "StatefulStandardNormalV2" ? Dist::kNormal
            : op == "StatefulTruncatedNormal"  ? Dist::kTruncated
            : op == "StatefulUniformInt"       ? Dist::kInt
                                               : Dist::kFullInt;
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    const Tensor& shape_t = ctx->input(2);
    DFG_OP_REQUIRES(ctx, shape_t.dims() <= 1,
                    InvalidArgument("shape must be a vector of int32 or "
                                    "int64, got shape {}",
                                    shape_t.shape().DebugString()));
    DFG_OP_REQUIRES_OK(ctx, MakeShape(IntValues(shape_t), &shape));
    if (dist_ == Dist::kInt) {
      DFG_OP_REQUIRES_OK(ctx, CheckIntRange(ctx->input(3), ctx->input(4),
                                            shape.num_elements() > 0));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    const int64_t alg = IntValues(ctx->input(1))[0];
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx, WithState(ctx, alg, [&](int64_t* state) {
                         gen = PhiloxAtState(state);
                         SkipState(state, static_cast<uint64_t>(n) * 256);
                       }));
    if (n == 0) return;
    if (dist_ == Dist::kInt) {
      return FillIntRange(gen, ctx->input(3), ctx->input(4), out);
    }
    if (dist_ == Dist::kFullInt) {
      Dispatch(IntRandomTypes(), out->dtype(), [&](auto v) {
        using T = decltype(v);
        FillFullInt<T>(gen, out->flat<T>().data(), n);
      });
      return;
    }
    Dispatch(RandomTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      T* data = out->flat<T>().data();
      if (dist_ == Dist::kUniform) return Fill<T>(gen, data, n);
      if (dist_ == Dist::kNormal) return FillNormal<T>(gen, data, n);
      FillTruncatedNormal<T>(gen, data, n);
    });
  }

 private:
  Dist dist_;
};

}  // namespace

void RegisterStatefulRandomKernels(KernelRegistry* r) {
  r->Register<RngSkipOp>("RngReadAndSkip");
  r->Register<RngSkipOp>("RngSkip");
  for (const char* op : {"StatefulUniform", "StatefulStandardNormalV2",
                         "StatefulTruncatedNormal"}) {
    r->Register<StatefulRandomOp>(op, {TypeConstraint("dtype", RandomTypes())});
  }
  r->Register<StatefulRandomOp>(
      "StatefulUniformInt",
      {TypeConstraint("dtype", TypeList<int32_t, int64_t>())});
  r->Register<StatefulRandomOp>("StatefulUniformFullInt",
                                {TypeConstraint("dtype", IntRandomTypes())});
}

}  // namespace dfg
