// Philox4x32-10, RandomUniform, RandomStandardNormal, TruncatedNormal and
// Multinomial.
#include <bit>
#include <cmath>
#include <limits>

#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/philox.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::KernelTester;
using testing::MakeTensor;
using testing::Render;

TEST_CASE("Philox4x32-10 matches the Random123 known answers", "[kernels]") {
  Philox4x32 zero({0, 0, 0, 0}, {0, 0});
  CHECK(zero.Next() ==
        Philox4x32::Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  Philox4x32 ones({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                  {0xffffffff, 0xffffffff});
  CHECK(ones.Next() ==
        Philox4x32::Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
}

TEST_CASE("Philox skips carry across counter words", "[kernels]") {
  Philox4x32 a({0xffffffff, 0, 0, 0}, {1, 2});
  a.Skip(1);
  Philox4x32 b({0, 1, 0, 0}, {1, 2});
  CHECK(a.Next() == b.Next());
}

TEST_CASE("unit-interval conversions keep the top of the range below 1",
          "[kernels]") {
  CHECK(Uint32ToUnitFloat(0) == 0.0f);
  CHECK(Uint32ToUnitFloat(0xffffffff) < 1.0f);
  CHECK(Uint32ToUnitFloat(0x400000) == 0.5f);
  CHECK(Uint64ToUnitDouble(0xffffffff, 0xffffffff) < 1.0);
  CHECK(Uint64ToUnitDouble(0x80000, 0) == 0.5);
}

std::string Node(const std::string& dtype, int seed, int seed2) {
  return "name: 'r' op: 'RandomUniform' attr { key: 'dtype' value { type: " +
         dtype + " } } attr { key: 'T' value { type: DT_INT32 } } " +
         "attr { key: 'seed' value { i: " + std::to_string(seed) +
         " } } attr { key: 'seed2' value { i: " + std::to_string(seed2) +
         " } }";
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto f = t.flat<T>();
  return std::vector<T>(f.begin(), f.end());
}

TEST_CASE("RandomUniform draws from 0 <= x < 1, reproducible from its seeds",
          "[kernels]") {
  const Tensor shape = MakeTensor<int32_t>({2}, {3, 5});
  auto a = KernelTester::Create(Node("DT_FLOAT", 7, 11));
  auto b = KernelTester::Create(Node("DT_FLOAT", 7, 11));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto first = (*a)->Run({shape});
  REQUIRE(first.status.ok());
  CHECK(first.out(0).shape().DebugString() == "[3,5]");
  const std::vector<float> v = Values<float>(first.out(0));
  for (float x : v) {
    CHECK(x >= 0.0f);
    CHECK(x < 1.0f);
  }
  // The first four values are one Philox block of (seed, seed2).
  Philox4x32 gen(7, 11);
  const Philox4x32::Block block = gen.Next();
  for (int i = 0; i < 4; ++i) CHECK(v[i] == Uint32ToUnitFloat(block[i]));
  // Same seeds, same stream; the next step draws new values.
  CHECK(Values<float>((*b)->Run({shape}).out(0)) == v);
  CHECK(Values<float>((*a)->Run({shape}).out(0)) != v);
}

TEST_CASE("RandomUniform fills doubles two draws each", "[kernels]") {
  auto run = testing::RunKernel(Node("DT_DOUBLE", 1, 2),
                                {MakeTensor<int64_t>({1}, {3})});
  REQUIRE(run.status.ok());
  Philox4x32 gen(1, 2);
  const Philox4x32::Block b0 = gen.Next();
  const Philox4x32::Block b1 = gen.Next();
  CHECK(Values<double>(run.out(0)) ==
        std::vector<double>{Uint64ToUnitDouble(b0[0], b0[1]),
                            Uint64ToUnitDouble(b0[2], b0[3]),
                            Uint64ToUnitDouble(b1[0], b1[1])});
}

TEST_CASE("RandomUniform rejects a negative or non-vector shape", "[kernels]") {
  auto neg = testing::RunKernel(Node("DT_FLOAT", 1, 2),
                                {MakeTensor<int32_t>({2}, {2, -1})});
  CHECK(neg.status.code() == Code::kInvalidArgument);
  CHECK_THAT(neg.status.message(), Contains("Dimension -1 must be >= 0"));
  auto matrix = testing::RunKernel(Node("DT_FLOAT", 1, 2),
                                   {MakeTensor<int32_t>({1, 1}, {2})});
  CHECK_THAT(matrix.status.message(), Contains("must be a vector"));
}

// Reference values below come from TensorFlow 2.21 (CPU, Linux), computed
// once with tf.compat.v1 graph-mode sessions (one step, then a second step of
// the same kernels) on the raw ops with the given seed pairs; floats are
// given as their IEEE bit patterns.
std::string SeededNode(const std::string& op, const std::string& dtype,
                       int seed, int seed2) {
  return "name: 'r' op: '" + op +
         "' attr { key: 'dtype' value { type: " + dtype +
         " } } attr { key: 'T' value { type: DT_INT32 } } " +
         "attr { key: 'seed' value { i: " + std::to_string(seed) +
         " } } attr { key: 'seed2' value { i: " + std::to_string(seed2) +
         " } }";
}

std::vector<uint32_t> FloatBits(const Tensor& t) {
  std::vector<uint32_t> out;
  for (float f : t.flat<float>()) out.push_back(std::bit_cast<uint32_t>(f));
  return out;
}
std::vector<uint64_t> DoubleBits(const Tensor& t) {
  std::vector<uint64_t> out;
  for (double d : t.flat<double>()) out.push_back(std::bit_cast<uint64_t>(d));
  return out;
}
std::vector<uint16_t> HalfBits(const Tensor& t) {
  std::vector<uint16_t> out;
  for (Half h : t.flat<Half>()) out.push_back(h.bits);
  return out;
}

TEST_CASE("RandomStandardNormal matches TensorFlow's numbers", "[kernels]") {
  auto f = KernelTester::Create(
      SeededNode("RandomStandardNormal", "DT_FLOAT", 1, 2));
  REQUIRE(f.ok());
  const Tensor shape7 = MakeTensor<int32_t>({1}, {7});
  CHECK(FloatBits((*f)->Run({shape7}).out(0)) ==
        std::vector<uint32_t>{0xbf85fcdd, 0x3f56f6e1, 0x3f9e2fe3, 0x4004150f,
                              0x3e9b842a, 0x3fa5edfb, 0x3ef5dbd8});
  // The second step draws after the first step's reservation.
  CHECK(FloatBits((*f)->Run({shape7}).out(0)) ==
        std::vector<uint32_t>{0xbf730c0b, 0x3f6149e0, 0xbf79d146, 0xbfa677b2,
                              0x3efef098, 0x3bff6a44, 0x3ec984c0});
  auto d =
      testing::RunKernel(SeededNode("RandomStandardNormal", "DT_DOUBLE", 1, 2),
                         {MakeTensor<int32_t>({1}, {3})});
  REQUIRE(d.status.ok());
  CHECK(DoubleBits(d.out(0)) == std::vector<uint64_t>{0x3fe298089076cdd3,
                                                      0xbff8eb3aca515204,
                                                      0x3ff8e4f44037f289});
  auto h =
      testing::RunKernel(SeededNode("RandomStandardNormal", "DT_HALF", 1, 2),
                         {MakeTensor<int32_t>({1}, {5})});
  REQUIRE(h.status.ok());
  CHECK(HalfBits(h.out(0)) ==
        std::vector<uint16_t>{0xbc30, 0x3ab8, 0x3cf1, 0x4021, 0x34dc});
}

TEST_CASE("TruncatedNormal matches TensorFlow's numbers", "[kernels]") {
  auto f =
      KernelTester::Create(SeededNode("TruncatedNormal", "DT_FLOAT", 3, 4));
  REQUIRE(f.ok());
  const Tensor shape9 = MakeTensor<int32_t>({1}, {9});
  const Tensor first = (*f)->Run({shape9}).out(0);
  CHECK(FloatBits(first) ==
        std::vector<uint32_t>{0x3e944958, 0xbe8c01c7, 0xbe98e9e0, 0x3e063d70,
                              0x3e39ac47, 0x3f359756, 0x3f72127e, 0x3ec77ece,
                              0x3f330442});
  CHECK(FloatBits((*f)->Run({shape9}).out(0)) ==
        std::vector<uint32_t>{0xbeeede81, 0xbf82e712, 0x3f5c4e62, 0xbf92f6ae,
                              0x3e88fdab, 0xbf66bd60, 0xbfc0f749, 0xbf5a1643,
                              0x3ef80bf5});
  auto d = testing::RunKernel(SeededNode("TruncatedNormal", "DT_DOUBLE", 3, 4),
                              {MakeTensor<int32_t>({1}, {3})});
  REQUIRE(d.status.ok());
  CHECK(DoubleBits(d.out(0)) == std::vector<uint64_t>{0xbfe67f250a944316,
                                                      0xbff2dc48811f3fba,
                                                      0xbfe7903503b06341});
  auto h = testing::RunKernel(SeededNode("TruncatedNormal", "DT_HALF", 3, 4),
                              {MakeTensor<int32_t>({1}, {5})});
  REQUIRE(h.status.ok());
  CHECK(HalfBits(h.out(0)) ==
        std::vector<uint16_t>{0x34a2, 0xb460, 0xb4c7, 0x3032, 0x31cd});
}

TEST_CASE("TruncatedNormal stays within two standard deviations", "[kernels]") {
  auto run = testing::RunKernel(SeededNode("TruncatedNormal", "DT_FLOAT", 9, 9),
                                {MakeTensor<int32_t>({1}, {4000})});
  REQUIRE(run.status.ok());
  double sum = 0;
  for (float x : run.out(0).flat<float>()) {
    CHECK(std::abs(x) < 2.0f);
    sum += x;
  }
  CHECK(std::abs(sum / 4000) < 0.05);
}

std::string MultinomialNode(const std::string& t, const std::string& out,
                            int seed, int seed2) {
  return "name: 'm' op: 'Multinomial' attr { key: 'T' value { type: " + t +
         " } } attr { key: 'output_dtype' value { type: " + out +
         " } } attr { key: 'seed' value { i: " + std::to_string(seed) +
         " } } attr { key: 'seed2' value { i: " + std::to_string(seed2) +
         " } }";
}

TEST_CASE("Multinomial matches TensorFlow's samples", "[kernels]") {
  auto m = KernelTester::Create(MultinomialNode("DT_FLOAT", "DT_INT64", 5, 6));
  REQUIRE(m.ok());
  const Tensor logits = MakeTensor<float>({2, 3}, {0, 1, 2, 1, 1, 1});
  const Tensor six = Tensor::Scalar<int32_t>(6);
  CHECK(Render((*m)->Run({logits, six}).out(0)) ==
        "int64 [2,6] [[2 2 2 2 2 1]\n [2 2 2 2 1 0]]");
  CHECK(Render((*m)->Run({logits, six}).out(0)) ==
        "int64 [2,6] [[0 2 2 2 2 1]\n [0 2 2 1 2 0]]");
  const double inf = std::numeric_limits<double>::infinity();
  auto skip_inf =
      testing::RunKernel(MultinomialNode("DT_DOUBLE", "DT_INT32", 7, 8),
                         {MakeTensor<double>({2, 3}, {-inf, 0, -inf, 0, 3, 0}),
                          Tensor::Scalar<int32_t>(5)});
  REQUIRE(skip_inf.status.ok());
  CHECK(Render(skip_inf.out(0)) == "int32 [2,5] [[1 1 1 1 1]\n [1 1 1 1 1]]");
}

TEST_CASE("Multinomial checks its inputs as TensorFlow does", "[kernels]") {
  const std::string node = MultinomialNode("DT_FLOAT", "DT_INT64", 1, 1);
  auto vec = testing::RunKernel(
      node, {MakeTensor<float>({3}, {1, 2, 3}), Tensor::Scalar<int32_t>(1)});
  CHECK_THAT(vec.status.message(),
             Contains("logits should be a matrix, got shape [3]"));
  auto neg = testing::RunKernel(
      node, {MakeTensor<float>({1, 2}, {1, 2}), Tensor::Scalar<int32_t>(-1)});
  CHECK_THAT(neg.status.message(),
             Contains("num_samples should be nonnegative, got -1"));
  auto none = testing::RunKernel(
      node, {MakeTensor<float>({1, 0}, {}), Tensor::Scalar<int32_t>(1)});
  CHECK_THAT(none.status.message(),
             Contains("num_classes should be positive, got 0"));
}

}  // namespace
}  // namespace dfg
