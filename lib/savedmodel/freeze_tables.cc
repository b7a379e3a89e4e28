// Lookup tables through dfg freeze: find the tables a signature needs, the
// initializers the init op runs on them, and rebuild those initializers on
// Consts.
#include "lib/savedmodel/freeze_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/tensor_id.h"
#include "lib/prune/prune_unused.h"
#include "lib/savedmodel/loader.h"

namespace dfg {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

bool IsInitializableTable(const std::string& op) {
  return op == "HashTable" || op == "HashTableV2";
}

bool IsMutableTable(const std::string& op) {
  return op.rfind("MutableHashTable", 0) == 0 ||
         op.rfind("MutableDenseHashTable", 0) == 0;
}

// Initializers whose every input after the table handle is a tensor value.
bool IsTableInitializer(const std::string& op) {
  static const std::set<std::string> ops = {"InitializeTable",
                                            "InitializeTableV2",
                                            "LookupTableImport",
                                            "LookupTableImportV2",
                                            "InitializeTableFromTextFile",
                                            "InitializeTableFromTextFileV2"};
  return ops.count(op) > 0;
}

std::string_view NodeOf(std::string_view input) {
  if (!input.empty() && input[0] == '^') input.remove_prefix(1);
  return ParseTensorNameView(input).node;
}

class NodeIndex {
 public:
  explicit NodeIndex(const GraphDef& graph) {
    for (const NodeDef& n : graph.node()) by_name_[n.name()] = &n;
  }
  const NodeDef* Find(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
  }
  // The tensor `input` names, followed back through Identity nodes.
  std::string Source(const std::string& input) const {
    TensorId id = ParseTensorName(input);
    for (const NodeDef* n = Find(id.node);
         n != nullptr && n->op() == "Identity" && n->input_size() > 0 &&
         id.index == 0;
         n = Find(id.node)) {
      id = ParseTensorName(n->input(0));
    }
    return InputString(id.node, id.index);
  }

 private:
  std::unordered_map<std::string, const NodeDef*> by_name_;
};

// The argument name of an initializer's input i (>= 1), as its op names it.
std::string ArgumentName(const std::string& op, int i) {
  if (op.find("TextFile") != std::string::npos) return "filename";
  return i == 1 ? "keys" : "values";
}

}  // namespace

void RenameNode(GraphDef* graph, const std::string& from,
                const std::string& to) {
  for (NodeDef& n : *graph->mutable_node()) {
    if (n.name() == from) n.set_name(to);
    for (std::string& in : *n.mutable_input()) {
      bool control = in[0] == '^';
      TensorIdView id = ParseTensorNameView(
          control ? std::string_view(in).substr(1) : std::string_view(in));
      if (id.node != from) continue;
      in = control ? "^" + to
                   : (id.index == 0 && in.find(':') == std::string::npos
                          ? to
                          : to + ":" + std::to_string(id.index));
    }
    auto cls = n.mutable_attr()->find("_class");
    if (cls == n.mutable_attr()->end()) continue;
    for (std::string& s : *cls->second.mutable_list()->mutable_s()) {
      if (s == "loc:@" + from) s = "loc:@" + to;
    }
  }
}

StatusOr<std::vector<std::string>> FindTables(
    const GraphDef& graph, const std::vector<std::string>& needed,
    const std::string& where) {
  std::unordered_set<std::string> set(needed.begin(), needed.end());
  std::vector<std::string> tables;
  for (const NodeDef& n : graph.node()) {
    if (!set.count(n.name())) continue;
    if (IsMutableTable(n.op())) {
      return InvalidArgument(
          "{}: node '{}' ({}) is a mutable lookup table; dfg freeze cannot "
          "carry its contents into a GraphDef",
          where, n.name(), n.op());
    }
    if (IsInitializableTable(n.op())) tables.push_back(n.name());
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

StatusOr<std::vector<TableInitializer>> FindTableInitializers(
    GraphDef* graph, FunctionInliner* inliner,
    const std::vector<std::string>& tables, const std::string& init_op,
    const std::string& where) {
  if (init_op.empty()) {
    return InvalidArgument(
        "{}: node '{}' is a lookup table and the SavedModel has no init op "
        "to fill it",
        where, tables.front());
  }
  DFG_RETURN_IF_ERROR(inliner->InlineCallsNeededBy({"^" + init_op}));
  std::vector<std::string> run = NeededNodes(*graph, {"^" + init_op});
  std::sort(run.begin(), run.end());
  const NodeIndex g(*graph);
  const std::set<std::string> wanted(tables.begin(), tables.end());
  std::vector<TableInitializer> inits;
  std::set<std::string> filled;
  for (const std::string& name : run) {
    const NodeDef& n = *g.Find(name);
    if (n.input_size() == 0 || NodeOf(n.input(0)) == "") continue;
    const std::string table(NodeOf(g.Source(n.input(0))));
    if (!wanted.count(table)) continue;
    if (n.op() == "InitializeTableFromDataset") {
      return InvalidArgument(
          "{}: lookup table '{}' is filled from a dataset ('{}'); dfg freeze "
          "cannot carry that into a GraphDef",
          where, table, name);
    }
    if (!IsTableInitializer(n.op())) continue;
    TableInitializer init{name, table, {}};
    for (int i = 1; i < n.input_size() && n.input(i)[0] != '^'; ++i) {
      init.sources.push_back(g.Source(n.input(i)));
    }
    filled.insert(table);
    inits.push_back(std::move(init));
  }
  for (const std::string& table : tables) {
    if (!filled.count(table)) {
      return InvalidArgument(
          "{}: node '{}' is a lookup table that the init op '{}' does not "
          "initialize; dfg freeze cannot tell its contents",
          where, table, init_op);
    }
  }
  return inits;
}

std::string AddTableInitializers(
    GraphDef* graph, const std::vector<TableInitializer>& inits,
    const std::vector<std::vector<Tensor>>& values) {
  std::unordered_set<std::string> names;
  for (const NodeDef& n : graph->node()) names.insert(n.name());
  auto unique = [&](const std::string& base) {
    std::string name = base;
    for (int i = 1; names.count(name); ++i) {
      name = base + "_" + std::to_string(i);
    }
    names.insert(name);
    return name;
  };
  const std::string init_name = kTablesInitializerName;
  if (names.count(init_name)) {
    RenameNode(graph, init_name, unique(init_name));
    names.erase(init_name);
  }
  std::map<std::string, int> index;
  for (int i = 0; i < graph->node_size(); ++i) {
    index[graph->node(i).name()] = i;
  }
  std::vector<NodeDef> consts;
  for (size_t k = 0; k < inits.size(); ++k) {
    NodeDef* node = graph->mutable_node(index.at(inits[k].node));
    node->clear_input();
    node->add_input(inits[k].table);
    for (size_t i = 0; i < inits[k].sources.size(); ++i) {
      NodeDef c;
      c.set_name(unique(inits[k].node + "/" +
                        ArgumentName(node->op(), static_cast<int>(i) + 1)));
      c.set_op("Const");
      c.set_device(node->device());
      (*c.mutable_attr())["dtype"].set_type(values[k][i].dtype());
      values[k][i].ToProto((*c.mutable_attr())["value"].mutable_tensor());
      node->add_input(c.name());
      consts.push_back(std::move(c));
    }
  }
  for (NodeDef& c : consts) *graph->add_node() = std::move(c);
  NodeDef* init = graph->add_node();
  init->set_name(init_name);
  init->set_op("NoOp");
  for (const TableInitializer& t : inits) init->add_input("^" + t.node);
  return init_name;
}

}  // namespace dfg
