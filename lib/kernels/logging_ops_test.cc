// Print, PrintV2 and Timestamp.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;
using testing::MakeTensor;
using testing::RunKernel;

TEST_CASE("Print passes its input through", "[kernels]") {
  auto run = RunKernel(
      "name: 'p' op: 'Print' attr { key: 'T' value { type: DT_INT32 } } "
      "attr { key: 'U' value { list { type: DT_INT32 } } }",
      {MakeTensor<int32_t>({2}, {4, 5}), MakeTensor<int32_t>({1}, {1})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<int32_t>(run.out(0)) == "[2] 4 5");
}

TEST_CASE("PrintV2 appends to a file:// stream", "[kernels]") {
  const std::string path = "/tmp/dfg_printv2_test.txt";
  std::remove(path.c_str());
  const std::string node =
      "name: 'p' op: 'PrintV2' attr { key: 'output_stream' value { s: "
      "'file://" +
      path + "' } } attr { key: 'end' value { s: '|' } }";
  REQUIRE(RunKernel(node, {Tensor::Scalar<std::string>("a")}).status.ok());
  REQUIRE(RunKernel(node, {Tensor::Scalar<std::string>("b")}).status.ok());
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  CHECK(text.str() == "a|b|");
  std::remove(path.c_str());
  auto bad = RunKernel(
      "name: 'p' op: 'PrintV2' attr { key: 'output_stream' value { s: 'x' } "
      "}",
      {Tensor::Scalar<std::string>("a")});
  CHECK_THAT(bad.status.message(), Contains("Unknown output stream: x"));
}

TEST_CASE("Timestamp gives seconds since the epoch", "[kernels]") {
  auto run = RunKernel("name: 't' op: 'Timestamp'", {});
  REQUIRE(run.status.ok());
  CHECK(run.out(0).scalar<double>() > 1.7e9);
}

}  // namespace
}  // namespace dfg
