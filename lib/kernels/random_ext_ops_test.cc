// RandomGamma, StatelessRandomPoisson, StatelessRandomBinomial and
// StatelessParameterizedTruncatedNormal against TensorFlow's numbers, and
// the samplers' checks.
#include <vector>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::RunKernel;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto f = t.flat<T>();
  return std::vector<T>(f.begin(), f.end());
}

std::string Attr(const std::string& key, const std::string& type) {
  return " attr { key: '" + key + "' value { type: " + type + " } }";
}

// Reference values: TensorFlow 2.21 (CPU, Linux), the same raw ops and
// seeds run eagerly once.
TEST_CASE("RandomGamma matches TensorFlow's samples", "[kernels]") {
  auto run = RunKernel("name: 'g' op: 'RandomGamma'" + Attr("S", "DT_INT32") +
                           Attr("T", "DT_DOUBLE") +
                           " attr { key: 'seed' value { i: 5 } }"
                           " attr { key: 'seed2' value { i: 7 } }",
                       {MakeTensor<int32_t>({1}, {2}),
                        MakeTensor<double>({3}, {0.3, 1.0, 2.5})});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).shape().DebugString() == "[2,3]");
  CHECK(Values<double>(run.out(0)) ==
        std::vector<double>{0.5113536630723468, 0.6651335026399434,
                            1.886624766739295, 5.7013806083707736e-05,
                            1.596640917806905, 2.580516795233463});
}

TEST_CASE("RandomGamma's next step draws TensorFlow's next samples",
          "[kernels]") {
  auto k = testing::KernelTester::Create(
      "name: 'g' op: 'RandomGamma'" + Attr("S", "DT_INT32") +
      Attr("T", "DT_DOUBLE") +
      " attr { key: 'seed' value { i: 5 } }"
      " attr { key: 'seed2' value { i: 7 } }");
  REQUIRE(k.ok());
  const Tensor shape = MakeTensor<int32_t>({1}, {2});
  const Tensor alpha = MakeTensor<double>({3}, {0.3, 1.0, 2.5});
  REQUIRE((*k)->Run({shape, alpha}).status.ok());
  auto second = (*k)->Run({shape, alpha});
  REQUIRE(second.status.ok());
  CHECK(Values<double>(second.out(0)) ==
        std::vector<double>{0.12988421803540381, 0.9632883461676619,
                            3.717945171048974, 0.1775519895821026,
                            2.9319570662625405, 1.9356687439165374});
}

TEST_CASE("StatelessRandomPoisson matches TensorFlow's samples", "[kernels]") {
  auto run = RunKernel(
      "name: 'p' op: 'StatelessRandomPoisson'" + Attr("T", "DT_INT32") +
          Attr("Tseed", "DT_INT64") + Attr("Rtype", "DT_FLOAT") +
          Attr("dtype", "DT_INT64"),
      {MakeTensor<int32_t>({2}, {2, 3}), MakeTensor<int64_t>({2}, {1, 2}),
       MakeTensor<float>({3}, {0.5f, 4.0f, 30.0f})});
  REQUIRE(run.status.ok());
  CHECK(Values<int64_t>(run.out(0)) ==
        std::vector<int64_t>{3, 6, 25, 2, 6, 35});
}

std::string BinomialNode() {
  return "name: 'b' op: 'StatelessRandomBinomial'" + Attr("S", "DT_INT32") +
         Attr("Tseed", "DT_INT64") + Attr("T", "DT_DOUBLE") +
         Attr("dtype", "DT_INT32");
}

TEST_CASE("StatelessRandomBinomial matches TensorFlow's samples", "[kernels]") {
  auto run =
      RunKernel(BinomialNode(), {MakeTensor<int32_t>({2}, {2, 3}),
                                 MakeTensor<int64_t>({2}, {5, 6}),
                                 MakeTensor<double>({3}, {5, 40, 300}),
                                 MakeTensor<double>({3}, {0.1, 0.45, 0.8})});
  REQUIRE(run.status.ok());
  CHECK(Values<int32_t>(run.out(0)) ==
        std::vector<int32_t>{0, 19, 237, 1, 21, 245});
}

TEST_CASE("StatelessRandomBinomial wants a shape ending with the batch",
          "[kernels]") {
  auto run = RunKernel(
      BinomialNode(),
      {MakeTensor<int32_t>({2}, {3, 2}), MakeTensor<int64_t>({2}, {5, 6}),
       MakeTensor<double>({3}, {5, 40, 300}), MakeTensor<double>({1}, {0.5})});
  CHECK(run.status.code() == Code::kInvalidArgument);
  CHECK_THAT(run.status.message(), Contains("must end with broadcasted"));
}

std::string PtnNode() {
  return "name: 't' op: 'StatelessParameterizedTruncatedNormal'" +
         Attr("S", "DT_INT32") + Attr("Tseed", "DT_INT64") +
         Attr("dtype", "DT_DOUBLE");
}

TEST_CASE(
    "StatelessParameterizedTruncatedNormal matches TensorFlow's three "
    "samplers",
    "[kernels]") {
  // Batch 0 samples normals, 1 uniform proposals, 2 the exponential tail.
  auto run = RunKernel(PtnNode(), {MakeTensor<int32_t>({1}, {3}),
                                   MakeTensor<int64_t>({2}, {7, 8}),
                                   MakeTensor<double>({3}, {0.5, 0.0, 1.0}),
                                   MakeTensor<double>({3}, {2.0, 1.0, 0.5}),
                                   MakeTensor<double>({3}, {-3.0, 0.1, 3.0}),
                                   MakeTensor<double>({3}, {4.0, 0.4, 9.0})});
  REQUIRE(run.status.ok());
  CHECK(Values<double>(run.out(0)) == std::vector<double>{3.0456796092377703,
                                                          0.3907970206167556,
                                                          3.0263029297503112});
}

TEST_CASE("StatelessParameterizedTruncatedNormal rejects a bad stddev",
          "[kernels]") {
  auto run = RunKernel(
      PtnNode(),
      {MakeTensor<int32_t>({1}, {2}), MakeTensor<int64_t>({2}, {7, 8}),
       MakeTensor<double>({}, {0.0}), MakeTensor<double>({}, {-1.0}),
       MakeTensor<double>({}, {-1.0}), MakeTensor<double>({}, {1.0})});
  CHECK(run.status.code() == Code::kInvalidArgument);
  CHECK_THAT(run.status.message(), Contains("Invalid parameters"));
}

}  // namespace
}  // namespace dfg
