// Conv2D 3x3, 1x56x56x64 -> 64, SAME through the kernel as the executor
// calls it (oneDNN where it is faster, see onednn_conv.cc), against the
// im2col + sgemm path on the same shape and the lower bound of that path:
// the sgemm alone on an already im2col'd [56*56, 3*3*64] matrix. Arg:
// threads (OpenBLAS threads and intra-op pool). BM_Conv then covers the
// shapes of MobileNet- and ResNet-like CNNs (3x3, 1x1, strided, depthwise,
// batch 8) on both paths: Args threads, onednn (0: im2col + sgemm or the
// direct depthwise loops).
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "lib/graph/op_registry.h"
#include "lib/kernels/bench_pool.h"
#include "lib/kernels/const_buffers.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/kernels/onednn_conv.h"
#include "lib/kernels/op_kernel.h"

namespace dfg {
namespace {

constexpr int64_t kSize = 56, kChannels = 64, kK = 3;
constexpr int64_t kFlops = 2 * kSize * kSize * kK * kK * kChannels * kChannels;

// One convolution kernel on fixed inputs, with `threads` intra-op threads.
class ConvRunner {
 public:
  ConvRunner(const std::string& op, const std::string& padding, int stride,
             std::vector<int64_t> x_dims, std::vector<int64_t> f_dims,
             int threads, bool const_filter = false)
      : x_(tensorflow::DT_FLOAT, TensorShape(std::span<const int64_t>(x_dims))),
        f_(tensorflow::DT_FLOAT,
           TensorShape(std::span<const int64_t>(f_dims))) {
    NodeDef n;
    n.set_name("c");
    n.set_op(op);
    (*n.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    (*n.mutable_attr())["padding"].set_s(padding);
    for (int i = 0; i < 4; ++i) {
      (*n.mutable_attr())["strides"].mutable_list()->add_i(
          i == 1 || i == 2 ? stride : 1);
    }
    // A pool: f_dims is the window.
    pool_op_ = op == "MaxPool" || op == "AvgPool";
    if (pool_op_) {
      for (int i = 0; i < 4; ++i) {
        (*n.mutable_attr())["ksize"].mutable_list()->add_i(
            i == 1 || i == 2 ? f_dims[i - 1] : 1);
      }
    }
    const OpInfo* info = OpRegistry::Global().Find(op);
    if (info) AddDefaultsToNodeDef(info->def, &n);
    std::vector<DataType> in_types(pool_op_ ? 1 : 2, tensorflow::DT_FLOAT);
    auto k = KernelRegistry::Global().CreateKernel(n, "CPU", in_types,
                                                   {tensorflow::DT_FLOAT});
    DFG_CHECK_MSG(k.ok(), k.status().ToString());
    kernel_ = std::move(*k);
    for (float& v : x_.flat<float>()) v = 0.5f;
    for (float& v : f_.flat<float>()) v = 0.25f;
    // As if the filter came from a Const node (const_buffers.h).
    if (const_filter) RegisterConstBuffer(f_.data());
    const_filter_ = const_filter;
    if (threads > 1) pool_ = std::make_unique<BenchPool>(threads);
    step_.intra_op_pool = pool_.get();
  }
  ~ConvRunner() {
    if (const_filter_) UnregisterConstBuffer(f_.data());
  }
  void Run() {
    TensorValue in[2] = {{&x_}, {pool_op_ ? nullptr : &f_}};
    OpOutput out[1];
    OpKernelContext::Params p;
    p.op_kernel = kernel_.get();
    p.inputs = in;
    p.outputs = out;
    p.step = &step_;
    OpKernelContext ctx(&p);
    kernel_->Compute(&ctx);
    DFG_CHECK_MSG(ctx.status().ok(), ctx.status().ToString());
    benchmark::DoNotOptimize(out[0].value.data());
  }

 private:
  Tensor x_, f_;
  bool pool_op_ = false, const_filter_ = false;
  std::unique_ptr<OpKernel> kernel_;
  std::unique_ptr<BenchPool> pool_;
  StepServices step_;
};

double ProcessCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
}

// Runs the conv for the benchmark's iterations and reports proc_cpu_us: the
// CPU time of all threads per iteration (the CPU column counts the main
// thread only), i.e. the time of a run on a quiet machine times the threads
// kept busy.
void Loop(benchmark::State& state, ConvRunner* conv) {
  const double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) conv->Run();
  state.counters["proc_cpu_us"] =
      (ProcessCpuSeconds() - cpu0) * 1e6 /
      static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

void RunConv2D3x3(benchmark::State& state, bool onednn) {
  const int threads = static_cast<int>(state.range(0));
  openblas_set_num_threads(threads);
  SetOneDnnConvEnabled(onednn);
  ConvRunner conv("Conv2D", "SAME", 1, {1, kSize, kSize, kChannels},
                  {kK, kK, kChannels, kChannels}, threads);
  Loop(state, &conv);
  SetOneDnnConvEnabled(true);
  state.SetItemsProcessed(state.iterations() * kFlops);
}

void BM_Conv2DKernel(benchmark::State& state) { RunConv2D3x3(state, true); }
BENCHMARK(BM_Conv2DKernel)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_Conv2DIm2col(benchmark::State& state) { RunConv2D3x3(state, false); }
BENCHMARK(BM_Conv2DIm2col)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

struct ConvCase {
  const char* op;
  const char* padding;
  int stride;
  std::vector<int64_t> x, f;
  bool const_filter = false;
};

void BM_Conv(benchmark::State& state, const ConvCase& c) {
  const int threads = static_cast<int>(state.range(0));
  openblas_set_num_threads(threads);
  SetOneDnnConvEnabled(state.range(1) != 0);
  ConvRunner conv(c.op, c.padding, c.stride, c.x, c.f, threads, c.const_filter);
  Loop(state, &conv);
  SetOneDnnConvEnabled(true);
  const int64_t out_pixels = c.x[0] * ((c.x[1] + c.stride - 1) / c.stride) *
                             ((c.x[2] + c.stride - 1) / c.stride);
  // Depthwise [kh, kw, in, mult] and Conv2D [kh, kw, in, out] alike.
  const int64_t macs = out_pixels * c.f[0] * c.f[1] * c.f[2] * c.f[3];
  if (std::string(c.op).find("Pool") == std::string::npos) {
    state.SetItemsProcessed(state.iterations() * 2 * macs);
  }
}

#define DFG_CONV_BENCH(name, ...)                         \
  BENCHMARK_CAPTURE(BM_Conv, name, ConvCase{__VA_ARGS__}) \
      ->ArgNames({"threads", "onednn"})                   \
      ->ArgsProduct({{1, 2}, {1, 0}})                     \
      ->UseRealTime()                                     \
      ->Unit(benchmark::kMicrosecond)

// ResNet-like.
DFG_CONV_BENCH(b8_3x3_56x64_64, "Conv2D", "SAME", 1, {8, 56, 56, 64},
               {3, 3, 64, 64});
DFG_CONV_BENCH(b1_3x3s2_56x64_128, "Conv2D", "SAME", 2, {1, 56, 56, 64},
               {3, 3, 64, 128});
DFG_CONV_BENCH(b1_3x3_7x512_512, "Conv2D", "SAME", 1, {1, 7, 7, 512},
               {3, 3, 512, 512});
DFG_CONV_BENCH(b1_1x1_56x64_256, "Conv2D", "VALID", 1, {1, 56, 56, 64},
               {1, 1, 64, 256});
DFG_CONV_BENCH(b8_1x1_28x256_128, "Conv2D", "VALID", 1, {8, 28, 28, 256},
               {1, 1, 256, 128});
// ResNet50's last stage on 64x64 images, batch 2: megabytes of Const
// weights for 2x2 pixels.
DFG_CONV_BENCH(b2_3x3_2x512_512_const, "Conv2D", "SAME", 1, {2, 2, 2, 512},
               {3, 3, 512, 512}, true);
DFG_CONV_BENCH(b2_1x1_2x512_2048_const, "Conv2D", "VALID", 1, {2, 2, 2, 512},
               {1, 1, 512, 2048}, true);
DFG_CONV_BENCH(b2_1x1s2_4x1024_2048_const, "Conv2D", "VALID", 2,
               {2, 4, 4, 1024}, {1, 1, 1024, 2048}, true);
// MobileNetV2 (alpha 0.35, 96x96, batch 2) layers of a few microseconds,
// where the cost of a call around oneDNN shows.
DFG_CONV_BENCH(b2_1x1_3x56_336_const, "Conv2D", "VALID", 1, {2, 3, 3, 56},
               {1, 1, 56, 336}, true);
DFG_CONV_BENCH(b2_dw3x3_6x144_const, "DepthwiseConv2dNative", "SAME", 1,
               {2, 6, 6, 144}, {3, 3, 144, 1}, true);
DFG_CONV_BENCH(b2_1x1_24x16_96_const, "Conv2D", "VALID", 1, {2, 24, 24, 16},
               {1, 1, 16, 96}, true);
// MobileNet-like: the stem, pointwise and depthwise layers.
DFG_CONV_BENCH(b1_3x3s2_224x3_32, "Conv2D", "SAME", 2, {1, 224, 224, 3},
               {3, 3, 3, 32});
DFG_CONV_BENCH(b1_1x1_14x512_512, "Conv2D", "VALID", 1, {1, 14, 14, 512},
               {1, 1, 512, 512});
DFG_CONV_BENCH(b1_dw3x3_112x32, "DepthwiseConv2dNative", "SAME", 1,
               {1, 112, 112, 32}, {3, 3, 32, 1});
DFG_CONV_BENCH(b1_dw3x3s2_112x64, "DepthwiseConv2dNative", "SAME", 2,
               {1, 112, 112, 64}, {3, 3, 64, 1});
DFG_CONV_BENCH(b1_dw3x3_14x512, "DepthwiseConv2dNative", "SAME", 1,
               {1, 14, 14, 512}, {3, 3, 512, 1});
DFG_CONV_BENCH(b8_dw3x3_56x128, "DepthwiseConv2dNative", "SAME", 1,
               {8, 56, 56, 128}, {3, 3, 128, 1});
// Pools (f: the window; the onednn arg changes nothing yet).
DFG_CONV_BENCH(b1_maxpool3x3s2_112x64, "MaxPool", "SAME", 2, {1, 112, 112, 64},
               {3, 3, 1, 1});
DFG_CONV_BENCH(b8_maxpool2x2s2_56x128, "MaxPool", "VALID", 2, {8, 56, 56, 128},
               {2, 2, 1, 1});
DFG_CONV_BENCH(b1_avgpool7x7_7x1024, "AvgPool", "VALID", 1, {1, 7, 7, 1024},
               {7, 7, 1, 1});

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
