// The candidate samplers of sampled softmax / NCE (Uniform, LogUniform,
// LearnedUnigram, ThreadUnsafeUnigram, FixedUnigram, All) and
// ComputeAccidentalHits, as TensorFlow's CPU kernels
// (candidate_sampler_ops.cc, range_sampler.cc) sample them:
//  - each step takes 2048 * num_sampled 32-bit draws from the kernel's
//    seeded Philox generator, read one at a time (SimplePhilox);
//  - integers in [0, n) by rejection of the low 2^bits mod n draws, a
//    power of two by masking (ExactUniformInt);
//  - unique sampling redraws values already taken; the expected counts are
//    then 1 - (1 - p)^tries, else p * num_sampled;
//  - the learned unigram samplers start with weight 1 per class and add 1
//    per true class after each step; the fixed one draws from an alias
//    table (DistributionSampler) of the given unigrams ^ distortion.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "lib/kernels/file_policy.h"
#include "lib/kernels/random_ext_ops.h"

namespace dfg {
namespace {

// TensorFlow's SimplePhilox: 32-bit draws one at a time.
class SimplePhilox {
 public:
  explicit SimplePhilox(Philox4x32* gen) : single_(gen) {}  // Not owned.
  uint32_t Rand32() { return single_(); }
  uint64_t Rand64() {
    const uint32_t lo = single_(), hi = single_();
    return lo | (uint64_t{hi} << 32);
  }
  float RandFloat() { return Uint32ToUnitFloat(single_()); }
  double RandDouble() {
    const uint32_t x0 = single_(), x1 = single_();
    return Uint64ToUnitDouble(x0, x1);
  }
  uint32_t Uniform(uint32_t n) {
    return ExactUniform<uint32_t>(n, [&] { return Rand32(); });
  }
  uint64_t Uniform64(uint64_t n) {
    return ExactUniform<uint64_t>(n, [&] { return Rand64(); });
  }

 private:
  template <typename U, typename Fn>
  static U ExactUniform(U n, Fn draw) {
    if (n == 0) return draw() * n;
    if ((n & (n - 1)) == 0) return draw() & (n - 1);
    const U rem = (std::numeric_limits<U>::max() % n) + 1;
    U r;
    do {
      r = draw();
    } while (r < rem);
    return r % n;
  }
  SingleSampleAdapter single_;
};

class RangeSampler {
 public:
  explicit RangeSampler(int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;
  int64_t range() const { return range_; }
  virtual int64_t Sample(SimplePhilox* rnd) = 0;
  virtual float Probability(int64_t value) const = 0;
  virtual void Update(const int64_t*, int64_t) {}
  // All: the values 0..n-1 with expected count 1.
  virtual bool All() const { return false; }

 protected:
  int64_t range_;
};

class UniformSampler : public RangeSampler {
 public:
  explicit UniformSampler(int64_t range)
      : RangeSampler(range), inv_range_(1.0 / range) {}
  int64_t Sample(SimplePhilox* rnd) override {
    return static_cast<int64_t>(rnd->Uniform64(range_));
  }
  float Probability(int64_t) const override { return inv_range_; }

 private:
  float inv_range_;
};

class LogUniformSampler : public RangeSampler {
 public:
  explicit LogUniformSampler(int64_t range)
      : RangeSampler(range), log_range_(std::log1p(range)) {}
  int64_t Sample(SimplePhilox* rnd) override {
    const int64_t v =
        static_cast<int64_t>(std::exp(rnd->RandDouble() * log_range_)) - 1;
    return v % range_;
  }
  float Probability(int64_t value) const override {
    return std::log((value + 2.0) / (value + 1.0)) / log_range_;
  }

