// What every optimizer pass shares: the graph it rewrites, the index of
// producers and consumers it rewrites through, what must be preserved, and
// where rewrites are recorded. Internal to lib/optimize.
#ifndef DFG_LIB_OPTIMIZE_PASS_H_
#define DFG_LIB_OPTIMIZE_PASS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/base/name_table.h"
#include "lib/base/status.h"
#include "lib/graph/op_registry.h"
#include "lib/kernels/tensor.h"
#include "lib/optimize/optimize.h"
#include "lib/proto/graph.pb.h"

namespace dfg::optimize {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// A consumer of one output: node index and input position (and the output
// it reads).
struct Use {
  int node = 0;
  int input = 0;
  int port = 0;
};

// Producers and consumers of a GraphDef's nodes, by index. Passes get it
// from PassContext::Index, built when a pass first asks for it and shared
// by the passes after it until one changes the graph; a pass that adds or
// removes nodes rebuilds it or only marks nodes dead (Erase) until the pass
// ends.
class GraphIndex {
 public:
  explicit GraphIndex(const GraphDef& graph);

  // -1 for no such node.
  int Find(std::string_view name) const;
  // The node input `k` of node `i` reads (data or control), as the graph
  // was when the index was built: -1 for none. Resolved once, when the
  // index is built, so that walks over inputs look up no names.
  int Producer(int i, int k) const {
    const int at = first_input_[i] + k;
    return at < first_input_[i + 1] ? producers_[at] : ProducerByName(i, k);
  }
  // Data consumers of output `port` of node `i`.
  std::vector<Use> DataUses(int i, int port) const;
  // Every data consumer of any output of node `i`.
  std::span<const Use> AllDataUses(int i) const {
    return {uses_.data() + first_use_[i], uses_.data() + first_use_[i + 1]};
  }
  // Nodes with a control input from node `i`.
  std::span<const int> ControlUses(int i) const {
    return {controls_.data() + first_control_[i],
            controls_.data() + first_control_[i + 1]};
  }
  int NumDataUses(int i) const { return first_use_[i + 1] - first_use_[i]; }
  int num_nodes() const { return names_.size(); }

 private:
  // Owned names, since passes replace nodes (and so their name strings)
  // while they hold the index. A million-node graph's index is built once
  // per pass.
  NameTable names_;
  // Producer of each input, node after node: node i's inputs are
  // [first_input_[i], first_input_[i + 1]).
  std::vector<int> producers_;
  std::vector<int> first_input_;
  // An input added after the index was built: looked up by name.
  int ProducerByName(int i, int k) const;
  const GraphDef* graph_;
  // Consumers grouped by producer, in flat arrays (compressed rows): node
  // i's are [first_use_[i], first_use_[i + 1]).
  std::vector<Use> uses_;
  std::vector<int> first_use_;
  std::vector<int> controls_;
  std::vector<int> first_control_;
};

class PassContext {
 public:
  // `preserve`: PreservedNames of the graph as the stage got it. `index`:
  // where the index of the graph is kept between passes (empty, or the
  // index of the graph as it is now). Not owned.
  PassContext(GraphDef* graph, const std::unordered_set<std::string>* preserve,
              const OptimizeOptions* options, OptimizeReport* report,
              std::optional<GraphIndex>* index);

  GraphDef& graph() { return *graph_; }
  // The index of the graph as it was when the pass first asked: ask before
  // changing it. Kept for the next pass when this one records no change
  // (every change of the graph is recorded).
  const GraphIndex& Index();
  const OpLookup& ops() const { return ops_; }

  // A preserved node keeps its name, op and outputs; see optimize.h.
  bool IsPreserved(const NodeDef& node) const;
  // Stateful by its OpDef, or unknown (an op dfg does not know is treated
  // as stateful: nothing is assumed of it).
  bool IsStateful(const NodeDef& node) const;
  // In options.preserve or a sink of the graph as given (not by its op).
  bool IsNamedPreserved(const std::string& name) const {
    return preserve_->contains(name);
  }

  const OptimizeOptions& options() const { return *options_; }
  OptimizeReport& report() { return *report_; }

  // Counts a rewrite, and lists it when recording(): a pass making many
  // builds their descriptions only then.
  void Record(std::string_view pass, std::vector<std::string> in,
              std::vector<std::string> out, std::string why);
  bool recording() const { return options_->record_rewrites; }
  int changes() const { return changes_; }

 private:
  GraphDef* graph_;
  OpLookup ops_;
  const std::unordered_set<std::string>* preserve_;  // Not owned.
  const OptimizeOptions* options_;                   // Not owned.
  OptimizeReport* report_;                           // Not owned.
  std::optional<GraphIndex>* index_;                 // Not owned.
  int changes_ = 0;
};

// options.preserve and the graph's sinks (`index`: the graph's).
std::unordered_set<std::string> PreservedNames(const GraphDef& graph,
                                               const GraphIndex& index,
                                               const OptimizeOptions& options);

// Node `n`'s attr `name`, or null.
const tensorflow::AttrValue* Attr(const NodeDef& n, const char* name);

// The value of a Const node; nullopt for another op or a value that does
// not parse.
std::optional<Tensor> ConstValue(const NodeDef& n);

// Placed on a CPU, or not placed.
bool OnCpu(const NodeDef& n);

// The data inputs of `n` (its control inputs "^x" left out).
std::vector<std::string> DataInputs(const NodeDef& n);

// Makes `n` a Const holding `value` (its dtype and value attrs, others
// cleared; inputs and name untouched). As TensorFlow writes folded
// constants: values in fields when there are a few, tensor_content else.
void SetConstValue(NodeDef* n, const Tensor& value);

// "name (Op)", as rewrites list nodes.
std::string Describe(const NodeDef& node);

// Whether a node of `graph` has one of `ops`: a pass whose rewrites start
// at such nodes skips building its index over a big graph that has none.
bool HasOp(const GraphDef& graph, std::initializer_list<std::string_view> ops);

// Removes the nodes whose `dead` flag is set, keeping the others' order.
void EraseNodes(GraphDef* graph, const std::vector<bool>& dead);

// Points every data input that reads `from` (a tensor name "n:k" or "n")
// at `to` instead, in the nodes of `uses`.
void Rewire(GraphDef* graph, const std::vector<Use>& uses,
            const std::string& to);

// The passes (one file each).
Status RunFunctionPass(PassContext& ctx);
Status RunFreezeVariables(PassContext& ctx);
Status RunConstantFolding(PassContext& ctx);
Status RunRnnFusion(PassContext& ctx);
Status RunArithmetic(PassContext& ctx);
Status RunDependency(PassContext& ctx);
Status RunPadFusion(PassContext& ctx);
Status RunRemapper(PassContext& ctx);
// The remapper's fusion of layer normalizations into _MklLayerNorm
// (layer_norm_fusion.cc): rewrites through `index` (the graph's before the
// remapper changed it), marks what it removes in `dead` and appends the
// constants it makes (growing `dead`). True if it fused any.
bool FuseLayerNorms(PassContext& ctx, const GraphIndex& index,
                    std::vector<bool>* dead);
Status RunModelPruner(PassContext& ctx);

}  // namespace dfg::optimize

#endif  // DFG_LIB_OPTIMIZE_PASS_H_
