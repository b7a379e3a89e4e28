// The stages composed once: TensorFlow's GraphExecutionState and ClientGraph
// (common_runtime/graph_execution_state.h) for the local session, the
// distributed master and `dfg partition` alike.
//
// ExecutionState::Create imports a GraphDef and places the whole graph once
// (GraphExecutionState::InitBaseGraph). Per (feeds, fetches, targets)
// signature, BuildClientGraph copies the placed graph and rewrites it for
// execution (BuildGraph: RewriteGraphForExecution, then the pruned graph).
// Between the two the placed graph is kept serialized, with an index of
// what validating feeds and fetches reads: a big graph is not held as a
// Graph beside the client graph built from it (a serialized node takes a
// tenth of the memory of an imported one). The first client graph takes the
// placed Graph itself instead of importing the serialized copy (numbered as
// that import would number it); later ones import it.
// PartitionClientGraph runs the POST_REWRITE_FOR_EXEC passes
// (ReplicateSmallConstants) on a client graph and cuts it, numbering edges
// as TensorFlow's two copies of that graph do (graph_copies = 2,
// lib/partition/client_graph.h). ImportPlacedClientGraph is `dfg partition`'s
// entry: a GraphDef that `dfg prune` already rewrote, imported in the order
// TensorFlow's session would have it and placed.
//
// Graph optimization (TensorFlow's Grappler in BuildGraph, lib/optimize) runs
// in BuildClientGraph, between the rewrite and the return: every caller gets
// it there, and only there.
//
// Layer: above graph, prune, place and partition; below exec, distributed
// and the subcommands. Callers keep their own caches and names.
#ifndef DFG_LIB_PIPELINE_EXECUTION_STATE_H_
#define DFG_LIB_PIPELINE_EXECUTION_STATE_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/base/name_table.h"
#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/graph/types.h"
#include "lib/optimize/optimize.h"
#include "lib/partition/partition.h"
#include "lib/place/device_set.h"
#include "lib/prune/prune.h"

namespace dfg {

struct ExecutionStateOptions {
  DeviceSet devices;  // the client device first
  bool allow_soft_placement = true;
  // When set ("/job:J/replica:R/task:T"), a node whose device names no job
  // gets this job, replica and task before placement (TensorFlow's master
  // keeps unplaced nodes on its own task).
  std::string default_task;
  // Refuse an op removed before the graph's producer version, as
  // TensorFlow's import does (CheckOpDeprecation). The local session checks
  // the whole graph at Create; the master leaves it to the kernels.
  bool check_op_deprecations = false;
};

// TensorFlow's ClientGraph: the placed, rewritten graph of one signature.
struct ClientGraph {
  std::unique_ptr<Graph> graph;  // every op node has its assigned device
  std::vector<DataType> feed_types;
  std::vector<DataType> fetch_types;
};

class ExecutionState {
 public:
  // Errors: kUnimplemented for a deprecated op (when checked), import
  // errors, placement errors (lib/place/place.h).
  static StatusOr<std::unique_ptr<ExecutionState>> Create(
      GraphDef graph, const ExecutionStateOptions& options);

  // GraphExecutionState::ValidateFeedAndFetchDevices, in DirectSession's
  // wording: each feed, then each fetch, must name an output of a node of
  // the graph. Errors: kInvalidArgument "Tensor X, specified in either
  // feed_devices or fetch_devices was not found in the Graph" (with the
  // nearest name), kNotFound "Op type not registered" for an unknown op,
  // kOutOfRange for an output the node does not have.
  Status ValidateFeedsAndFetches(const std::vector<std::string>& feeds,
                                 const std::vector<std::string>& fetches) const;

