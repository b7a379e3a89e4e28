// Save, SaveSlices, Restore and RestoreSlice: V1 checkpoints round-trip.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::RunKernel;

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

TEST_CASE("V1 Save then Restore and RestoreSlice read the values back",
          "[kernels]") {
  const std::string path =
      "/tmp/dfg_v1_test_" + std::to_string(getpid()) + ".ckpt";
  auto save = RunKernel(
      "name: 's' op: 'SaveSlices' attr { key: 'T' value { list { type: "
      "DT_FLOAT type: DT_FLOAT type: DT_STRING } } }",
      {Str(path), MakeTensor<std::string>({3}, {"w", "w", "s"}),
       MakeTensor<std::string>({3}, {"2 3 0,1:-", "2 3 1,1:-", ""}),
       MakeTensor<float>({1, 3}, {1, 2, 3}),
       MakeTensor<float>({1, 3}, {4, 5, 6}),
       MakeTensor<std::string>({1}, {"x"})});
  REQUIRE(save.status.ok());
  auto restore = RunKernel(
      "name: 'r' op: 'Restore' attr { key: 'dt' value { type: DT_FLOAT } }",
      {Str(path), Str("w")});
  REQUIRE(restore.status.ok());
  CHECK(testing::Flat<float>(restore.out(0)) == "[2,3] 1 2 3 4 5 6");
  auto slice = RunKernel(
      "name: 'r' op: 'RestoreSlice' attr { key: 'dt' value { type: DT_FLOAT } "
      "}",
      {Str(path), Str("w"), Str("2 3 0,2:1,2")});
  REQUIRE(slice.status.ok());
  CHECK(testing::Flat<float>(slice.out(0)) == "[2,2] 2 3 5 6");
  auto missing = RunKernel(
      "name: 'r' op: 'Restore' attr { key: 'dt' value { type: DT_FLOAT } }",
      {Str(path), Str("nope")});
  CHECK(missing.status.code() == Code::kNotFound);
  auto wrong = RunKernel(
      "name: 'r' op: 'Restore' attr { key: 'dt' value { type: DT_INT32 } }",
      {Str(path), Str("s")});
  CHECK_THAT(wrong.status.message(),
             Contains("Expected to restore a tensor of type int32"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace dfg
