// Hand-checked values for the RNN kernels (rnn_lstm_ops.cc,
// rnn_lstm_grad_ops.cc, rnn_gru_ops.cc) and fused_ext_*.cc; the RNN
// gradients are checked against finite differences of the forward kernels.
// The TF oracle's op_cases/rnn.py and fused_ext.py check them against
// TensorFlow itself.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::KernelRun;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& extra = "") {
  return fmt::format(
      "name: 'n' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} {}",
      op, extra);
}

Tensor F(std::vector<int64_t> dims, std::vector<float> v) {
  return MakeTensor<float>(std::move(dims), v);
}

float At(const KernelRun& run, int output, int index) {
  return run.out(output).flat<float>()[index];
}

TEST_CASE("LSTMBlockCell computes one step with ICFO gates", "[kernels]") {
  const KernelRun run =
      RunKernel(Node("LSTMBlockCell"),
                {F({1, 1}, {1}), F({1, 1}, {0.5f}), F({1, 1}, {0}),
                 F({2, 4}, {0.1f, 0.2f, 0.3f, 0.4f, 0, 0, 0, 0}), F({1}, {0}),
                 F({1}, {0}), F({1}, {0}), F({4}, {0, 0, 0, 0})});
  REQUIRE(run.status.ok());
  const float want[] = {0.52497919f, 0.49653543f, 0.78583498f, 0.59868766f,
                        0.19737532f, 0.45938809f, 0.27502998f};
  for (int k = 0; k < 7; ++k) CHECK(At(run, k, 0) == Approx(want[k]));
}

TEST_CASE("LSTMBlockCell refuses an empty state with TF's text", "[kernels]") {
  const KernelRun run = RunKernel(
      Node("LSTMBlockCell"), {F({0, 1}, {}), F({0, 1}, {}), F({0, 1}, {}),
                              F({2, 4}, std::vector<float>(8)), F({1}, {0}),
                              F({1}, {0}), F({1}, {0}), F({4}, {0, 0, 0, 0})});
  CHECK(run.status.message().find("cs_prev_tensor is empty") !=
        std::string::npos);
}

// A BlockLSTMV2 (IFCO, no forget bias) of `time` steps on fixed weights;
// returns the sum of h over all steps and batch rows.
std::vector<Tensor> LstmInputs(const std::vector<float>& x, int64_t time) {
  std::vector<float> w(3 * 8);
  for (size_t k = 0; k < w.size(); ++k) w[k] = 0.05f * (k % 7) - 0.1f;
  return {MakeTensor<int64_t>({}, {time}),
          F({time, 1, 1}, x),
          F({1, 2}, {0.1f, -0.2f}),
          F({1, 2}, {0.3f, 0.05f}),
          F({3, 8}, w),
          F({2}, {0.1f, 0.2f}),
          F({2}, {-0.1f, 0.3f}),
          F({2}, {0.2f, 0.1f}),
          F({8}, {0, 0.1f, 0, 0.2f, 0, 0, 0.3f, 0})};
}

KernelRun RunBlock(const std::vector<Tensor>& in) {
  auto tester = testing::KernelTester::Create(
      Node("BlockLSTMV2", "attr { key: 'use_peephole' value { b: true } }"));
  REQUIRE(tester.ok());
  std::vector<std::optional<Tensor>> opt(in.begin(), in.end());
  return (*tester)->Run(opt);
}

double SumH(const std::vector<float>& x) {
  const KernelRun run = RunBlock(LstmInputs(x, 3));
  REQUIRE(run.status.ok());
  double s = 0;
  for (float v : run.out(6).flat<float>()) s += v;
  return s;
}

