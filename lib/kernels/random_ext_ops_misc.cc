// RandomIndexShuffle and StochasticCastToInt as TensorFlow's CPU kernels
// (random_index_shuffle.cc, random_index_shuffle_ops.cc,
// stochastic_cast_op.cc) compute them:
//  - RandomIndexShuffle: a cycle-walking Simon block cipher (word size half
//    the block, blocks of >= 16 bits covering max_index, a 3-word key and
//    an even number of rounds) maps each index to its place in a
//    pseudorandom permutation of [0, max_index];
//  - StochasticCastToInt: x rounded down or up at random (up with
//    probability frac(x)) from one uniform draw of x's type per element,
//    saturating; NaN gives 0.
#include <bitset>
#include <cmath>
#include <limits>

#include "lib/kernels/random_ext_ops.h"
#include "lib/kernels/random_fill.h"

namespace dfg {
namespace {

// Simon with W-bit words kept in a uint64 (masked), as TensorFlow's
// std::bitset<W> version.
template <int W>
class Simon {
 public:
  Simon(const std::array<uint32_t, 3>& key, int rounds) {
    const uint64_t c = 0xfffffffcull & kMask;
    uint64_t z = 0x7369f885192c0ef5ull & kMask;
    keys_ = {key[0] & kMask, key[1] & kMask, key[2] & kMask};
    for (int i = 3; i < rounds; ++i) {
      keys_.push_back(c ^ (z & 1) ^ keys_[i - 3] ^ Rotr(keys_[i - 1], 3) ^
                      Rotr(keys_[i - 1], 4));
      z >>= 1;
    }
  }
  uint64_t Encrypt(uint64_t v) const {
    uint64_t left = (v >> W) & kMask, right = v & kMask;
    for (size_t i = 0; i < keys_.size(); i += 2) {
      left ^= F(right);
      left ^= keys_[i];
      right ^= F(left);
      right ^= keys_[i + 1];
    }
    return (left << W) | right;
  }

 private:
  static constexpr uint64_t kMask = W == 64 ? ~0ull : (1ull << W) - 1;
  static uint64_t Rotl(uint64_t x, int r) {
    return ((x << r) | (x >> (W - r))) & kMask;
  }
  static uint64_t Rotr(uint64_t x, int r) {
    return ((x >> r) | (x << (W - r))) & kMask;
  }
  static uint64_t F(uint64_t x) {
    return (Rotl(x, 1) & Rotl(x, 8)) ^ Rotl(x, 2);
  }
  std::vector<uint64_t> keys_;
};

template <int W>
uint64_t ShuffleWith(uint64_t index, const std::array<uint32_t, 3>& key,
                     uint64_t max_index, int rounds) {
  const Simon<W> cipher(key, rounds);
  uint64_t v = index;
  do {
    v = cipher.Encrypt(v);
  } while (v > max_index);
  return v;
}

template <int W>
uint64_t ShuffleAt(int block, uint64_t index,
                   const std::array<uint32_t, 3>& key, uint64_t max_index,
                   int rounds) {
  if constexpr (W < 32) {
    if (block > 2 * W) {
      return ShuffleAt<W + 1>(block, index, key, max_index, rounds);
    }
  }
  return ShuffleWith<W>(index, key, max_index, rounds);
}

uint64_t IndexShuffle(uint64_t index, const std::array<uint32_t, 3>& key,
                      uint64_t max_index, int rounds) {
  if (max_index == 0) return 0;
  int block = static_cast<int>(std::ceil(std::log2(max_index)));
  block = std::max(block + block % 2, 16);
  return ShuffleAt<8>(block, index, key, max_index, rounds);
}

using ShuffleTypes = TypeList<int32_t, uint32_t, int64_t, uint64_t>;

class RandomIndexShuffleOp : public OpKernel {
 public:
  explicit RandomIndexShuffleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("rounds", &rounds_));
    DFG_OP_REQUIRES(ctx, rounds_ >= 4 && rounds_ % 2 == 0,
                    InvalidArgument("The number of rounds must be an even "
                                    "integer >= 4 but got: {}",
                                    rounds_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(0);
    const Tensor& seed = ctx->input(1);
    const Tensor& max_index = ctx->input(2);
    const bool all_scalar =
        index.dims() == 0 && seed.dims() == 1 && max_index.dims() == 0;
    const int64_t n = std::max(
        {index.NumElements(), max_index.NumElements(), seed.NumElements() / 3});
    DFG_OP_REQUIRES(
        ctx, index.dims() == 0 || (index.dims() == 1 && index.dim_size(0) == n),
        InvalidArgument("Index bust be a scalar or vector."));
    DFG_OP_REQUIRES(
        ctx,
        (seed.dims() == 1 && seed.dim_size(0) == 3) ||
            (seed.dims() == 2 && seed.dim_size(0) == n &&
             seed.dim_size(1) == 3),
        InvalidArgument("Seed must be a vector of size [3] or a matrix of "
                        "size [{}, 3] but got {}.",
                        n, seed.shape().DebugString()));
    DFG_OP_REQUIRES(ctx,
                    max_index.dims() == 0 ||
                        (max_index.dims() == 1 && max_index.dim_size(0) == n),
                    InvalidArgument("Maxval must be a scalar or a vector of "
                                    "the same size as index but got {}",
                                    max_index.shape().DebugString()));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, all_scalar ? index.shape() : TensorShape({n}), &out));
    std::vector<uint64_t> seeds(seed.NumElements());
    Dispatch(ShuffleTypes(), seed.dtype(), [&](auto v) {
      using S = decltype(v);
      for (size_t i = 0; i < seeds.size(); ++i) {
        seeds[i] = static_cast<uint64_t>(seed.flat<S>()[i]);
      }
    });
    Dispatch(ShuffleTypes(), out->dtype(), [&](auto v) {
      using T = decltype(v);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t x =
            static_cast<uint64_t>(index.flat<T>()[index.dims() ? i : 0]);
        const uint64_t m = static_cast<uint64_t>(
            max_index.flat<T>()[max_index.dims() ? i : 0]);
        const int64_t row = seed.dims() == 1 ? 0 : i;
        const std::array<uint32_t, 3> key = {
            static_cast<uint32_t>(seeds[3 * row]),
            static_cast<uint32_t>(seeds[3 * row + 1]),
            static_cast<uint32_t>(seeds[3 * row + 2])};
        out->flat<T>()[i] = static_cast<T>(IndexShuffle(x, key, m, rounds_));
      }
    });
  }

 private:
  int64_t rounds_ = 4;
};

