// Graphs as pictures: DOT text built through Graphviz's cgraph (and written
// by dfg, as agwrite would but in linear time), optionally laid out and
// rendered (SVG, PNG, PDF) through its gvc library.
//
// GraphToDot draws one GraphDef; PartitionsToDot draws the partition graphs
// that `dfg partition` produces, one cluster per partition, with each
// _Send/_HostSend linked to its _Recv/_HostRecv (matched by tensor_name,
// send_device and recv_device) by an edge labelled with the tensor_name.
//
// What is drawn (TF-SEMANTICS.md §5 conventions, extended):
// - node label = name (without the scopes its cluster, or every drawn node,
//   shares; the whole name is the tooltip), plus "\n(<op>)" unless the op is
//   NoOp or the name starts with "<op>_"; shape by role (feeds and
//   placeholders, constants and variables, Send/Recv, control flow,
//   fetches/retvals, other ops);
// - fill colour per device (devices sorted, §5 palette) with a legend;
// - data edges solid, labelled with dtype/shape where known and ":k" for an
//   output port k > 0; control edges dashed; NextIteration -> Merge back
//   edges do not constrain the ranking, so loops lay out top-down.
// Output is deterministic: graph node ids are assigned in a fixed order and
// never derived from pointers.
//
// This library is the only code in dfg that includes Graphviz headers.
#ifndef DFG_LIB_DOT_DOT_H_
#define DFG_LIB_DOT_DOT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

enum class DotCluster {
  kAuto,    // by device when nodes are on two devices or more, else by name
            // scope; PartitionsToDot: by partition
  kDevice,  // one cluster per device
  kScope,   // nested clusters per name scope ("a/b/c" is in "a" and "a/b")
  kNone,
};

enum class DotFormat {
  kDot,  // DOT text (the default)
  kSvg,  // rendered by Graphviz's "dot" layout
  kPng,
  kPdf,
};

struct DotOptions {
  DotCluster cluster = DotCluster::kAuto;
  bool left_to_right = false;  // rankdir=LR instead of TB

  // Fold every name scope below this depth into one node per scope that
  // shows its node count (depth 1 keeps only top-level scopes: "a/b/c" is
  // drawn as "a"). -1: no explicit fold.
  int collapse_depth = -1;
  // Without an explicit fold, a graph with more nodes than this is folded at
  // the deepest depth that brings the drawn node count to at most max_nodes
  // (see DotReport). 0: never fold by itself.
  int max_nodes = 1500;

  // When non-empty: draw only the nodes within `radius` hops of this node
  // (undirected, over data and control edges). Applied before folding.
  std::string focus;
  int radius = 2;

  DotFormat format = DotFormat::kDot;

  // Label nodes with their whole names. By default a label leaves out what
  // the picture already says: the scope of the cluster the node is drawn in
  // (clustering by scope), else the scopes every drawn name starts with.
  // Either way each node's tooltip is its whole name.
  bool full_names = false;
};

// What the drawing did by itself, for the caller to tell the user.
struct DotReport {
  int graph_nodes = 0;       // nodes in the input (all partitions)
  int drawn_nodes = 0;       // nodes in the picture (after focus and folding)
  int auto_fold_depth = -1;  // depth chosen because of max_nodes, or -1
  std::vector<std::string> notes;  // one line each, e.g. what was folded
};

// The DOT text of `graph` (or, for format != kDot, the rendered bytes).
// Errors: kNotFound when options.focus names no node (with the nearest name
// suggested), kInvalidArgument for a bad option (negative depth or radius)
// or when format != kDot and more than max(5000, max_nodes) nodes remain to
// lay out after folding (unless max_nodes is 0: Graphviz would take many
// minutes), kInternal when Graphviz fails. Inputs naming nodes absent from the
// graph are drawn as dangling (no error): dot draws what it is given.
StatusOr<std::string> GraphToDot(const tensorflow::GraphDef& graph,
                                 const DotOptions& options,
                                 DotReport* report = nullptr);

// The same for the partitions of one graph, keyed by partition name (a device
// or a worker); one cluster per partition (options.cluster kAuto/kDevice/
// kScope: by partition; kNone: no clusters), Send/Recv pairs linked.
// Unmatched _Send/_Recv nodes (the client's rendezvous feeds and fetches) are
// drawn without a link. Same errors as GraphToDot.
StatusOr<std::string> PartitionsToDot(
    const std::map<std::string, tensorflow::GraphDef>& partitions,
    const DotOptions& options, DotReport* report = nullptr);

// Lays out and renders DOT text (e.g. from a file) in `format`; kDot returns
// the text re-written by Graphviz. Errors: kInvalidArgument when the text is
// not DOT that Graphviz accepts.
StatusOr<std::string> RenderDot(std::string_view dot_text, DotFormat format);

// "svg" / "png" / "pdf" / "dot"; kInvalidArgument otherwise.
StatusOr<DotFormat> ParseDotFormat(std::string_view name);

// True for formats that are not text (png, pdf).
bool IsBinaryDotFormat(DotFormat format);

}  // namespace dfg

#endif  // DFG_LIB_DOT_DOT_H_
