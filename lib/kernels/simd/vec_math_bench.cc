// Element-wise float kernels as dfg runs them (through the registry, on the
// step's intra-op pool), and the vector math underneath at each ISA level
// against the scalar libm loop the kernels used to run.
//
// The kernel rows take (elements, intra-op threads); 32K floats is the size
// of a GELU's Tanh in the speed zoo's transformer encoder.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "lib/graph/op_registry.h"
#include "lib/kernels/bench_pool.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"
#include "lib/kernels/simd/vec_math.h"

namespace dfg {
namespace {

std::unique_ptr<OpKernel> MakeFloatKernel(const std::string& op, int inputs) {
  NodeDef n;
  n.set_name("n");
  n.set_op(op);
  (*n.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  const OpInfo* info = OpRegistry::Global().Find(op);
  if (info) AddDefaultsToNodeDef(info->def, &n);
  std::vector<DataType> in(inputs, tensorflow::DT_FLOAT);
  auto k = KernelRegistry::Global().CreateKernel(n, "CPU", in,
                                                 {tensorflow::DT_FLOAT});
  DFG_CHECK_MSG(k.ok(), k.status().ToString());
  return std::move(k).value();
}

// Values in [-4, 4): where tanh and exp do real work.
Tensor Ramp(TensorShape shape) {
  Tensor t(tensorflow::DT_FLOAT, shape);
  auto v = t.flat<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v[i] = static_cast<float>(i % 1000) / 125.0f - 4.0f;
  }
  return t;
}

// Runs `op` on `inputs` with state.range(1) intra-op threads (1: no pool).
void RunKernel(benchmark::State& state, const std::string& op,
               std::vector<Tensor> inputs) {
  auto k = MakeFloatKernel(op, static_cast<int>(inputs.size()));
  std::unique_ptr<BenchPool> pool;
  if (state.range(1) > 1) pool = std::make_unique<BenchPool>(state.range(1));
  StepServices step;
  step.intra_op_pool = pool.get();
  for (auto _ : state) {
    TensorValue in[2] = {{&inputs[0]},
                         {inputs.size() > 1 ? &inputs[1] : nullptr}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k.get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    k->Compute(&ctx);
    DFG_CHECK(ctx.status().ok());
    benchmark::DoNotOptimize(out[0].value.data());
  }
  state.SetItemsProcessed(state.iterations() * inputs[0].NumElements());
}

void BM_KernelTanh(benchmark::State& state) {
  RunKernel(state, "Tanh", {Ramp(TensorShape({state.range(0)}))});
}
void BM_KernelExp(benchmark::State& state) {
  RunKernel(state, "Exp", {Ramp(TensorShape({state.range(0)}))});
}
void BM_KernelSigmoid(benchmark::State& state) {
  RunKernel(state, "Sigmoid", {Ramp(TensorShape({state.range(0)}))});
}
// GELU's x ** 3.
void BM_KernelPowCube(benchmark::State& state) {
  Tensor e(tensorflow::DT_FLOAT, TensorShape({}));
  e.flat<float>()[0] = 3.0f;
  RunKernel(state, "Pow", {Ramp(TensorShape({state.range(0)})), e});
}
void BM_KernelMul(benchmark::State& state) {
  RunKernel(state, "Mul",
            {Ramp(TensorShape({state.range(0)})),
             Ramp(TensorShape({state.range(0)}))});
}
// Attention scores: rows of 64.
void BM_KernelSoftmax(benchmark::State& state) {
  RunKernel(state, "Softmax", {Ramp(TensorShape({state.range(0) / 64, 64}))});
}

void KernelArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads"});
  for (int64_t n : {8192, 32768, 131072}) {
    for (int64_t t : {1, 2}) b->Args({n, t});
  }
  b->UseRealTime();
}
BENCHMARK(BM_KernelTanh)->Apply(KernelArgs);
BENCHMARK(BM_KernelExp)->Apply(KernelArgs);
BENCHMARK(BM_KernelSigmoid)->Apply(KernelArgs);
BENCHMARK(BM_KernelPowCube)->Apply(KernelArgs);
BENCHMARK(BM_KernelMul)->Apply(KernelArgs);
BENCHMARK(BM_KernelSoftmax)->Apply(KernelArgs);

constexpr size_t kVecElements = 32768;

// simd::Unary at level state.range(0) (0 baseline, 1 AVX2, 2 AVX-512).
void VecUnary(benchmark::State& state, simd::UnaryOp op) {
  const auto want = static_cast<simd::Level>(state.range(0));
  simd::SetLevelForTesting(want);
  if (simd::ActiveLevel() != want) {
    state.SkipWithError("the CPU lacks this level");
    return;
  }
  std::vector<float> x(kVecElements), y(kVecElements);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 1000) / 125.0f - 4.0f;
  for (auto _ : state) {
    simd::Unary(op, x.data(), y.data(), x.size());
    benchmark::DoNotOptimize(y.data());
  }
  simd::SetLevelForTesting(simd::Level::kAvx512);
  state.SetLabel(simd::LevelName(want));
  state.SetItemsProcessed(state.iterations() * kVecElements);
}
void BM_VecTanh(benchmark::State& state) {
  VecUnary(state, simd::UnaryOp::kTanh);
}
void BM_VecExp(benchmark::State& state) {
  VecUnary(state, simd::UnaryOp::kExp);
}
void BM_VecSigmoid(benchmark::State& state) {
  VecUnary(state, simd::UnaryOp::kSigmoid);
}
// MobileNets' activation, applied after most of their convolutions.
void BM_VecRelu6(benchmark::State& state) {
  VecUnary(state, simd::UnaryOp::kRelu6);
}
BENCHMARK(BM_VecTanh)->DenseRange(0, 2);
BENCHMARK(BM_VecExp)->DenseRange(0, 2);
BENCHMARK(BM_VecSigmoid)->DenseRange(0, 2);
BENCHMARK(BM_VecRelu6)->DenseRange(0, 2);

// What the kernels ran before the vector math: libm per element.
void BM_ScalarLibmTanh(benchmark::State& state) {
  std::vector<float> x(kVecElements), y(kVecElements);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 1000) / 125.0f - 4.0f;
  for (auto _ : state) {
    for (size_t i = 0; i < x.size(); ++i) y[i] = std::tanh(x[i]);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * kVecElements);
}
BENCHMARK(BM_ScalarLibmTanh);

}  // namespace
}  // namespace dfg
