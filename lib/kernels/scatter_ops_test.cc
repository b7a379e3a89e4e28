// Scatter kernels on hand-checked values: ScatterNd, TensorScatter*, the ref
// variable scatters and their bad-index errors.
#include <mutex>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::KernelTester;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& type = "DT_FLOAT") {
  return "name: 's' op: '" + op + "' attr { key: 'T' value { type: " + type +
         " } } attr { key: 'Tindices' value { type: DT_INT32 } }";
}

TEST_CASE("ScatterNd adds duplicate indices into zeros", "[scatter]") {
  auto run =
      RunKernel(Node("ScatterNd"), {MakeTensor<int32_t>({3, 1}, {1, 3, 1}),
                                    MakeTensor<float>({3}, {1.5f, 2, 4}),
                                    MakeTensor<int32_t>({1}, {4})});
  REQUIRE(run.status.ok());
  CHECK(Flat<float>(run.out(0)) == "[4] 0 5.5 0 2");
}

TEST_CASE("ScatterNd scatters slices and concatenates strings", "[scatter]") {
  auto run = RunKernel(Node("ScatterNd", "DT_STRING"),
                       {MakeTensor<int32_t>({2, 1}, {1, 1}),
                        MakeTensor<std::string>({2, 2}, {"a", "b", "c", "d"}),
                        MakeTensor<int32_t>({2}, {2, 2})});
  REQUIRE(run.status.ok());
  CHECK(Flat<std::string>(run.out(0)) == "[2,2]   ac bd");
}

TEST_CASE("ScatterNd names the first index out of range", "[scatter]") {
  auto run =
      RunKernel(Node("ScatterNd"), {MakeTensor<int32_t>({2, 2}, {0, 1, 2, 0}),
                                    MakeTensor<float>({2}, {1, 2}),
                                    MakeTensor<int32_t>({2}, {2, 2})});
  CHECK(run.status.code() == Code::kInvalidArgument);
  CHECK_THAT(run.status.message(),
             Catch::Matchers::Contains(
                 "indices[1] = [2, 0] does not index into shape [2,2]"));
}

TEST_CASE("TensorScatter ops update a copy of the input", "[scatter]") {
  const Tensor input = MakeTensor<int32_t>({4}, {5, 5, 5, 5});
  const Tensor indices = MakeTensor<int32_t>({3, 1}, {0, 2, 0});
  const Tensor updates = MakeTensor<int32_t>({3}, {7, 1, 3});
  const std::pair<const char*, const char*> expected[] = {
      {"TensorScatterUpdate", "[4] 3 5 1 5"},
      {"TensorScatterAdd", "[4] 15 5 6 5"},
      {"TensorScatterSub", "[4] -5 5 4 5"},
      {"TensorScatterMax", "[4] 7 5 5 5"},
      {"TensorScatterMin", "[4] 3 5 1 5"},
  };
  for (const auto& [op, want] : expected) {
    auto run = RunKernel(Node(op, "DT_INT32"), {input, indices, updates});
    REQUIRE(run.status.ok());
    CHECK(Flat<int32_t>(run.out(0)) == want);
  }
  CHECK(Flat<int32_t>(input) == "[4] 5 5 5 5");
}

TEST_CASE("ScatterAdd updates a ref variable's rows and forwards the ref",
          "[scatter]") {
  auto k = KernelTester::Create(Node("ScatterAdd"));
  REQUIRE(k.ok());
  Tensor var = MakeTensor<float>({3, 2}, {1, 1, 1, 1, 1, 1});
  const Tensor shared = var;  // a reader's view stays unchanged
  std::mutex mu;
  Tensor indices = MakeTensor<int32_t>({2}, {2, 2});
  Tensor updates = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  auto run = (*k)->RunValues(
      {TensorValue{&var, &mu}, TensorValue{&indices}, TensorValue{&updates}});
  REQUIRE(run.status.ok());
  CHECK(run.outputs[0].ref == &var);
  CHECK(Flat<float>(var) == "[3,2] 1 1 1 1 5 7");
  CHECK(Flat<float>(shared) == "[3,2] 1 1 1 1 1 1");

  Tensor bad = MakeTensor<int32_t>({2}, {0, 3});
  run = (*k)->RunValues(
      {TensorValue{&var, &mu}, TensorValue{&bad}, TensorValue{&updates}});
  CHECK_THAT(run.status.message(),
             Catch::Matchers::Contains("indices[1] = 3 is not in [0, 3)"));
}

TEST_CASE("ScatterNdUpdate writes the last of duplicate indices", "[scatter]") {
  auto k = KernelTester::Create(Node("ScatterNdUpdate"));
  REQUIRE(k.ok());
  Tensor var = MakeTensor<float>({2, 2}, {0, 0, 0, 0});
  std::mutex mu;
  Tensor indices = MakeTensor<int32_t>({3, 2}, {0, 1, 1, 0, 0, 1});
  Tensor updates = MakeTensor<float>({3}, {1, 2, 3});
  auto run = (*k)->RunValues(
      {TensorValue{&var, &mu}, TensorValue{&indices}, TensorValue{&updates}});
  REQUIRE(run.status.ok());
  CHECK(Flat<float>(var) == "[2,2] 0 3 2 0");
}

}  // namespace
}  // namespace dfg
