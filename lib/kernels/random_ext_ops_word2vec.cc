// The deprecated word2vec ops, as TensorFlow's CPU kernels
// (word2vec_kernels.cc) run them:
//  - Skipgram reads a whitespace-separated text file once, keeps the words
//    seen min_count times (by count, most frequent first; id 0 is "UNK"),
//    and hands out (example, label) pairs from a window of random size
//    around each word of 1000-word sentences, dropping frequent words at
//    random (subsample); 3000 pairs are computed ahead. Its generator is
//    Philox with key and counter 0 (the op has no seed).
//  - NegTrain takes one SGD step of negative-sampling word2vec on the two
//    embedding variables in place, drawing num_negative_samples words per
//    example from the unigram^0.75 distribution (an alias table).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "lib/kernels/file_policy.h"
#include "lib/kernels/random_ext_ops.h"

namespace dfg {
namespace {

constexpr int kPrecalc = 3000;
constexpr int kSentenceSize = 1000;

// 32-bit draws one at a time, floats and integers in [0, n) (TensorFlow's
// SimplePhilox).
class Draws {
 public:
  explicit Draws(Philox4x32* gen) : single_(gen) {}  // Not owned.
  uint32_t Rand32() { return single_(); }
  float RandFloat() { return Uint32ToUnitFloat(single_()); }
  uint32_t Uniform(uint32_t n) {
    if (n == 0) return Rand32() * n;
    if ((n & (n - 1)) == 0) return Rand32() & (n - 1);
    const uint32_t rem = (std::numeric_limits<uint32_t>::max() % n) + 1;
    uint32_t r;
    do {
      r = Rand32();
    } while (r < rem);
    return r % n;
  }

 private:
  SingleSampleAdapter single_;
};

std::vector<std::string> Words(const std::string& data) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < data.size()) {
    while (i < data.size() && std::isspace(static_cast<unsigned char>(data[i])))
      ++i;
    size_t j = i;
    while (j < data.size() &&
           !std::isspace(static_cast<unsigned char>(data[j])))
      ++j;
    if (j > i) words.push_back(data.substr(i, j - i));
    i = j;
  }
  return words;
}

class SkipgramOp : public OpKernel {
 public:
  explicit SkipgramOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_({0, 0, 0, 0}, {0, 0}), rng_(&gen_) {
    std::string filename;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("filename", &filename));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_size", &batch_size_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("window_size", &window_size_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("min_count", &min_count_));
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("subsample", &subsample_));
    DFG_OP_REQUIRES_OK(ctx, CheckPath(*ctx, filename));
    DFG_OP_REQUIRES_OK(ctx, Init(filename));
    example_pos_ = label_pos_ = label_limit_ =
        static_cast<int32_t>(corpus_size_);
    sentence_index_ = kSentenceSize;
    for (Example& e : precalc_) NextExample(&e);
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor examples(tensorflow::DT_INT32, TensorShape({batch_size_}));
    Tensor labels(tensorflow::DT_INT32, TensorShape({batch_size_}));
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t i = 0; i < batch_size_; ++i) {
      examples.flat<int32_t>()[i] = precalc_[precalc_index_].input;
      labels.flat<int32_t>()[i] = precalc_[precalc_index_].label;
      if (++precalc_index_ >= kPrecalc) {
        precalc_index_ = 0;
        for (Example& e : precalc_) NextExample(&e);
      }
    }
    ctx->set_output(0, word_);
    ctx->set_output(1, freq_);
    ctx->set_output(2, Tensor::Scalar<int64_t>(corpus_size_));
    ctx->set_output(3, Tensor::Scalar<int32_t>(current_epoch_));
    ctx->set_output(4, Tensor::Scalar<int64_t>(total_words_processed_));
    ctx->set_output(5, std::move(examples));
    ctx->set_output(6, std::move(labels));
  }

 private:
  struct Example {
    int32_t input = 0;
    int32_t label = 0;
  };

  Status Init(const std::string& filename);
  void FillSentence();
  void NextExample(Example* e);

  int64_t batch_size_ = 0, window_size_ = 5, min_count_ = 5;
  float subsample_ = 1e-3f;
  Tensor word_, freq_;
  int64_t corpus_size_ = 0;
  std::vector<int32_t> corpus_;
  Example precalc_[kPrecalc];
  int precalc_index_ = 0;
  std::vector<int32_t> sentence_ = std::vector<int32_t>(kSentenceSize);
  int sentence_index_ = 0;
  std::mutex mu_;
  Philox4x32 gen_;  // guarded by mu_, as the rest below
  Draws rng_;
  int32_t current_epoch_ = -1;
  int64_t total_words_processed_ = 0;
  int32_t example_pos_ = 0, label_pos_ = 0, label_limit_ = 0;
};

