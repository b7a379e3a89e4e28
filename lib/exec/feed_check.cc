#include "lib/exec/feed_check.h"

#include <vector>

#include "lib/graph/tensor_id.h"

namespace dfg {
namespace {

// Python's spelling of a shape, as TensorFlow's feed check prints it.
std::string PyShape(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += dims[i] < 0 ? "None" : std::to_string(dims[i]);
  }
  if (dims.size() == 1) out += ",";
  return out + ")";
}

}  // namespace

bool LegacyPlaceholderShapes(const tensorflow::GraphDef& graph) {
  return graph.versions().producer() < 21;
}

Status CheckFeedShape(const tensorflow::NodeDef& node,
                      const std::string& tensor, const Tensor& value,
                      bool legacy_scalar_unknown) {
  TensorId id = ParseTensorName(tensor);
  if ((node.op() != "Placeholder" && node.op() != "PlaceholderV2") ||
      id.index != 0) {
    return Status::Ok();
  }
  auto shape_it = node.attr().find("shape");
  if (shape_it == node.attr().end() || !shape_it->second.has_shape())
    return Status::Ok();
  const auto& shape = shape_it->second.shape();
  if (shape.unknown_rank()) return Status::Ok();
  if (legacy_scalar_unknown && shape.dim_size() == 0) return Status::Ok();
  bool ok = shape.dim_size() == value.dims();
  std::vector<int64_t> want;
  for (int i = 0; i < shape.dim_size(); ++i) {
    int64_t d = shape.dim(i).size();
    want.push_back(d);
    if (ok && d >= 0 && d != value.dim_size(i)) ok = false;
  }
  if (ok) return Status::Ok();
  std::vector<int64_t> got(value.shape().dim_sizes().begin(),
                           value.shape().dim_sizes().end());
  return InvalidArgument(
      "Cannot feed value of shape {} for Tensor {}, which has shape {}",
      PyShape(got), id.ToString(), PyShape(want));
}

FeedShapeChecker::FeedShapeChecker(const tensorflow::GraphDef& graph)
    : legacy_(LegacyPlaceholderShapes(graph)) {
  for (const auto& node : graph.node()) {
    if (node.op() == "Placeholder" || node.op() == "PlaceholderV2")
      placeholders_[node.name()] = node;
  }
}

Status FeedShapeChecker::Check(const std::string& tensor,
                               const Tensor& value) const {
  auto it = placeholders_.find(ParseTensorName(tensor).node);
  if (it == placeholders_.end()) return Status::Ok();
  return CheckFeedShape(it->second, tensor, value, legacy_);
}

Status FeedShapeChecker::Check(
    const std::vector<std::pair<std::string, Tensor>>& feeds) const {
  for (const auto& [name, value] : feeds)
    DFG_RETURN_IF_ERROR(Check(name, value));
  return Status::Ok();
}

}  // namespace dfg