  // A copy of the placed graph rewritten for the signature (feeds, fetches,
  // targets, convention, client device; G1 of lib/partition/client_graph.h).
  // Errors: RewriteGraphForExecution's.
  // With `optimize`, the rewritten graph then goes through lib/optimize
  // (TensorFlow's Grappler in GraphExecutionState::OptimizeGraph): targets
  // and the feed and fetch nodes keep their names; nodes the optimizer
  // makes keep the device of what they replace (or their input's).
  // `report` (may be null) gets the optimizer's report.
  StatusOr<ClientGraph> BuildClientGraph(
      const PruneOptions& options, const OptimizeOptions* optimize = nullptr,
      OptimizeReport* report = nullptr) const;

  // What the state knows of a node of the placed graph.
  struct PlacedNode {
    const std::string* op = nullptr;  // one string per op type
    int num_outputs = 0;
    int device = -1;  // index in devices(), -1 for none
    bool op_known = true;
  };
  // The node of the placed graph named `name`, or null.
  const PlacedNode* FindNode(std::string_view name) const;
  // The full name of the device `node` is placed on ("" for none).
  const std::string& DeviceOf(const PlacedNode& node) const;
  // The placed whole graph: every node's device is its assigned one (made
  // on each call from the serialized copy).
  GraphDef placed_graph() const;
  const DeviceSet& devices() const { return devices_; }

 private:
  ExecutionState() = default;
  // Indexes the placed `graph` and keeps it serialized.
  void Keep(std::unique_ptr<Graph> graph);

  DeviceSet devices_;
  // The placed graph as Graph::ToGraphDef wrote it, serialized; each client
  // graph is imported from it. A graph too big to serialize (2 GB) is kept
  // as a GraphDef instead.
  std::string placed_bytes_;
  std::unique_ptr<GraphDef> placed_def_;
  // The placed graph itself, its NodeDefs as placed_bytes_ holds them,
  // until the first client graph takes it: the first signature (the only
  // one of most `dfg run`s) is built without parsing and importing the
  // graph again.
  mutable std::mutex first_mu_;
  mutable std::unique_ptr<Graph> first_graph_;  // guarded by first_mu_
  NameTable names_;                 // the placed nodes' names, in id order
  std::vector<PlacedNode> placed_;  // by index in names_
  std::unordered_set<std::string> op_names_;  // PlacedNode::op's strings
};

// The key under which DirectSession and MasterSession cache what they built
// for a signature: its feeds, fetches and targets, each list sorted.
std::string SignatureKey(const std::vector<std::string>& sorted_feeds,
                         const std::vector<std::string>& sorted_fetches,
                         const std::vector<std::string>& sorted_targets);

// The POST_REWRITE_FOR_EXEC passes (ReplicateSmallConstants), then Partition
// with the edge ids of TensorFlow's two copies of a client graph
// (options.graph_copies is set to 2). Every op node must have an assigned
// device. Errors: those of ReplicateSmallConstants and Partition.
StatusOr<std::map<std::string, GraphDef>> PartitionClientGraph(
    Graph* graph, PartitionOptions options);

// The same for big graphs on an arena (PartitionOnArena: the graph's node
// definitions move into the partitions; the graph must not be used
// afterwards, except to be destroyed before its arena).
StatusOr<std::map<std::string, GraphDef*>> PartitionClientGraphOnArena(
    Graph* graph, PartitionOptions options);

struct PlacedClientGraphOptions {
  // Place on these devices; without, take the device each node carries
  // (AssignCarriedDevices: the output of `dfg place`).
  std::optional<DeviceSet> devices;
  bool allow_soft_placement = false;  // with devices
};

// `dfg partition`'s client graph: `*def` (on an arena or not; its nodes are
// taken over) imported as TensorFlow's session would partition it
// (ImportClientGraph), then placed. Errors: import errors; with devices,
// Place's; without, AssignCarriedDevices's kFailedPrecondition for a node
// that is not placed.
StatusOr<std::unique_ptr<Graph>> ImportPlacedClientGraph(
    GraphDef* def, const PlacedClientGraphOptions& options);

}  // namespace dfg

#endif  // DFG_LIB_PIPELINE_EXECUTION_STATE_H_