Status SkipgramOp::Init(const std::string& filename) {
  std::ifstream in(filename, std::ios::binary);
  if (!in) return NotFound("{}; No such file or directory", filename);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::vector<std::string> words = Words(buf.str());
  corpus_size_ = static_cast<int64_t>(words.size());
  // The same container and sort as TensorFlow, so that words of equal
  // count get the same ids.
  std::unordered_map<std::string, int32_t> counts;
  for (const std::string& w : words) ++counts[w];
  if (corpus_size_ < window_size_ * 10) {
    return InvalidArgument(
        "The text file {} contains too little data: {} words", filename,
        corpus_size_);
  }
  using WordFreq = std::pair<std::string, int32_t>;
  std::vector<WordFreq> ordered;
  for (const auto& p : counts) {
    if (p.second >= min_count_) ordered.push_back(p);
  }
  std::sort(
      ordered.begin(), ordered.end(),
      [](const WordFreq& x, const WordFreq& y) { return x.second > y.second; });
  const int64_t vocab = 1 + static_cast<int64_t>(ordered.size());
  word_ = Tensor(tensorflow::DT_STRING, TensorShape({vocab}));
  freq_ = Tensor(tensorflow::DT_INT32, TensorShape({vocab}));
  word_.flat<std::string>()[0] = "UNK";
  std::unordered_map<std::string, int32_t> ids;
  int64_t counted = 0;
  for (size_t i = 0; i < ordered.size(); ++i) {
    word_.flat<std::string>()[i + 1] = ordered[i].first;
    freq_.flat<int32_t>()[i + 1] = ordered[i].second;
    counted += ordered[i].second;
    ids[ordered[i].first] = static_cast<int32_t>(i + 1);
  }
  freq_.flat<int32_t>()[0] = static_cast<int32_t>(corpus_size_ - counted);
  corpus_.reserve(words.size());
  for (const std::string& w : words) {
    auto it = ids.find(w);
    corpus_.push_back(it == ids.end() ? 0 : it->second);
  }
  return Status::Ok();
}

// The next 1000 words, each kept with probability
// (sqrt(f / (s * n)) + 1) * (s * n) / f (Mikolov et al., eq. 5).
void SkipgramOp::FillSentence() {
  sentence_index_ = 0;
  for (int i = 0; i < kSentenceSize; ++i, ++example_pos_) {
    if (example_pos_ >= corpus_size_) {
      ++current_epoch_;
      example_pos_ = 0;
    }
    if (subsample_ > 0) {
      const int32_t f = freq_.flat<int32_t>()[corpus_[example_pos_]];
      const float scaled = subsample_ * corpus_size_;
      const float keep = (std::sqrt(f / scaled) + 1) * scaled / f;
      if (rng_.RandFloat() > keep) {
        --i;
        continue;
      }
    }
    sentence_[i] = corpus_[example_pos_];
  }
}

void SkipgramOp::NextExample(Example* e) {
  while (true) {
    if (label_pos_ >= label_limit_) {
      ++total_words_processed_;
      if (++sentence_index_ >= kSentenceSize) FillSentence();
      const int32_t skip = 1 + static_cast<int32_t>(rng_.Uniform(
                                   static_cast<uint32_t>(window_size_)));
      label_pos_ = std::max<int32_t>(0, sentence_index_ - skip);
      label_limit_ =
          std::min<int32_t>(kSentenceSize, sentence_index_ + skip + 1);
    }
    if (sentence_index_ != label_pos_) break;
    ++label_pos_;
  }
  e->input = sentence_[sentence_index_];
  e->label = sentence_[label_pos_++];
}

// An alias table (TensorFlow's DistributionSampler).
class AliasTable {
 public:
  explicit AliasTable(const std::vector<float>& weights) {
    BuildAliasTable(weights, &prob_, &alt_);
  }
  int64_t size() const { return static_cast<int64_t>(prob_.size()); }
  int Sample(Draws* rnd) const {
    const float r = rnd->RandFloat();
    const int idx =
        static_cast<int>(rnd->Uniform(static_cast<uint32_t>(size())));
    return r < prob_[idx] ? idx : alt_[idx];
  }

