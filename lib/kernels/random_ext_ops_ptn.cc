// ParameterizedTruncatedNormal and StatelessParameterizedTruncatedNormal as
// TensorFlow's CPU kernels (parameterized_truncated_normal_op.cc) sample
// them. Per batch of samples with one (mean, stddev, minval, maxval), one of
// three rejection samplers in the output type's precision:
//  - normal samples kept inside the bounds, when the bounds hold more than
//    1.3 standard deviations on a side of the mean;
//  - else uniform proposals on the bounds, when they are narrow;
//  - else an exponential proposal offset to the lower bound.
// Each consumes whole distribution blocks (unused results of a block are
// dropped at the end of a batch). The batches share one stream: TensorFlow
// shards large outputs over its threads, each shard skipping ahead, so the
// numbers match TensorFlow's where it runs one shard (small outputs: up to
// ~100 elements).
#include <cmath>
#include <limits>

#include "lib/kernels/random_ext_ops.h"
#include "lib/kernels/random_fill.h"
#include "lib/kernels/shape_args.h"

namespace dfg {
namespace {

constexpr int kMaxIterations = 1000;

// Arithmetic in T's precision: every result rounded to T, as Eigen's half
// does (through float); exp/log/sqrt as T's own functions.
template <typename T>
struct Num {
  static double R(double v) {
    if constexpr (std::is_same_v<T, double>) {
      return v;
    } else if constexpr (std::is_same_v<T, float>) {
      return static_cast<float>(v);
    } else {
      return Load(Store<T>(static_cast<float>(v)));
    }
  }
  static double Exp(double v) {
    if constexpr (std::is_same_v<T, double>) return std::exp(v);
    return R(std::exp(static_cast<float>(v)));
  }
  static double Log(double v) {
    if constexpr (std::is_same_v<T, double>) return std::log(v);
    return R(std::log(static_cast<float>(v)));
  }
  static double Sqrt(double v) {
    if constexpr (std::is_same_v<T, double>) return std::sqrt(v);
    return R(std::sqrt(static_cast<float>(v)));
  }
};

// UniformDistribution / NormalDistribution<PhiloxRandom, T> results of one
// block: 4 values (2 for double), as doubles holding T values.
template <typename T>
int UniformBlock(Philox4x32* gen, double* out) {
  std::array<T, 4> v;
  Fill<T>(*gen, v.data(), std::is_same_v<T, double> ? 2 : 4);
  gen->Skip(1);
  const int n = std::is_same_v<T, double> ? 2 : 4;
  for (int i = 0; i < n; ++i) out[i] = static_cast<double>(Load(v[i]));
  return n;
}

template <typename T>
int NormalBlock(Philox4x32* gen, double* out) {
  std::array<T, 4> v;
  FillNormal<T>(*gen, v.data(), std::is_same_v<T, double> ? 2 : 4);
  gen->Skip(1);
  const int n = std::is_same_v<T, double> ? 2 : 4;
  for (int i = 0; i < n; ++i) out[i] = static_cast<double>(Load(v[i]));
  return n;
}

struct Params {
  double mean, stddev, minval, maxval;
};

// Samples `count` values of one batch into out[0], out[stride], ...; false
// (with *error set) when TensorFlow fails.
template <typename T>
bool SampleBatch(Params p, int64_t count, Philox4x32* gen, T* out,
                 int64_t stride, Status* error) {
  using N = Num<T>;
  if (!(p.stddev > 0 && p.minval < p.maxval &&
        (std::isfinite(p.minval) || std::isfinite(p.maxval)))) {
    *error = InvalidArgument("Invalid parameters");
    return false;
  }
  if ((std::isinf(p.minval) && p.minval < 0) || p.maxval < p.mean) {
    std::swap(p.minval, p.maxval);
    p.stddev = -p.stddev;
  }
  const double norm_min = N::R(N::R(p.minval - p.mean) / p.stddev);
  const double norm_max = N::R(N::R(p.maxval - p.mean) / p.stddev);
  const double sqrt_factor = N::Sqrt(N::R(N::R(norm_min * norm_min) + 4));
  const double cutoff = N::R(
      N::R(2 * N::Exp(N::R(
                   0.5 +
                   N::R(N::R(norm_min * N::R(norm_min - sqrt_factor)) / 4)))) /
      N::R(norm_min + sqrt_factor));
  const double diff = N::R(norm_max - norm_min);
  const double k = N::R(1.3);
  auto emit = [&](int64_t& s, double z) {
    out[s * stride] = Store<T>(N::R(N::R(z * p.stddev) + p.mean));
    ++s;
  };
  double a[4] = {}, b[4] = {};
  int64_t s = 0;
  int iterations = 0;
  if ((norm_min < -k && norm_max >= 0) || (norm_max > k && norm_min <= 0)) {
    while (s < count) {
      const int n = NormalBlock<T>(gen, a);
      for (int i = 0; i < n; ++i) {
        if (a[i] >= norm_min && a[i] <= norm_max) {
          emit(s, a[i]);
          if (s >= count) break;
          iterations = 0;
        } else if (++iterations > kMaxIterations) {
          *error = Internal(
              "TruncatedNormal randn rejection sampler failed to accept a "
              "sample.");
          return false;
        }
      }
    }
  } else if (diff < cutoff) {
    const double plus = norm_min < 0 ? 0 : N::R(norm_min * norm_min);
    while (s < count) {
      const int n = UniformBlock<T>(gen, a);
      double z[4], g[4];
      for (int i = 0; i < n; ++i) {
        z[i] = N::R(N::R(a[i] * diff) + norm_min);
        g[i] = N::R(N::R(plus - N::R(z[i] * z[i])) / 2);
      }
      UniformBlock<T>(gen, b);
      for (int i = 0; i < n; ++i) {
        const bool accept = b[i] <= N::Exp(g[i]);
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            *error = Internal(
                "TruncatedNormal uniform rejection sampler failed to  accept "
                "a sample.");
            return false;
          }
          emit(s, z[i]);
          if (s >= count) break;
          iterations = 0;
        } else {
          ++iterations;
        }
      }
    }
  } else {
    const double alpha =
        N::R(N::R(norm_min + N::Sqrt(N::R(N::R(norm_min * norm_min) + 4))) / 2);
    while (s < count) {
      const int n = UniformBlock<T>(gen, a);
      for (int i = 0; i < n; i += 2) {
        const double z = N::R(N::R(-N::Log(a[i]) / alpha) + norm_min);
        const double x =
            norm_min < alpha ? N::R(alpha - z) : N::R(norm_min - alpha);
        const double g = N::Exp(N::R(N::R(-x * x) / 2));
        const double u = a[i + 1];
        const bool accept = u <= g && z < norm_max;
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            *error = Internal(
                "TruncatedNormal exponential distribution rejection sampler "
                "failed to accept a sample.");
            return false;
          }
          emit(s, z);
          if (s >= count) break;
          iterations = 0;
        } else {
          ++iterations;
        }
      }
    }
  }
  return true;
}

