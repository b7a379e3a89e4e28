// Kernel benchmarks: MatMul against raw cblas_sgemm, AddV2 against memcpy of
// the same bytes, and the per-call overhead of a cheap kernel.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <thread>

#include "lib/graph/op_registry.h"
#include "lib/kernels/bench_pool.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"

namespace dfg {
namespace {

NodeDef MakeNode(const std::string& op, DataType t) {
  NodeDef n;
  n.set_name("n");
  n.set_op(op);
  (*n.mutable_attr())["T"].set_type(t);
  const OpInfo* info = OpRegistry::Global().Find(op);
  if (info) AddDefaultsToNodeDef(info->def, &n);
  return n;
}

std::unique_ptr<OpKernel> MakeKernel(const NodeDef& n, int inputs) {
  std::vector<DataType> in(inputs, tensorflow::DT_FLOAT);
  auto k = KernelRegistry::Global().CreateKernel(n, "CPU", in,
                                                 {tensorflow::DT_FLOAT});
  DFG_CHECK_MSG(k.ok(), k.status().ToString());
  return std::move(k).value();
}

Tensor Filled(TensorShape shape, float v) {
  Tensor t(tensorflow::DT_FLOAT, shape);
  for (float& x : t.flat<float>()) x = v;
  return t;
}

// Arg: intra-op threads, as `dfg run --intra-threads`: the kernel splits
// the GEMM over the step's pool, OpenBLAS on one thread (no pool: 1).
void BM_MatMulKernel(benchmark::State& state) {
  auto k = MakeKernel(MakeNode("MatMul", tensorflow::DT_FLOAT), 2);
  Tensor a = Filled(TensorShape({1024, 1024}), 1.0f);
  Tensor b = Filled(TensorShape({1024, 1024}), 0.5f);
  std::unique_ptr<BenchPool> pool;
  if (state.range(0) > 1) pool = std::make_unique<BenchPool>(state.range(0));
  StepServices step;
  step.intra_op_pool = pool.get();
  for (auto _ : state) {
    TensorValue in[2] = {{&a}, {&b}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k.get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    k->Compute(&ctx);
    benchmark::DoNotOptimize(out[0].value.data());
  }
  state.counters["blas_threads"] = openblas_get_num_threads();
  state.SetItemsProcessed(state.iterations() * 2LL * 1024 * 1024 * 1024);
}
BENCHMARK(BM_MatMulKernel)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_CblasSgemm(benchmark::State& state) {
  openblas_set_num_threads(static_cast<int>(state.range(0)));
  const int n = 1024;
  std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                a.data(), n, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  openblas_set_num_threads(1);  // as dfg's kernels keep it
  state.SetItemsProcessed(state.iterations() * 2LL * n * n * n);
}
BENCHMARK(BM_CblasSgemm)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The MLP of lib/exec/exec_bench.cc's BM_MlpStep as bare sgemms: eight
// [256,1024] x [1024,1024] products, no bias, no activation.
void BM_MlpSgemmOnly(benchmark::State& state) {
  openblas_set_num_threads(static_cast<int>(state.range(0)));
  const int m = 256, n = 1024;
  std::vector<float> x(m * n, 0.01f), w(n * n, 0.001f), y(m * n);
  for (auto _ : state) {
    for (int layer = 0; layer < 8; ++layer) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, n, 1.0f,
                  layer % 2 ? y.data() : x.data(), n, w.data(), n, 0.0f,
                  layer % 2 ? x.data() : y.data(), n);
    }
    benchmark::DoNotOptimize(x.data());
  }
  openblas_set_num_threads(1);  // as dfg's kernels keep it
  state.SetItemsProcessed(state.iterations() * 2LL * 8 * m * n * n);
}
BENCHMARK(BM_MlpSgemmOnly)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

constexpr int64_t kAddElements = 16 << 20;

// Arg: intra-op threads (0: no pool).
void BM_AddV2(benchmark::State& state) {
  auto k = MakeKernel(MakeNode("AddV2", tensorflow::DT_FLOAT), 2);
  Tensor a = Filled(TensorShape({kAddElements}), 1.0f);
  Tensor b = Filled(TensorShape({kAddElements}), 2.0f);
  std::unique_ptr<BenchPool> pool;
  if (state.range(0) > 0) pool = std::make_unique<BenchPool>(state.range(0));
  StepServices step;
  step.intra_op_pool = pool.get();
  for (auto _ : state) {
    TensorValue in[2] = {{&a}, {&b}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k.get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    k->Compute(&ctx);
    benchmark::DoNotOptimize(out[0].value.data());
  }
  // Reads two inputs, writes one output.
  state.SetBytesProcessed(state.iterations() * 3 * kAddElements * 4);
}
BENCHMARK(BM_AddV2)->Arg(0)->Arg(2)->UseRealTime()->Unit(
    benchmark::kMillisecond);

// The bandwidth reference: memcpy of one input's bytes into a warm buffer.
void BM_MemcpySameBytes(benchmark::State& state) {
  std::vector<float> src(kAddElements, 1.0f), dst(kAddElements, 0.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kAddElements * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(state.iterations() * 2 * kAddElements * 4);
}
BENCHMARK(BM_MemcpySameBytes)->UseRealTime()->Unit(benchmark::kMillisecond);

// What an executor pays per cheap node: context setup + Identity::Compute.
void BM_IdentityOverhead(benchmark::State& state) {
  auto k = MakeKernel(MakeNode("Identity", tensorflow::DT_FLOAT), 1);
  Tensor a = Filled(TensorShape({4}), 1.0f);
  StepServices step;
  for (auto _ : state) {
    TensorValue in[1] = {{&a}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k.get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    k->Compute(&ctx);
    benchmark::DoNotOptimize(out[0].value.data());
  }
}
BENCHMARK(BM_IdentityOverhead);

}  // namespace
}  // namespace dfg
