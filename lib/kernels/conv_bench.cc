// Conv2D 3x3, 1x56x56x64 -> 64, SAME through the kernel, against the lower
// bound of an im2col + sgemm conv: the sgemm alone on an already im2col'd
// [56*56, 3*3*64] matrix. Arg: threads (OpenBLAS threads and intra-op pool).
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <condition_variable>
#include <deque>
#include <thread>

#include "lib/graph/op_registry.h"
#include "lib/kernels/bench_pool.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/op_kernel.h"

namespace dfg {
namespace {

constexpr int64_t kSize = 56, kChannels = 64, kK = 3;
constexpr int64_t kFlops = 2 * kSize * kSize * kK * kK * kChannels * kChannels;

void BM_Conv2DKernel(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  openblas_set_num_threads(threads);
  NodeDef n;
  n.set_name("c");
  n.set_op("Conv2D");
  (*n.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*n.mutable_attr())["padding"].set_s("SAME");
  for (int i = 0; i < 4; ++i) {
    (*n.mutable_attr())["strides"].mutable_list()->add_i(1);
  }
  const OpInfo* info = OpRegistry::Global().Find("Conv2D");
  if (info) AddDefaultsToNodeDef(info->def, &n);
  auto k = KernelRegistry::Global().CreateKernel(
      n, "CPU", {tensorflow::DT_FLOAT, tensorflow::DT_FLOAT},
      {tensorflow::DT_FLOAT});
  DFG_CHECK_MSG(k.ok(), k.status().ToString());
  Tensor x(tensorflow::DT_FLOAT, TensorShape({1, kSize, kSize, kChannels}));
  Tensor f(tensorflow::DT_FLOAT, TensorShape({kK, kK, kChannels, kChannels}));
  for (float& v : x.flat<float>()) v = 0.5f;
  for (float& v : f.flat<float>()) v = 0.25f;
  std::unique_ptr<BenchPool> pool;
  if (threads > 1) pool = std::make_unique<BenchPool>(threads);
  StepServices step;
  step.intra_op_pool = pool.get();
  for (auto _ : state) {
    TensorValue in[2] = {{&x}, {&f}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k->get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    (*k)->Compute(&ctx);
    benchmark::DoNotOptimize(out[0].value.data());
  }
  state.SetItemsProcessed(state.iterations() * kFlops);
}
BENCHMARK(BM_Conv2DKernel)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_Conv2DSgemmLowerBound(benchmark::State& state) {
  openblas_set_num_threads(static_cast<int>(state.range(0)));
  const int m = kSize * kSize, kk = kK * kK * kChannels, n = kChannels;
  std::vector<float> a(m * kk, 0.5f), b(kk * n, 0.25f), c(m * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0f,
                a.data(), kk, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * kFlops);
}
BENCHMARK(BM_Conv2DSgemmLowerBound)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dfg