using PtnTypes = TypeList<Half, float, double>;

double At(const Tensor& t, int64_t i) {
  double v = 0;
  Dispatch(PtnTypes(), t.dtype(), [&](auto tv) {
    using T = decltype(tv);
    v = static_cast<double>(Load(t.flat<T>()[i]));
  });
  return v;
}

// ParameterizedTruncatedNormal(shape, means, stdevs, minvals, maxvals): rows
// of the output (dim 0) are the batches; parameters are scalars or vectors
// of length 1 or rows.
class PtnOp : public OpKernel {
 public:
  explicit PtnOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    DFG_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    InvalidArgument("Input shape should be a vector, got "
                                    "shape: {}",
                                    shape_t.shape().DebugString()));
    // An empty tensor's DebugString has no values (dfg's prints "[]").
    DFG_OP_REQUIRES(ctx, shape_t.NumElements() > 0,
                    InvalidArgument("Shape tensor must not be empty, got "
                                    "Tensor<type: {} shape: [0] values: >",
                                    DataTypeString(shape_t.dtype())));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, MakeShape(IntValues(shape_t), &shape));
    int64_t batches = shape.dim_size(0);
    int64_t per_batch = batches == 0 ? 0 : shape.num_elements() / batches;
    if (batches == 0) {
      per_batch = 1;
      for (int i = 1; i < shape.dims(); ++i) per_batch *= shape.dim_size(i);
    }
    const int64_t num = batches * per_batch;
    DFG_OP_REQUIRES(
        ctx, num <= std::numeric_limits<int32_t>::max(),
        InvalidArgument("ParameterizedTruncatedNormal does not support output "
                        "shapes with more than 2**31 - 1 elements."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    static const char* const kNames[] = {"means", "stddevs", "minvals",
                                         "maxvals"};
    for (int i = 0; i < 4; ++i) {
      const Tensor& t = ctx->input(i + 1);
      DFG_OP_REQUIRES(ctx, t.dims() <= 1,
                      InvalidArgument("Input {} should be a scalar or vector, "
                                      "got shape: {}",
                                      kNames[i], t.shape().DebugString()));
    }
    auto single = [&](int i) {
      const Tensor& t = ctx->input(i);
      return t.dims() == 0 || t.dim_size(0) == 1;
    };
    if (single(1) && single(2) && ctx->input(3).dims() == 0 &&
        ctx->input(4).dims() == 0) {
      // One parameter set: TensorFlow regroups into batches of 100.
      batches = (num + 99) / 100;
      per_batch = 100;
    } else {
      for (int i = 0; i < 4; ++i) {
        const Tensor& t = ctx->input(i + 1);
        DFG_OP_REQUIRES(
            ctx, single(i + 1) || t.dim_size(0) == batches,
            InvalidArgument("Input {} should have length 1 or shape[0], got "
                            "shape: {}",
                            kNames[i], t.shape().DebugString()));
      }
    }
    Philox4x32 gen = generator_.Reserve(static_cast<uint64_t>(
        batches * 2 * kMaxIterations * (per_batch + 3) / 4));
    Status error;
    Dispatch(PtnTypes(), out->dtype(), [&](auto tv) {
      using T = decltype(tv);
      T* o = out->flat<T>().data();
      for (int64_t b = 0; b < batches; ++b) {
        Params p;
        double* f[] = {&p.mean, &p.stddev, &p.minval, &p.maxval};
        for (int i = 0; i < 4; ++i) {
          const Tensor& t = ctx->input(i + 1);
          *f[i] = At(t, t.NumElements() == 1 ? 0 : b);
        }
        const int64_t start = b * per_batch;
        const int64_t count = std::min(start + per_batch, num) - start;
        if (!SampleBatch<T>(p, count, &gen, o + start, 1, &error)) return;
      }
    });
    DFG_OP_REQUIRES_OK(ctx, error);
  }

 private:
  SeededPhilox generator_;
};

