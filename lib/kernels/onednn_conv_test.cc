// The oneDNN convolution path against the im2col + sgemm path (and the
// direct depthwise loops) on the same random inputs: shapes, strides,
// dilations, SAME/VALID/EXPLICIT padding, groups, depthwise multipliers,
// fused bias and activations, on 1 and 3 intra-op threads (row bands and
// image shards).
#include "lib/kernels/onednn_conv.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "lib/kernels/bench_pool.h"
#include "lib/kernels/const_buffers.h"
#include "lib/kernels/conv_util.h"
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::KernelTester;
using testing::MakeTensor;

Tensor Random(std::mt19937* rng, std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(*rng);
  return MakeTensor<float>(dims, v);
}

// Runs `node` on `inputs` with oneDNN on or off, on `threads` threads.
KernelRun Run(const std::string& node, const std::vector<Tensor>& inputs,
              bool onednn, int threads) {
  auto tester = KernelTester::Create(node);
  REQUIRE(tester.ok());
  std::unique_ptr<BenchPool> pool;
  if (threads > 1) pool = std::make_unique<BenchPool>(threads);
  (*tester)->services().intra_op_pool = pool.get();
  SetOneDnnConvEnabled(onednn);
  std::vector<std::optional<Tensor>> in(inputs.begin(), inputs.end());
  KernelRun run = (*tester)->Run(in);
  SetOneDnnConvEnabled(true);
  return run;
}

// How many of the CheckSamePaths runs went through oneDNN.
int64_t ran_onednn = 0;

// Both paths agree within float rounding (the sums run in another order).
void CheckSamePaths(const std::string& node, const std::vector<Tensor>& in,
                    std::initializer_list<int> thread_counts = {1, 3}) {
  for (int threads : thread_counts) {
    INFO(node << " threads " << threads);
    const KernelRun want = Run(node, in, false, 1);
    const int64_t runs = OneDnnConvRuns();
    const KernelRun got = Run(node, in, true, threads);
    ran_onednn += OneDnnConvRuns() - runs;
    REQUIRE(want.status.ok() == got.status.ok());
    if (!want.status.ok()) {
      CHECK(want.status.ToString() == got.status.ToString());
      continue;
    }
    REQUIRE(want.out(0).shape() == got.out(0).shape());
    const auto w = want.out(0).flat<float>();
    const auto g = got.out(0).flat<float>();
    float worst = 0;
    int64_t nan_mismatches = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      nan_mismatches += std::isnan(w[i]) != std::isnan(g[i]);
      if (std::isnan(w[i])) continue;
      worst = std::max(worst, std::abs(w[i] - g[i]) / (1 + std::abs(w[i])));
    }
    CHECK(worst <= 1e-5f);
    CHECK(nan_mismatches == 0);
  }
}

std::string ConvNode(const std::string& op, int64_t stride_r, int64_t stride_c,
                     int64_t dil_r, int64_t dil_c, const std::string& padding,
                     const std::string& extra = "") {
  std::string s = fmt::format(
      "name: 'c' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'strides' value {{ list {{ i: [1,{},{},1] }} }} }} "
      "attr {{ key: 'padding' value {{ s: '{}' }} }} ",
      op, stride_r, stride_c, padding);
  if (dil_r != 1 || dil_c != 1) {
    s += fmt::format(
        "attr {{ key: 'dilations' value {{ list {{ i: [1,{},{},1] }} }} }} ",
        dil_r, dil_c);
  }
  if (padding == "EXPLICIT") {
    s += "attr { key: 'explicit_paddings' value { list { i: "
         "[0,0,2,0,1,3,0,0] } } } ";
  }
  return s + extra;
}

