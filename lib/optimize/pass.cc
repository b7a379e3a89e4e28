#include "lib/optimize/pass.h"

#include "lib/graph/tensor_id.h"

namespace dfg::optimize {
namespace {

const std::vector<Use>& NoUses() {
  static const auto* empty = new std::vector<Use>;
  return *empty;
}

// Ops whose node is an interface of the graph: fed, fetched or crossing
// devices. They keep their names whatever a pass finds.
bool IsInterfaceOp(std::string_view op) {
  return op == "_Arg" || op == "_Retval" || op == "_Send" || op == "_Recv" ||
         op == "_HostSend" || op == "_HostRecv" || op == "Placeholder" ||
         op == "PlaceholderV2" || op == "PlaceholderWithDefault" ||
         op == "_DeviceArg" || op == "_DeviceRetval";
}

}  // namespace

GraphIndex::GraphIndex(const GraphDef& graph)
    : data_(graph.node_size()), control_(graph.node_size()) {
  by_name_.reserve(graph.node_size());
  for (int i = 0; i < graph.node_size(); ++i) {
    by_name_.emplace(graph.node(i).name(), i);
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeDef& n = graph.node(i);
    for (int k = 0; k < n.input_size(); ++k) {
      TensorIdView id = ParseTensorNameView(n.input(k));
      auto it = by_name_.find(std::string(id.node));
      if (it == by_name_.end()) continue;
      if (id.index < 0) {
        control_[it->second].push_back(i);
      } else {
        data_[it->second][id.index].push_back({i, k});
      }
    }
  }
}

int GraphIndex::Find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? -1 : it->second;
}

const std::vector<Use>& GraphIndex::DataUses(int i, int port) const {
  auto it = data_[i].find(port);
  return it == data_[i].end() ? NoUses() : it->second;
}

std::vector<Use> GraphIndex::AllDataUses(int i) const {
  std::vector<Use> all;
  for (const auto& [port, uses] : data_[i]) {
    all.insert(all.end(), uses.begin(), uses.end());
  }
  return all;
}

int GraphIndex::NumDataUses(int i) const {
  int n = 0;
  for (const auto& [port, uses] : data_[i]) n += static_cast<int>(uses.size());
  return n;
}

PassContext::PassContext(GraphDef* graph,
                         const std::unordered_set<std::string>* preserve,
                         const OptimizeOptions* options, OptimizeReport* report)
    : graph_(graph),
      ops_(&graph->library()),
      preserve_(preserve),
      options_(options),
      report_(report) {}

std::unordered_set<std::string> PreservedNames(const GraphDef& graph,
                                               const OptimizeOptions& options) {
  std::unordered_set<std::string> names(options.preserve.begin(),
                                        options.preserve.end());
  // The input graph's sinks (no data or control consumer) are its outputs
  // and targets: what a pass orphans later is not among them.
  GraphIndex index(graph);
  for (int i = 0; i < graph.node_size(); ++i) {
    if (index.NumDataUses(i) == 0 && index.ControlUses(i).empty()) {
      names.insert(graph.node(i).name());
    }
  }
  return names;
}

bool PassContext::IsPreserved(const NodeDef& node) const {
  return IsInterfaceOp(node.op()) || preserve_->contains(node.name()) ||
         IsStateful(node);
}

bool PassContext::IsStateful(const NodeDef& node) const {
  const OpDef* def = ops_.LookUpOpDef(node.op());
  return def == nullptr || def->is_stateful();
}

void PassContext::Record(std::string_view pass, std::vector<std::string> in,
                         std::vector<std::string> out, std::string why) {
  ++changes_;
  report_->rewrites.push_back(
      {std::string(pass), std::move(in), std::move(out), std::move(why)});
}

std::string Describe(const NodeDef& node) {
  return node.name() + " (" + node.op() + ")";
}

void EraseNodes(GraphDef* graph, const std::vector<bool>& dead) {
  auto* nodes = graph->mutable_node();
  int keep = 0;
  for (int i = 0; i < nodes->size(); ++i) {
    if (dead[i]) continue;
    if (keep != i) nodes->SwapElements(keep, i);
    ++keep;
  }
  while (nodes->size() > keep) nodes->RemoveLast();
}

void Rewire(GraphDef* graph, const std::vector<Use>& uses,
            const std::string& to) {
  for (const Use& u : uses) graph->mutable_node(u.node)->set_input(u.input, to);
}

// Grappler's model pruner: what no root needs goes, the roots being the
// preserved nodes and the stateful ones (a VarHandleOp only names a
// resource: it is a root only when preserved by name). One backward walk
// over data and control inputs from the roots; the rest is removed
// (a loop nothing needs goes whole).
Status RunModelPruner(PassContext& ctx) {
  GraphDef& g = ctx.graph();
  GraphIndex index(g);
  std::vector<bool> needed(g.node_size(), false);
  std::vector<int> stack;
  for (int i = 0; i < g.node_size(); ++i) {
    const NodeDef& n = g.node(i);
    bool root = n.op() == "VarHandleOp" ? ctx.IsNamedPreserved(n.name())
                                        : ctx.IsPreserved(n);
    if (root) {
      needed[i] = true;
      stack.push_back(i);
    }
  }
  while (!stack.empty()) {
    const NodeDef& n = g.node(stack.back());
    stack.pop_back();
    for (const std::string& in : n.input()) {
      std::string_view name =
          in[0] == '^' ? std::string_view(in).substr(1) : std::string_view(in);
      int p = index.Find(ParseTensorNameView(name).node);
      if (p >= 0 && !needed[p]) {
        needed[p] = true;
        stack.push_back(p);
      }
    }
  }
  std::vector<bool> dead(g.node_size(), false);
  std::vector<std::string> removed;
  for (int i = 0; i < g.node_size(); ++i) {
    if (needed[i]) continue;
    dead[i] = true;
    removed.push_back(Describe(g.node(i)));
  }
  if (removed.empty()) return Status::Ok();
  ctx.Record("prune", std::move(removed), {}, "nothing needs their values");
  EraseNodes(&g, dead);
  return Status::Ok();
}

}  // namespace dfg::optimize
