// Internal to lib/dot: a DotView as a Graphviz cgraph graph (nodes, edges,
// attributes, clusters, legend). The caller writes or renders it and closes
// it with agclose.
#ifndef DFG_LIB_DOT_DOT_WRITER_H_
#define DFG_LIB_DOT_DOT_WRITER_H_

#include <graphviz/cgraph.h>

#include <string>
#include <string_view>

#include "lib/dot/dot_model.h"

namespace dfg::dot_internal {

enum class ClusterBy { kNone, kDevice, kScope, kPartition };

struct WriterOptions {
  ClusterBy clusters = ClusterBy::kNone;
  bool left_to_right = false;
  int graph_nodes = 0;  // shown in the legend
  // Data edges show dtype/shape as a label; otherwise (big graphs, where
  // label nodes double dot's work) as a tooltip, which SVG shows on hover.
  bool edge_labels = true;
  // Cap dot's network simplex (nslimit) and crossing minimisation (mclimit)
  // so that big graphs lay out in seconds.
  bool fast_layout = false;
  // Labels show whole node names instead of names relative to the cluster
  // (or, without scope clusters, to the prefix all drawn names share).
  bool full_names = false;
};

// The §5 palette: device i (devices sorted) is drawn in kPalette[i % 9].
const char* DeviceColor(int device_index);

// "name\n(op)" with TF's rule: no op line for NoOp or a name "<op>_...".
// Backslashes in names are escaped for Graphviz's label syntax.
std::string NodeLabel(std::string_view name, std::string_view op);

// A new graph; null when Graphviz fails (its error text says why).
Agraph_t* BuildAgraph(const DotModel& model, const DotView& view,
                      const WriterOptions& options);

}  // namespace dfg::dot_internal

#endif  // DFG_LIB_DOT_DOT_WRITER_H_