 private:
  double log_range_;
};

// Weights per class with prefix sums (a Fenwick tree): TensorFlow's
// WeightedPicker picks the class whose cumulative range holds the draw.
class UnigramSampler : public RangeSampler {
 public:
  explicit UnigramSampler(int64_t range)
      : RangeSampler(range), weight_(range, 1), tree_(range + 1, 0) {
    for (int64_t i = 0; i < range; ++i) Add(i, 1);
    total_ = range;
  }
  int64_t Sample(SimplePhilox* rnd) override {
    const uint32_t n = static_cast<uint32_t>(total_);
    if (n == 0) return -1;
    uint32_t draw;
    if ((n & (n - 1)) == 0) {
      draw = rnd->Rand32() & (n - 1);
    } else {
      const uint32_t rem = (std::numeric_limits<uint32_t>::max() % n) + 1;
      uint32_t r;
      do {
        r = rnd->Rand32();
      } while (r < rem);
      draw = r % n;
    }
    // The smallest class whose prefix sum exceeds the draw.
    int64_t pos = 0, rest = draw;
    int64_t step = 1;
    while (step * 2 <= range_) step *= 2;
    for (; step > 0; step /= 2) {
      if (pos + step <= range_ && tree_[pos + step] <= rest) {
        pos += step;
        rest -= tree_[pos];
      }
    }
    return pos;
  }
  float Probability(int64_t value) const override {
    return static_cast<float>(weight_[value]) / static_cast<float>(total_);
  }
  void Update(const int64_t* values, int64_t n) override {
    const int64_t room = std::numeric_limits<int32_t>::max() - total_;
    const int64_t updates = std::min<int64_t>(n, room);
    for (int64_t i = 0; i < updates; ++i) {
      ++weight_[values[i]];
      Add(values[i], 1);
      ++total_;
    }
  }

 private:
  void Add(int64_t i, int64_t delta) {
    for (++i; i <= range_; i += i & -i) tree_[i] += delta;
  }
  std::vector<int64_t> weight_;
  std::vector<int64_t> tree_;
  int64_t total_ = 0;
};

// An alias table over fixed weights (TensorFlow's DistributionSampler).
class FixedUnigramSampler : public RangeSampler {
 public:
  FixedUnigramSampler(int64_t range, std::vector<float> weights)
      : RangeSampler(range), weights_(std::move(weights)) {
    for (float w : weights_) total_ += w;
    BuildAliasTable(weights_, &prob_, &alt_);
  }
  int64_t Sample(SimplePhilox* rnd) override {
    const float r = rnd->RandFloat();
    const int idx =
        static_cast<int>(rnd->Uniform(static_cast<uint32_t>(weights_.size())));
    return r < prob_[idx] ? idx : alt_[idx];
  }
  float Probability(int64_t value) const override {
    if (value < 0 || static_cast<size_t>(value) >= weights_.size()) return 0;
    return weights_[value] / total_;
  }

 private:
  std::vector<float> weights_;
  float total_ = 0;
  std::vector<float> prob_;
  std::vector<int> alt_;
};

class AllSampler : public RangeSampler {
 public:
  using RangeSampler::RangeSampler;
  int64_t Sample(SimplePhilox*) override { return 0; }
  float Probability(int64_t) const override { return 1; }
  bool All() const override { return true; }
};

float ExpectedCount(float p, int batch_size, int tries) {
  if (tries == batch_size) return p * batch_size;
  return -std::expm1(tries * std::log1p(-p));
}

// The unigram weights of FixedUnigramCandidateSampler: reserved ids (weight
// 0), then the vocab file's last CSV column or the unigrams attr, each to
// the power `distortion`; only the ids of this shard.
Status FixedWeights(OpKernelConstruction* ctx, std::vector<float>* weights) {
  std::string vocab_file;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("vocab_file", &vocab_file));
  std::vector<float> unigrams;
  auto it = ctx->def().attr().find("unigrams");
  if (it != ctx->def().attr().end()) {
    unigrams.assign(it->second.list().f().begin(), it->second.list().f().end());
  }
  if (vocab_file.empty() && unigrams.empty()) {
    return InvalidArgument("Must provide either vocab_file or unigrams.");
  }
  if (!vocab_file.empty() && !unigrams.empty()) {
    return InvalidArgument("Must only provide one of vocab_file and unigrams.");
  }
  float distortion = 1;
  int64_t reserved = 0, shards = 1, shard = 0;
  DFG_RETURN_IF_ERROR(ctx->GetAttr("distortion", &distortion));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("num_reserved_ids", &reserved));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("num_shards", &shards));
  DFG_RETURN_IF_ERROR(ctx->GetAttr("shard", &shard));
  for (int64_t id = 0; id < reserved; ++id) {
    if (id % shards == shard) weights->push_back(0.0f);
  }
  int64_t id = static_cast<int64_t>(weights->size());
  auto add = [&](float w) {
    if (id % shards == shard) weights->push_back(std::pow(w, distortion));
    ++id;
  };
  if (vocab_file.empty()) {
    for (float w : unigrams) add(w);
    return Status::Ok();
  }
  DFG_RETURN_IF_ERROR(CheckPath(*ctx, vocab_file));
  std::ifstream in(vocab_file);
  if (!in) return NotFound("{}; No such file or directory", vocab_file);
  std::string line;
  while (std::getline(in, line)) {
    const std::string last = line.substr(line.rfind(',') + 1);
    if (id % shards == shard) {
      char* end = nullptr;
      const float w = std::strtof(last.c_str(), &end);
      if (last.empty() || *end != '\0') {
        return InvalidArgument("Wrong vocabulary format at line: {}", line);
      }
      weights->push_back(std::pow(w, distortion));
    }
    ++id;
  }
  return Status::Ok();
}

