// Array kernels of array_ext_ops.cc / array_misc_ops.cc on hand-checked
// values.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const std::string& op, const std::string& attrs) {
  return "name: 'n' op: '" + op + "' " + attrs;
}
const char kFloat[] = "attr { key: 'T' value { type: DT_FLOAT } }";
const char kInt[] = "attr { key: 'T' value { type: DT_INT32 } }";

TEST_CASE("Reverse flips the flagged dims", "[array_ext]") {
  auto run = RunKernel(Node("Reverse", kInt),
                       {MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                        MakeTensor<bool>({2}, {false, true})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int32_t>(run.out(0)) == "[2,3] 3 2 1 6 5 4");
}

TEST_CASE("Roll shifts with wrap-around, summing repeated axes",
          "[array_ext]") {
  auto run = RunKernel(
      Node("Roll", std::string(kInt) +
                       " attr { key: 'Tshift' value { type: DT_INT32 } }"
                       " attr { key: 'Taxis' value { type: DT_INT32 } }"),
      {MakeTensor<int32_t>({5}, {0, 1, 2, 3, 4}),
       MakeTensor<int32_t>({2}, {3, -1}), MakeTensor<int32_t>({2}, {0, -1})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int32_t>(run.out(0)) == "[5] 3 4 0 1 2");
}

TEST_CASE("ReverseSequence reverses each batch's prefix", "[array_ext]") {
  auto run =
      RunKernel(Node("ReverseSequence",
                     std::string(kInt) +
                         " attr { key: 'seq_dim' value { i: 1 } }"
                         " attr { key: 'batch_dim' value { i: 0 } }"
                         " attr { key: 'Tlen' value { type: DT_INT32 } }"),
                {MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                 MakeTensor<int32_t>({2}, {2, 3})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int32_t>(run.out(0)) == "[2,3] 2 1 3 6 5 4");
}

TEST_CASE("DynamicPartition splits rows by partition", "[array_ext]") {
  auto run =
      RunKernel(Node("DynamicPartition",
                     std::string(kFloat) +
                         " attr { key: 'num_partitions' value { i: 2 } }"),
                {MakeTensor<float>({3}, {10, 20, 30}),
                 MakeTensor<int32_t>({3}, {1, 0, 1})});
  REQUIRE(run.status.ok());
  CHECK(Flat<float>(run.out(0)) == "[1] 20");
  CHECK(Flat<float>(run.out(1)) == "[2] 10 30");
}

TEST_CASE("InplaceAdd accumulates rows, wrapping indices", "[array_ext]") {
  auto run = RunKernel(Node("InplaceAdd", kInt),
                       {MakeTensor<int32_t>({2, 2}, {1, 1, 1, 1}),
                        MakeTensor<int32_t>({2}, {-1, 1}),
                        MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int32_t>(run.out(0)) == "[2,2] 1 1 5 7");
}

TEST_CASE("UnravelIndex gives coordinates per dim", "[array_ext]") {
  auto run = RunKernel(
      Node("UnravelIndex", "attr { key: 'Tidx' value { type: DT_INT32 } }"),
      {MakeTensor<int32_t>({2}, {5, 22}), MakeTensor<int32_t>({3}, {2, 3, 4})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int32_t>(run.out(0)) == "[3,2] 0 1 1 2 1 2");
}

TEST_CASE("DataFormat ops map NHWC to NCHW", "[array_ext]") {
  auto dims = RunKernel(Node("DataFormatDimMap", kInt),
                        {MakeTensor<int32_t>({4}, {0, 1, 2, -1})});
  REQUIRE(dims.status.ok());
  CHECK(Flat<int32_t>(dims.out(0)) == "[4] 0 2 3 1");
  auto vec = RunKernel(Node("DataFormatVecPermute", kInt),
                       {MakeTensor<int32_t>({4}, {1, 2, 3, 4})});
  REQUIRE(vec.status.ok());
  CHECK(Flat<int32_t>(vec.out(0)) == "[4] 1 4 2 3");
}

TEST_CASE("NthElement picks the n-th smallest of each row", "[array_ext]") {
  auto run = RunKernel(Node("NthElement", kFloat),
                       {MakeTensor<float>({2, 3}, {3, 1, 2, 9, 7, 8}),
                        MakeTensor<int32_t>({}, {1})});
  REQUIRE(run.status.ok());
  CHECK(Flat<float>(run.out(0)) == "[2] 2 8");
}

TEST_CASE("MirrorPadGrad folds the padding back (REFLECT)", "[array_ext]") {
  auto run =
      RunKernel(Node("MirrorPadGrad",
                     std::string(kFloat) +
                         " attr { key: 'Tpaddings' value { type: DT_INT32 } }"
                         " attr { key: 'mode' value { s: 'REFLECT' } }"),
                {MakeTensor<float>({5}, {1, 2, 3, 4, 5}),
                 MakeTensor<int32_t>({1, 2}, {1, 1})});
  REQUIRE(run.status.ok());
  // padded [x1 x0 x1 x2 x1]: x0 = 2, x1 = 1 + 3 + 5, x2 = 4
  CHECK(Flat<float>(run.out(0)) == "[3] 2 9 4");
}

TEST_CASE("BroadcastArgs broadcasts shapes and rejects mismatches",
          "[array_ext]") {
  auto run = RunKernel(
      Node("BroadcastArgs", kInt),
      {MakeTensor<int32_t>({3}, {2, 1, 3}), MakeTensor<int32_t>({2}, {4, 1})});
  REQUIRE(run.status.ok());
  CHECK(Flat<int32_t>(run.out(0)) == "[3] 2 4 3");
  auto bad =
      RunKernel(Node("BroadcastArgs", kInt),
                {MakeTensor<int32_t>({1}, {2}), MakeTensor<int32_t>({1}, {3})});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("Incompatible shapes: [2] vs. [3]"));
}

}  // namespace
}  // namespace dfg