TEST_CASE("oneDNN Conv2D matches im2col over shapes, strides and padding",
          "[kernels]") {
  struct Shape {
    int64_t batch, rows, cols, in, kh, kw, out;
  };
  ran_onednn = 0;
  const Shape shapes[] = {{1, 12, 11, 8, 3, 3, 16},
                          {2, 7, 6, 3, 3, 2, 4},
                          {3, 9, 9, 4, 1, 1, 8},
                          {1, 17, 5, 6, 5, 3, 7},
                          {4, 6, 6, 16, 3, 3, 32},
                          {1, 30, 30, 3, 3, 3, 32},
                          // Big enough to split over 3 threads: row bands of
                          // one image, then shards of whole images.
                          {1, 40, 37, 16, 3, 3, 32},
                          {6, 20, 20, 16, 3, 3, 32}};
  std::mt19937 rng(11);
  for (const Shape& s : shapes) {
    const Tensor x = Random(&rng, {s.batch, s.rows, s.cols, s.in});
    const Tensor f = Random(&rng, {s.kh, s.kw, s.in, s.out});
    for (const char* padding : {"SAME", "VALID", "EXPLICIT"}) {
      for (int64_t stride : {1, 2, 3}) {
        CheckSamePaths(ConvNode("Conv2D", stride, stride, 1, 1, padding),
                       {x, f});
      }
      CheckSamePaths(ConvNode("Conv2D", 2, 1, 1, 2, padding), {x, f});
      CheckSamePaths(ConvNode("Conv2D", 1, 1, 2, 2, padding), {x, f});
    }
  }
  // 8 shapes x 3 paddings x 5 attr sets x 2 thread counts.
  CHECK(ran_onednn == 240);
}

TEST_CASE("oneDNN grouped Conv2D matches im2col", "[kernels]") {
  ran_onednn = 0;
  std::mt19937 rng(12);
  const Tensor x = Random(&rng, {2, 10, 9, 12});
  for (int64_t per_group : {6, 4, 3}) {
    const Tensor f = Random(&rng, {3, 3, per_group, 24});
    CheckSamePaths(ConvNode("Conv2D", 1, 1, 1, 1, "SAME"), {x, f});
    CheckSamePaths(ConvNode("Conv2D", 2, 2, 1, 1, "VALID"), {x, f});
  }
  CHECK(ran_onednn == 12);
}

TEST_CASE("oneDNN DepthwiseConv2dNative matches the direct loops",
          "[kernels]") {
  ran_onednn = 0;
  std::mt19937 rng(13);
  for (int64_t mult : {1, 2}) {
    const Tensor x = Random(&rng, {2, 13, 11, 8});
    const Tensor f = Random(&rng, {3, 3, 8, mult});
    for (const char* padding : {"SAME", "VALID", "EXPLICIT"}) {
      for (int64_t stride : {1, 2}) {
        CheckSamePaths(
            ConvNode("DepthwiseConv2dNative", stride, stride, 1, 1, padding),
            {x, f});
      }
    }
  }
  // 5x5 on a larger image: several row bands per image.
  const Tensor x = Random(&rng, {1, 64, 64, 64});
  const Tensor f = Random(&rng, {5, 5, 64, 1});
  CheckSamePaths(ConvNode("DepthwiseConv2dNative", 1, 1, 1, 1, "SAME"), {x, f});
}

TEST_CASE("oneDNN Conv2DBackpropInput matches GEMM + col2im", "[kernels]") {
  ran_onednn = 0;
  struct Shape {
    int64_t batch, rows, cols, in, kh, kw, out;
  };
  // Batches 3 and 6: whole-image shards on 1 and 3 threads.
  const Shape shapes[] = {{3, 12, 11, 8, 3, 3, 16},
                          {6, 9, 9, 4, 1, 1, 8},
                          {3, 17, 5, 6, 5, 3, 7},
                          {6, 20, 20, 16, 3, 3, 32}};
  std::mt19937 rng(19);
  int64_t cases = 0;
  for (const Shape& s : shapes) {
    const Tensor f = Random(&rng, {s.kh, s.kw, s.in, s.out});
    for (const char* padding : {"SAME", "VALID", "EXPLICIT"}) {
      for (int64_t stride : {1, 2, 3}) {
        // dy of the forward conv's output shape.
        const Tensor x = Random(&rng, {s.batch, s.rows, s.cols, s.in});
        const std::string conv =
            ConvNode("Conv2D", stride, stride, 1, 1, padding);
        const KernelRun y = Run(conv, {x, f}, false, 1);
        REQUIRE(y.status.ok());
        const auto dims = y.out(0).shape().dim_sizes();
        const Tensor dy =
            Random(&rng, std::vector<int64_t>(dims.begin(), dims.end()));
        const Tensor sizes =
            MakeTensor<int32_t>({4}, {int32_t(s.batch), int32_t(s.rows),
                                      int32_t(s.cols), int32_t(s.in)});
        CheckSamePaths(
            ConvNode("Conv2DBackpropInput", stride, stride, 1, 1, padding),
            {sizes, f, dy});
        ++cases;
      }
    }
  }
  CHECK(ran_onednn == 2 * cases);
}

