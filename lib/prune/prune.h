// Prune: TensorFlow's subgraph::RewriteGraphForExecution (TF-SEMANTICS.md §1).
//
// Given feeds (tensors supplied at run time), fetches (tensors read back) and
// targets (nodes to run), rewrites a graph so that it computes exactly what
// the fetches and targets need:
//   1. each fed tensor is replaced by a new source node (`_Arg`, `_Recv` or,
//      in dfg's placeholder convention, a `Placeholder`) and its consumers are
//      rewired to it, so nothing above a feed is needed any more;
//   2. each fetch gets a sink node (`_Retval` or `_Send`; none in the
//      placeholder convention);
//   3. every node that no fetch or target reaches backwards over data and
//      control edges (NextIteration back edges included) is removed.
// Names, attrs, validation order and error texts are TensorFlow's. dfg adds
// two clean-ups TensorFlow leaves to later stages: `_class` colocation entries
// naming removed nodes are dropped, and library functions no kept node can
// reach are removed.
//
// Output order (§1.6): surviving original nodes in id order, then the feed
// nodes in feed order, then the fetch nodes in fetch order.
#ifndef DFG_LIB_PRUNE_PRUNE_H_
#define DFG_LIB_PRUNE_PRUNE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"

namespace dfg {

enum class Convention {
  kFunction,     // _Arg / _Retval (DirectSession::Run); the default
  kRendezvous,   // client-terminated _Recv / _Send (partial runs, older TF)
  kPlaceholder,  // dfg: a Placeholder per feed, no fetch nodes: a standalone
                 // smaller model (what strip_unused / extract_sub_graph do)
};

// "function", "rendezvous", "placeholder".
const char* ConventionName(Convention convention);
bool ParseConvention(std::string_view name, Convention* convention);

inline constexpr char kDefaultClientDevice[] =
    "/job:localhost/replica:0/task:0/device:CPU:0";

struct PruneOptions {
  // Tensor names ("node" or "node:k") exactly as the user gave them: feeds
  // and fetches are compared as raw strings (§1.1) and a rendezvous
  // `tensor_name` attr is the string as given. Numbered in this order.
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  // Node names; "x:1" and "^x" name node x.
  std::vector<std::string> targets;
  Convention convention = Convention::kFunction;
  // The device of the new feed and fetch nodes (function and rendezvous).
  std::string client_device = kDefaultClientDevice;
  int64_t client_incarnation = 1;
  // Fill PruneReport::kept, removed and needed_by (costs a string per node).
  bool explain = false;
};

// A node prune added for a feed or a fetch.
struct CreatedNode {
  std::string name;
  std::string op;
  std::string endpoint;  // the feed or fetch string it stands for
  bool is_feed = false;
  bool kept = false;  // false: nothing needed it, so it was pruned
  int id = -1;        // node id in the rewritten Graph; -1 when not kept
};

struct KeptNode {
  std::string name;
  std::string op;
  // One fetch or target string that needs this node (the first whose
  // breadth-first search reached it).
  std::string needed_by;
};

struct PruneReport {
  // TensorFlow's RewriteGraphMetadata: BaseType of each fed/fetched tensor.
  std::vector<DataType> feed_types;
  std::vector<DataType> fetch_types;
  // Feed nodes then fetch nodes, in option order (pruned ones included).
  std::vector<CreatedNode> created;
  // `node: loc:@x` for every _class entry dropped because x was removed.
  std::vector<std::string> dropped_colocations;
  // Library functions (and gradients) no kept node reaches, in library order.
  std::vector<std::string> dropped_functions;
  // Lines worth telling the user (import warnings, dropped colocations).
  std::vector<std::string> warnings;
  // Only with PruneOptions::explain. Original nodes, in id order.
  std::vector<KeptNode> kept;
  std::vector<std::string> removed;
};

// Rewrites `graph` in place. Works on an imported (and possibly placed) graph:
// assigned devices of kept nodes are left alone. `report` may be null.
// Errors (TensorFlow's wording, §1.1), checked in this order:
//   kInvalidArgument "Must specify at least one target to fetch or execute."
//   kInvalidArgument "Endpoint \"<feed>\" fed more than once."
//   kInvalidArgument "<fetch> is both fed and fetched."
//   per feed: kNotFound "FeedInputs: unable to find feed output <feed>",
//     kInvalidArgument "FeedInputs: <feed> should have output index < <n>"
//   per fetch: kNotFound "FetchOutputs node <fetch>: not found",
//     kInvalidArgument "Tried to fetch data for '<fetch>', which produces no
//     output.  ...", "FetchOutputs <fetch>: output index too large, must be
//     < <n>"
//   kNotFound "PruneForTargets: Some target nodes not found: <a> <b> "
//   kOutOfRange "Node '<n>' (type: '<op>', num of outputs: <k>) does not have
//     output -1" for "^n" used as a feed or fetch.
// A name that is not found gets " (did you mean 'x'?)" appended when a node
// name is close. On error the graph is left in an unspecified state.
Status RewriteGraphForExecution(Graph* graph, const PruneOptions& options,
                                PruneReport* report);

struct PruneResult {
  GraphDef graph;  // ToGraphDef of the rewritten graph
  PruneReport report;
};

// Imports `graph` (lib/graph's ImportGraphDef, unknown ops allowed), rewrites
// it and converts it back. With feed or fetch nodes (function and rendezvous
// conventions), kept nodes whose consumers were all pruned get
// kConsumersPrunedAttr (lib/graph/pipeline_attrs.h), for `dfg partition`.
// Import errors are returned as they are. Pass the graph with std::move when it
// is not needed afterwards: its nodes move into the imported graph instead of
// being copied.
StatusOr<PruneResult> Prune(GraphDef graph, const PruneOptions& options);
// The same, replacing `*graph` (which may live on a protobuf Arena) with the
// result: the kept nodes' definitions are rewritten where they are, never
// copied. On error `*graph` is left in an unspecified state.
Status PruneInPlace(GraphDef* graph, const PruneOptions& options,
                    PruneReport* report);

// The report as a JSON object (kept, removed, created, dropped_colocations,
// dropped_functions, feed_types, fetch_types), pretty-printed.
std::string PruneReportToJson(const PruneReport& report);

}  // namespace dfg

#endif  // DFG_LIB_PRUNE_PRUNE_H_
