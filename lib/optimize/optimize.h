// dfg optimize: TensorFlow's graph optimizations (Grappler's meta optimizer,
// core/grappler/optimizers/) as a stage of their own, between prune and
// place. Each pass rewrites a GraphDef in place and records every rewrite
// (pass, the nodes it took, the nodes it made, why), so that a person can
// see what changed and draw the result.
//
// Passes, in the order Grappler runs them (names are TensorFlow's
// RewriterConfig names where TensorFlow has the pass):
//   function            inline PartitionedCall / StatefulPartitionedCall and
//                       calls by function name (function_optimization)
//   variables           (a session's only) a ReadVariableOp of a variable that
//                       nothing in the graph can write becomes a Const of
//                       its current value; the session rebuilds the graph
//                       when a step that writes variables has run
//   constfold           evaluate nodes whose inputs are all constants with
//                       dfg's own CPU kernels (constant_folding)
//   rnn                 (dfg's own) a Keras LSTM layer's While loop becomes
//                       one BlockLSTMV2 node (rnn_fusion.h)
//   arithmetic          algebraic identities: x*1, x+0, involutions, idempotent
//                       ops, adjacent Transposes/Reshapes
//                       (arithmetic_optimization)
//   dependency          drop Identity nodes and redundant control edges
//                       (dependency_optimization)
//   padfusion           (dfg's) a Pad of zero rows/columns read only by a
//                       convolution becomes the convolution's EXPLICIT
//                       padding
//   remapper            fuse MatMul / Conv2D with BiasAdd, FusedBatchNorm and
//                       an activation into _FusedMatMul / _FusedConv2D, as
//                       TensorFlow's remapper does on CPU (remapping)
//   prune               remove what no preserved node needs (model_pruner)
//
// What a rewrite never changes: a preserved node keeps its name, op, outputs
// and value; stateful ops are never removed, folded or reordered against
// each other; the values every kept tensor carries stay TensorFlow's up to
// the last float digits (a fused kernel may round differently).
//
// Layer: above graph, prune and kernels (constant folding runs kernels);
// below pipeline, which runs it on every client graph.
#ifndef DFG_LIB_OPTIMIZE_OPTIMIZE_H_
#define DFG_LIB_OPTIMIZE_OPTIMIZE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/kernels/tensor.h"
#include "lib/proto/graph.pb.h"

namespace dfg {

struct OptimizeOptions {
  // Passes to run, by name, in the canonical order whatever order they are
  // given in; empty runs DefaultPasses().
  std::vector<std::string> passes;
  // Nodes that must keep their name, op and every output (fetched, fed or
  // targeted nodes of an unpruned graph). Always preserved besides: _Arg,
  // _Retval, _Send, _Recv, Placeholder and stateful nodes, and the nodes
  // that nothing consumes in the graph as given (its outputs and targets).
  std::vector<std::string> preserve;
  // Rounds of the whole pass list; stops early when a round changes nothing.
  int max_rounds = 2;
  // False: rewrite the graph in place, without the copy that keeps it
  // unchanged on error (a caller that drops the graph on error, with a
  // graph too big to hold twice).
  bool unchanged_on_error = true;
  // False: rewrites are counted, not listed in OptimizeReport::rewrites
  // (a session, which shows none, on a graph where a pass makes a million).
  bool record_rewrites = true;
  // For the variables pass: the current value of the resource variable a
  // VarHandleOp node names, or nullopt (not initialized, unknown). Unset:
  // the pass does nothing (dfg optimize has no values).
  std::function<std::optional<Tensor>(const tensorflow::NodeDef& handle)>
      variable_value;
};

// One rewrite, as --explain prints it.
struct Rewrite {
  std::string pass;
  std::vector<std::string> nodes_in;   // taken or removed ("name (Op)")
  std::vector<std::string> nodes_out;  // made or kept in their place
  std::string why;
};

struct OptimizeReport {
  std::vector<Rewrite> rewrites;
  int nodes_before = 0;
  int nodes_after = 0;
  // Per pass that ran: name and the node count after it in the first round.
  std::vector<std::pair<std::string, int>> pass_node_counts;
  // The variables pass: whether something in the graph (or a function it
  // calls) may write a resource, and how many reads it froze.
  bool writes_resources = false;
  int frozen_variables = 0;
};

// The passes in canonical order, and the ones run by default.
const std::vector<std::string_view>& AllPasses();
const std::vector<std::string_view>& DefaultPasses();
// One line per pass for --help: "name: what it does".
std::string DescribePasses();

// Errors: kInvalidArgument for an unknown pass name (with the nearest), and
// the function inliner's instantiation errors. The graph is unchanged on
// error unless options.unchanged_on_error is false. `report` may be null.
Status Optimize(tensorflow::GraphDef* graph, const OptimizeOptions& options,
                OptimizeReport* report);

// "remapper: MatMul dense/MatMul, BiasAdd dense/BiasAdd, Relu dense/Relu
// -> _FusedMatMul dense/Relu: fused_ops BiasAdd,Relu" (one line, no newline).
std::string FormatRewrite(const Rewrite& rewrite);

}  // namespace dfg

#endif  // DFG_LIB_OPTIMIZE_OPTIMIZE_H_
