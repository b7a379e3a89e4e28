// The pass driver: canonical order, rounds until nothing changes, the
// report. The passes themselves live one per file (pass.h).
#include "lib/optimize/optimize.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "lib/base/progress.h"
#include "lib/base/strings.h"
#include "lib/graph/tensor_id.h"
#include "lib/optimize/pass.h"

namespace dfg {
namespace {

using optimize::PassContext;

struct PassInfo {
  std::string_view name;
  bool by_default;
  std::string_view summary;
  Status (*run)(PassContext&);
};

// Grappler's meta optimizer order: function inlining first (so the other
// passes see the bodies), constant folding before the algebra that it
// enables, the remapper last, the pruner after every pass that orphans
// nodes.
const std::vector<PassInfo>& Passes() {
  static const auto* passes = new std::vector<PassInfo>{
      {"function", true,
       "inline PartitionedCall, StatefulPartitionedCall and calls by function "
       "name",
       optimize::RunFunctionPass},
      {"variables", true,
       "(dfg run only) reads of variables nothing writes become constants",
       optimize::RunFreezeVariables},
      {"constfold", true,
       "replace nodes whose inputs are all constants by their value",
       optimize::RunConstantFolding},
      // After constant folding: a Keras loop's iteration bound is a Max
      // over constants until then; the next round folds the weights it
      // concatenates.
      {"rnn", true,
       "a Keras LSTM While loop becomes one BlockLSTMV2 (TensorFlow's fused "
       "LSTM)",
       optimize::RunRnnFusion},
      {"arithmetic", true,
       "Neg(Neg(x)) and other involutions, no-op Cast/Transpose, Reshape of "
       "Reshape; per-channel Mul into a constant filter (and bias), "
       "per-channel Add into a BiasAdd",
       optimize::RunArithmetic},
      {"dependency", true,
       "bypass Identity and NoOp nodes; no control edges out of constants",
       optimize::RunDependency},
      {"padfusion", true,
       "a zero Pad of rows and columns read by a convolution becomes its "
       "explicit padding",
       optimize::RunPadFusion},
      {"remapper", true,
       "fuse MatMul/Conv2D/DepthwiseConv2dNative + BiasAdd/FusedBatchNorm + "
       "activation (GELU too) into _FusedMatMul/_FusedConv2D/"
       "_FusedDepthwiseConv2dNative, layer norms into _MklLayerNorm",
       optimize::RunRemapper},
      {"prune", true, "remove what no output, target or stateful node needs",
       optimize::RunModelPruner},
  };
  return *passes;
}

}  // namespace

const std::vector<std::string_view>& AllPasses() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string_view>;
    for (const PassInfo& p : Passes()) v->push_back(p.name);
    return v;
  }();
  return *names;
}

const std::vector<std::string_view>& DefaultPasses() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string_view>;
    for (const PassInfo& p : Passes()) {
      if (p.by_default) v->push_back(p.name);
    }
    return v;
  }();
  return *names;
}

std::string DescribePasses() {
  std::string out;
  for (const PassInfo& p : Passes()) {
    out += fmt::format("  {:<11} {}\n", p.name, p.summary);
  }
  return out;
}

std::string FormatRewrite(const Rewrite& r) {
  std::string line = r.pass + ": ";
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("nothing") : s;
  };
  line += join(r.nodes_in) + " -> " + join(r.nodes_out);
  if (!r.why.empty()) line += ": " + r.why;
  return line;
}

Status Optimize(tensorflow::GraphDef* graph, const OptimizeOptions& options,
                OptimizeReport* report) {
  std::vector<const PassInfo*> selected;
  std::vector<std::string> known(AllPasses().begin(), AllPasses().end());
  for (const std::string& name : options.passes) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return InvalidArgument("unknown pass '{}'{}; the passes are: {}", name,
                             DidYouMean(name, known), fmt::join(known, ", "));
    }
  }
  for (const PassInfo& p : Passes()) {
    bool wanted = options.passes.empty()
                      ? p.by_default
                      : std::find(options.passes.begin(), options.passes.end(),
                                  p.name) != options.passes.end();
    if (wanted) selected.push_back(&p);
  }
  OptimizeReport local;
  OptimizeReport* r = report != nullptr ? report : &local;
  *r = OptimizeReport();
  r->nodes_before = graph->node_size();
  tensorflow::GraphDef copy;
  if (options.unchanged_on_error) copy = *graph;
  tensorflow::GraphDef& work = options.unchanged_on_error ? copy : *graph;
  // One index of the graph, shared by the passes until one changes it.
  std::optional<optimize::GraphIndex> index(std::in_place, work);
  const auto preserve = optimize::PreservedNames(work, *index, options);
  std::vector<std::pair<std::string, int>> counts;
  const int rounds = std::max(1, options.max_rounds);
  ProgressStage stage(fmt::format("optimizing {} nodes", work.node_size()),
                      rounds * selected.size());
  for (int round = 0; round < rounds; ++round) {
    int changes = 0;
    int64_t passes_done = round * selected.size();
    for (const PassInfo* p : selected) {
      stage.Set(passes_done++);
      ProgressStage pass_stage(fmt::format("{} pass", p->name));
      PassContext ctx(&work, &preserve, &options, r, &index);
      DFG_RETURN_IF_ERROR(p->run(ctx));
      changes += ctx.changes();
      if (ctx.changes() > 0) index.reset();
      if (round == 0) {
        counts.emplace_back(std::string(p->name), work.node_size());
      }
    }
    if (changes == 0) break;
  }
  r->pass_node_counts = std::move(counts);
  r->nodes_after = work.node_size();
  if (options.unchanged_on_error) *graph = std::move(copy);
  return Status::Ok();
}

}  // namespace dfg
