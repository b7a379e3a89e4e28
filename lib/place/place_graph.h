// Internal to lib/place: what the Placer reads of a graph and writes back,
// by node id. One placement algorithm (place.cc, colocation*.cc) runs over
// two models: GraphPlaceView, the graph model of lib/graph, and CompactGraph
// (compact_graph.h), read straight from a binary GraphDef's bytes for large
// graphs.
#ifndef DFG_LIB_PLACE_PLACE_GRAPH_H_
#define DFG_LIB_PLACE_PLACE_GRAPH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/place/kernel_support.h"
#include "lib/place/place.h"

namespace dfg::place_internal {

// A data edge into a node, with its rank among all edges of the graph
// (TensorFlow's edge ids: ref and resource edges are joined in that order).
struct PlaceInEdge {
  int src = -1;
  int dst_input = 0;
  int64_t order = 0;
};

// A node's `_class` attr: absent, a list (its strings), or another value
// (`single_string` when that value is a non-empty string).
struct ClassAttr {
  bool present = false;
  bool is_list = false;
  bool single_string = false;
  std::vector<std::string_view> specs;  // stable while the graph lives
};

class PlaceGraph {
 public:
  virtual ~PlaceGraph() = default;

  // One past the largest node id; arrays the Placer keeps have this size.
  virtual int num_node_ids() const = 0;
  // The op nodes in placement order (the graph model's node-id order:
  // TensorFlow's import order).
  virtual const std::vector<int>& op_nodes() const = 0;

  virtual std::string_view name(int node) const = 0;
  virtual std::string_view op(int node) const = 0;
  virtual std::string_view requested_device(int node) const = 0;
  virtual std::string_view assigned_device_name(int node) const = 0;
  virtual int num_inputs(int node) const = 0;
  virtual int num_outputs(int node) const = 0;
  virtual DataType input_type(int node, int i) const = 0;
  virtual DataType output_type(int node, int i) const = 0;

  // The data edges into `node` from op nodes (replaces `*edges`).
  virtual void DataInEdges(int node, std::vector<PlaceInEdge>* edges) const = 0;
  // The source of the node's first in-edge in edge order when it is an op
  // node, else -1.
  virtual int FirstInputSource(int node) const = 0;
  // The destinations of the node's out-edges, control ones included, in
  // edge order; -1 for a node that is not an op (replaces `*dsts`).
  virtual void OutNeighbors(int node, std::vector<int>* dsts) const = 0;
  virtual ClassAttr Class(int node) const = 0;

  // KernelSupport::SupportedTypes and IsFunctionCall of the node.
  virtual TypeMask SupportedTypes(int node, bool* attr_mismatch,
                                  bool* unknown = nullptr) = 0;
  virtual bool IsFunctionCall(int node) = 0;

  // For error messages: the node's attrs without `_device` (TensorFlow's
  // AttrSlice::DebugString) and its SummarizeNodeDef.
  virtual std::string AttrsString(int node) const = 0;
  virtual std::string DefSummary(int node) const = 0;

  // The result: the node goes to device `device` of the set (`name`).
  virtual void SetAssigned(int node, int device, const std::string& name) = 0;
};

// The graph model of lib/graph as a PlaceGraph; ids are Node ids.
class GraphPlaceView : public PlaceGraph {
 public:
  GraphPlaceView(Graph* graph, KernelSupport* kernels);

  int num_node_ids() const override { return graph_->num_node_ids(); }
  const std::vector<int>& op_nodes() const override { return op_nodes_; }
  std::string_view name(int node) const override { return at(node).name(); }
  std::string_view op(int node) const override { return at(node).op(); }
  std::string_view requested_device(int node) const override {
    return at(node).requested_device();
  }
  std::string_view assigned_device_name(int node) const override {
    return at(node).assigned_device_name();
  }
  int num_inputs(int node) const override { return at(node).num_inputs(); }
  int num_outputs(int node) const override { return at(node).num_outputs(); }
  DataType input_type(int node, int i) const override {
    return at(node).input_type(i);
  }
  DataType output_type(int node, int i) const override {
    return at(node).output_type(i);
  }
  void DataInEdges(int node, std::vector<PlaceInEdge>* edges) const override;
  int FirstInputSource(int node) const override;
  void OutNeighbors(int node, std::vector<int>* dsts) const override;
  ClassAttr Class(int node) const override;
  TypeMask SupportedTypes(int node, bool* attr_mismatch,
                          bool* unknown) override;
  bool IsFunctionCall(int node) override;
  std::string AttrsString(int node) const override;
  std::string DefSummary(int node) const override;
  void SetAssigned(int node, int device, const std::string& name) override;

 private:
  const Node& at(int id) const { return *nodes_[id]; }

  Graph* graph_;              // Not owned.
  KernelSupport* kernels_;    // Not owned.
  std::vector<Node*> nodes_;  // by id
  std::vector<int> op_nodes_;
};

// The errors Place gives for a device set it cannot place onto.
Status CheckDeviceSet(const DeviceSet& devices);

// Places every op node of `graph` (Place's work over either model).
// `kernels` must be over `devices` and the graph's ops.
Status PlaceView(PlaceGraph* graph, KernelSupport* kernels,
                 const DeviceSet& devices, const PlaceOptions& options,
                 PlacementReport* report);

// TensorFlow's AttrSlice::DebugString of `def`: its attrs, sorted, without
// `_device`.
std::string AttrsWithoutDevice(const NodeDef& def);

}  // namespace dfg::place_internal

#endif  // DFG_LIB_PLACE_PLACE_GRAPH_H_