// The *CandidateSampler ops: true_classes [batch, num_true] -> sampled
// candidates [num_sampled] and the expected counts of both.
class CandidateSamplerOp : public OpKernel {
 public:
  explicit CandidateSamplerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_sampled", &num_sampled_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_true", &num_true_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("unique", &unique_));
    DFG_OP_REQUIRES_OK(ctx, generator_.Init(ctx));
    const std::string& op = def().op();
    if (op == "AllCandidateSampler") {
      sampler_ = std::make_unique<AllSampler>(num_sampled_);
      return;
    }
    int64_t range_max = 0;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("range_max", &range_max));
    if (op == "FixedUnigramCandidateSampler") {
      std::vector<float> weights;
      DFG_OP_REQUIRES_OK(ctx, FixedWeights(ctx, &weights));
      DFG_OP_REQUIRES(
          ctx, range_max == static_cast<int64_t>(weights.size()),
          InvalidArgument("range is {} must be equal to weights size  {}",
                          range_max, weights.size()));
      sampler_ = std::make_unique<FixedUnigramSampler>(range_max, weights);
      return;
    }
    DFG_OP_REQUIRES(ctx, range_max > 0,
                    InvalidArgument("range_max must be positive"));
    if (op == "UniformCandidateSampler") {
      sampler_ = std::make_unique<UniformSampler>(range_max);
    } else if (op == "LogUniformCandidateSampler") {
      sampler_ = std::make_unique<LogUniformSampler>(range_max);
    } else {
      DFG_OP_REQUIRES(
          ctx, range_max < std::numeric_limits<int32_t>::max(),
          InvalidArgument("range_max must be less than {} for "
                          "unigram samplers, got {}",
                          std::numeric_limits<int32_t>::max(), range_max));
      sampler_ = std::make_unique<UnigramSampler>(range_max);
      updates_ = true;
    }
  }

  void Compute(OpKernelContext* ctx) override;

 private:
  void Sample(const int64_t* true_classes, int64_t num_true_values,
              int64_t* sampled, float* sampled_count, float* true_count);

  int64_t num_sampled_ = 0;
  int64_t num_true_ = 0;
  bool unique_ = false;
  bool updates_ = false;
  SeededPhilox generator_;
  std::mutex mu_;
  std::unique_ptr<RangeSampler> sampler_;  // guarded by mu_
};

void CandidateSamplerOp::Compute(OpKernelContext* ctx) {
  const Tensor& true_classes = ctx->input(0);
  DFG_OP_REQUIRES(ctx, true_classes.dims() == 2,
                  InvalidArgument("true_classes must be a matrix"));
  const int64_t batch = true_classes.dim_size(0);
  DFG_OP_REQUIRES(ctx, true_classes.dim_size(1) == num_true_,
                  InvalidArgument("true_classes must have num_true columns, "
                                  "expected: {} was: {}",
                                  true_classes.dim_size(1), num_true_));
  if (unique_) {
    DFG_OP_REQUIRES(ctx, num_sampled_ <= sampler_->range(),
                    InvalidArgument("Sampler's range is too small."));
  }
  Tensor *sampled = nullptr, *true_count = nullptr, *sampled_count = nullptr;
  DFG_OP_REQUIRES_OK(
      ctx, ctx->allocate_output(0, TensorShape({num_sampled_}), &sampled));
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              1, TensorShape({batch, num_true_}), &true_count));
  DFG_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({num_sampled_}),
                                               &sampled_count));
  const int64_t* classes = true_classes.flat<int64_t>().data();
  const int64_t n = true_classes.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    DFG_OP_REQUIRES(ctx, classes[i] >= 0 && classes[i] < sampler_->range(),
                    InvalidArgument("`true_candidate` out of range [0, {}), "
                                    "received {}",
                                    sampler_->range(), classes[i]));
  }
  Sample(classes, n, sampled->flat<int64_t>().data(),
         sampled_count->flat<float>().data(), true_count->flat<float>().data());
}

