// Internal to lib/place: a graph for the Placer read straight from a binary
// GraphDef's bytes, for graphs too large for the graph model's memory (a
// NodeDef message, a Node and an Edge object per edge come to ~1 KB a node).
// Per node it keeps views into the bytes (name, requested device), an
// interned op, its signature's dtypes and the device types whose kernels
// support it; edges are flat arrays of node indices. Each NodeDef is parsed
// once, alone, into a reused message, to read what its attrs decide
// (signature, kernels, `_class`) and to learn whether its bytes are in the
// canonical form protobuf writes; then it is dropped.
//
// It takes only graphs it reads exactly as the graph model's import would,
// and places them in the same order (node ids are GraphDef indices; the
// placement order is the import's topological order). Anything else makes
// Read return null, and the caller takes the graph-model path, which gives
// TensorFlow's error texts: a function library, an op dfg does not know, a
// node whose attrs do not match its op, a duplicate or unknown name, a cycle,
// a wrong input count or dtype, malformed bytes.
#ifndef DFG_LIB_PLACE_COMPACT_GRAPH_H_
#define DFG_LIB_PLACE_COMPACT_GRAPH_H_

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/op_registry.h"
#include "lib/place/place_graph.h"

namespace dfg::place_internal {

class CompactGraph : public PlaceGraph {
 public:
  // `bytes` (a binary GraphDef) must outlive the graph; `kernels` decides
  // each node's device types as it is read. Null: see above.
  static std::unique_ptr<CompactGraph> Read(std::string_view bytes,
                                            const OpLookup& ops,
                                            KernelSupport* kernels);

  int num_node_ids() const override {
    return static_cast<int>(nodes_.size()) - 1;  // the sentinel
  }
  const std::vector<int>& op_nodes() const override { return order_; }
  std::string_view name(int node) const override {
    const NodeRec& n = nodes_[node];
    return bytes_.substr(n.name_begin, n.name_size);
  }
  std::string_view op(int node) const override { return ops_[nodes_[node].op]; }
  std::string_view requested_device(int node) const override {
    return devices_[nodes_[node].device];
  }
  std::string_view assigned_device_name(int) const override { return {}; }
  int num_inputs(int node) const override { return nodes_[node].num_data; }
  int num_outputs(int node) const override {
    return static_cast<int>(nodes_[node + 1].output_begin -
                            nodes_[node].output_begin);
  }
  DataType input_type(int node, int i) const override {
    return static_cast<DataType>(input_types_[nodes_[node].input_begin + i]);
  }
  DataType output_type(int node, int i) const override {
    return static_cast<DataType>(output_types_[nodes_[node].output_begin + i]);
  }
  void DataInEdges(int node, std::vector<PlaceInEdge>* edges) const override;
  // The graph model's first in-edge: the first forward data input, else the
  // forward control input of the smallest name, else the same among back
  // edges (TensorFlow's import adds edges in that order).
  int FirstInputSource(int node) const override;
  // In consumer order, not edge order: only --explain's wording (which the
  // compact path does not serve) depends on the order.
  void OutNeighbors(int node, std::vector<int>* dsts) const override;
  ClassAttr Class(int node) const override;
  TypeMask SupportedTypes(int node, bool* attr_mismatch,
                          bool* unknown) override;
  bool IsFunctionCall(int) override { return false; }  // no library here
  // Errors make the caller fall back to the graph model, so these texts are
  // never shown; they name the node only.
  std::string AttrsString(int node) const override;
  std::string DefSummary(int node) const override;
  void SetAssigned(int node, int device, const std::string& name) override;

  // The bytes of the placed GraphDef: each node with its `device` set to its
  // assignment, the rest as it came; the same bytes as protobuf's
  // deterministic serialization of the graph-model path's result. Canonical
  // nodes are copied with their device field replaced; others are parsed
  // and serialized alone. OutputSize is their number.
  int64_t OutputSize() const;
  Status Write(const std::function<Status(std::string_view)>& write) const;
  // Each node parsed, with its device set, in order; the other fields.
  Status ForEachNode(const std::function<Status(const NodeDef&)>& sink) const;
  const GraphDef& rest() const { return others_; }

 private:
  struct NodeRec {
    uint32_t begin = 0, size = 0;  // the NodeDef's bytes
    uint32_t name_begin = 0, name_size = 0;
    uint32_t op = 0, device = 0;  // into ops_, devices_
    uint32_t input_begin = 0;     // into inputs_ and input_types_
    uint32_t num_data = 0;        // data inputs (= the signature's inputs)
    uint32_t output_begin = 0;    // into output_types_
    int32_t assigned = -1;        // device index
    uint8_t flags = 0;            // kCanonical, kMismatch
  };
  static constexpr uint8_t kCanonical = 1, kMismatch = 2;
  // An input: first the (offset, size) of its string in the bytes, then,
  // once resolved, the source node and output index (kControlSlot).
  struct InputRec {
    uint32_t a = 0;
    int32_t b = 0;
  };

  explicit CompactGraph(std::string_view bytes) : bytes_(bytes) {}
  bool ScanGraph();
  bool ReadNode(int n, std::string_view payload, const OpLookup& ops,
                KernelSupport* kernels);
  bool ReadAttrFacts(int n, const OpLookup& ops, KernelSupport* kernels);
  bool ResolveInputs();
  bool Order();
  bool CheckEdges(int n) const;
  uint32_t Intern(std::vector<std::string_view>* table,
                  std::unordered_map<std::string_view, uint32_t>* ids,
                  std::string_view s);
  std::string_view Payload(int n) const {
    return bytes_.substr(nodes_[n].begin, nodes_[n].size);
  }
  int input_end(int n) const { return nodes_[n + 1].input_begin; }
  bool forward(int src, int dst) const { return pos_[src] < pos_[dst]; }
  size_t OutputNodeSize(int n, size_t* a, size_t* b) const;
  void AppendNode(int n, std::string* out, NodeDef* scratch,
                  std::string* bytes) const;

  std::string_view bytes_;
  std::vector<NodeRec> nodes_;  // one past the last: a sentinel
  std::vector<InputRec> inputs_;
  std::vector<uint8_t> input_types_, output_types_;
  std::vector<TypeMask> masks_;
  std::vector<uint32_t> consumer_begin_, consumers_;
  std::vector<uint32_t> pos_;  // place in the import's topological order
  std::vector<int> order_;
  std::vector<std::string_view> ops_, devices_;
  std::unordered_map<std::string_view, uint32_t> op_ids_, device_ids_;
  std::deque<std::string> class_strings_;
  std::unordered_map<int, ClassAttr> classes_;
  std::vector<std::string> device_names_;  // by device index, once placed
  GraphDef others_;                        // the GraphDef's other fields
  std::string rest_;                       // the same, serialized
  NodeDef scratch_;                        // the node being read
  std::string canonical_;
};

}  // namespace dfg::place_internal

#endif  // DFG_LIB_PLACE_COMPACT_GRAPH_H_
