// The reference the im2col Conv2D is measured against (a tuned library's
// figure, what "fast enough" is judged by): the same Conv2D 3x3,
// 1x56x56x64 -> 64, SAME, as BM_Conv2DKernel in conv_bench.cc,
// run by oneDNN (libdnnl 2.6, OpenMP runtime) directly: NHWC input, HWIO
// filter, the primitive built once, its own best weight layout. Arg: threads
// (omp_set_num_threads). Compare BM_Conv2DKernel/T with BM_Conv2DOneDnn/T.
#include <benchmark/benchmark.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "lib/kernels/omp_api.h"

namespace {

constexpr int64_t kSize = 56, kChannels = 64, kK = 3;
constexpr int64_t kFlops = 2 * kSize * kSize * kK * kK * kChannels * kChannels;

void BM_Conv2DOneDnn(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  using dnnl::memory;
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  memory::dims src_dims{1, kChannels, kSize, kSize};        // logical NCHW
  memory::dims weights_dims{kChannels, kChannels, kK, kK};  // OIHW
  memory::dims dst_dims{1, kChannels, kSize, kSize};
  memory::desc src_md(src_dims, f32, tag::nhwc);
  memory::desc user_weights_md(weights_dims, f32, tag::hwio);
  memory::desc dst_md(dst_dims, f32, tag::nhwc);
  memory::desc any_weights_md(weights_dims, f32, tag::any);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      src_md, any_weights_md, dst_md, {1, 1}, {1, 1}, {1, 1});
  dnnl::convolution_forward::primitive_desc pd(desc, engine);
  std::vector<float> x(kSize * kSize * kChannels, 0.5f);
  std::vector<float> f(kK * kK * kChannels * kChannels, 0.25f);
  std::vector<float> y(kSize * kSize * kChannels);
  memory src(src_md, engine, x.data());
  memory user_weights(user_weights_md, engine, f.data());
  memory dst(dst_md, engine, y.data());
  memory weights = user_weights;
  if (pd.weights_desc() != user_weights_md) {
    weights = memory(pd.weights_desc(), engine);
    dnnl::reorder(user_weights, weights).execute(stream, user_weights, weights);
  }
  dnnl::convolution_forward conv(pd);
  // proc_cpu_us as in conv_bench.cc: CPU time of all threads per iteration
  // (OpenMP's waiting threads spin for a while and count).
  timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (auto _ : state) {
    conv.execute(stream, {{DNNL_ARG_SRC, src},
                          {DNNL_ARG_WEIGHTS, weights},
                          {DNNL_ARG_DST, dst}});
    stream.wait();
    benchmark::DoNotOptimize(y.data());
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  state.counters["proc_cpu_us"] =
      ((t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) * 1e-3) /
      static_cast<double>(state.iterations() > 0 ? state.iterations() : 1);
  state.SetItemsProcessed(state.iterations() * kFlops);
}
BENCHMARK(BM_Conv2DOneDnn)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
