// Tensor names ("endpoints"): "node", "node:k", "^node" (TF-SEMANTICS §0.1).
#ifndef DFG_LIB_GRAPH_TENSOR_ID_H_
#define DFG_LIB_GRAPH_TENSOR_ID_H_

#include <string>
#include <string_view>

namespace dfg {

struct TensorId {
  std::string node;
  int index = 0;  // kControlSlot (-1) for "^node"

  // "n:i" always with the index (TF's TensorId::ToString), "^n" for control.
  std::string ToString() const;
  bool IsControl() const { return index < 0; }
  friend bool operator==(const TensorId& a, const TensorId& b) {
    return a.node == b.node && a.index == b.index;
  }
  friend bool operator<(const TensorId& a, const TensorId& b) {
    return a.node != b.node ? a.node < b.node : a.index < b.index;
  }
};

// TensorFlow's ParseTensorName, right to left, exactly as §0.1 describes.
TensorId ParseTensorName(std::string_view name);

// The same parse without copying: `node` views into the argument. For hot
// loops over every input of a large graph.
struct TensorIdView {
  std::string_view node;
  int index = 0;
};
TensorIdView ParseTensorNameView(std::string_view name);

// True when the ":k" of `name` is beyond int range, where ParseTensorName
// saturates at INT_MAX: such a name is invalid, not output 2147483647.
bool TensorIndexOverflows(std::string_view name);

// How a NodeDef input names an endpoint: "n" for port 0, "n:k", "^n".
std::string InputString(std::string_view node, int index);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_TENSOR_ID_H_
