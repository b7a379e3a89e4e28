// Gamma and Poisson samplers, seeded (RandomGamma, RandomPoisson,
// RandomPoissonV2) and stateless (StatelessRandomGammaV2/V3,
// StatelessRandomPoisson), laid out as TensorFlow's CPU kernels
// (random_op.cc, random_poisson_op.cc, stateless_random_gamma_op.cc) so that
// equal seeds give the same samples:
//  - the output is [samples..., params...]: element i uses parameter
//    i % num_params, and output element k = sample * num_params + param;
//  - element number j (counted parameter-major: j = param * samples +
//    sample) draws from the generator skipped ahead by 256 * j blocks;
//  - gamma: Marsaglia-Tsang with double normals and uniforms (alpha < 1
//    boosted by uniform^(1/alpha)), alpha == 1 an exponential from one
//    uniform; Poisson: Knuth's product of uniforms below rate 10, Hormann's
//    transformed rejection from rate 10, all in double.
#include "lib/kernels/random_ext_ops.h"

#include <cmath>
#include <limits>

#include "lib/kernels/random_fill.h"
#include "lib/kernels/resource_mgr.h"
#include "lib/kernels/shape_args.h"

namespace dfg {

Status RandomShapeArg(const Tensor& t, TensorShape* shape) {
  if (t.dims() != 1) {
    return InvalidArgument("Input shape should be a vector, got shape: {}",
                           t.shape().DebugString());
  }
  return MakeShape(IntValues(t), shape);
}

bool BroadcastIndices(const std::vector<TensorShape>& shapes, TensorShape* out,
                      std::vector<std::vector<int64_t>>* indices) {
  int rank = 0;
  for (const TensorShape& s : shapes) rank = std::max(rank, s.dims());
  std::vector<int64_t> dims(rank, 1);
  for (const TensorShape& s : shapes) {
    for (int i = 0; i < s.dims(); ++i) {
      int64_t& d = dims[rank - s.dims() + i];
      const int64_t v = s.dim_size(i);
      if (d == 1) {
        d = v;
      } else if (v != 1 && v != d) {
        return false;
      }
    }
  }
  *out = TensorShape(std::span<const int64_t>(dims));
  const int64_t n = out->num_elements();
  indices->assign(shapes.size(), {});
  for (size_t k = 0; k < shapes.size(); ++k) {
    const TensorShape& s = shapes[k];
    if (s == *out) continue;
    std::vector<int64_t>& idx = (*indices)[k];
    idx.resize(n);
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, flat = 0, stride = 1;
      for (int i = rank - 1; i >= 0; --i) {
        const int64_t coord = rest % dims[i];
        rest /= dims[i];
        const int si = i - (rank - s.dims());
        if (si < 0) continue;
        if (s.dim_size(si) != 1) flat += coord * stride;
        stride *= s.dim_size(si);
      }
      idx[e] = flat;
    }
  }
  return true;
}

bool EndsWith(const TensorShape& shape, const TensorShape& suffix) {
  const int off = shape.dims() - suffix.dims();
  if (off < 0) return false;
  for (int i = 0; i < suffix.dims(); ++i) {
    if (shape.dim_size(off + i) != suffix.dim_size(i)) return false;
  }
  return true;
}

Status WithRngState(OpKernelContext* ctx, int index,
                    const std::function<Status(Tensor* state)>& fn) {
  const Tensor& h = ctx->input(index);
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
  if (t->dims() != 1) {
    return InvalidArgument(
        "RNG state must have one and only one dimension, not {}", t->dims());
  }
  // A fresh buffer, so that earlier reads of the variable keep their value.
  Tensor next = t->DeepCopy();
  DFG_RETURN_IF_ERROR(fn(&next));
  *t = std::move(next);
  return Status::Ok();
}

void BuildAliasTable(const std::vector<float>& weights,
                     std::vector<float>* prob, std::vector<int>* alt) {
  const int n = static_cast<int>(weights.size());
  prob->assign(n, 0.0f);
  alt->assign(n, -1);
  double sum = 0;
  for (float w : weights) sum += w;
  std::vector<double> pr(n);
  std::vector<int> high, low;
  for (int i = 0; i < n; ++i) {
    pr[i] = (weights[i] * n) / sum;
    (pr[i] < 1.0 ? low : high).push_back(i);
  }
  while (!high.empty() && !low.empty()) {
    const int l = low.back(), h = high.back();
    low.pop_back();
    high.pop_back();
    (*alt)[l] = h;
    pr[h] = pr[h] - (1.0 - pr[l]);
    (pr[h] < 1.0 ? low : high).push_back(h);
  }
  for (int i = 0; i < n; ++i) (*prob)[i] = static_cast<float>(pr[i]);
  for (const std::vector<int>* rest : {&high, &low}) {
    for (int i : *rest) {
      (*prob)[i] = 1.0f;
      (*alt)[i] = i;
    }
  }
}