void CandidateSamplerOp::Sample(const int64_t* true_classes,
                                int64_t num_true_values, int64_t* sampled,
                                float* sampled_count, float* true_count) {
  const int batch = static_cast<int>(num_sampled_);
  // 2048 draws per sample, reserved in whole blocks.
  Philox4x32 gen =
      generator_.Reserve(static_cast<uint64_t>(2048 * num_sampled_ + 3) / 4);
  SimplePhilox rnd(&gen);
  std::lock_guard<std::mutex> lock(mu_);
  if (sampler_->All()) {
    for (int i = 0; i < batch; ++i) sampled[i] = i;
    std::fill(sampled_count, sampled_count + batch, 1.0f);
    std::fill(true_count, true_count + num_true_values, 1.0f);
    return;
  }
  int tries = 0;
  if (unique_) {
    std::unordered_set<int64_t> used;
    int picked = 0;
    while (picked < batch) {
      ++tries;
      const int64_t v = sampler_->Sample(&rnd);
      if (used.insert(v).second) sampled[picked++] = v;
    }
  } else {
    for (int i = 0; i < batch; ++i) sampled[i] = sampler_->Sample(&rnd);
    tries = batch;
  }
  for (int i = 0; i < batch; ++i) {
    sampled_count[i] =
        ExpectedCount(sampler_->Probability(sampled[i]), batch, tries);
  }
  for (int64_t i = 0; i < num_true_values; ++i) {
    true_count[i] =
        ExpectedCount(sampler_->Probability(true_classes[i]), batch, tries);
  }
  if (updates_) sampler_->Update(true_classes, num_true_values);
}

// ComputeAccidentalHits(true_classes, sampled_candidates): where a row's
// true class is among the sampled candidates (its last position).
class AccidentalHitsOp : public OpKernel {
 public:
  explicit AccidentalHitsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_true", &num_true_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    DFG_OP_REQUIRES(
        ctx, true_classes.dims() == 2 && true_classes.dim_size(1) == num_true_,
        InvalidArgument(
            "true_candidates must be a batch_size * num_true matrix"));
    const Tensor& sampled = ctx->input(1);
    DFG_OP_REQUIRES(
        ctx, sampled.dims() == 1,
        InvalidArgument("sampled_candidates must be a vector, which is "
                        "typically an output from CandidateSampler"));
    std::unordered_map<int64_t, int> pos;
    const int64_t* s = sampled.flat<int64_t>().data();
    for (int64_t i = 0; i < sampled.dim_size(0); ++i) pos[s[i]] = i;
    std::vector<int32_t> indices;
    std::vector<int64_t> ids;
    const int64_t* t = true_classes.flat<int64_t>().data();
    for (int64_t i = 0; i < true_classes.NumElements(); ++i) {
      auto it = pos.find(t[i]);
      if (it == pos.end()) continue;
      indices.push_back(static_cast<int32_t>(i / num_true_));
      ids.push_back(it->second);
    }
    const int64_t n = static_cast<int64_t>(ids.size());
    Tensor weights(tensorflow::DT_FLOAT, TensorShape({n}));
    std::fill_n(weights.flat<float>().data(), n, -FLT_MAX);
    ctx->set_output(0, Tensor::Vector<int32_t>(indices));
    ctx->set_output(1, Tensor::Vector<int64_t>(ids));
    ctx->set_output(2, std::move(weights));
  }

 private:
  int64_t num_true_ = 0;
};

}  // namespace

void RegisterCandidateSamplerKernels(KernelRegistry* r) {
  for (const char* op :
       {"UniformCandidateSampler", "LogUniformCandidateSampler",
        "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
        "FixedUnigramCandidateSampler", "AllCandidateSampler"}) {
    r->Register<CandidateSamplerOp>(op);
  }
  r->Register<AccidentalHitsOp>("ComputeAccidentalHits");
}

}  // namespace dfg
