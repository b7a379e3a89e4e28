// Function call inlining over a GraphDef, as TensorFlow's InlineFunctionBody
// (common_runtime/inline_function_utils.cc) names things: the call node C's
// body nodes become "C/<node>"; each argument goes through an Identity
// "Func/C/input/_N" and each result through an Identity "Func/C/output/_N"
// (N: one counter per graph, Graph::NewName); C's control inputs gather in a
// NoOp "Func/C/input_control_node/_N" that the argument Identities and the
// body's input-less nodes depend on; nodes that depended on C depend on a
// NoOp "Func/C/output_control_node/_N" after the function's control outputs
// (PartitionedCall, StatefulPartitionedCall) or its data outputs (a call by
// op name). C itself is removed.
#ifndef DFG_LIB_OPTIMIZE_FUNCTION_INLINE_H_
#define DFG_LIB_OPTIMIZE_FUNCTION_INLINE_H_

#include <memory>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/function_calls.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

class FunctionInliner {
 public:
  // Not owned; must outlive the inliner.
  explicit FunctionInliner(tensorflow::GraphDef* graph) : graph_(graph) {}

  // True for PartitionedCall, StatefulPartitionedCall and nodes whose op is
  // a function of the graph's library.
  bool IsFunctionCall(const tensorflow::NodeDef& node) const;

  // Inlines the call node named `caller`. Errors: no such node, not a call,
  // an unknown function, instantiation errors, a call whose input or output
  // count does not match the function's.
  Status Inline(const std::string& caller);

  // Inlines, until none is left, every call that the tensors `roots` need
  // (their ancestors through data and control inputs).
  Status InlineCallsNeededBy(const std::vector<std::string>& roots);

 private:
  std::string NewName(const std::string& prefix) {
    return prefix + "/_" + std::to_string(counter_++);
  }
  tensorflow::GraphDef* graph_;
  int counter_ = 0;
  std::unique_ptr<FunctionCallGraph> call_graph_;  // made on first Inline
};

}  // namespace dfg

#endif  // DFG_LIB_OPTIMIZE_FUNCTION_INLINE_H_
