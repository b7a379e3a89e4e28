// Op table: the rejection-sampling random ops (gamma, Poisson, binomial,
// parameterized truncated normal), seeded, stateless and on a
// tf.random.Generator state, and the deprecated StatefulStandardNormal.
// Signatures as TensorFlow's OpDefs (core/ops/random_ops.cc,
// stateless_random_ops.cc, stateless_random_ops_v2.cc,
// stateful_random_ops.cc).
#include <string>

#include "lib/graph/op_registry_builder.h"

namespace dfg {
namespace {

constexpr const char* kGammaTypes = "{half, float, double}";
constexpr const char* kPoissonTypes = "{half, float, double, int32, int64}";

void RegisterSeeded(OpTable& t) {
  t.Add(Op("RandomGamma")
            .Input("shape: S")
            .Input("alpha: T")
            .Output("output: T")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("S: {int32, int64}")
            .Attr(std::string("T: ") + kGammaTypes)
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("RandomPoisson")
            .Input("shape: S")
            .Input("rate: dtype")
            .Output("output: dtype")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("S: {int32, int64}")
            .Attr(std::string("dtype: ") + kGammaTypes)
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("RandomPoissonV2")
            .Input("shape: S")
            .Input("rate: R")
            .Output("output: dtype")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("S: {int32, int64}")
            .Attr(std::string("R: ") + kPoissonTypes + " = DT_DOUBLE")
            .Attr(std::string("dtype: ") + kPoissonTypes + " = DT_INT64")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("ParameterizedTruncatedNormal")
            .Input("shape: T")
            .Input("means: dtype")
            .Input("stdevs: dtype")
            .Input("minvals: dtype")
            .Input("maxvals: dtype")
            .Output("output: dtype")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("dtype: {half, bfloat16, float, double}")
            .Attr("T: {int32, int64}")
            .Stateful()
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape"));
}

void RegisterStateless(OpTable& t) {
  t.Add(Op("StatelessRandomGammaV2")
            .Input("shape: T")
            .Input("seed: Tseed")
            .Input("alpha: dtype")
            .Output("output: dtype")
            .Attr(std::string("dtype: ") + kGammaTypes)
            .Attr("T: {int32, int64}")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape", "seed"));
  t.Add(Op("StatelessRandomGammaV3")
            .Input("shape: shape_dtype")
            .Input("key: uint64")
            .Input("counter: uint64")
            .Input("alg: int32")
            .Input("alpha: dtype")
            .Output("output: dtype")
            .Attr(std::string("dtype: ") + kGammaTypes)
            .Attr("shape_dtype: {int32, int64} = DT_INT32")
            .Kernels("CPU", "GPU")
            .HostMemory("GPU", "shape", "alg"));
  t.Add(Op("StatelessRandomPoisson")
            .Input("shape: T")
            .Input("seed: Tseed")
            .Input("lam: Rtype")
            .Output("output: dtype")
            .Attr(std::string("Rtype: ") + kPoissonTypes)
            .Attr(std::string("dtype: ") + kPoissonTypes)
            .Attr("T: {int32, int64}")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("StatelessRandomBinomial")
            .Input("shape: S")
            .Input("seed: Tseed")
            .Input("counts: T")
            .Input("probs: T")
            .Output("output: dtype")
            .Attr("S: {int32, int64}")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Attr(std::string("T: ") + kPoissonTypes + " = DT_DOUBLE")
            .Attr(std::string("dtype: ") + kPoissonTypes + " = DT_INT64")
            .Kernels("CPU"));
  t.Add(Op("StatelessParameterizedTruncatedNormal")
            .Input("shape: S")
            .Input("seed: Tseed")
            .Input("means: dtype")
            .Input("stddevs: dtype")
            .Input("minvals: dtype")
            .Input("maxvals: dtype")
            .Output("output: dtype")
            .Attr("S: {int32, int64}")
            .Attr("Tseed: {int32, int64} = DT_INT64")
            .Attr("dtype: {half, float, double}")
            .Kernels("CPU"));
}

void RegisterGeneratorOps(OpTable& t) {
  t.Add(Op("StatefulRandomBinomial")
            .Input("resource: resource")
            .Input("algorithm: int64")
            .Input("shape: S")
            .Input("counts: T")
            .Input("probs: T")
            .Output("output: dtype")
            .Attr("S: {int32, int64}")
            .Attr(std::string("T: ") + kPoissonTypes + " = DT_DOUBLE")
            .Attr(std::string("dtype: ") + kPoissonTypes + " = DT_INT64")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("StatefulStandardNormal")
            .Input("resource: resource")
            .Input("shape: shape_dtype")
            .Output("output: dtype")
            .Attr("dtype: type = DT_FLOAT")
            .Attr("shape_dtype: type = DT_INT64")
            .Stateful()
            .Kernels("CPU"));
}

OpBuilder Sampler(const char* name, bool ranged) {
  OpBuilder op = Op(name);
  op.Input("true_classes: int64")
      .Output("sampled_candidates: int64")
      .Output("true_expected_count: float")
      .Output("sampled_expected_count: float")
      .Attr("num_true: int >= 1")
      .Attr("num_sampled: int >= 1")
      .Attr("unique: bool");
  if (ranged) op.Attr("range_max: int >= 1");
  op.Stateful().Kernels("CPU");
  return op;
}

// Candidate sampling (core/ops/candidate_sampling_ops.cc).
void RegisterCandidateSampling(OpTable& t) {
  for (const char* name :
       {"UniformCandidateSampler", "LogUniformCandidateSampler",
        "LearnedUnigramCandidateSampler",
        "ThreadUnsafeUnigramCandidateSampler"}) {
    t.Add(Sampler(name, true).Attr("seed: int = 0").Attr("seed2: int = 0"));
  }
  t.Add(Sampler("FixedUnigramCandidateSampler", true)
            .Attr("vocab_file: string = ''")
            .Attr("distortion: float = 1")
            .Attr("num_reserved_ids: int = 0")
            .Attr("num_shards: int >= 1 = 1")
            .Attr("shard: int >= 0 = 0")
            .Attr("unigrams: list(float) = []")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0"));
  t.Add(Sampler("AllCandidateSampler", false)
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0"));
  t.Add(Op("ComputeAccidentalHits")
            .Input("true_classes: int64")
            .Input("sampled_candidates: int64")
            .Output("indices: int32")
            .Output("ids: int64")
            .Output("weights: float")
            .Attr("num_true: int")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Kernels("CPU"));
}

// The random image crops (core/ops/image_ops.cc); SampleDistortedBoundingBoxV2
// is in the nn table.
void RegisterRandomCrops(OpTable& t) {
  constexpr const char* kBoxTypes = "T: {uint8, int8, int16, int32, int64}";
  constexpr const char* kAttrs[] = {
      "aspect_ratio_range: list(float) = [0.75, 1.33]",
      "area_range: list(float) = [0.05, 1.0]", "max_attempts: int = 100",
      "use_image_if_no_bounding_boxes: bool = false"};
  OpBuilder v1 = Op("SampleDistortedBoundingBox");
  v1.Input("image_size: T")
      .Input("bounding_boxes: float")
      .Output("begin: T")
      .Output("size: T")
      .Output("bboxes: float")
      .Attr(kBoxTypes)
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("min_object_covered: float = 0.1");
  OpBuilder stateless = Op("StatelessSampleDistortedBoundingBox");
  stateless.Input("image_size: T")
      .Input("bounding_boxes: float")
      .Input("min_object_covered: float")
      .Input("seed: Tseed")
      .Output("begin: T")
      .Output("size: T")
      .Output("bboxes: float")
      .Attr(kBoxTypes)
      .Attr("Tseed: {int32, int64}");
  for (const char* attr : kAttrs) {
    v1.Attr(attr);
    stateless.Attr(attr);
  }
  t.Add(v1.Stateful().Kernels("CPU"));
  t.Add(stateless.Kernels("CPU"));
  t.Add(Op("RandomCrop")
            .Input("image: T")
            .Input("size: int64")
            .Output("output: T")
            .Attr("T: {uint8, int8, int16, int32, int64, float, double}")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Stateful()
            .Kernels("CPU"));
}

void RegisterRandomMisc(OpTable& t) {
  t.Add(Op("RandomIndexShuffle")
            .Input("index: dtype")
            .Input("seed: Tseed")
            .Input("max_index: dtype")
            .Output("output: dtype")
            .Attr("rounds: int = 4")
            .Attr("dtype: {int32, uint32, int64, uint64}")
            .Attr("Tseed: {int32, uint32, int64, uint64}")
            .Kernels("CPU"));
  t.Add(Op("StochasticCastToInt")
            .Input("input: Tin")
            .Input("key: uint64")
            .Input("counter: uint64")
            .Input("alg: int32")
            .Output("output: Tout")
            .Attr("Tin: {half, bfloat16, float, double}")
            .Attr("Tout: {int8, int16, int32}")
            .Kernels("CPU"));
}

// The deprecated word2vec ops (core/ops/word2vec_ops.cc).
void RegisterWord2Vec(OpTable& t) {
  t.Add(Op("Skipgram")
            .Output("vocab_word: string")
            .Output("vocab_freq: int32")
            .Output("words_per_epoch: int64")
            .Output("current_epoch: int32")
            .Output("total_words_processed: int64")
            .Output("examples: int32")
            .Output("labels: int32")
            .Attr("filename: string")
            .Attr("batch_size: int")
            .Attr("window_size: int = 5")
            .Attr("min_count: int = 5")
            .Attr("subsample: float = 1e-3")
            .Stateful()
            .Kernels("CPU"));
  t.Add(Op("NegTrain")
            .Input("w_in: Ref(float)")
            .Input("w_out: Ref(float)")
            .Input("examples: int32")
            .Input("labels: int32")
            .Input("lr: float")
            .Attr("vocab_count: list(int)")
            .Attr("num_negative_samples: int")
            .Stateful()
            .Kernels("CPU"));
}

}  // namespace

void RegisterRandomExtOps(OpRegistry* registry) {
  OpTable t(registry);
  RegisterSeeded(t);
  RegisterStateless(t);
  RegisterGeneratorOps(t);
  RegisterCandidateSampling(t);
  RegisterRandomCrops(t);
  RegisterRandomMisc(t);
  RegisterWord2Vec(t);
}

}  // namespace dfg
