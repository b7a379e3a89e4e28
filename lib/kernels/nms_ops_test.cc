// NonMaxSuppressionV3/V4/V5 and CombinedNonMaxSuppression. Expected values
// are hand-computed.
#include "lib/kernels/kernel_test_util.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::Flat;
using testing::MakeTensor;
using testing::RunKernel;

std::string Nms(const std::string& op, const std::string& attrs = "") {
  return "name: 'n' op: '" + op + "' " + attrs;
}

// Six boxes: 0-2 are three overlapping boxes along y (IoU of neighbours
// 0.6 / 0.818...), 3-5 three more further down, the TF test set.
Tensor Boxes() {
  return MakeTensor<float>(
      {6, 4}, {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
               0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101});
}
Tensor Scores() {
  return MakeTensor<float>({6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f});
}

TEST_CASE("NonMaxSuppressionV3 selects greedily by score", "[kernels]") {
  auto r =
      RunKernel(Nms("NonMaxSuppressionV3"),
                {Boxes(), Scores(), Tensor::Scalar<int32_t>(3),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  REQUIRE(r.status.ok());
  CHECK(Flat<int32_t>(r.out(0)) == "[3] 3 0 5");
  auto thresholded =
      RunKernel(Nms("NonMaxSuppressionV3"),
                {Boxes(), Scores(), Tensor::Scalar<int32_t>(6),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.4f)});
  REQUIRE(thresholded.status.ok());
  CHECK(Flat<int32_t>(thresholded.out(0)) == "[2] 3 0");
}

TEST_CASE("NonMaxSuppressionV3 on half compares half-rounded IoUs",
          "[kernels]") {
  // In half, box 1 is [0, 0.09998, 1, 1.0996] and IoU(0, 1) = 0.81849,
  // which rounds to the half 0.81836, as does the threshold 0.8183: not
  // greater, so box 1 survives (unrounded, 0.81849 > 0.8183 would suppress
  // it).
  std::vector<Half> boxes, scores;
  for (float v : {0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.1f, 1.0f, 1.1f}) {
    boxes.push_back(FloatToHalf(v));
  }
  for (float v : {0.9f, 0.75f}) scores.push_back(FloatToHalf(v));
  auto r =
      RunKernel(Nms("NonMaxSuppressionV3",
                    "attr { key: 'T' value { type: DT_HALF } } attr { key: "
                    "'T_threshold' value { type: DT_FLOAT } }"),
                {MakeTensor<Half>({2, 4}, boxes), MakeTensor<Half>({2}, scores),
                 Tensor::Scalar<int32_t>(2), Tensor::Scalar<float>(0.8183f),
                 Tensor::Scalar<float>(0.0f)});
  REQUIRE(r.status.ok());
  CHECK(Flat<int32_t>(r.out(0)) == "[2] 0 1");
}

TEST_CASE("NonMaxSuppression breaks score ties by the lower index",
          "[kernels]") {
  const Tensor boxes =
      MakeTensor<float>({3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 5, 5, 6, 6});
  auto r = RunKernel(Nms("NonMaxSuppressionV3"),
                     {boxes, MakeTensor<float>({3}, {0.5f, 0.5f, 0.5f}),
                      Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(0.5f),
                      Tensor::Scalar<float>(-1.0f)});
  REQUIRE(r.status.ok());
  CHECK(Flat<int32_t>(r.out(0)) == "[2] 0 2");
}

TEST_CASE("NonMaxSuppressionV4 pads to max_output_size", "[kernels]") {
  auto r =
      RunKernel(Nms("NonMaxSuppressionV4",
                    "attr { key: 'pad_to_max_output_size' value { b: true } }"),
                {Boxes(), Scores(), Tensor::Scalar<int32_t>(5),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.4f)});
  REQUIRE(r.status.ok());
  CHECK(Flat<int32_t>(r.out(0)) == "[5] 3 0 0 0 0");
  CHECK(Flat<int32_t>(r.out(1)) == "[] 2");
}

TEST_CASE("NonMaxSuppressionV5 soft-NMS decays overlapping scores",
          "[kernels]") {
  // Boxes 0 and 1 overlap with IoU 1/3: box 1's score becomes
  // 0.8 * exp(-0.5 / sigma * iou^2) with sigma = 0.5, i.e. 0.8 * exp(-1/9);
  // it is re-queued, then selected with its decayed score.
  const Tensor boxes = MakeTensor<float>({2, 4}, {0, 0, 2, 1, 1, 0, 3, 1});
  auto r =
      RunKernel(Nms("NonMaxSuppressionV5"),
                {boxes, MakeTensor<float>({2}, {0.9f, 0.8f}),
                 Tensor::Scalar<int32_t>(2), Tensor::Scalar<float>(1.0f),
                 Tensor::Scalar<float>(0.0f), Tensor::Scalar<float>(0.5f)});
  REQUIRE(r.status.ok());
  CHECK(Flat<int32_t>(r.out(0)) == "[2] 0 1");
  const auto scores = r.out(1).flat<float>();
  CHECK(scores[0] == 0.9f);
  CHECK(std::abs(scores[1] - 0.8 * std::exp(-1.0 / 9.0)) < 1e-6);
  CHECK(Flat<int32_t>(r.out(2)) == "[] 2");
}

