// The summary ops that output serialized tensorflow.Summary protos
// (TensorFlow's core/kernels/summary_op.cc, summary_tensor_op.cc,
// summary_audio_op.cc): ScalarSummary, HistogramSummary (TensorFlow's
// default histogram: buckets growing by 10% from 1e-12 to 1e20 each side of
// 0, runs of empty buckets collapsed), TensorSummary(V2), AudioSummary(V2)
// (16-bit PCM WAV) and MergeSummary.
#include <cfloat>
#include <cmath>
#include <set>

#include "lib/kernels/kernel_util.h"
#include "lib/proto/summary.pb.h"

namespace dfg {
namespace {

using tensorflow::DT_STRING;

Tensor SerializedScalar(const tensorflow::Summary& s) {
  std::string out;
  s.SerializeToString(&out);
  return Tensor::Scalar<std::string>(std::move(out));
}

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    // TensorFlow names a lone tag in the message.
    const std::string single =
        tags.NumElements() == 1
            ? fmt::format(" (tag '{}')", tags.flat<std::string>()[0])
            : "";
    DFG_OP_REQUIRES(ctx, tags.shape() == values.shape(),
                    InvalidArgument("tags and values are not the same shape: "
                                    "{} != {}{}",
                                    tags.shape().DebugString(),
                                    values.shape().DebugString(), single));
    tensorflow::Summary s;
    auto t = tags.flat<std::string>();
    Dispatch(RealTypes(), values.dtype(), [&](auto z) {
      using T = decltype(z);
      auto v = values.flat<T>();
      for (size_t i = 0; i < t.size(); ++i) {
        auto* value = s.add_value();
        value->set_tag(t[i]);
        value->set_simple_value(static_cast<float>(Load(v[i])));
      }
    });
    ctx->set_output(0, SerializedScalar(s));
  }
};

const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double>* limits = [] {
    std::vector<double> pos, neg;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) {
      pos.push_back(v);
      neg.push_back(-v);
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    auto* all = new std::vector<double>(neg.rbegin(), neg.rend());
    all->push_back(0.0);
    all->insert(all->end(), pos.begin(), pos.end());
    return all;
  }();
  return *limits;
}

void EncodeHistogram(const std::vector<double>& values,
                     tensorflow::HistogramProto* h) {
  const std::vector<double>& limits = DefaultBucketLimits();
  std::vector<double> counts(limits.size(), 0.0);
  double min = DBL_MAX, max = -DBL_MAX, sum = 0, sum_squares = 0;
  for (double v : values) {
    counts[std::upper_bound(limits.begin(), limits.end(), v) -
           limits.begin()] += 1.0;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sum_squares += v * v;
  }
  h->set_min(min);
  h->set_max(max);
  h->set_num(static_cast<double>(values.size()));
  h->set_sum(sum);
  h->set_sum_squares(sum_squares);
  for (size_t i = 0; i < counts.size();) {
    double end = limits[i], count = counts[i++];
    if (count <= 0.0) {  // a run of empty buckets is one
      while (i < counts.size() && counts[i] <= 0.0) end = limits[i++];
    }
    h->add_bucket_limit(end);
    h->add_bucket(count);
  }
}

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& values = ctx->input(1);
    DFG_OP_REQUIRES(ctx, tag.dims() == 0,
                    InvalidArgument("tags must be scalar"));
    std::vector<double> v(values.NumElements());
    Dispatch(RealTypes(), values.dtype(), [&](auto z) {
      using T = decltype(z);
      auto f = values.flat<T>();
      for (size_t i = 0; i < f.size(); ++i)
        v[i] = static_cast<double>(Load(f[i]));
    });
    for (double x : v) {
      DFG_OP_REQUIRES(
          ctx, !std::isnan(x),
          InvalidArgument("Nan in summary histogram for: {}", def().name()));
      DFG_OP_REQUIRES(
          ctx, !std::isinf(x),
          InvalidArgument("Infinity in Histogram for: {}", def().name()));
    }
    tensorflow::Summary s;
    auto* value = s.add_value();
    value->set_tag(tag.flat<std::string>()[0]);
    EncodeHistogram(v, value->mutable_histo());
    ctx->set_output(0, SerializedScalar(s));
  }
};

void SetTensor(const Tensor& t, tensorflow::TensorProto* proto) {
  t.ToProto(proto, /*use_tensor_content=*/t.dtype() != DT_STRING);
}

class TensorSummaryOp : public OpKernel {
 public:
  explicit TensorSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v2_ = def().op() == "TensorSummaryV2";
  }
  void Compute(OpKernelContext* ctx) override {
    tensorflow::Summary s;
    auto* value = s.add_value();
    if (v2_) {
      value->set_tag(ctx->input(0).flat<std::string>()[0]);
      value->mutable_metadata()->ParseFromString(
          ctx->input(2).flat<std::string>()[0]);
      SetTensor(ctx->input(1), value->mutable_tensor());
    } else {
      value->set_node_name(def().name());
      SetTensor(ctx->input(0), value->mutable_tensor());
    }
    ctx->set_output(0, SerializedScalar(s));
  }

 private:
  bool v2_ = false;
};

