// The matmul family (and Transpose) on the speed zoo's transformer and MLP
// shapes (Keras
// MultiHeadAttention 4x16 on batch 8 x 32 x 64, BERT-tiny's feed-forward on
// 4 x 64 x 128, the MLP's batch-16 layers), each kernel as a step runs it.
// Arg: intra-op threads (1: no pool), as `dfg run --intra-threads`.
#include <benchmark/benchmark.h>
#include <google/protobuf/text_format.h>

#include <memory>
#include <string>
#include <vector>

#include "lib/graph/op_registry.h"
#include "lib/kernels/bench_pool.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"

namespace dfg {
namespace {

std::unique_ptr<OpKernel> Kernel(const std::string& text) {
  NodeDef n;
  DFG_CHECK(google::protobuf::TextFormat::ParseFromString(text, &n));
  const OpInfo* info = OpRegistry::Global().Find(n.op());
  DFG_CHECK(info != nullptr);
  AddDefaultsToNodeDef(info->def, &n);
  std::vector<DataType> in, out;
  DFG_CHECK(InOutTypesForNode(n, info->def, &in, &out).ok());
  auto k = KernelRegistry::Global().CreateKernel(n, "CPU", in, out);
  DFG_CHECK_MSG(k.ok(), k.status().ToString());
  return std::move(k).value();
}

Tensor Filled(std::vector<int64_t> dims, float v) {
  Tensor t(tensorflow::DT_FLOAT, TensorShape(std::span<const int64_t>(dims)));
  float x = v;
  for (float& e : t.flat<float>()) e = (x = x * 0.75f + 0.01f);
  return t;
}

// Runs `text`'s kernel on `inputs`; flops per run for the rate. With
// `evict` the caches are flushed before each run (untimed): the weights
// come from memory, as in a model whose other layers pass through the cache
// between two runs of this one.
void Run(benchmark::State& state, const std::string& text,
         std::vector<Tensor> inputs, int64_t flops, bool evict = false) {
  auto k = Kernel(text);
  std::unique_ptr<BenchPool> pool;
  if (state.range(0) > 1) pool = std::make_unique<BenchPool>(state.range(0));
  StepServices step;
  step.intra_op_pool = pool.get();
  std::vector<TensorValue> in;
  for (Tensor& t : inputs) in.push_back({&t});
  std::vector<char> flush(evict ? size_t{64} << 20 : 0);
  for (auto _ : state) {
    if (evict) {
      state.PauseTiming();
      for (size_t i = 0; i < flush.size(); i += 64) ++flush[i];
      benchmark::ClobberMemory();
      state.ResumeTiming();
    }
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k.get();
    p.inputs = in.data();
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    k->Compute(&ctx);
    DFG_CHECK(ctx.status().ok());
    benchmark::DoNotOptimize(out[0].value.data());
  }
  state.SetItemsProcessed(state.iterations() * flops);
}

std::string EinsumNode(const char* equation) {
  return std::string(
             "name: 'e' op: 'Einsum' attr { key: 'T' value { type: DT_FLOAT "
             "} } attr { key: 'N' value { i: 2 } } attr { key: 'equation' "
             "value { s: '") +
         equation + "' } }";
}

std::string FusedNode(const char* act) {
  return std::string(
             "name: 'f' op: '_FusedMatMul' attr { key: 'T' value { type: "
             "DT_FLOAT } } attr { key: 'num_args' value { i: 1 } } attr { "
             "key: 'fused_ops' value { list { s: ['BiasAdd'") +
         (act[0] ? std::string(", '") + act + "'" : "") + "] } } }";
}

// Attention scores: [8,32,4,16] x [8,32,4,16] -> [8,4,32,32].
void BM_EncoderEinsumScores(benchmark::State& state) {
  Run(state, EinsumNode("BTNH,BSNH->BNTS"),
      {Filled({8, 32, 4, 16}, 0.5f), Filled({8, 32, 4, 16}, 0.25f)},
      2LL * 8 * 4 * 32 * 32 * 16);
}
// Attention context: [8,4,32,32] x [8,32,4,16] -> [8,32,4,16].
void BM_EncoderEinsumContext(benchmark::State& state) {
  Run(state, EinsumNode("BNTS,BSNH->BTNH"),
      {Filled({8, 4, 32, 32}, 0.5f), Filled({8, 32, 4, 16}, 0.25f)},
      2LL * 8 * 4 * 32 * 32 * 16);
}
// The query/key/value projections as Keras writes them: [8,32,64] x [64,64].
void BM_EncoderProjection(benchmark::State& state) {
  Run(state,
      "name: 'm' op: 'BatchMatMulV2' attr { key: 'T' value { type: DT_FLOAT "
      "} }",
      {Filled({8, 32, 64}, 0.5f), Filled({64, 64}, 0.25f)},
      2LL * 256 * 64 * 64);
}
// The feed-forward: [256,64] x [64,128] + bias, GELU; [256,128] x [128,64].
void BM_EncoderFfnGelu(benchmark::State& state) {
  Run(state, FusedNode("GeluApproximate"),
      {Filled({256, 64}, 0.5f), Filled({64, 128}, 0.25f), Filled({128}, 0.1f)},
      2LL * 256 * 64 * 128);
}
void BM_EncoderFfnOut(benchmark::State& state) {
  Run(state, FusedNode(""),
      {Filled({256, 128}, 0.5f), Filled({128, 64}, 0.25f), Filled({64}, 0.1f)},
      2LL * 256 * 128 * 64);
}
// BERT-tiny's feed-forward: [256,128] x [128,512] GELU, [256,512] x [512,128].
void BM_BertFfnGelu(benchmark::State& state) {
  Run(state, FusedNode("GeluApproximate"),
      {Filled({256, 128}, 0.5f), Filled({128, 512}, 0.25f),
       Filled({512}, 0.1f)},
      2LL * 256 * 128 * 512);
}
void BM_BertFfnOut(benchmark::State& state) {
  Run(state, FusedNode(""),
      {Filled({256, 512}, 0.5f), Filled({512, 128}, 0.25f),
       Filled({128}, 0.1f)},
      2LL * 256 * 512 * 128);
}
// The MLP's hidden layer: [16,256] x [256,256] + bias, Relu.
void BM_MlpHidden(benchmark::State& state) {
  Run(state, FusedNode("Relu"),
      {Filled({16, 256}, 0.5f), Filled({256, 256}, 0.25f), Filled({256}, 0.1f)},
      2LL * 16 * 256 * 256);
}
// MobileNetV2's classifier: [2,1280] x [1280,1000] + bias, 5 MB of
// weights for 5 Mflop; from the cache and from memory.
void MobileNetPredictions(benchmark::State& state, bool evict) {
  Run(state, FusedNode(""),
      {Filled({2, 1280}, 0.5f), Filled({1280, 1000}, 0.25f),
       Filled({1000}, 0.1f)},
      2LL * 2 * 1280 * 1000, evict);
}
void BM_MobileNetPredictions(benchmark::State& state) {
  MobileNetPredictions(state, false);
}
void BM_MobileNetPredictionsCold(benchmark::State& state) {
  MobileNetPredictions(state, true);
}

// BERT-tiny's heads split and merged: [4,64,2,64] by [0,2,1,3] (rows of
// 64 floats copied), and a 2-D transpose of the same bytes.
void BM_BertHeadsTranspose(benchmark::State& state) {
  Tensor perm(tensorflow::DT_INT32, TensorShape({4}));
  auto p = perm.flat<int32_t>();
  p[0] = 0, p[1] = 2, p[2] = 1, p[3] = 3;
  Run(state,
      "name: 't' op: 'Transpose' attr { key: 'T' value { type: DT_FLOAT } }",
      {Filled({4, 64, 2, 64}, 0.5f), perm}, 4 * 64 * 2 * 64);
}
void BM_Transpose2D(benchmark::State& state) {
  Tensor perm(tensorflow::DT_INT32, TensorShape({2}));
  perm.flat<int32_t>()[0] = 1;
  perm.flat<int32_t>()[1] = 0;
  Run(state,
      "name: 't' op: 'Transpose' attr { key: 'T' value { type: DT_FLOAT } }",
      {Filled({256, 128}, 0.5f), perm}, 256 * 128);
}

#define DFG_MATMUL_BENCH(name) \
  BENCHMARK(name)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond)
DFG_MATMUL_BENCH(BM_EncoderEinsumScores);
DFG_MATMUL_BENCH(BM_EncoderEinsumContext);
DFG_MATMUL_BENCH(BM_EncoderProjection);
DFG_MATMUL_BENCH(BM_EncoderFfnGelu);
DFG_MATMUL_BENCH(BM_EncoderFfnOut);
DFG_MATMUL_BENCH(BM_BertFfnGelu);
DFG_MATMUL_BENCH(BM_BertFfnOut);
DFG_MATMUL_BENCH(BM_MlpHidden);
DFG_MATMUL_BENCH(BM_MobileNetPredictions);
DFG_MATMUL_BENCH(BM_MobileNetPredictionsCold);
DFG_MATMUL_BENCH(BM_BertHeadsTranspose);
DFG_MATMUL_BENCH(BM_Transpose2D);

}  // namespace
}  // namespace dfg
