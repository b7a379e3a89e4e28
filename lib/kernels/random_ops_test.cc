// Philox4x32-10 and RandomUniform.
#include "lib/kernels/kernel_test_util.h"
#include "lib/kernels/philox.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::KernelTester;
using testing::MakeTensor;

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

TEST_CASE("RandomUniform draws [0, 1) values, reproducible from its seeds",
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

}  // namespace
}  // namespace dfg