TEST_CASE("NonMaxSuppression rejects bad shapes and thresholds", "[kernels]") {
  auto bad_iou =
      RunKernel(Nms("NonMaxSuppressionV3"),
                {Boxes(), Scores(), Tensor::Scalar<int32_t>(3),
                 Tensor::Scalar<float>(1.5f), Tensor::Scalar<float>(0.0f)});
  CHECK(bad_iou.status.code() == Code::kInvalidArgument);
  CHECK_THAT(bad_iou.status.message(),
             Catch::Matchers::Contains("iou_threshold must be in [0, 1]"));
  auto bad_boxes =
      RunKernel(Nms("NonMaxSuppressionV3"),
                {MakeTensor<float>({2, 3}, {0, 0, 0, 0, 0, 0}),
                 MakeTensor<float>({2}, {1, 2}), Tensor::Scalar<int32_t>(3),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  CHECK_THAT(bad_boxes.status.message(),
             Catch::Matchers::Contains("boxes must have 4 columns"));
  auto bad_scores = RunKernel(
      Nms("NonMaxSuppressionV3"),
      {Boxes(), MakeTensor<float>({2}, {1, 2}), Tensor::Scalar<int32_t>(3),
       Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  CHECK_THAT(bad_scores.status.message(),
             Catch::Matchers::Contains("scores has incompatible shape"));
  auto bad_size =
      RunKernel(Nms("NonMaxSuppressionV3"),
                {Boxes(), Scores(), MakeTensor<int32_t>({1}, {3}),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  CHECK_THAT(bad_size.status.message(),
             Catch::Matchers::Contains("max_output_size must be 0-D, got "
                                       "shape [1] (Shape must be rank 0"));
  auto negative =
      RunKernel(Nms("NonMaxSuppressionV3"),
                {Boxes(), Scores(), Tensor::Scalar<int32_t>(-1),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  CHECK_THAT(negative.status.message(),
             Catch::Matchers::Contains("output size must be non-negative"));
  auto sigma =
      RunKernel(Nms("NonMaxSuppressionV5"),
                {Boxes(), Scores(), Tensor::Scalar<int32_t>(2),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f),
                 Tensor::Scalar<float>(-1.0f)});
  CHECK_THAT(sigma.status.message(),
             Catch::Matchers::Contains("soft_nms_sigma_val must be >= 0"));
}

TEST_CASE("CombinedNonMaxSuppression merges classes by score", "[kernels]") {
  // One batch, three boxes shared by two classes (q = 1). Class 0 keeps
  // boxes 0 and 2 (box 1 overlaps 0); class 1 keeps box 1 only (scores of 0
  // and 2 are under the threshold).
  const Tensor boxes = MakeTensor<float>(
      {1, 3, 1, 4},
      {0, 0, 0.5f, 0.5f, 0, 0.05f, 0.5f, 0.55f, 0.6f, 0.6f, 1.2f, 1.0f});
  const Tensor scores =
      MakeTensor<float>({1, 3, 2}, {0.9f, 0.1f, 0.8f, 0.7f, 0.3f, 0.05f});
  auto r = RunKernel(
      Nms("CombinedNonMaxSuppression"),
      {boxes, scores, Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(4),
       Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.2f)});
  REQUIRE(r.status.ok());
  CHECK(Flat<float>(r.out(0)) ==
        "[1,4,4] 0 0 0.5 0.5 0 0.05 0.5 0.55 0.6 0.6 1 1 0 0 0 0");
  CHECK(Flat<float>(r.out(1)) == "[1,4] 0.9 0.7 0.3 0");
  CHECK(Flat<float>(r.out(2)) == "[1,4] 0 1 0 0");
  CHECK(Flat<int32_t>(r.out(3)) == "[1] 3");
  auto padded = RunKernel(
      Nms("CombinedNonMaxSuppression",
          "attr { key: 'pad_per_class' value { b: true } } "
          "attr { key: 'clip_boxes' value { b: false } }"),
      {boxes, scores, Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(9),
       Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.2f)});
  REQUIRE(padded.status.ok());
  CHECK(Flat<float>(padded.out(0)) == "[1,2,4] 0 0 0.5 0.5 0 0.05 0.5 0.55");
  CHECK(Flat<int32_t>(padded.out(3)) == "[1] 2");
  auto bad = RunKernel(
      Nms("CombinedNonMaxSuppression"),
      {boxes, scores, Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(4),
       Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.2f)});
  CHECK_THAT(bad.status.message(),
             Catch::Matchers::Contains("max_size_per_class must be positive"));
  auto q =
      RunKernel(Nms("CombinedNonMaxSuppression"),
                {MakeTensor<float>({1, 3, 3, 4}, std::vector<float>(36)),
                 scores, Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(4),
                 Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.2f)});
  CHECK_THAT(q.status.message(),
             Catch::Matchers::Contains("third dimension of boxes must be "
                                       "either 1 or num classes"));
}

}  // namespace
}  // namespace dfg