TEST_CASE("oneDNN Conv2D keeps padding-only windows and bad shapes right",
          "[kernels]") {
  std::mt19937 rng(14);
  // Padding wider than the window: the first rows read only padding.
  const Tensor x = Random(&rng, {1, 4, 4, 2});
  const Tensor f = Random(&rng, {2, 2, 2, 3});
  CheckSamePaths(ConvNode("Conv2D", 1, 1, 1, 1, "EXPLICIT"), {x, f});
  // Depth mismatch: the same error on both paths.
  const Tensor f5 = Random(&rng, {2, 2, 5, 3});
  CheckSamePaths(ConvNode("Conv2D", 1, 1, 1, 1, "SAME"), {x, f5});
}

std::string FusedNode(const std::string& ops, int num_args) {
  return ConvNode("_FusedConv2D", 1, 1, 1, 1, "SAME",
                  fmt::format("attr {{ key: 'fused_ops' value {{ list {{ s: "
                              "[{}] }} }} }} attr {{ key: 'num_args' value "
                              "{{ i: {} }} }} attr {{ key: 'leakyrelu_alpha' "
                              "value {{ f: 0.3 }} }}",
                              ops, num_args));
}

TEST_CASE("oneDNN _FusedConv2D matches im2col for every fused_ops form",
          "[kernels]") {
  ran_onednn = 0;
  std::mt19937 rng(15);
  const Tensor x = Random(&rng, {2, 12, 12, 8});
  const Tensor f = Random(&rng, {3, 3, 8, 16});
  const Tensor bias = Random(&rng, {16});
  const Tensor y = Random(&rng, {2, 12, 12, 16});
  const Tensor scale = Random(&rng, {16}), offset = Random(&rng, {16});
  const Tensor mean = Random(&rng, {16});
  const Tensor var = MakeTensor<float>({16}, std::vector<float>(16, 0.5f));
  // The leading BiasAdd and activation run inside oneDNN; the rest after.
  for (const char* act :
       {"", ", 'Relu'", ", 'Relu6'", ", 'LeakyRelu'", ", 'Elu'", ", 'Tanh'",
        ", 'Sigmoid'", ", 'GeluApproximate'", ", 'GeluExact'"}) {
    CheckSamePaths(FusedNode(fmt::format("'BiasAdd'{}", act), 1), {x, f, bias});
    CheckSamePaths(FusedNode(fmt::format("'FusedBatchNorm'{}", act), 4),
                   {x, f, scale, offset, mean, var});
    CheckSamePaths(FusedNode(fmt::format("'BiasAdd', 'Add'{}", act), 2),
                   {x, f, bias, y});
  }
  // A bias of the wrong size: the same error on both paths.
  CheckSamePaths(FusedNode("'BiasAdd', 'Relu'", 1), {x, f, Random(&rng, {15})});
}

TEST_CASE("the Relu6 epilogue keeps NaN and -0 as TensorFlow's Relu6",
          "[kernels]") {
  // dfg applies Relu6 after oneDNN (whose clip turns NaN into 0), on whole
  // vectors and a tail: 8 channels x 5 rows of a repeating pattern.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {nan,  -0.0f, -1.5f, 3.25f,
                                 6.0f, 7.0f,  inf,   -inf};
  const std::vector<float> want = {nan,  -0.0f, 0.0f, 3.25f,
                                   6.0f, 6.0f,  6.0f, 0.0f};
  std::vector<float> y;
  for (int r = 0; r < 5; ++r) y.insert(y.end(), in.begin(), in.end());
  ConvEpilogue e;
  e.activation = ConvActivation::kRelu6;
  ApplyConvEpilogue(e, 8, y.data(), static_cast<int64_t>(y.size()));
  for (size_t i = 0; i < y.size(); ++i) {
    INFO("element " << i);
    const float w = want[i % 8];
    if (std::isnan(w)) {
      CHECK(std::isnan(y[i]));
    } else {
      CHECK(y[i] == w);
      CHECK(std::signbit(y[i]) == std::signbit(w));
    }
  }
}