TEST_CASE("BlockLSTMGradV2 matches finite differences of BlockLSTMV2",
          "[kernels]") {
  const std::vector<float> x = {0.5f, -1.0f, 0.25f};
  std::vector<Tensor> in = LstmInputs(x, 3);
  const KernelRun fwd = RunBlock(in);
  REQUIRE(fwd.status.ok());
  for (int k = 0; k < 7; ++k) in.push_back(fwd.out(k));
  in.push_back(F({3, 1, 2}, std::vector<float>(6, 0.0f)));  // cs_grad
  in.push_back(F({3, 1, 2}, std::vector<float>(6, 1.0f)));  // h_grad
  auto tester = testing::KernelTester::Create(Node(
      "BlockLSTMGradV2", "attr { key: 'use_peephole' value { b: true } }"));
  REQUIRE(tester.ok());
  std::vector<std::optional<Tensor>> opt(in.begin(), in.end());
  const KernelRun grad = (*tester)->Run(opt);
  REQUIRE(grad.status.ok());
  for (int t = 0; t < 3; ++t) {
    std::vector<float> up = x, down = x;
    up[t] += 1e-2f;
    down[t] -= 1e-2f;
    const double numeric = (SumH(up) - SumH(down)) / 2e-2;
    CHECK(At(grad, 0, t) == Approx(numeric).margin(2e-4));
  }
}

TEST_CASE("BlockLSTM zeroes cs and h past seq_len_max and checks its range",
          "[kernels]") {
  std::vector<Tensor> in = LstmInputs({0.5f, -1.0f, 0.25f}, 3);
  in[0] = MakeTensor<int64_t>({}, {1});
  const KernelRun run = RunBlock(in);
  REQUIRE(run.status.ok());
  CHECK(At(run, 6, 0) != 0.0f);
  CHECK(At(run, 6, 2) == 0.0f);
  CHECK(At(run, 1, 5) == 0.0f);
  in[0] = MakeTensor<int64_t>({}, {4});
  CHECK(RunBlock(in).status.message().find(
            "seq_len_max must be between 0 and 3 but is 4") !=
        std::string::npos);
}

// BlockLSTM's float path (vectorized activations, rnn_lstm_row.cc) against
// LSTMBlockCell's scalar one, step by step: peepholes, forget bias, a cell
// clip that bites, saturating pre-activations and a cell size that is not
// a multiple of any vector width.
TEST_CASE("BlockLSTM's float sequence equals LSTMBlockCell step by step",
          "[kernels]") {
  const int64_t time = 3, batch = 2, input = 3, cell = 5;
  auto values = [](int64_t n, float scale, int seed) {
    std::vector<float> v(n);
    for (int64_t k = 0; k < n; ++k) {
      v[k] = scale * std::sin(0.7f * static_cast<float>(k + seed));
    }
    return v;
  };
  const std::vector<float> x = values(time * batch * input, 4.0f, 1);
  const Tensor w =
      F({input + cell, 4 * cell}, values((input + cell) * 4 * cell, 3.0f, 2));
  const Tensor wci = F({cell}, values(cell, 0.5f, 3)),
               wcf = F({cell}, values(cell, 0.5f, 4)),
               wco = F({cell}, values(cell, 0.5f, 5)),
               b = F({4 * cell}, values(4 * cell, 1.0f, 6));
  Tensor cs = F({batch, cell}, values(batch * cell, 0.4f, 7));
  Tensor h = F({batch, cell}, values(batch * cell, 0.9f, 8));
  const std::string attrs =
      "attr { key: 'use_peephole' value { b: true } } "
      "attr { key: 'forget_bias' value { f: 1.0 } } "
      "attr { key: 'cell_clip' value { f: 0.5 } }";
  const KernelRun block =
      RunKernel(Node("BlockLSTM", attrs),
                {MakeTensor<int64_t>({}, {time}), F({time, batch, input}, x),
                 cs, h, w, wci, wcf, wco, b});
  REQUIRE(block.status.ok());
  for (int64_t t = 0; t < time; ++t) {
    const std::vector<float> xt(x.begin() + t * batch * input,
                                x.begin() + (t + 1) * batch * input);
    const KernelRun step =
        RunKernel(Node("LSTMBlockCell", attrs),
                  {F({batch, input}, xt), cs, h, w, wci, wcf, wco, b});
    REQUIRE(step.status.ok());
    for (int k = 0; k < 7; ++k) {
      for (int64_t e = 0; e < batch * cell; ++e) {
        INFO("step " << t << " output " << k << " element " << e);
        CHECK(At(block, k, t * batch * cell + e) ==
              Approx(At(step, k, e)).margin(1e-6));
      }
    }
    cs = step.out(1);
    h = step.out(6);
  }
}

