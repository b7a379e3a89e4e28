// Internal to lib/dot: what a picture shows, before Graphviz sees it.
//
// A DotModel is the input graph(s) flattened into nodes and edges (data,
// control, NextIteration->Merge back edges, Send->Recv links). A DotView is
// what gets drawn: the model after --focus and --collapse, where a drawn node
// is either one model node or a folded name scope, and parallel edges are
// merged. Nothing here includes Graphviz.
#ifndef DFG_LIB_DOT_DOT_MODEL_H_
#define DFG_LIB_DOT_DOT_MODEL_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/types.h"
#include "lib/proto/graph.pb.h"

namespace dfg::dot_internal {

enum class Role {
  kOp,
  kFeed,         // Placeholder*, _Arg, client-terminated _Recv
  kFetch,        // _Retval, client-terminated _Send
  kConstant,     // Const, HostConst
  kVariable,     // VariableV2, VarHandleOp...
  kSendRecv,     // _Send/_Recv between partitions
  kControlFlow,  // Switch, Merge, Enter, Exit, NextIteration, LoopCond
  kFolded,       // a name scope drawn as one node
  kMissing,      // named by an input but absent from the graph
};

Role RoleOf(const tensorflow::NodeDef& node);

struct ModelNode {
  std::string_view name;  // points into the GraphDef (or missing_names)
  std::string_view op;
  std::string_view device;
  int partition = 0;
  const tensorflow::NodeDef* def = nullptr;  // Not owned; null when missing.
  Role role = Role::kOp;
};

enum class EdgeKind { kData, kBack, kSendRecv, kControl };

struct ModelEdge {
  int src = 0;
  int dst = 0;
  int port = 0;  // output port of src; -1 for control edges
  EdgeKind kind = EdgeKind::kData;
};

struct DotModel {
  std::vector<ModelNode> nodes;
  std::vector<ModelEdge> edges;
  std::vector<std::string> partitions;  // cluster names (PartitionsToDot)
  std::vector<std::string> devices;     // distinct non-empty devices, sorted
  std::vector<int> device_index;        // per node: index in devices, or -1
  // Owned storage for the names of missing input nodes.
  std::vector<std::unique_ptr<std::string>> missing_names;
  std::unique_ptr<OpLookup> ops;  // the first graph's library and the registry
  // TensorLabel's cache: output dtypes per model node.
  mutable std::unordered_map<int, std::vector<DataType>> output_types;
};

// Flattens the graphs (partition index = position in `graphs`). Inputs that
// name no node of the same graph become kMissing nodes; _Send/_HostSend and
// _Recv/_HostRecv with the same (tensor_name, send_device, recv_device) are
// linked by a kSendRecv edge. The GraphDefs must outlive the model.
DotModel BuildModel(const std::vector<const tensorflow::GraphDef*>& graphs);

// Marks the nodes within `radius` undirected hops of the node `focus`.
// Errors: kNotFound naming `focus` (with the nearest name) when absent.
StatusOr<std::vector<bool>> FocusMask(const DotModel& model,
                                      std::string_view focus, int radius);

// The scope a node folds into at `depth` ("a/b/c" at depth 2 is "a/b"; a
// name with at most `depth` components folds into itself).
std::string_view FoldKey(std::string_view name, int depth);

// How a view groups nodes: by partition always, by device when clustering by
// device (so a folded scope never spans two device clusters).
struct FoldOptions {
  int depth = -1;  // -1: no folding
  bool split_by_device = false;
};

// Number of nodes drawn when `visible` nodes fold at `depth`.
int CountFolded(const DotModel& model, const std::vector<bool>& visible,
                const FoldOptions& options);

// The deepest depth whose fold draws at most `max_nodes`; 1 when none does.
int ChooseFoldDepth(const DotModel& model, const std::vector<bool>& visible,
                    int max_nodes, bool split_by_device);

struct ViewNode {
  int model_node = -1;  // the model node drawn, or -1 for a folded scope
  std::string scope;    // kFolded: the scope's name
  int count = 1;        // model nodes drawn by this one
  int partition = 0;
  int device_index = -1;  // kFolded: the members' most common device
  // A link: a small stand-in for view node `link_to`, drawn beside `anchor`
  // (see CutLongEdges); model_node/scope/count are copied from the original.
  int link_to = -1;
  int anchor = -1;
};

struct ViewEdge {
  int src = 0;  // view node indices
  int dst = 0;
  EdgeKind kind = EdgeKind::kData;
  int model_edge = 0;  // the first model edge drawn by this one
  int tensors = 1;     // distinct tensors (src node, port) merged here
};

struct DotView {
  std::vector<ViewNode> nodes;
  std::vector<ViewEdge> edges;
};

// The view of the visible nodes folded as `options` says. Node order follows
// the model (a folded scope takes the place of its first member); edges keep
// the order of their first model edge. Merged edges: one per (src, dst,
// kind), or per tensor when neither end is folded; a control edge is dropped
// where a data edge joins the same two nodes; edges inside one folded scope
// are dropped.
DotView MakeView(const DotModel& model, const std::vector<bool>& visible,
                 const FoldOptions& options);

// Long edges make Graphviz's dot slow (one virtual node per rank crossed) and
// pictures unreadable. Ranks are estimated as dot assigns them (longest path,
// sources pulled down to their first consumer); while the virtual nodes of
// all edges exceed `budget`, the longest edge (spanning more than `min_span`
// ranks) is cut: its source is drawn again as a link node beside the
// consumer. Returns the number of edges cut.
int CutLongEdges(DotView& view, int budget, int min_span);

// "float[?,224,224,3]" for output `port` of model node `node`: the dtype from
// the op registry (or the T/dtype attr of an op it does not know), the shape
// from _output_shapes, a Const's value or a Placeholder's shape attr; "" when
// nothing is known.
std::string TensorLabel(const DotModel& model, int node, int port);

}  // namespace dfg::dot_internal

#endif  // DFG_LIB_DOT_DOT_MODEL_H_