// StatelessParameterizedTruncatedNormal(shape, seed, means, stddevs,
// minvals, maxvals): parameters broadcast to the trailing dims of shape.
class StatelessPtnOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(1);
    DFG_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    InvalidArgument("seed must have shape [2], not {}",
                                    seed.shape().DebugString()));
    std::vector<TensorShape> shapes;
    for (int i = 2; i < 6; ++i) shapes.push_back(ctx->input(i).shape());
    TensorShape bcast;
    std::vector<std::vector<int64_t>> idx;
    DFG_OP_REQUIRES(
        ctx, BroadcastIndices(shapes, &bcast, &idx),
        InvalidArgument("means, stddevs, minvals, maxvals must have "
                        "compatible batch dimensions: {} vs. {} vs. {} vs. {}",
                        shapes[0].DebugString(), shapes[1].DebugString(),
                        shapes[2].DebugString(), shapes[3].DebugString()));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, RandomShapeArg(ctx->input(0), &shape));
    DFG_OP_REQUIRES(
        ctx, EndsWith(shape, bcast),
        InvalidArgument("Shape passed in must end with broadcasted shape."));
    const int64_t batches = bcast.num_elements();
    const int64_t num = shape.num_elements();
    const int64_t per_batch = batches == 0 ? 0 : num / batches;
    DFG_OP_REQUIRES(
        ctx, num <= std::numeric_limits<int32_t>::max(),
        InvalidArgument("ParameterizedTruncatedNormal does not support output "
                        "shapes with more than 2**31 - 1 elements."));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    Philox4x32 gen(0, 0);
    DFG_OP_REQUIRES_OK(ctx, PhiloxFromSeed(seed, &gen));
    if (num == 0) return;
    Status error;
    Dispatch(PtnTypes(), out->dtype(), [&](auto tv) {
      using T = decltype(tv);
      T* o = out->flat<T>().data();
      for (int64_t b = 0; b < batches; ++b) {
        Params p;
        double* f[] = {&p.mean, &p.stddev, &p.minval, &p.maxval};
        for (int i = 0; i < 4; ++i) {
          *f[i] = At(ctx->input(i + 2), idx[i].empty() ? b : idx[i][b]);
        }
        if (!SampleBatch<T>(p, per_batch, &gen, o + b, batches, &error)) {
          return;
        }
      }
    });
    DFG_OP_REQUIRES_OK(ctx, error);
  }
};

}  // namespace

void RegisterRandomExtPtnKernels(KernelRegistry* r) {
  r->Register<PtnOp>("ParameterizedTruncatedNormal",
                     {TypeConstraint("dtype", PtnTypes())});
  r->Register<StatelessPtnOp>("StatelessParameterizedTruncatedNormal",
                              {TypeConstraint("dtype", PtnTypes())});
}

}  // namespace dfg