void PutLe(uint64_t v, int bytes, std::string* out) {
  for (int b = 0; b < bytes; ++b)
    out->push_back(static_cast<char>(v >> (8 * b)));
}

// 16-bit PCM WAV of `frames` x `channels` samples in [-1, 1].
std::string EncodeWav(const float* data, int sample_rate, int64_t channels,
                      int64_t frames) {
  const uint64_t data_size = static_cast<uint64_t>(frames * channels * 2);
  std::string w = "RIFF";
  PutLe(36 + data_size, 4, &w);
  w += "WAVEfmt ";
  PutLe(16, 4, &w);
  PutLe(1, 2, &w);  // PCM
  PutLe(channels, 2, &w);
  PutLe(static_cast<uint32_t>(sample_rate), 4, &w);
  PutLe(static_cast<uint32_t>(sample_rate * channels * 2), 4, &w);
  PutLe(channels * 2, 2, &w);
  PutLe(16, 2, &w);
  w += "data";
  PutLe(data_size, 4, &w);
  for (int64_t i = 0; i < frames * channels; ++i) {
    const float x = std::round(data[i] * 32768.0f);
    const float clamped = std::min(32767.0f, std::max(-32768.0f, x));
    PutLe(static_cast<uint16_t>(static_cast<int16_t>(clamped)), 2, &w);
  }
  return w;
}

class AudioSummaryOp : public OpKernel {
 public:
  explicit AudioSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("max_outputs", &max_outputs_));
    v2_ = def().op() == "AudioSummaryV2";
    if (!v2_) DFG_OP_REQUIRES_OK(ctx, ctx->GetAttr("sample_rate", &rate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& audio = ctx->input(1);
    DFG_OP_REQUIRES(ctx, tag.dims() == 0,
                    InvalidArgument("Tag must be a scalar"));
    float rate = rate_;
    if (v2_) {
      const Tensor& r = ctx->input(2);
      DFG_OP_REQUIRES(ctx, r.dims() == 0,
                      InvalidArgument("sample_rate must be rank-0 or contain "
                                      "a single value"));
      rate = r.flat<float>()[0];
    }
    DFG_OP_REQUIRES(ctx, rate > 0.0f,
                    InvalidArgument("sample_rate must be > 0"));
    DFG_OP_REQUIRES(ctx, audio.dims() == 2 || audio.dims() == 3,
                    InvalidArgument("Tensor must be 3-D or 2-D, got: {}",
                                    audio.shape().DebugString()));
    const int64_t batch = audio.dim_size(0);
    const int64_t frames = audio.dim_size(1);
    const int64_t channels = audio.dims() == 3 ? audio.dim_size(2) : 1;
    const std::string& base = tag.flat<std::string>()[0];
    tensorflow::Summary s;
    const int64_t n = std::min<int64_t>(batch, max_outputs_);
    const float* data = audio.flat<float>().data();
    for (int64_t i = 0; i < n; ++i) {
      auto* value = s.add_value();
      value->set_tag(max_outputs_ > 1 ? fmt::format("{}/audio/{}", base, i)
                                      : base + "/audio");
      auto* a = value->mutable_audio();
      a->set_sample_rate(rate);
      a->set_num_channels(channels);
      a->set_length_frames(frames);
      a->set_content_type("audio/wav");
      a->set_encoded_audio_string(EncodeWav(data + i * frames * channels,
                                            static_cast<int>(rate), channels,
                                            frames));
    }
    ctx->set_output(0, SerializedScalar(s));
  }

 private:
  int64_t max_outputs_ = 3;
  float rate_ = 0;
  bool v2_ = false;
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    tensorflow::Summary merged;
    std::set<std::string> tags;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      for (const std::string& bytes : ctx->input(i).flat<std::string>()) {
        tensorflow::Summary one;
        DFG_OP_REQUIRES(
            ctx, one.ParseFromString(bytes),
            InvalidArgument("Could not parse one of the summary inputs"));
        for (const auto& v : one.value()) {
          DFG_OP_REQUIRES(ctx, v.tag().empty() || tags.insert(v.tag()).second,
                          InvalidArgument("Duplicate tag {} found in summary "
                                          "inputs ",
                                          v.tag()));
          *merged.add_value() = v;
        }
      }
    }
    ctx->set_output(0, SerializedScalar(merged));
  }
};

}  // namespace

void RegisterSummaryKernels(KernelRegistry* r) {
  r->Register<ScalarSummaryOp>("ScalarSummary",
                               {TypeConstraint("T", RealTypes())});
  r->Register<HistogramSummaryOp>("HistogramSummary",
                                  {TypeConstraint("T", RealTypes())});
  r->Register<TensorSummaryOp>("TensorSummary");
  r->Register<TensorSummaryOp>("TensorSummaryV2");
  r->Register<AudioSummaryOp>("AudioSummary");
  r->Register<AudioSummaryOp>("AudioSummaryV2");
  r->Register<MergeSummaryOp>("MergeSummary");
}

}  // namespace dfg