TEST_CASE("oneDNN splits weight-heavy convolutions over output channels",
          "[kernels]") {
  std::mt19937 rng(16);
  struct Case {
    std::vector<int64_t> x, f;
    int64_t stride;
    const char* padding;
  };
  // More weights than activations: 3x3 64 -> 192 on 4x4 (SAME, so the
  // part keeps the padding) and 1x1/2 256 -> 512 (the batch folds into rows).
  const Case cases[] = {{{2, 4, 4, 64}, {3, 3, 64, 192}, 1, "SAME"},
                        {{2, 4, 4, 256}, {1, 1, 256, 512}, 2, "VALID"}};
  for (const Case& c : cases) {
    const Tensor x = Random(&rng, c.x);
    Tensor f = Random(&rng, c.f);
    const int64_t out = c.f[3];
    const Tensor bias = Random(&rng, {out}), scale = Random(&rng, {out});
    const Tensor offset = Random(&rng, {out}), mean = Random(&rng, {out});
    const Tensor var = MakeTensor<float>({out}, std::vector<float>(out, 0.5f));
    const std::string fused = ConvNode(
        "_FusedConv2D", c.stride, c.stride, 1, 1, c.padding,
        "attr { key: 'fused_ops' value { list { s: ['BiasAdd', 'Relu'] } } } "
        "attr { key: 'num_args' value { i: 1 } }");
    const std::string bn =
        ConvNode("_FusedConv2D", c.stride, c.stride, 1, 1, c.padding,
                 "attr { key: 'fused_ops' value { list { s: ['FusedBatchNorm', "
                 "'Elu'] } } } attr { key: 'num_args' value { i: 4 } }");
    for (bool as_const : {false, true}) {
      INFO("filter " << c.f[0] << "x" << c.f[1] << " const " << as_const);
      if (as_const) RegisterConstBuffer(f.data());
      const int64_t splits = OneDnnConvChannelSplitRuns();
      for (int pass = 0; pass < 2; ++pass) {  // the second uses the cache
        CheckSamePaths(ConvNode("Conv2D", c.stride, c.stride, 1, 1, c.padding),
                       {x, f}, {1, 2, 3});
        CheckSamePaths(fused, {x, f, bias}, {1, 2, 3});
        CheckSamePaths(bn, {x, f, scale, offset, mean, var}, {1, 2, 3});
      }
      // Two and three threads split 192 channels; 512 only two (parts of
      // 256; three would not be multiples of 16): one split per call.
      CHECK(OneDnnConvChannelSplitRuns() - splits == (out == 192 ? 12 : 6));
      if (as_const) UnregisterConstBuffer(f.data());
    }
  }
}

TEST_CASE("oneDNN convolutions treat NaN and infinity as im2col does",
          "[kernels]") {
  std::mt19937 rng(17);
  Tensor x = Random(&rng, {1, 9, 9, 4});
  x.flat<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  x.flat<float>()[200] = std::numeric_limits<float>::infinity();
  x.flat<float>()[300] = -std::numeric_limits<float>::infinity();
  const Tensor f = Random(&rng, {3, 3, 4, 8});
  const Tensor bias = Random(&rng, {8});
  CheckSamePaths(ConvNode("Conv2D", 1, 1, 1, 1, "SAME"), {x, f});
  for (const char* act : {"'Relu'", "'Relu6'", "'LeakyRelu'"}) {
    CheckSamePaths(FusedNode(fmt::format("'BiasAdd', {}", act), 1),
                   {x, f, bias});
  }
  // A FusedBatchNorm and the activations dfg applies after oneDNN.
  const Tensor scale = Random(&rng, {8}), offset = Random(&rng, {8});
  const Tensor mean = Random(&rng, {8});
  const Tensor var = MakeTensor<float>({8}, std::vector<float>(8, 0.5f));
  for (const char* act : {"'Relu'", "'Relu6'", "'Elu'", "'LeakyRelu'"}) {
    CheckSamePaths(FusedNode(fmt::format("'FusedBatchNorm', {}", act), 4),
                   {x, f, scale, offset, mean, var});
    CheckSamePaths(FusedNode(fmt::format("'BiasAdd', {}", act), 1),
                   {x, f, bias});
  }
  const Tensor dw = Random(&rng, {3, 3, 4, 2});
  CheckSamePaths(ConvNode("DepthwiseConv2dNative", 1, 1, 1, 1, "SAME"),
                 {x, dw});
}

