#include "lib/exec/feed_check.h"

#include "lib/testing/catch.h"
#include "lib/testing/text_proto.h"

namespace dfg {
namespace {

tensorflow::NodeDef Placeholder(const std::string& shape_text) {
  return testing::ParseTextProto<tensorflow::NodeDef>(
      R"pb(name: "x"
           op: "Placeholder"
           attr {
             key: "dtype"
             value { type: DT_FLOAT }
           }
           attr { key: "shape"
                  value { shape {)pb" +
      shape_text + " } } }");
}

Tensor Floats(std::vector<int64_t> dims) {
  return Tensor(tensorflow::DT_FLOAT, TensorShape(dims));
}

TEST_CASE("CheckFeedShape: TensorFlow's client check and text", "[exec]") {
  tensorflow::NodeDef x = Placeholder("dim { size: -1 } dim { size: 4 }");
  CHECK(CheckFeedShape(x, "x", Floats({2, 4}), false).ok());
  CHECK(CheckFeedShape(x, "x:0", Floats({0, 4}), false).ok());
  Status s = CheckFeedShape(x, "x", Floats({3}), false);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() ==
        "Cannot feed value of shape (3,) for Tensor x:0, which has shape "
        "(None, 4)");
  s = CheckFeedShape(x, "x:0", Floats({2, 5}), false);
  CHECK(s.message() ==
        "Cannot feed value of shape (2, 5) for Tensor x:0, which has shape "
        "(None, 4)");
  // Output 1 (no such output: the session says so), another op, no shape.
  CHECK(CheckFeedShape(x, "x:1", Floats({3}), false).ok());
  tensorflow::NodeDef y = x;
  y.set_op("Identity");
  CHECK(CheckFeedShape(y, "x", Floats({3}), false).ok());
  CHECK(
      CheckFeedShape(Placeholder("unknown_rank: true"), "x", Floats({3}), false)
          .ok());
}

TEST_CASE("CheckFeedShape: a scalar shape before GraphDef version 21",
          "[exec]") {
  tensorflow::NodeDef x = Placeholder("");
  CHECK(CheckFeedShape(x, "x", Floats({3}), /*legacy=*/true).ok());
  CHECK(CheckFeedShape(x, "x", Floats({3}), false).message() ==
        "Cannot feed value of shape (3,) for Tensor x:0, which has shape ()");
  tensorflow::GraphDef g;
  g.mutable_versions()->set_producer(20);
  CHECK(LegacyPlaceholderShapes(g));
  g.mutable_versions()->set_producer(21);
  CHECK(!LegacyPlaceholderShapes(g));
}

}  // namespace
}  // namespace dfg
