// Conv3DBackpropInputV2 / Conv3DBackpropFilterV2 on a two-voxel row: input
// [1, 2], filter taps [3, 4], one VALID output 1*3 + 2*4 with gradient 10.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const char* op, const char* dilations = "1 1 1 1 1") {
  std::string d;
  for (char c : std::string(dilations)) {
    if (c != ' ') d += fmt::format("i: {} ", c);
  }
  return fmt::format(
      "name: 'c' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'padding' value {{ s: 'VALID' }} }} "
      "attr {{ key: 'strides' value {{ list {{ i: 1 i: 1 i: 1 i: 1 i: 1 }} "
      "}} }} attr {{ key: 'dilations' value {{ list {{ {} }} }} }}",
      op, d);
}

TEST_CASE("Conv3D gradients of a two-tap filter", "[kernels]") {
  const Tensor dy = MakeTensor<float>({1, 1, 1, 1, 1}, {10});
  auto dx = RunKernel(Node("Conv3DBackpropInputV2"),
                      {MakeTensor<int32_t>({5}, {1, 1, 1, 2, 1}),
                       MakeTensor<float>({1, 1, 2, 1, 1}, {3, 4}), dy});
  REQUIRE(dx.status.ok());
  CHECK(Flat<float>(dx.out(0)) == "[1,1,1,2,1] 30 40");
  auto df = RunKernel(Node("Conv3DBackpropFilterV2"),
                      {MakeTensor<float>({1, 1, 1, 2, 1}, {1, 2}),
                       MakeTensor<int32_t>({5}, {1, 1, 2, 1, 1}), dy});
  REQUIRE(df.status.ok());
  CHECK(Flat<float>(df.out(0)) == "[1,1,2,1,1] 10 20");
}

TEST_CASE("Conv3D gradients refuse dilations on CPU as TensorFlow does",
          "[kernels]") {
  auto r = RunKernel(Node("Conv3DBackpropInputV2", "1 2 1 1 1"),
                     {MakeTensor<int32_t>({5}, {1, 1, 1, 2, 1}),
                      MakeTensor<float>({1, 1, 2, 1, 1}, {3, 4}),
                      MakeTensor<float>({1, 1, 1, 1, 1}, {10})});
  CHECK(r.status.message().find("does not yet support dilation rates larger "
                                "than 1") != std::string::npos);
}

}  // namespace
}  // namespace dfg
