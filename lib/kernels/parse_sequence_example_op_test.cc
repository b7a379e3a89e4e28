// ParseSequenceExampleV2 on one hand-built SequenceExample.
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/proto/example.pb.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using testing::MakeTensor;

Tensor Keys(std::vector<std::string> k) {
  return MakeTensor<std::string>({static_cast<int64_t>(k.size())}, k);
}

TEST_CASE("ParseSequenceExampleV2 pads dense feature lists", "[kernels]") {
  tensorflow::SequenceExample ex;
  (*ex.mutable_context()->mutable_feature())["id"]
      .mutable_int64_list()
      ->add_value(7);
  auto& rows = (*ex.mutable_feature_lists()->mutable_feature_list())["tok"];
  rows.add_feature()->mutable_int64_list()->add_value(1);
  rows.add_feature()->mutable_int64_list()->add_value(2);
  tensorflow::SequenceExample empty;
  const std::string node =
      "name: 'p' op: 'ParseSequenceExampleV2' "
      "attr { key: 'Tcontext_dense' value { list { type: DT_INT64 } } } "
      "attr { key: 'context_dense_shapes' value { list { shape { } } } } "
      "attr { key: 'Nfeature_list_dense' value { i: 1 } } "
      "attr { key: 'feature_list_dense_types' value { list { type: DT_INT64 "
      "} } } attr { key: 'feature_list_dense_shapes' value { list { shape { "
      "dim { size: 1 } } } } }";
  auto run = testing::RunKernel(
      node,
      {Keys({ex.SerializeAsString(), ex.SerializeAsString()}), Keys({}),
       Keys({}), Keys({"id"}), Keys({}), Keys({}), Keys({"tok"}), Keys({}),
       MakeTensor<bool>({1}, {true}), MakeTensor<int64_t>({}, {0})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<int64_t>(run.out(0)) == "[2] 7 7");
  CHECK(testing::Flat<int64_t>(run.out(1)) == "[2,2,1] 1 2 1 2");
  CHECK(testing::Flat<int64_t>(run.out(2)) == "[2] 2 2");
  auto padded = testing::RunKernel(
      node,
      {Keys({ex.SerializeAsString(), empty.SerializeAsString()}), Keys({}),
       Keys({}), Keys({"id"}), Keys({}), Keys({}), Keys({"tok"}), Keys({}),
       MakeTensor<bool>({1}, {true}), MakeTensor<int64_t>({}, {-1})});
  REQUIRE(padded.status.ok());
  CHECK(testing::Flat<int64_t>(padded.out(0)) == "[2] 7 -1");
  CHECK(testing::Flat<int64_t>(padded.out(1)) == "[2,2,1] 1 2 0 0");
  CHECK(testing::Flat<int64_t>(padded.out(2)) == "[2] 2 0");
}

TEST_CASE("ParseSingleSequenceExample parses one example", "[kernels]") {
  tensorflow::SequenceExample ex;
  auto& rows = (*ex.mutable_feature_lists()->mutable_feature_list())["f"];
  rows.add_feature()->mutable_float_list()->add_value(1.5f);
  rows.add_feature()->mutable_float_list()->add_value(2.5f);
  const std::string node =
      "name: 'p' op: 'ParseSingleSequenceExample' "
      "attr { key: 'Nfeature_list_dense' value { i: 1 } } "
      "attr { key: 'feature_list_dense_types' value { list { type: DT_FLOAT "
      "} } } attr { key: 'feature_list_dense_shapes' value { list { shape { "
      "} } } }";
  auto run = testing::RunKernel(
      node,
      {Tensor::Scalar<std::string>(ex.SerializeAsString()), Keys({}),
       Tensor::Scalar<std::string>("f"), Tensor::Scalar<std::string>("")});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<float>(run.out(0)) == "[2] 1.5 2.5");
  auto missing =
      testing::RunKernel(node, {Tensor::Scalar<std::string>(""), Keys({}),
                                Tensor::Scalar<std::string>("f"),
                                Tensor::Scalar<std::string>("")});
  CHECK(missing.status.code() == Code::kInvalidArgument);
}

}  // namespace
}  // namespace dfg
