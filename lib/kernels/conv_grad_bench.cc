// Conv2DBackpropInput as a decoder's transposed conv: out_backprop
// 1x32x32x128 -> input 1x64x64x64, 3x3 filter, stride 2, SAME; against the
// lower bound of a GEMM + col2im kernel: the sgemm alone
// ([32*32, 128] x [128, 3*3*64]). Arg: threads (OpenBLAS threads and
// intra-op pool).
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

constexpr int64_t kOut = 32, kIn = 64, kInDepth = 64, kOutDepth = 128, kK = 3;
constexpr int64_t kFlops = 2 * kOut * kOut * kK * kK * kInDepth * kOutDepth;

void BM_Conv2DBackpropInputKernel(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  openblas_set_num_threads(threads);
  NodeDef n;
  n.set_name("g");
  n.set_op("Conv2DBackpropInput");
  (*n.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  (*n.mutable_attr())["padding"].set_s("SAME");
  for (int s : {1, 2, 2, 1}) {
    (*n.mutable_attr())["strides"].mutable_list()->add_i(s);
  }
  const OpInfo* info = OpRegistry::Global().Find("Conv2DBackpropInput");
  if (info) AddDefaultsToNodeDef(info->def, &n);
  auto k = KernelRegistry::Global().CreateKernel(
      n, "CPU",
      {tensorflow::DT_INT32, tensorflow::DT_FLOAT, tensorflow::DT_FLOAT},
      {tensorflow::DT_FLOAT});
  DFG_CHECK_MSG(k.ok(), k.status().ToString());
  Tensor sizes = Tensor::Vector<int32_t>({1, kIn, kIn, kInDepth});
  Tensor f(tensorflow::DT_FLOAT, TensorShape({kK, kK, kInDepth, kOutDepth}));
  Tensor dy(tensorflow::DT_FLOAT, TensorShape({1, kOut, kOut, kOutDepth}));
  for (float& v : f.flat<float>()) v = 0.25f;
  for (float& v : dy.flat<float>()) v = 0.5f;
  std::unique_ptr<BenchPool> pool;
  if (threads > 1) pool = std::make_unique<BenchPool>(threads);
  StepServices step;
  step.intra_op_pool = pool.get();
  for (auto _ : state) {
    TensorValue in[3] = {{&sizes}, {&f}, {&dy}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = k->get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step;
    OpKernelContext ctx(&p);
    (*k)->Compute(&ctx);
    DFG_CHECK_MSG(ctx.status().ok(), ctx.status().ToString());
    benchmark::DoNotOptimize(out[0].value.data());
  }
  state.SetItemsProcessed(state.iterations() * kFlops);
}
BENCHMARK(BM_Conv2DBackpropInputKernel)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_Conv2DBackpropInputSgemmLowerBound(benchmark::State& state) {
  openblas_set_num_threads(static_cast<int>(state.range(0)));
  const int m = kOut * kOut, n = kK * kK * kInDepth, kk = kOutDepth;
  std::vector<float> a(m * kk, 0.5f), b(n * kk, 0.25f), c(m * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, kk, 1.0f,
                a.data(), kk, b.data(), kk, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * kFlops);
}
BENCHMARK(BM_Conv2DBackpropInputSgemmLowerBound)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dfg
