// The Graph model of TF-SEMANTICS.md §0.3: nodes with ids, data and control
// edges with TensorFlow's edge numbering, the _SOURCE and _SINK pseudo-nodes.
//
// Node ids and edge ids are handed out sequentially and never reused, as in
// TensorFlow, because partition's tensor_name attrs ("edge_<id>_<src>") make
// edge ids observable. Each node's in/out edge lists are kept in ascending
// edge-id order: dfg iterates edges in that order wherever TensorFlow iterates
// an EdgeSet, which makes every stage deterministic.
//
// A Graph may keep its nodes' NodeDefs in a protobuf Arena (the one a big
// GraphDef was parsed into): ImportGraphDef then takes the parsed NodeDefs
// over without copying them, and freeing them costs nothing.
#ifndef DFG_LIB_GRAPH_GRAPH_H_
#define DFG_LIB_GRAPH_GRAPH_H_

#include <deque>
#include <functional>
#include <memory>
#include <memory_resource>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/types.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

using tensorflow::AttrValue;
using tensorflow::FunctionDefLibrary;
using tensorflow::GraphDef;
using tensorflow::NodeDef;
using tensorflow::VersionDef;

class Node;

namespace graph_internal {
// What many nodes of a graph share, kept once per graph: signatures and
// device names (a million-node graph has a handful of each).
struct Interned {
  std::set<std::vector<DataType>> signatures;
  std::set<std::string, std::less<>> devices;
};
}  // namespace graph_internal

struct Edge {
  int id = -1;
  Node* src = nullptr;  // Not owned.
  int src_output = 0;   // kControlSlot for control edges
  Node* dst = nullptr;  // Not owned.
  int dst_input = 0;    // kControlSlot for control edges
  bool IsControlEdge() const { return src_output == kControlSlot; }
};

// A node's in- or out-edges. Their storage comes from the graph's pool and
// goes with the graph: freeing two lists per node one by one costs a
// million-node graph more than building it.
using EdgeList = std::pmr::vector<const Edge*>;

class Node {
 public:
  Node() = default;
  // Edge lists allocated from `edge_pool` (not owned).
  explicit Node(std::pmr::memory_resource* edge_pool)
      : in_edges_(edge_pool), out_edges_(edge_pool) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();

  int id() const { return id_; }
  const std::string& name() const { return def_->name(); }
  const std::string& op() const { return def_->op(); }
  const NodeDef& def() const { return *def_; }
  NodeDef* mutable_def() { return def_; }

  // Signature, from the op registry, the library or (unknown ops) the graph.
  int num_inputs() const { return static_cast<int>(input_types_->size()); }
  int num_outputs() const { return static_cast<int>(output_types_->size()); }
  DataType input_type(int i) const { return (*input_types_)[i]; }
  DataType output_type(int i) const { return (*output_types_)[i]; }
  const std::vector<DataType>& input_types() const { return *input_types_; }
  const std::vector<DataType>& output_types() const { return *output_types_; }
  // False for ops neither the registry nor the library knows.
  bool op_known() const { return op_known_; }

  const std::string& requested_device() const { return def_->device(); }
  const std::string& assigned_device_name() const { return *assigned_device_; }
  void set_assigned_device_name(std::string_view device);
  // The same as set_assigned_device_name(other.assigned_device_name()), for
  // a node of the same graph, without looking the name up.
  void CopyAssignedDeviceFrom(const Node& other);

  // In ascending edge-id order.
  const EdgeList& in_edges() const { return in_edges_; }
  const EdgeList& out_edges() const { return out_edges_; }
  // The data edge into input slot `idx`, or nullptr.
  const Edge* input_edge(int idx) const;

  bool IsSource() const { return id_ == 0; }
  bool IsSink() const { return id_ == 1; }
  bool IsOp() const { return id_ > 1; }

  // Op classes by op name, as TensorFlow's Node::Is*.
  bool IsSwitch() const;         // Switch, RefSwitch, _SwitchN
  bool IsMerge() const;          // Merge, RefMerge, _XlaMerge
  bool IsEnter() const;          // Enter, RefEnter
  bool IsExit() const;           // Exit, RefExit
  bool IsNextIteration() const;  // NextIteration, RefNextIteration
  bool IsLoopCond() const;
  bool IsControlTrigger() const;
  bool IsSend() const;  // _Send, _HostSend
  bool IsRecv() const;  // _Recv, _HostRecv
  bool IsArg() const;
  bool IsRetval() const;
  bool IsConstant() const;     // Const, HostConst
  bool IsPlaceholder() const;  // Placeholder, PlaceholderV2
  bool IsControlFlow()
      const;  // any of Switch/Merge/Enter/Exit/NextIteration/LoopCond

 private:
  friend class Graph;
  int id_ = -1;
  // On the graph's arena, or on the heap and owned unless owns_def_ is false
  // (given away by Graph::ReleaseNodeDefs).
  NodeDef* def_ = nullptr;
  bool owns_def_ = false;
  bool op_known_ = true;
  // In the graph's Interned, as is assigned_device_ (never null).
  const std::vector<DataType>* input_types_ = nullptr;
  const std::vector<DataType>* output_types_ = nullptr;
  const std::string* assigned_device_ = nullptr;
  graph_internal::Interned* interned_ = nullptr;  // Not owned.
  EdgeList in_edges_;
  EdgeList out_edges_;
};

