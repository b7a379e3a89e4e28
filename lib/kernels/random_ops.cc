// RandomUniform: [0, 1) values from Philox4x32-10, laid out as TensorFlow's
// CPU kernel does (four 32-bit draws per block; a double takes two). Seeds
// seed = seed2 = 0 mean "nondeterministic"; otherwise the kernel's
// generator starts at Philox(seed, seed2) and each Compute reserves
// 256 blocks per output element, so successive steps draw fresh values.
#include <mutex>
#include <random>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"

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
  std::vector<int64_t> d = IntValues(dims);
  for (int64_t v : d) {
    if (v < 0) return InvalidArgument("Dimension {} must be >= 0", v);
  }
  if (!TensorShape::IsValid(d)) {
    return InvalidArgument("Shape {} is too large", VectorString(d));
  }
  *shape = TensorShape(std::span<const int64_t>(d));
  return Status::Ok();
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

class RandomUniformOp : public OpKernel {
 public:
  explicit RandomUniformOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(0, 0) {
    int64_t seed = 0, seed2 = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = (int64_t{rd()} << 32) | rd();
      seed2 = (int64_t{rd()} << 32) | rd();
    }
    gen_ =
        Philox4x32(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeFromShapeTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    Philox4x32 gen = Reserve(static_cast<uint64_t>(n) * 256);
    Dispatch(RandomTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      Fill<T>(gen, out->flat<T>().data(), n);
    });
  }

 private:
  // A copy of the generator for this step; the kernel's own skips ahead.
  Philox4x32 Reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    Philox4x32 local = gen_;
    gen_.Skip(blocks);
    return local;
  }

  std::mutex mu_;
  Philox4x32 gen_;  // guarded by mu_
};

}  // namespace

void RegisterRandomKernels(KernelRegistry* r) {
  r->Register<RandomUniformOp>("RandomUniform",
                               {TypeConstraint("dtype", RandomTypes())});
}

}  // namespace dfg
