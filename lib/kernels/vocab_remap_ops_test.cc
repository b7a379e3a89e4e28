// GenerateVocabRemapping over two small vocabulary files.
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

}  // namespace
}  // namespace dfg
