// Partition (TensorFlow's graph_partition, TF-SEMANTICS.md §3): splits a placed
// graph into one GraphDef per device (or per worker, job/replica/task). Every
// edge between two partitions becomes a _Send/_Recv pair (_HostSend/_HostRecv
// when the tensor lives in host memory); a control edge goes through a dummy
// Const on the sending side and an Identity on the receiving side. While loops
// that span devices get "control loops" (_cloop* nodes) on every participating
// device, so that each device knows when the loop iterates and ends.
//
// Output is deterministic: partitions are keyed (and so sorted) by partition
// name; within a partition, nodes appear in node-id order as TensorFlow emits
// them (each original node, then the recvs feeding it; sends are appended to
// the producer's partition when the consumer is processed); new names are
// "<src>/_<k>" from one counter.
#ifndef DFG_LIB_PARTITION_PARTITION_H_
#define DFG_LIB_PARTITION_PARTITION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/graph/types.h"

namespace dfg {

enum class PartitionBy {
  kDevice,  // one partition per assigned device name (DirectSession)
  kWorker,  // one per "/job:J/replica:R/task:T" (the distributed master)
};

// One _Send/_Recv pair that Partition created: the cut of the graph.
struct Transfer {
  std::string tensor_name;              // "edge_<edge id>_<src>"
  DataType dtype = DataType::DT_FLOAT;  // DT_FLOAT for control transfers
  bool control = false;
  std::string send_device;
  std::string recv_device;
  std::string src;     // the producer in the original graph
  int src_output = 0;  // kControlSlot for a control edge
  std::string send;    // the _Send/_HostSend node
  std::string recv;    // the _Recv/_HostRecv node
  // The original consumers reading this transfer, in processing order (more
  // than one when consumers in the same partition share it, §3.4).
  std::vector<std::string> dsts;
};

struct PartitionOptions {
  PartitionBy by = PartitionBy::kDevice;

  // send_device_incarnation of every device; DirectSession uses 1.
  uint64_t incarnation = 1;
  // When set, the incarnation of each device instead (tests).
  std::function<uint64_t(std::string_view device)> get_incarnation;

  // New names are "<prefix>/_<k>". With no counter, k counts from 0 within
  // this call (as TensorFlow's tests do with Graph::NewName on a fresh graph);
  // with one, k is taken from it and it advances, so that names stay unique
  // across calls (DirectSession's session-wide counter).
  std::atomic<int64_t>* name_counter = nullptr;  // Not owned; may be null.

  // When set, makes every new name instead (TensorFlow's
  // PartitionOptions::new_name): the distributed master's "<prefix>_S<k>",
  // a worker's "<prefix>_G<k>".
  std::function<std::string(std::string_view prefix)> new_name;

  // The functions to copy into each partition (only those reachable from its
  // nodes); null means the graph's own library.
  const FunctionDefLibrary* library = nullptr;  // Not owned; may be null.

  // False: first build the cross-device control loops for while loops (§3.6).
  bool control_flow_added = false;

  // May move node attrs out of the graph instead of copying them (faster; the
  // graph keeps names, ops, types and edges but not attrs).
  bool can_make_destructive_changes = false;

  // When set, receives every transfer created, in creation order.
  std::vector<Transfer>* transfers = nullptr;  // Not owned; may be null.

  // How many times TensorFlow copies (Graph::Copy) the graph it partitions
  // on the way from an import like this graph's: tensor_name's edge id is
  // the edge's id in the last copy. A copy puts its own _SOURCE->_SINK edge
  // first, then the live edges of its source in id order, so after k > 0
  // copies an edge's id is k + its rank among this graph's live edges
  // (_SOURCE->_SINK has rank 0), whether a copy came before edges were added
  // or removed (RewriteGraphForExecution) or after; the edges the control
  // loops add come next. DirectSession and the master: 2
  // (GraphExecutionState::BuildGraph, TF-SEMANTICS §4.1;
  // lib/partition/client_graph.h), which lib/pipeline's PartitionClientGraph
  // sets for them. With 0, tensor_name uses the ids of this graph
  // (TensorFlow's Partition called directly).
  int graph_copies = 0;
};

// Partitions a placed graph. Every op node must have an assigned device
// (Node::assigned_device_name) that parses as a device name; by worker, a
// device type and id too.
//
// The graph is modified, as TensorFlow does: Switch, Exit, Enter and
// NextIteration nodes may be re-assigned (OptimizeControlFlowColocation) and
// control-loop nodes are added when a loop spans devices.
//
// Errors:
//   kFailedPrecondition "node 'X' (Op) has no assigned device" (not placed);
//   kInternal "Malformed assigned device '<d>'";
//   kInvalidArgument "Incomplete graph, missing <k> inputs for <node>",
//   "A cross-device loop must have a pivot predicate: <frame>", and the frame
//   errors of BuildControlFlowInfo (control_flow.h).
StatusOr<std::map<std::string, GraphDef>> Partition(
    Graph* graph, const PartitionOptions& options);

// As Partition, for big graphs: the partitions are built on the graph's
// arena (Graph::arena(), which must be set and outlive them), and each node's
// definition moves into its partition instead of being copied (so
// options.can_make_destructive_changes is implied). The graph must not be
// used afterwards, except to be destroyed. The same partitions as Partition.
// Errors: Partition's; kInternal for a graph without an arena.
StatusOr<std::map<std::string, GraphDef*>> PartitionOnArena(
    Graph* graph, const PartitionOptions& options);

// The partitions as values (for what takes them so: MergePartitions,
// PartitionReportJson, DOT).
std::map<std::string, GraphDef> CopyPartitions(
    const std::map<std::string, GraphDef*>& partitions);

// Takes the device each node carries in its NodeDef (`device`, the output of
// `dfg place`) as its assigned device, in canonical form, so that legacy
// (`/cpu:0`) and full spellings of one device make one partition. Empty or
// unparsable names are left for Partition's own errors.
// Errors: kFailedPrecondition "node 'X' (Op) has device 'D', which is not a
// full device name" for a partial name (the graph is not placed).
Status AssignCarriedDevices(Graph* graph);

// The same on a GraphDef whose nodes carry their devices in `device`:
// imports it, AssignCarriedDevices, partitions. Errors: import errors,
// AssignCarriedDevices's, and those above.
StatusOr<std::map<std::string, GraphDef>> Partition(
    const GraphDef& graph, const PartitionOptions& options);

// The partition key of a device name: the name itself by device;
// "/job:J/replica:R/task:T" (the parts present) by worker.
// Errors: kInternal for a malformed name; kInvalidArgument by worker when the
// name lacks a device type or id.
StatusOr<std::string> PartitionKey(std::string_view device, PartitionBy by);

// The file name of a partition: every character outside [A-Za-z0-9._-]
// replaced by '_', without a leading '/'
// ("job_localhost_replica_0_task_0_device_CPU_0").
std::string PartitionFileName(std::string_view key);

// All partitions' nodes in one GraphDef, partitions in key order; versions of
// the first; the union of their libraries (each function once).
GraphDef MergePartitions(const std::map<std::string, GraphDef>& partitions);

// `dfg partition --explain`: {"partitions": [{name, file, nodes, sends,
// recvs}], "transfers": [{tensor_name, dtype, control, from: {device, node,
// port}, to: {device, node}, consumers, send, recv}]}, port -1 for control.
std::string PartitionReportJson(
    const std::map<std::string, GraphDef>& partitions,
    const std::vector<Transfer>& transfers);

}  // namespace dfg

#endif  // DFG_LIB_PARTITION_PARTITION_H_
