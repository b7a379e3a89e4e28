// Dilation2D and its gradients on a 1x3 row [1 2 2] with the 1x2 filter
// [1 0] (VALID): outputs max(1+1, 2+0) = 2 (a tie: the first tap wins) and
// max(2+1, 2+0) = 3.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Node(const char* op) {
  return fmt::format(
      "name: 'd' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'padding' value {{ s: 'VALID' }} }} "
      "attr {{ key: 'strides' value {{ list {{ i: 1 i: 1 i: 1 i: 1 }} }} }} "
      "attr {{ key: 'rates' value {{ list {{ i: 1 i: 1 i: 1 i: 1 }} }} }}",
      op);
}

TEST_CASE("Dilation2D and its gradients follow the first maximal tap",
          "[kernels]") {
  const Tensor in = MakeTensor<float>({1, 1, 3, 1}, {1, 2, 2});
  const Tensor filter = MakeTensor<float>({1, 2, 1}, {1, 0});
  const Tensor dy = MakeTensor<float>({1, 1, 2, 1}, {10, 20});
  auto fwd = RunKernel(Node("Dilation2D"), {in, filter});
  REQUIRE(fwd.status.ok());
  CHECK(Flat<float>(fwd.out(0)) == "[1,1,2,1] 2 3");
  auto dx = RunKernel(Node("Dilation2DBackpropInput"), {in, filter, dy});
  REQUIRE(dx.status.ok());
  CHECK(Flat<float>(dx.out(0)) == "[1,1,3,1] 10 20 0");
  auto df = RunKernel(Node("Dilation2DBackpropFilter"), {in, filter, dy});
  REQUIRE(df.status.ok());
  CHECK(Flat<float>(df.out(0)) == "[1,2,1] 30 0");
}

}  // namespace
}  // namespace dfg
