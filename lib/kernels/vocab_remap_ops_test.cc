// GenerateVocabRemapping over two small vocabulary files, LoadAndRemapMatrix
// over a checkpoint SaveV2 writes.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

std::string WriteVocab(const std::string& name, const std::string& text) {
  const std::string path =
      "/tmp/dfg_vocab_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST_CASE("GenerateVocabRemapping maps new ids to old lines", "[kernels]") {
  const std::string new_path = WriteVocab("new", "a\nb\nc\nd\n");
  const std::string old_path = WriteVocab("old", "c\nx\na\n");
  auto run = testing::RunKernel(
      "name: 'g' op: 'GenerateVocabRemapping' "
      "attr { key: 'new_vocab_offset' value { i: 1 } } "
      "attr { key: 'num_new_vocab' value { i: 3 } }",
      {Tensor::Scalar<std::string>(new_path),
       Tensor::Scalar<std::string>(old_path)});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<int64_t>(run.out(0)) == "[3] -1 0 -1");
  CHECK(run.out(1).scalar<int32_t>() == 1);
  std::remove(new_path.c_str());
  std::remove(old_path.c_str());
}

TEST_CASE("LoadAndRemapMatrix moves old rows to new ids", "[kernels]") {
  const std::string prefix = "/tmp/dfg_remap_" + std::to_string(getpid());
  auto save = testing::RunKernel(
      "name: 's' op: 'SaveV2' attr { key: 'dtypes' value { list { type: "
      "DT_FLOAT } } }",
      {Tensor::Scalar<std::string>(prefix),
       testing::MakeTensor<std::string>({1}, {"m"}),
       testing::MakeTensor<std::string>({1}, {""}),
       testing::MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})});
  REQUIRE(save.status.ok());
  auto run = testing::RunKernel(
      "name: 'l' op: 'LoadAndRemapMatrix' "
      "attr { key: 'num_rows' value { i: 2 } } "
      "attr { key: 'num_cols' value { i: 2 } }",
      {Tensor::Scalar<std::string>(prefix), Tensor::Scalar<std::string>("m"),
       testing::MakeTensor<int64_t>({2}, {2, -1}),
       testing::MakeTensor<int64_t>({0}, {}),
       testing::MakeTensor<float>({2}, {-1, -2})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<float>(run.out(0)) == "[2,2] 5 6 -1 -2");
  std::remove((prefix + ".index").c_str());
  std::remove((prefix + ".data-00000-of-00001").c_str());
}

}  // namespace
}  // namespace dfg
