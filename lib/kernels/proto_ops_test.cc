// DecodeProtoV2 and EncodeProto on dfg's own tensorflow.TensorShapeProto.
#include <string>

#include "lib/kernels/kernel_test_util.h"
#include "lib/proto/tensor_shape.pb.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("DecodeProtoV2 reads repeated and missing fields", "[kernels]") {
  tensorflow::TensorShapeProto a, b;
  a.add_dim()->set_size(3);
  a.add_dim()->set_size(4);
  b.set_unknown_rank(true);
  const std::string node =
      "name: 'd' op: 'DecodeProtoV2' "
      "attr { key: 'message_type' value { s: 'tensorflow.TensorShapeProto' } "
      "} attr { key: 'field_names' value { list { s: 'dim' s: "
      "'unknown_rank' } } } attr { key: 'output_types' value { list { type: "
      "DT_STRING type: DT_BOOL } } }";
  auto run = testing::RunKernel(
      node, {testing::MakeTensor<std::string>(
                {2}, {a.SerializeAsString(), b.SerializeAsString()})});
  REQUIRE(run.status.ok());
  CHECK(testing::Flat<int32_t>(run.out(0)) == "[2,2] 2 0 0 1");
  CHECK(run.out(1).shape().DebugString() == "[2,2]");
  tensorflow::TensorShapeProto::Dim dim;
  REQUIRE(dim.ParseFromString(run.out(1).flat<std::string>()[1]));
  CHECK(dim.size() == 4);
  CHECK(testing::Flat<bool>(run.out(2)) == "[2,1] false true");
  auto bad = testing::RunKernel(
      "name: 'd' op: 'DecodeProtoV2' "
      "attr { key: 'message_type' value { s: 'tensorflow.Nope' } } "
      "attr { key: 'field_names' value { list { } } } "
      "attr { key: 'output_types' value { list { } } }",
      {testing::MakeTensor<std::string>({1}, {""})});
  CHECK_THAT(bad.status.message(), Contains("No descriptor found"));
}

TEST_CASE("EncodeProto writes the given counts of values", "[kernels]") {
  auto run = testing::RunKernel(
      "name: 'e' op: 'EncodeProto' "
      "attr { key: 'message_type' value { s: 'tensorflow.TensorShapeProto' } "
      "} attr { key: 'field_names' value { list { s: 'unknown_rank' } } } "
      "attr { key: 'Tinput_types' value { list { type: DT_BOOL } } }",
      {testing::MakeTensor<int32_t>({2, 1}, {1, 0}),
       testing::MakeTensor<bool>({2, 1}, {true, true})});
  REQUIRE(run.status.ok());
  tensorflow::TensorShapeProto a, b;
  REQUIRE(a.ParseFromString(run.out(0).flat<std::string>()[0]));
  CHECK(a.unknown_rank());
  CHECK(run.out(0).flat<std::string>()[1].empty());
}

}  // namespace
}  // namespace dfg
