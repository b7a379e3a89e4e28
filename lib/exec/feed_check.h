// TensorFlow's Python client check of a fed value (session.py, before any
// step runs, locally or on a cluster): a value fed to output 0 of a
// Placeholder whose `shape` attr is known must have that shape. The local
// Session and `dfg run --master`'s client both check through
// FeedShapeChecker, so the two report the same error for the same feed.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

// InvalidArgument "Cannot feed value of shape (3,) for Tensor x:0, which has
// shape (None, 4)" (TensorFlow 2's text) when `value`, fed as `tensor`
// ("x" or "x:0"), does not fit `node`'s shape; Ok for any other node or
// output, or a Placeholder without a known shape. `legacy_scalar_unknown`:
// a GraphDef produced before version 21, where a scalar `shape` meant
// unknown.
Status CheckFeedShape(const tensorflow::NodeDef& node,
                      const std::string& tensor, const Tensor& value,
                      bool legacy_scalar_unknown);

// The GraphDef's producer makes a scalar Placeholder shape mean unknown.
bool LegacyPlaceholderShapes(const tensorflow::GraphDef& graph);

// CheckFeedShape against the Placeholders of one graph.
class FeedShapeChecker {
 public:
  FeedShapeChecker() = default;  // a graph without Placeholders
  explicit FeedShapeChecker(const tensorflow::GraphDef& graph);

  // CheckFeedShape for the node `tensor` names; Ok when it names no
  // Placeholder of the graph.
  Status Check(const std::string& tensor, const Tensor& value) const;
  // The first feed that fails Check.
  Status Check(const std::vector<std::pair<std::string, Tensor>>& feeds) const;

 private:
  bool legacy_ = false;
  std::unordered_map<std::string, tensorflow::NodeDef> placeholders_;
};

}  // namespace dfg