namespace {

constexpr uint64_t kBlocksPerOutput = 256;

// One gamma sample (shape alpha) from `gen`.
double GammaSample(double alpha, Philox4x32* gen) {
  SampleBuffer<double, 2> uniform(&UniformDoubleBlock);
  if (alpha == 1.0) return -std::log1p(-uniform.Next(gen));
  SampleBuffer<double, 2> normal(&NormalDoubleBlock);
  const bool boost = alpha < 1.0;
  const double d = alpha + (boost ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  while (true) {
    const double x = normal.Next(gen);
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform.Next(gen);
    if ((u < 1 - 0.0331 * (x * x) * (x * x)) ||
        (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))) {
      double res = d * v;
      if (boost) res *= std::pow(uniform.Next(gen), 1 / alpha);
      return res;
    }
  }
}

// One Poisson sample (rate) from `gen`, at most `highest` (the output
// type's largest value).
double PoissonSample(double rate, double highest, Philox4x32* gen) {
  SampleBuffer<double, 2> uniform(&UniformDoubleBlock);
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1, x = 0;
    while (true) {
      prod = prod * uniform.Next(gen);
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    double u = uniform.Next(gen);
    u -= 0.5;
    const double v = uniform.Next(gen);
    const double u_shifted = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s =
        std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

// TensorFlow's tensor::MakeShape: the shape input must be a vector.
Status ShapeVectorArg(const Tensor& t, TensorShape* shape) {
  if (t.dims() != 1) {
    return InvalidArgument(
        "shape must be a vector of {{int32,int64}}, got shape {}",
        t.shape().DebugString());
  }
  return MakeShape(IntValues(t), shape);
}

using GammaTypes = TypeList<Half, BFloat16, float, double>;
using PoissonTypes = TypeList<Half, float, double, int32_t, int64_t>;

template <typename T>
double HighestOf() {
  if constexpr (std::is_same_v<T, Half>) {
    return 65504.0;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return 3.3895313892515355e38;
  } else {
    return static_cast<double>(std::numeric_limits<T>::max());
  }
}

// out[sample * params + p] = sample_fn(param p, generator of element
// p * samples + sample), for the parameter tensor `param` (dtype P list) and
// the output dtype list O.
template <typename PList, typename OList, typename SampleFn>
void FillPerParam(const Philox4x32& base, const Tensor& param, Tensor* out,
                  SampleFn sample_fn) {
  const int64_t params = param.NumElements();
  if (params == 0 || out->NumElements() == 0) return;
  const int64_t samples = out->NumElements() / params;
  Dispatch(PList(), param.dtype(), [&](auto pv) {
    using P = decltype(pv);
    const P* p = param.flat<P>().data();
    Dispatch(OList(), out->dtype(), [&](auto ov) {
      using O = decltype(ov);
      O* o = out->flat<O>().data();
      for (int64_t j = 0; j < params; ++j) {
        const double value = static_cast<double>(Load(p[j]));
        for (int64_t s = 0; s < samples; ++s) {
          Philox4x32 gen = base;
          gen.Skip(kBlocksPerOutput * static_cast<uint64_t>(j * samples + s));
          o[s * params + j] = Store<O>(sample_fn(value, HighestOf<O>(), &gen));
        }
      }
    });
  });
}

double GammaFn(double alpha, double, Philox4x32* gen) {
  return GammaSample(alpha, gen);
}

// RandomGamma(shape, alpha) and RandomPoisson[V2](shape, rate): seed attrs.
class SeededGammaPoissonOp : public OpKernel {
 public:
  explicit SeededGammaPoissonOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    gamma_ = def().op() == "RandomGamma";
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& param = ctx->input(1);
    if (gamma_) {
      DFG_OP_REQUIRES(ctx, shape_t.dims() == 1,
                      InvalidArgument("shape must be a vector of "
                                      "{{int32,int64}}, got shape: {}",
                                      shape_t.DebugString()));
    }
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeVectorArg(shape_t, &shape));
    const int64_t samples = shape.num_elements();
    for (int i = 0; i < param.dims(); ++i) shape.AddDim(param.dim_size(i));
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (gamma_ ? shape.num_elements() == 0 : samples == 0) return;
    if (gamma_) {
      DFG_OP_REQUIRES(
          ctx, param.NumElements() > 0,
          InvalidArgument(
              "Input alpha should have non-zero element count, got: {}",
              param.NumElements()));
    }
    const Philox4x32 gen = generator_.Reserve(
        static_cast<uint64_t>(samples * param.NumElements()) *
        kBlocksPerOutput);
    if (gamma_) {
      FillPerParam<GammaTypes, GammaTypes>(gen, param, out, &GammaFn);
    } else {
      FillPerParam<PoissonTypes, PoissonTypes>(gen, param, out, &PoissonSample);
    }
  }

 private:
  bool gamma_ = false;
  SeededPhilox generator_;
};

// The alg, key and counter inputs (1-3) of StatelessRandomGammaV3, checked
// as TensorFlow does before it reads the shape; *alg is Philox for "auto".
Status KeyCounterChecks(OpKernelContext* ctx, int* alg) {
  const Tensor& key = ctx->input(1);
  const Tensor& counter = ctx->input(2);
  const Tensor& alg_t = ctx->input(3);
  if (alg_t.dims() != 0) {
    return InvalidArgument("input 3 (0-based) must have shape [], not {}",
                           alg_t.shape().DebugString());
  }
  *alg = alg_t.scalar<int32_t>();
  if (*alg == 3) *alg = 1;
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return InvalidArgument(
        "key must have shape [1], not {}. (Note that batched keys are not "
        "supported yet.)",
        key.shape().DebugString());
  }
  const int64_t counter_size = *alg == 2 ? 1 : 2;
  if ((*alg == 1 || *alg == 2) &&
      (counter.dims() != 1 || counter.dim_size(0) < counter_size)) {
    return InvalidArgument(
        "counter must be a vector with length at least {}; got shape: {}. "
        "(Note that batched counters are not supported yet.)",
        counter_size, counter.shape().DebugString());
  }
  return Status::Ok();
}

