// MaxPoolWithArgmax, MaxPoolGradV2, MaxPoolGradGrad, MaxPoolGradWithArgmax,
// MaxPool3DGrad and AvgPool3DGrad on one 2x4 image with ties: values
//   1 3 | 3 2
//   3 0 | 1 3
// pooled 2x2 / 2 (VALID) into two windows, each with its maximum 3 twice.
#include <fmt/format.h>

#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

const std::vector<float> kImage = {1, 3, 3, 2, 3, 0, 1, 3};

std::string Node(const char* op, const char* window, const char* extra = "") {
  return fmt::format(
      "name: 'p' op: '{}' attr {{ key: 'T' value {{ type: DT_FLOAT }} }} "
      "attr {{ key: 'padding' value {{ s: 'VALID' }} }} "
      "attr {{ key: 'ksize' value {{ list {{ {} }} }} }} "
      "attr {{ key: 'strides' value {{ list {{ {} }} }} }} {}",
      op, window, window, extra);
}

constexpr const char* k2D = "i: 1 i: 2 i: 2 i: 1";
constexpr const char* k3D = "i: 1 i: 1 i: 2 i: 2 i: 1";

TEST_CASE("MaxPoolWithArgmax picks the first maximum in row-major order",
          "[kernels]") {
  auto r = RunKernel(Node("MaxPoolWithArgmax", k2D),
                     {MakeTensor<float>({1, 2, 4, 1}, kImage)});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[1,1,2,1] 3 3");
  CHECK(Flat<int64_t>(r.out(1)) == "[1,1,2,1] 1 2");
}

TEST_CASE("the 2-D max-pool gradients follow the first maximum", "[kernels]") {
  const Tensor image = MakeTensor<float>({1, 2, 4, 1}, kImage);
  const Tensor pooled = MakeTensor<float>({1, 1, 2, 1}, {3, 3});
  const Tensor grad = MakeTensor<float>({1, 1, 2, 1}, {10, 20});
  auto v2 =
      RunKernel(Node("MaxPoolGradV2", ""),
                {image, pooled, grad, MakeTensor<int32_t>({4}, {1, 2, 2, 1}),
                 MakeTensor<int32_t>({4}, {1, 2, 2, 1})});
  REQUIRE(v2.status.ok());
  CHECK(Flat<float>(v2.out(0)) == "[1,2,4,1] 0 10 20 0 0 0 0 0");
  auto with_argmax =
      RunKernel(Node("MaxPoolGradWithArgmax", k2D,
                     "attr { key: 'Targmax' value { type: DT_INT64 } }"),
                {image, grad, MakeTensor<int64_t>({1, 1, 2, 1}, {4, 7})});
  REQUIRE(with_argmax.status.ok());
  CHECK(Flat<float>(with_argmax.out(0)) == "[1,2,4,1] 0 0 0 0 10 0 0 20");
  auto gradgrad = RunKernel(
      Node("MaxPoolGradGrad", k2D),
      {image, pooled,
       MakeTensor<float>({1, 2, 4, 1}, {11, 12, 13, 14, 15, 16, 17, 18})});
  REQUIRE(gradgrad.status.ok());
  CHECK(Flat<float>(gradgrad.out(0)) == "[1,1,2,1] 12 13");
  auto bad =
      RunKernel(Node("MaxPoolGradWithArgmax", k2D,
                     "attr { key: 'Targmax' value { type: DT_INT64 } }"),
                {image, grad, MakeTensor<int64_t>({1, 1, 2, 1}, {4, 8})});
  CHECK(bad.status.message().find("Invalid output gradient index") !=
        std::string::npos);
}

TEST_CASE("MaxPool3DGrad feeds every cell equal to the maximum", "[kernels]") {
  auto r = RunKernel(Node("MaxPool3DGrad", k3D,
                          "attr { key: 'TInput' value { type: DT_FLOAT } }"),
                     {MakeTensor<float>({1, 1, 2, 4, 1}, kImage),
                      MakeTensor<float>({1, 1, 1, 2, 1}, {3, 3}),
                      MakeTensor<float>({1, 1, 1, 2, 1}, {10, 20})});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[1,1,2,4,1] 0 10 20 0 10 0 0 20");
}

TEST_CASE("AvgPool3DGrad spreads each gradient over its window", "[kernels]") {
  auto r = RunKernel(Node("AvgPool3DGrad", k3D),
                     {MakeTensor<int32_t>({5}, {1, 1, 2, 4, 1}),
                      MakeTensor<float>({1, 1, 1, 2, 1}, {10, 20})});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) == "[1,1,2,4,1] 2.5 2.5 5 5 2.5 2.5 5 5");
}

}  // namespace
}  // namespace dfg
