// PruneUnused over a GraphDef: an ancestor walk by name, then prune's own
// colocation and library clean-ups.
#include "lib/prune/prune_unused.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/tensor_id.h"
#include "lib/prune/prune_internal.h"

namespace dfg {

std::vector<std::string> NeededNodes(const GraphDef& graph,
                                     const std::vector<std::string>& roots) {
  std::unordered_map<std::string_view, const NodeDef*> by_name;
  for (const NodeDef& node : graph.node()) by_name[node.name()] = &node;
  std::unordered_set<std::string_view> seen;
  std::vector<const NodeDef*> stack;
  auto visit = [&](std::string_view name) {
    auto it = by_name.find(name);
    if (it != by_name.end() && seen.insert(it->first).second) {
      stack.push_back(it->second);
    }
  };
  for (const std::string& root : roots) {
    visit(ParseTensorNameView(root[0] == '^' ? root.substr(1) : root).node);
  }
  while (!stack.empty()) {
    const NodeDef* node = stack.back();
    stack.pop_back();
    for (const std::string& input : node->input()) {
      std::string_view in = input;
      if (!in.empty() && in[0] == '^') in.remove_prefix(1);
      visit(ParseTensorNameView(in).node);
    }
  }
  return {seen.begin(), seen.end()};
}

void PruneUnused(GraphDef* graph, const PruneUnusedOptions& options,
                 PruneReport* report) {
  PruneReport unused_report;
  if (report == nullptr) report = &unused_report;
  std::vector<std::string> needed = NeededNodes(*graph, options.roots);
  std::unordered_set<std::string> keep(needed.begin(), needed.end());
  keep.insert(options.keep.begin(), options.keep.end());
  google::protobuf::RepeatedPtrField<NodeDef> kept;
  for (NodeDef& node : *graph->mutable_node()) {
    if (keep.count(node.name()) > 0) *kept.Add() = std::move(node);
  }
  graph->mutable_node()->Swap(&kept);

  std::vector<NodeDef*> nodes;
  std::unordered_set<std::string_view> live;
  for (NodeDef& node : *graph->mutable_node()) {
    nodes.push_back(&node);
    live.insert(node.name());
  }
  prune_internal::DropDanglingColocations(nodes, live, report);
  prune_internal::PruneLibrary({nodes.begin(), nodes.end()},
                               options.drop_gradients, graph->mutable_library(),
                               report);
  const FunctionDefLibrary& library = graph->library();
  if (library.function_size() == 0 && library.gradient_size() == 0 &&
      library.registered_gradients_size() == 0) {
    graph->clear_library();
  }
}

}  // namespace dfg
