// Internal: what the rejection-sampling random kernels (random_ext_ops*.cc:
// gamma, Poisson, binomial, parameterized truncated normal) share.
//
// TensorFlow's samplers draw whole distribution results from Philox blocks
// (random_distributions.h) and hand them out one at a time from the END of
// the block (its `uniform_result[--remaining]` idiom); each output element
// restarts from the op's generator skipped ahead by a fixed number of blocks
// per element, so rejections never shift another element's stream.
// `SampleBuffer` reproduces that order; the block functions below are the
// distributions' results for one 128-bit Philox block.
#ifndef DFG_LIB_KERNELS_RANDOM_EXT_OPS_H_
#define DFG_LIB_KERNELS_RANDOM_EXT_OPS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <vector>

#include "lib/kernels/kernel_util.h"
#include "lib/kernels/philox.h"
#include "lib/kernels/tensor.h"

namespace dfg {

// UniformDistribution<PhiloxRandom, double>: two doubles per block.
inline std::array<double, 2> UniformDoubleBlock(Philox4x32* gen) {
  const Philox4x32::Block b = gen->Next();
  return {Uint64ToUnitDouble(b[0], b[1]), Uint64ToUnitDouble(b[2], b[3])};
}

// NormalDistribution<PhiloxRandom, double>: Box-Muller, two per block.
inline std::array<double, 2> NormalDoubleBlock(Philox4x32* gen) {
  const Philox4x32::Block b = gen->Next();
  std::array<double, 2> d;
  BoxMullerDouble(b[0], b[1], b[2], b[3], &d[0], &d[1]);
  return d;
}

// Hands out a distribution's results last-first, drawing a new block when
// the last one is used up (TensorFlow's UNIFORM() macro and
// RandomSampleBuffer).
template <typename V, size_t N>
class SampleBuffer {
 public:
  using BlockFn = std::array<V, N> (*)(Philox4x32*);
  explicit SampleBuffer(BlockFn fn) : fn_(fn) {}
  V Next(Philox4x32* gen) {
    if (remaining_ == 0) {
      block_ = fn_(gen);
      remaining_ = N;
    }
    return block_[--remaining_];
  }
  void Clear() { remaining_ = 0; }

 private:
  BlockFn fn_;
  std::array<V, N> block_{};
  size_t remaining_ = 0;
};

// A kernel-owned generator seeded from the seed/seed2 attrs (TensorFlow's
// GuardedPhiloxRandom); seed = seed2 = 0 picks a nondeterministic seed.
class SeededPhilox {
 public:
  Status Init(OpKernelConstruction* ctx) {
    int64_t seed = 0, seed2 = 0;
    DFG_RETURN_IF_ERROR(ctx->GetAttr("seed", &seed));
    DFG_RETURN_IF_ERROR(ctx->GetAttr("seed2", &seed2));
    Init(seed, seed2);
    return Status::Ok();
  }
  void Init(int64_t seed, int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = (int64_t{rd()} << 32) | rd();
      seed2 = (int64_t{rd()} << 32) | rd();
    }
    gen_ =
        Philox4x32(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }
  // This step's generator; the kernel's own moves on by `blocks`.
  Philox4x32 Reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    Philox4x32 local = gen_;
    gen_.Skip(blocks);
    return local;
  }

 private:
  std::mutex mu_;
  Philox4x32 gen_{0, 0};  // guarded by mu_
};

// The shape input of the rejection samplers: a vector of int32/int64.
// Errors: "Input shape should be a vector, got shape: ..." unless a vector.
Status RandomShapeArg(const Tensor& t, TensorShape* shape);

// Numpy broadcasting of `shapes`: the broadcast shape, and for each input
// the flat index of its element for each flat output element (empty when
// the input needs no broadcasting). Returns false when incompatible.
bool BroadcastIndices(const std::vector<TensorShape>& shapes, TensorShape* out,
                      std::vector<std::vector<int64_t>>* indices);

// True when `shape` ends with the dims of `suffix`.
bool EndsWith(const TensorShape& shape, const TensorShape& suffix);

// Runs `fn(state)` on the int64 state vector of a tf.random.Generator
// variable (input `index`) under its lock; the variable keeps what `fn`
// leaves there when it returns OK. Errors: TensorFlow's for a missing or
// uninitialized variable, a state not int64 or not 1-D.
Status WithRngState(OpKernelContext* ctx, int index,
                    const std::function<Status(Tensor* state)>& fn);

// TensorFlow's DistributionSampler table (Walker's alias method) over
// `weights`: a draw picks i uniformly, keeps it with probability prob[i],
// else takes alt[i].
void BuildAliasTable(const std::vector<float>& weights,
                     std::vector<float>* prob, std::vector<int>* alt);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_RANDOM_EXT_OPS_H_