TEST_CASE("oneDNN reorders a Const filter once and never uses a stale one",
          "[kernels]") {
  // Big enough for oneDNN to want its own weight layout.
  std::mt19937 rng(19);
  const Tensor x = Random(&rng, {2, 6, 6, 32});
  Tensor f = Random(&rng, {3, 3, 32, 64});
  const std::string node = ConvNode("Conv2D", 1, 1, 1, 1, "SAME");
  auto check = [&](const Tensor& filter, const std::string& n,
                   const Tensor& in) {
    const KernelRun want = Run(n, {in, filter}, false, 1);
    for (int threads : {1, 2}) {
      const KernelRun got = Run(n, {in, filter}, true, threads);
      REQUIRE(got.status.ok());
      const auto w = want.out(0).flat<float>();
      const auto g = got.out(0).flat<float>();
      float worst = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        worst = std::max(worst, std::abs(w[i] - g[i]) / (1 + std::abs(w[i])));
      }
      CHECK(worst <= 1e-5f);
    }
  };
  // As a Const's value: reordered on the first call, cached after.
  RegisterConstBuffer(f.data());
  const int64_t runs = OneDnnConvRuns();
  check(f, node, x);
  check(f, node, x);
  CHECK(OneDnnConvRuns() - runs == 4);
  // The same bytes as a 1x1 filter of another shape: its own layout.
  Tensor as_1x1;
  REQUIRE(as_1x1.CopyFrom(f, TensorShape({1, 1, 288, 64})));
  check(as_1x1, ConvNode("Conv2D", 1, 1, 1, 1, "VALID"),
        Random(&rng, {2, 3, 3, 288}));
  // The Const goes away and a new one reuses the buffer with other values:
  // the reordered weights went with the old one.
  UnregisterConstBuffer(f.data());
  for (float& v : f.flat<float>()) v = -v;
  RegisterConstBuffer(f.data());
  check(f, node, x);
  UnregisterConstBuffer(f.data());
  // Not a Const (a variable): written in place between calls and followed.
  for (float& v : f.flat<float>()) v *= 0.5f;
  check(f, node, x);
  for (float& v : f.flat<float>()) v += 0.25f;
  check(f, node, x);
}

TEST_CASE("oneDNN convolutions run from two threads at once over one pool",
          "[kernels]") {
  // As the executor runs two nodes at once: each thread builds its own plans
  // (row bands, image shards) and shares the intra-op pool. Checked for
  // races by ThreadSanitizer builds.
  std::mt19937 rng(18);
  const Tensor x1 = Random(&rng, {1, 40, 40, 16});
  const Tensor x4 = Random(&rng, {4, 24, 24, 16});
  const Tensor f = Random(&rng, {3, 3, 16, 32});
  const std::string node = ConvNode("Conv2D", 1, 1, 1, 1, "SAME");
  const KernelRun want1 = Run(node, {x1, f}, false, 1);
  const KernelRun want4 = Run(node, {x4, f}, false, 1);
  BenchPool pool(2);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      auto tester = KernelTester::Create(node);
      if (!tester.ok()) return;
      (*tester)->services().intra_op_pool = &pool;
      for (int i = 0; i < 8; ++i) {
        const bool one = (i + t) % 2 == 0;
        const KernelRun got = (*tester)->Run({one ? x1 : x4, f});
        const KernelRun& want = one ? want1 : want4;
        if (!got.status.ok()) {
          errors[t] = got.status.ToString();
          return;
        }
        const auto w = want.out(0).flat<float>();
        const auto g = got.out(0).flat<float>();
        for (size_t j = 0; j < w.size(); ++j) {
          if (std::abs(w[j] - g[j]) > 1e-5f * (1 + std::abs(w[j]))) {
            errors[t] = fmt::format("element {}: {} vs {}", j, g[j], w[j]);
            return;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(errors[0] == "");
  CHECK(errors[1] == "");
}

TEST_CASE("oneDNN fused Relu leaves no negative zeros", "[kernels]") {
  std::mt19937 rng(16);
  const Tensor x = Random(&rng, {1, 8, 8, 4});
  const Tensor f = Random(&rng, {3, 3, 4, 8});
  const Tensor bias = MakeTensor<float>({8}, std::vector<float>(8, -10.0f));
  const KernelRun run =
      Run(FusedNode("'BiasAdd', 'Relu'", 1), {x, f, bias}, true, 1);
  REQUIRE(run.status.ok());
  for (float v : run.out(0).flat<float>()) CHECK(!std::signbit(v));
}

}  // namespace
}  // namespace dfg