 private:
  std::vector<float> prob_;
  std::vector<int> alt_;
};

class NegTrainOp : public OpKernel {
 public:
  explicit NegTrainOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("num_negative_samples", &num_samples_));
    std::vector<int64_t> counts;
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("vocab_count", &counts));
    std::vector<float> weights;
    for (int64_t c : counts) {
      weights.push_back(
          std::pow(static_cast<float>(static_cast<int32_t>(c)), 0.75f));
    }
    sampler_ = std::make_unique<AliasTable>(weights);
    generator_.Init(0, 0);
  }

  void Compute(OpKernelContext* ctx) override;

 private:
  int64_t num_samples_ = 0;
  std::unique_ptr<AliasTable> sampler_;
  std::mutex mu_;
  // Seeded (0, 0) as TensorFlow's: a nondeterministic stream.
  SeededPhilox generator_;
};

void NegTrainOp::Compute(OpKernelContext* ctx) {
  // TensorFlow updates both variables in place without their locks.
  Tensor* w_in = ctx->mutable_input(0);
  DFG_OP_REQUIRES(ctx, w_in->dims() == 2, InvalidArgument("Must be a matrix"));
  Tensor* w_out = ctx->mutable_input(1);
  DFG_OP_REQUIRES(ctx, w_in->shape() == w_out->shape(),
                  InvalidArgument("w_in.shape == w_out.shape"));
  const Tensor& examples = ctx->input(2);
  DFG_OP_REQUIRES(ctx, examples.dims() == 1,
                  InvalidArgument("Must be a vector"));
  const Tensor& labels = ctx->input(3);
  DFG_OP_REQUIRES(ctx, examples.shape() == labels.shape(),
                  InvalidArgument("examples.shape == labels.shape"));
  const Tensor& lr_t = ctx->input(4);
  DFG_OP_REQUIRES(ctx, lr_t.dims() == 0, InvalidArgument("Must be a scalar"));
  const float lr = lr_t.scalar<float>();
  const int64_t vocab = w_in->dim_size(0), dims = w_in->dim_size(1);
  const int64_t batch = examples.dim_size(0);
  DFG_OP_REQUIRES(ctx, vocab == sampler_->size(),
                  InvalidArgument("vocab_size mismatches: {} vs. {}", vocab,
                                  sampler_->size()));
  float* in = w_in->flat<float>().data();
  float* out = w_out->flat<float>().data();
  // 8 draws reserved per negative sample, in whole blocks.
  Philox4x32 gen = generator_.Reserve(
      static_cast<uint64_t>(batch * num_samples_ * 8 + 3) / 4);
  Draws rnd(&gen);
  std::vector<float> buf(dims);
  auto dot = [&](const float* a, const float* b) {
    float sum = 0;
    for (int64_t k = 0; k < dims; ++k) sum += a[k] * b[k];
    return sum;
  };
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < batch; ++i) {
    float* v_in = in + examples.flat<int32_t>()[i] * dims;
    const int32_t label = labels.flat<int32_t>()[i];
    float* v_out = out + label * dims;
    float g = 1.0f / (std::exp(dot(v_in, v_out)) + 1.0f);
    for (int64_t k = 0; k < dims; ++k) buf[k] = v_out[k] * (g * lr);
    for (int64_t k = 0; k < dims; ++k) v_out[k] += v_in[k] * (g * lr);
    for (int64_t j = 0; j < num_samples_; ++j) {
      const int sample = sampler_->Sample(&rnd);
      if (sample == label) continue;
      float* v_sample = out + sample * dims;
      g = -(1.0f / (std::exp(-dot(v_in, v_sample)) + 1.0f));
      for (int64_t k = 0; k < dims; ++k) buf[k] += v_sample[k] * (g * lr);
      for (int64_t k = 0; k < dims; ++k) v_sample[k] += v_in[k] * (g * lr);
    }
    for (int64_t k = 0; k < dims; ++k) v_in[k] += buf[k];
  }
}

}  // namespace

void RegisterWord2VecKernels(KernelRegistry* r) {
  r->Register<SkipgramOp>("Skipgram");
  r->Register<NegTrainOp>("NegTrain");
}

}  // namespace dfg