Philox4x32 PhiloxAtKeyCounter(const Tensor& key, const Tensor& counter) {
  const uint64_t k = key.flat<uint64_t>()[0];
  const uint64_t c0 = counter.flat<uint64_t>()[0];
  const uint64_t c1 = counter.flat<uint64_t>()[1];
  return Philox4x32(
      {static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
       static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
      {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
}

// StatelessRandomGammaV2/V3 and StatelessRandomPoisson: the output has the
// shape input's shape, which must end with the parameter's shape.
class StatelessGammaPoissonOp : public OpKernel {
 public:
  explicit StatelessGammaPoissonOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v3_ = def().op() == "StatelessRandomGammaV3";
    gamma_ = def().op() != "StatelessRandomPoisson";
  }

  void Compute(OpKernelContext* ctx) override {
    int alg = 1;
    if (v3_) DFG_OP_REQUIRES_OK(ctx, KeyCounterChecks(ctx, &alg));
    TensorShape shape;
    DFG_OP_REQUIRES_OK(ctx, ShapeVectorArg(ctx->input(0), &shape));
    if (!v3_) {
      const Tensor& seed = ctx->input(1);
      DFG_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                      InvalidArgument("seed must have shape [2], not {}",
                                      seed.shape().DebugString()));
    }
    Tensor* out = nullptr;
    DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    Philox4x32 gen(0, 0);
    if (v3_) {
      gen = PhiloxAtKeyCounter(ctx->input(1), ctx->input(2));
    } else {
      DFG_OP_REQUIRES_OK(ctx, PhiloxFromSeed(ctx->input(1), &gen));
    }
    const Tensor& param = ctx->input(v3_ ? 4 : 2);
    DFG_OP_REQUIRES(
        ctx, EndsWith(shape, param.shape()),
        InvalidArgument("Shape passed in must end with broadcasted shape."));
    if (gamma_) {
      DFG_OP_REQUIRES(
          ctx, param.NumElements() > 0,
          InvalidArgument(
              "Input alpha should have non-zero element count, got: {}",
              param.NumElements()));
    }
    DFG_OP_REQUIRES(ctx, alg == 1,
                    InvalidArgument("Unsupported algorithm id: {}", alg));
    if (gamma_) {
      FillPerParam<GammaTypes, GammaTypes>(gen, param, out, &GammaFn);
    } else {
      FillPerParam<PoissonTypes, PoissonTypes>(gen, param, out, &PoissonSample);
    }
  }

 private:
  bool v3_ = false;
  bool gamma_ = true;
};

}  // namespace

void RegisterRandomExtBinomialKernels(KernelRegistry* r);
void RegisterCandidateSamplerKernels(KernelRegistry* r);
void RegisterRandomExtImageKernels(KernelRegistry* r);
void RegisterRandomExtMiscKernels(KernelRegistry* r);
void RegisterWord2VecKernels(KernelRegistry* r);

void RegisterRandomExtKernels(KernelRegistry* r) {
  RegisterRandomExtBinomialKernels(r);
  RegisterCandidateSamplerKernels(r);
  RegisterRandomExtImageKernels(r);
  RegisterRandomExtMiscKernels(r);
  RegisterWord2VecKernels(r);
  r->Register<SeededGammaPoissonOp>("RandomGamma",
                                    {TypeConstraint("T", GammaTypes())});
  r->Register<SeededGammaPoissonOp>(
      "RandomPoisson",
      {TypeConstraint("dtype", TypeList<Half, float, double>())});
  r->Register<SeededGammaPoissonOp>("RandomPoissonV2",
                                    {TypeConstraint("R", PoissonTypes()),
                                     TypeConstraint("dtype", PoissonTypes())});
  for (const char* op : {"StatelessRandomGammaV2", "StatelessRandomGammaV3"}) {
    r->Register<StatelessGammaPoissonOp>(
        op, {TypeConstraint("dtype", GammaTypes())});
  }
  r->Register<StatelessGammaPoissonOp>(
      "StatelessRandomPoisson", {TypeConstraint("Rtype", PoissonTypes()),
                                 TypeConstraint("dtype", PoissonTypes())});
}

}  // namespace dfg