class Graph {
 public:
  // Creates _SOURCE (id 0), _SINK (id 1) and the control edge 0 between them.
  // With an arena (not owned; it must outlive the Graph), every NodeDef of
  // the graph is allocated there.
  Graph() : Graph(nullptr) {}
  explicit Graph(google::protobuf::Arena* arena);
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node with the given signature. Never fails; names are not checked
  // for uniqueness (TensorFlow's Graph does not check either).
  Node* AddNode(NodeDef def, std::vector<DataType> input_types,
                std::vector<DataType> output_types, bool op_known = true);
  // As AddNode, but takes `def` itself over: it must live on the graph's
  // arena (with no arena: a heap object, which the graph now owns).
  Node* AdoptNode(NodeDef* def, std::vector<DataType> input_types,
                  std::vector<DataType> output_types, bool op_known = true);
  // Adds a node whose signature comes from the op registry or the library.
  // Errors: kNotFound for an unknown op; kInvalidArgument for missing attrs.
  StatusOr<Node*> AddNode(NodeDef def);

  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  // Room for `in` in-edges and `out` out-edges of `node` (a hint for bulk
  // building: the import knows each node's edge counts).
  void ReserveEdges(Node* node, size_t in, size_t out);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  // Removes the node and all its edges.
  void RemoveNode(Node* node);
  // Removes every op node whose id < keep.size() and !keep[id], with all its
  // edges: the same graph as RemoveNode on each, but each kept neighbour's
  // edge list is compacted once and edges between two removed nodes touch no
  // list, so removing most of a large graph stays linear (prune). As
  // TensorFlow keeps released nodes on a free list, the removed nodes'
  // memory is released with the Graph, not here: a million frees would
  // otherwise cost more than the rest of a prune. _SOURCE and _SINK are never
  // removed.
  void RemoveNodes(const std::vector<bool>& keep);

  Node* source_node() const { return nodes_[0]; }
  Node* sink_node() const { return nodes_[1]; }
  Node* FindNodeId(int id) const;
  const Edge* FindEdgeId(int id) const;

  // One past the largest id ever handed out (holes included).
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  int num_edge_ids() const { return static_cast<int>(edges_.size()); }
  int num_op_nodes() const { return num_nodes_ - 2; }
  int num_edges() const { return num_edges_; }

  // Live op nodes (not _SOURCE/_SINK) in id order.
  std::vector<Node*> op_nodes() const;
  // Live nodes including _SOURCE/_SINK in id order.
  std::vector<Node*> nodes() const;

  // prefix + "/_" + counter, one counter per Graph starting at 0.
  std::string NewName(std::string_view prefix);

  const VersionDef& versions() const { return versions_; }
  VersionDef* mutable_versions() { return &versions_; }
  const FunctionDefLibrary& library() const { return library_; }
  FunctionDefLibrary* mutable_library() { return &library_; }
  const tensorflow::GraphDebugInfo& debug_info() const { return debug_info_; }
  tensorflow::GraphDebugInfo* mutable_debug_info() { return &debug_info_; }

  // Graph::ToGraphDef (§0.5): nodes in id order; device = assigned device if
  // set, else the requested one; inputs rebuilt from edges (data in slot
  // order, control sorted by source name, edges from _SOURCE omitted).
  GraphDef ToGraphDef() const;
  // The same graph in `*out` (which must be empty), without copying: the
  // node definitions are rewritten in place (device, inputs) and handed to
  // `out` (copied instead if `out` is on another arena). The graph must not
  // be used afterwards, except to be destroyed before `out`.
  void MoveToGraphDef(GraphDef* out);
  // Appends the definitions of `nodes` (op nodes of this graph, each at most
  // once) to out's nodes as they are, giving them to `out` when it is on the
  // graph's arena (copying them otherwise). The nodes keep pointing at them:
  // the graph must be destroyed before `out`.
  void ReleaseNodeDefs(const std::vector<Node*>& nodes, GraphDef* out);
  // The same for one node.
  void ReleaseNodeDef(Node* node, GraphDef* out);

  google::protobuf::Arena* arena() const { return arena_; }

  // Map from node name to node for the live op nodes (first one wins).
  std::unordered_map<std::string, Node*> BuildNameIndex() const;

 private:
  google::protobuf::Arena* arena_;  // Not owned; may be null.
  // The nodes' edge lists (declared before the nodes: it outlives them). A
  // list that grows leaves its old storage here until the graph goes.
  std::pmr::monotonic_buffer_resource edge_pool_;
  // Every node ever added, removed ones too (TensorFlow keeps them on a free
  // list): a million nodes cost a few hundred allocations.
  std::deque<Node> node_storage_;
  std::vector<Node*> nodes_;  // by id; null = removed
  std::unique_ptr<graph_internal::Interned> interned_;
  std::deque<Edge> edge_storage_;
  std::vector<Edge*> edges_;  // by id; null = removed
  int num_nodes_ = 0;
  int num_edges_ = 0;
  int name_counter_ = 0;
  VersionDef versions_;
  FunctionDefLibrary library_;
  tensorflow::GraphDebugInfo debug_info_;
};

// For every node in id order: no in-edges → control edge from _SOURCE; no
// out-edges → control edge to _SINK (source first, then sink, per node).
void FixupSourceAndSinkEdges(Graph* graph);

}  // namespace dfg

#endif  // DFG_LIB_GRAPH_GRAPH_H_