std::vector<Tensor> GruInputs(float x) {
  return {F({1, 1}, {x}),
          F({1, 1}, {0.5f}),
          F({2, 2}, {0.1f, 0.2f, 0.3f, 0.4f}),
          F({2, 1}, {0.5f, 0.6f}),
          F({2}, {0, 0}),
          F({1}, {0.1f})};
}

TEST_CASE("GRUBlockCell computes r, u, c, h and its grad matches",
          "[kernels]") {
  std::vector<Tensor> in = GruInputs(1.0f);
  auto run_fwd = [](const std::vector<Tensor>& v) {
    return RunKernel(Node("GRUBlockCell"),
                     {v[0], v[1], v[2], v[3], v[4], v[5]});
  };
  const KernelRun fwd = run_fwd(in);
  REQUIRE(fwd.status.ok());
  const float want[] = {0.56217650f, 0.59868766f, 0.64614548f, 0.55864999f};
  for (int k = 0; k < 4; ++k) CHECK(At(fwd, k, 0) == Approx(want[k]));
  const KernelRun grad =
      RunKernel(Node("GRUBlockCellGrad"),
                {in[0], in[1], in[2], in[3], in[4], in[5], fwd.out(0),
                 fwd.out(1), fwd.out(2), F({1, 1}, {1.0f})});
  REQUIRE(grad.status.ok());
  const double numeric = (At(run_fwd(GruInputs(1.01f)), 3, 0) -
                          At(run_fwd(GruInputs(0.99f)), 3, 0)) /
                         0.02;
  CHECK(At(grad, 0, 0) == Approx(numeric).margin(1e-4));
}

TEST_CASE("BatchNormWithGlobalNormalization normalizes by the given stats",
          "[kernels]") {
  const std::string attrs =
      "attr { key: 'variance_epsilon' value { f: 1 } } "
      "attr { key: 'scale_after_normalization' value { b: true } }";
  const KernelRun run =
      RunKernel(Node("BatchNormWithGlobalNormalization", attrs),
                {F({1, 1, 1, 2}, {1, 2}), F({2}, {0, 1}), F({2}, {3, 0}),
                 F({2}, {1, 0}), F({2}, {2, 1})});
  REQUIRE(run.status.ok());
  CHECK(At(run, 0, 0) == 2.0f);  // (1 - 0) * 2 / sqrt(3 + 1) + 1
  CHECK(At(run, 0, 1) == 1.0f);  // (2 - 1) * 1 / sqrt(0 + 1) + 0
  const KernelRun grad =
      RunKernel(Node("BatchNormWithGlobalNormalizationGrad", attrs),
                {F({1, 1, 1, 2}, {1, 2}), F({2}, {0, 1}), F({2}, {3, 0}),
                 F({2}, {2, 1}), F({1, 1, 1, 2}, {1, 1})});
  REQUIRE(grad.status.ok());
  CHECK(At(grad, 0, 0) == 1.0f);   // dx = backprop * gamma / sqrt(v + eps)
  CHECK(At(grad, 1, 0) == -1.0f);  // dm = -db * gamma / sqrt(v + eps)
  CHECK(At(grad, 3, 1) == 1.0f);   // db = sum of backprop
  CHECK(At(grad, 4, 0) == 0.5f);   // dg = sum(backprop (x - m)) / sqrt(v + eps)
  CHECK(RunKernel(Node("BatchNormWithGlobalNormalization", attrs),
                  {F({2}, {1, 2}), F({2}, {0, 1}), F({2}, {3, 0}),
                   F({2}, {1, 0}), F({2}, {2, 1})})
            .status.message()
            .find("input must be 4-dimensional") != std::string::npos);
}

TEST_CASE("_UnaryOpsComposition applies its ops in order", "[kernels]") {
  const std::string names =
      "attr { key: 'op_names' value { list { s: 'Relu' s: 'Sqrt' s: 'Neg' "
      "} } }";
  const KernelRun run =
      RunKernel(Node("_UnaryOpsComposition", names), {F({3}, {-4, 4, 9})});
  REQUIRE(run.status.ok());
  CHECK(At(run, 0, 0) == 0.0f);  // -sqrt(relu(-4)) is -0
  CHECK(At(run, 0, 1) == -2.0f);
  CHECK(At(run, 0, 2) == -3.0f);
  const KernelRun bad =
      RunKernel(Node("_UnaryOpsComposition",
                     "attr { key: 'op_names' value { list { s: 'Gelu' } } }"),
                {F({1}, {1})});
  CHECK(bad.status.message().find("Do not have a compute function "
                                  "registered for op: Gelu") !=
        std::string::npos);
}