// `v` rounded to T's precision.
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

using CastInTypes = TypeList<Half, BFloat16, float, double>;
using CastOutTypes = TypeList<int8_t, int16_t, int32_t>;

// StochasticCastToInt(input, key, counter, alg).
class StochasticCastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& key = ctx->input(1);
    const Tensor& counter = ctx->input(2);
    const Tensor& alg_t = ctx->input(3);
    DFG_OP_REQUIRES(ctx, alg_t.dims() == 0,
                    InvalidArgument("input 3 (0-based) must have shape [], "
                                    "not {}",
                                    alg_t.shape().DebugString()));
    int alg = alg_t.scalar<int32_t>();
    if (alg == 3) alg = 1;
    DFG_OP_REQUIRES(
        ctx, key.dims() == 1 && key.dim_size(0) == 1,
        InvalidArgument("key must have shape [1], not {}. (Note that batched "
                        "keys are not supported yet.)",
                        key.shape().DebugString()));
    const int64_t counter_size = alg == 2 ? 1 : 2;
    DFG_OP_REQUIRES(
        ctx,
        !(alg == 1 || alg == 2) ||
            (counter.dims() == 1 && counter.dim_size(0) >= counter_size),
        InvalidArgument("counter must be a vector with length at "
                        "least {}; got shape: {}. (Note that "
                        "batched counters are not supported yet.)",
                        counter_size, counter.shape().DebugString()));
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    DFG_OP_REQUIRES(ctx, alg == 1,
                    InvalidArgument("Unsupported algorithm id: {}", alg));
    // TensorFlow seeds Philox(seed = counter[0], seed2 = key[0]).
    Philox4x32 gen(counter.flat<uint64_t>()[0], key.flat<uint64_t>()[0]);
    Dispatch(CastInTypes(), in.dtype(), [&](auto iv) {
      using T = decltype(iv);
      Dispatch(CastOutTypes(), out->dtype(), [&](auto ov) {
        using O = decltype(ov);
        Round<T, O>(in.flat<T>().data(), out->flat<O>().data(),
                    in.NumElements(), &gen);
      });
    });
  }

 private:
  template <typename T>
  static double RoundOne(double s, double random) {
    return s < 0 ? std::floor(RoundTo<T>(s + random))
                 : std::floor(RoundTo<T>(RoundTo<T>(s + 1) - random));
  }

  // TensorFlow evaluates the rounding with Eigen: float/double to int32 in
  // packets of 8 floats / 4 doubles (its AVX build), each packet taking one
  // uniform block whose results repeat across the lanes; the rest, and the
  // other type pairs, one element at a time, drawing a block per element
  // that needs rounding.
  template <typename T, typename O>
  static void Round(const T* in, O* out, int64_t n, Philox4x32* gen) {
    constexpr bool kPackets =
        (std::is_same_v<T, float> ||
         std::is_same_v<T, double>)&&std::is_same_v<O, int32_t>;
    constexpr int kLanes = std::is_same_v<T, double> ? 4 : 8;
    constexpr int kBlock = std::is_same_v<T, double> ? 2 : 4;
    const double max = RoundTo<T>(std::numeric_limits<O>::max());
    const double min = RoundTo<T>(std::numeric_limits<O>::min());
    auto fixed = [&](double s, double* r) {
      if (std::isnan(s)) {
        *r = 0;
      } else if (s >= max) {
        *r = max;
      } else if (s <= min) {
        *r = min;
      } else if (std::floor(s) == s) {
        *r = s;
      } else {
        return false;
      }
      return true;
    };
    auto draw = [&](T* u) {
      Fill<T>(*gen, u, kBlock);
      gen->Skip(1);
    };
    int64_t i = 0;
    if constexpr (kPackets) {
      for (; i + kLanes <= n; i += kLanes) {
        T u[4];
        draw(u);
        for (int j = 0; j < kLanes; ++j) {
          const double s = static_cast<double>(Load(in[i + j]));
          double r;
          if (!fixed(s, &r)) r = RoundOne<T>(s, Load(u[j % kBlock]));
          out[i + j] = static_cast<O>(r);
        }
      }
    }
    for (; i < n; ++i) {
      const double s = static_cast<double>(Load(in[i]));
      double r;
      if (!fixed(s, &r)) {
        T u[4];
        draw(u);
        r = RoundOne<T>(s, Load(u[0]));
      }
      out[i] = static_cast<O>(r);
    }
  }
};

}  // namespace

void RegisterRandomExtMiscKernels(KernelRegistry* r) {
  r->Register<RandomIndexShuffleOp>("RandomIndexShuffle",
                                    {TypeConstraint("dtype", ShuffleTypes())});
  r->Register<StochasticCastOp>("StochasticCastToInt",
                                {TypeConstraint("Tin", CastInTypes()),
                                 TypeConstraint("Tout", CastOutTypes())});
}

}  // namespace dfg
