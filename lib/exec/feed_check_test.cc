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

TEST_CASE("FeedShapeChecker checks the feeds of a graph's Placeholders",
          "[exec]") {
  tensorflow::GraphDef g;
  *g.add_node() = Placeholder("dim { size: 2 }");
  *g.add_node() = Placeholder("");
  g.mutable_node(1)->set_name("s");
  tensorflow::NodeDef c = g.node(0);
  c.set_name("c");
  c.set_op("Const");
  *g.add_node() = c;
  g.mutable_versions()->set_producer(21);
  FeedShapeChecker checker(g);
  CHECK(checker.Check("x:0", Floats({2})).ok());
  CHECK(checker.Check("c", Floats({3})).ok());       // not a Placeholder
  CHECK(checker.Check("absent", Floats({3})).ok());  // the session says so
  Status s = checker.Check({{"x", Floats({2})}, {"s", Floats({3})}});
  CHECK(s.message() ==
        "Cannot feed value of shape (3,) for Tensor s:0, which has shape ()");
  g.mutable_versions()->set_producer(20);  // a scalar shape meant unknown
  CHECK(FeedShapeChecker(g).Check({{"s", Floats({3})}}).ok());
  CHECK(FeedShapeChecker().Check("x", Floats({3})).ok());
}

}  // namespace
}  // namespace dfg