TEST_CASE("FusedPadConv2D convolves the mirror-padded input", "[kernels]") {
  const KernelRun run = RunKernel(
      Node("FusedPadConv2D",
           "attr { key: 'mode' value { s: 'REFLECT' } } "
           "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
           "attr { key: 'padding' value { s: 'VALID' } }"),
      {F({1, 2, 2, 1}, {1, 2, 3, 4}),
       MakeTensor<int32_t>({4, 2}, {0, 0, 1, 0, 0, 1, 0, 0}),
       F({1, 1, 1, 1}, {2})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<float>(run.out(0)) == "[1,3,3,1] 6 8 6 2 4 2 6 8 6");
}

TEST_CASE("Conv runs 2 spatial dims as Conv2D and refuses 1", "[kernels]") {
  const std::string attrs =
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
      "attr { key: 'padding' value { s: 'VALID' } }";
  const KernelRun run =
      RunKernel(Node("Conv", attrs),
                {F({1, 2, 2, 1}, {1, 2, 3, 4}), F({2, 1, 1, 1}, {1, 10})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<float>(run.out(0)) == "[1,1,2,1] 31 42");
  const KernelRun bad =
      RunKernel(Node("Conv", attrs), {F({1, 2, 1}, {1, 2}), F({1, 1, 1}, {1})});
  CHECK(bad.status.message().find("must have 2 or 3 spatial dimensions") !=
        std::string::npos);
}

TEST_CASE("CTC: greedy decoding and the loss of a certain path", "[kernels]") {
  // Two steps, classes {0, blank}: class 0 then blank, decoded as [0].
  const std::string greedy =
      "name: 'n' op: 'CTCGreedyDecoder' attr { key: 'T' value { type: "
      "DT_FLOAT } }";
  const KernelRun run = RunKernel(
      greedy, {F({2, 1, 2}, {3, 1, 0, 2}), MakeTensor<int32_t>({1}, {2})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<int64_t>(run.out(0)) == "[1,2] 0 0");
  CHECK(testing::Flat<int64_t>(run.out(1)) == "[1] 0");
  CHECK(testing::Flat<int64_t>(run.out(2)) == "[2] 1 1");
  CHECK(At(run, 3, 0) == -5.0f);
  // One step, label [0]: the loss is -log softmax(x)[0] = log(1 + e).
  const KernelRun loss = RunKernel(
      "name: 'n' op: 'CTCLoss' attr { key: 'T' value { type: DT_FLOAT } }",
      {F({1, 1, 2}, {0, 1}), MakeTensor<int64_t>({1, 2}, {0, 0}),
       MakeTensor<int32_t>({1}, {0}), MakeTensor<int32_t>({1}, {1})});
  REQUIRE(loss.status.ok());
  CHECK(At(loss, 0, 0) == Approx(std::log1p(std::exp(1.0f))));
  CHECK(At(loss, 1, 0) == Approx(1 / (1 + std::exp(1.0f)) - 1));
  // Beam search, one step, logits [2, 0] (class 0, blank): the best path
  // is [0] with log softmax(2).
  const KernelRun beam = RunKernel(
      "name: 'n' op: 'CTCBeamSearchDecoder' attr { key: 'T' value { type: "
      "DT_FLOAT } } attr { key: 'beam_width' value { i: 2 } } attr { key: "
      "'top_paths' value { i: 1 } }",
      {F({1, 1, 2}, {2, 0}), MakeTensor<int32_t>({1}, {1})});
  REQUIRE(beam.status.ok());
  CHECK(testing::Flat<int64_t>(beam.out(1)) == "[1] 0");
  CHECK(At(beam, 3, 0) == Approx(-std::log1p(std::exp(-2.0f))));
}

}  // namespace
}  // namespace dfg
