// What dfg's prune does beyond TensorFlow's: the placeholder convention's
// feed nodes, dropping colocation entries that name removed nodes (the placer
// would fail on them), dropping library functions nothing uses (both for
// Prune's Graph and PruneUnused's GraphDef), and marking nodes whose
// consumers were pruned (for `dfg partition`'s edge ids).
#include <fmt/format.h>

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/pipeline_attrs.h"
#include "lib/prune/prune_internal.h"

namespace dfg::prune_internal {
namespace {

constexpr std::string_view kColocationPrefix = "loc:@";
const std::string kClassAttr = "_class";
const std::string kOutputShapesAttr = "_output_shapes";

const AttrValue* FindAttr(const NodeDef& def, const std::string& name) {
  auto it = def.attr().find(name);
  return it == def.attr().end() ? nullptr : &it->second;
}
const AttrValue* FindAttr(const Node& node, const std::string& name) {
  return FindAttr(node.def(), name);
}

}  // namespace

bool KnownShape(const Node& node, int port,
                tensorflow::TensorShapeProto* shape) {
  if (port == 0 &&
      (node.IsPlaceholder() || node.op() == "PlaceholderWithDefault")) {
    if (const AttrValue* attr = FindAttr(node, "shape");
        attr != nullptr && attr->has_shape()) {
      *shape = attr->shape();
      return true;
    }
  }
  if (port == 0 && node.IsConstant()) {
    if (const AttrValue* attr = FindAttr(node, "value");
        attr != nullptr && attr->has_tensor()) {
      *shape = attr->tensor().tensor_shape();
      return true;
    }
  }
  if (const AttrValue* attr = FindAttr(node, kOutputShapesAttr);
      attr != nullptr && port < attr->list().shape_size()) {
    *shape = attr->list().shape(port);
    return true;
  }
  return false;
}

Node* AddFeedPlaceholder(Graph* graph, const Node& fed, int port,
                         DataType dtype) {
  NodeDef def;
  def.set_name(port == 0 ? fed.name() : fmt::format("{}_{}", fed.name(), port));
  def.set_op("Placeholder");
  // No device, as strip_unused writes it: the fed node's request is not the
  // new input's.
  auto& attrs = *def.mutable_attr();
  attrs["dtype"].set_type(dtype);
  tensorflow::TensorShapeProto shape;
  if (!KnownShape(fed, port, &shape)) shape.set_unknown_rank(true);
  if (FindAttr(fed, kOutputShapesAttr) != nullptr) {
    *attrs["_output_shapes"].mutable_list()->add_shape() = shape;
  }
  *attrs["shape"].mutable_shape() = std::move(shape);
  return graph->AddNode(std::move(def), {}, {dtype});
}

void FinalizePlaceholderNames(Graph* graph, const std::vector<Node*>& feeds,
                              const std::vector<std::string>& fed_names,
                              const std::vector<int>& ports) {
  std::unordered_set<const Node*> placeholders(feeds.begin(), feeds.end());
  std::unordered_set<std::string> taken;
  for (Node* n : graph->op_nodes()) {
    if (placeholders.count(n) == 0) taken.insert(n->name());
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i] == nullptr) continue;
    std::string base = ports[i] == 0
                           ? fed_names[i]
                           : fmt::format("{}_{}", fed_names[i], ports[i]);
    std::string name = base;
    for (int k = 1; taken.count(name) > 0; ++k) {
      name = fmt::format("{}_{}", base, k);
    }
    taken.insert(name);
    feeds[i]->mutable_def()->set_name(name);
  }
}

void DropDanglingColocations(const std::vector<NodeDef*>& nodes,
                             const std::unordered_set<std::string_view>& live,
                             PruneReport* report) {
  size_t first = report->dropped_colocations.size();
  for (NodeDef* n : nodes) {
    const AttrValue* attr = FindAttr(*n, kClassAttr);
    if (attr == nullptr || !attr->has_list()) continue;
    auto& attrs = *n->mutable_attr();
    auto* list = attrs[kClassAttr].mutable_list()->mutable_s();
    int out = 0;
    for (int i = 0; i < list->size(); ++i) {
      std::string_view entry = list->Get(i);
      if (entry.substr(0, kColocationPrefix.size()) == kColocationPrefix &&
          live.count(entry.substr(kColocationPrefix.size())) == 0) {
        report->dropped_colocations.push_back(
            fmt::format("{}: {}", n->name(), entry));
        continue;
      }
      if (out != i) list->SwapElements(out, i);
      ++out;
    }
    list->DeleteSubrange(out, list->size() - out);
    if (list->empty()) attrs.erase(kClassAttr);
  }
  size_t dropped = report->dropped_colocations.size() - first;
  if (dropped == 0) return;
  std::string which;
  for (size_t i = first; i < report->dropped_colocations.size(); ++i) {
    if (i - first == 5) {
      which += ", ...";
      break;
    }
    which += (i == first ? "" : ", ") + report->dropped_colocations[i];
  }
  report->warnings.push_back(fmt::format(
      "dropped {} colocation constraint{} naming removed nodes ({})", dropped,
      dropped == 1 ? "" : "s", which));
}

namespace {

// Names of the functions a NodeDef uses: its op when that is a library
// function, and every func-valued attr, nested ones included.
class FunctionReach {
 public:
  explicit FunctionReach(const FunctionDefLibrary& library)
      : library_(library) {
    for (int i = 0; i < library.function_size(); ++i) {
      index_.emplace(library.function(i).signature().name(), i);
    }
    reached_.assign(library.function_size(), false);
    for (const auto& gradient : library.gradient()) {
      gradients_[gradient.function_name()].push_back(&gradient.gradient_func());
    }
  }

  void AddNode(const NodeDef& node) {
    Reach(node.op());
    for (const auto& [name, value] : node.attr()) AddAttr(value);
  }

  // Follows function bodies (and gradient functions) until nothing is new.
  void Close() {
    while (!work_.empty()) {
      const tensorflow::FunctionDef& f = library_.function(work_.back());
      work_.pop_back();
      for (const NodeDef& node : f.node_def()) AddNode(node);
      for (const auto& [name, value] : f.attr()) AddAttr(value);
      auto it = gradients_.find(f.signature().name());
      if (it == gradients_.end()) continue;
      for (const std::string* gradient : it->second) Reach(*gradient);
    }
  }

  void Reach(const std::string& name) {
    auto it = index_.find(name);
    if (it == index_.end() || reached_[it->second]) return;
    reached_[it->second] = true;
    work_.push_back(it->second);
  }

  bool reached(int i) const { return reached_[i]; }

 private:
  void AddAttr(const AttrValue& value) {
    if (value.has_func()) AddFunc(value.func());
    for (const auto& func : value.list().func()) AddFunc(func);
  }
  void AddFunc(const tensorflow::NameAttrList& func) {
    Reach(func.name());
    for (const auto& [name, value] : func.attr()) AddAttr(value);
  }

  const FunctionDefLibrary& library_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::string, std::vector<const std::string*>> gradients_;
  std::vector<bool> reached_;
  std::vector<int> work_;
};

}  // namespace

void PruneLibrary(const std::vector<const NodeDef*>& nodes, bool drop_gradients,
                  FunctionDefLibrary* library, PruneReport* report) {
  if (drop_gradients) {
    library->clear_gradient();
    library->clear_registered_gradients();
  }
  if (library->function_size() == 0) return;
  FunctionReach reach(*library);
  for (const NodeDef* n : nodes) reach.AddNode(*n);
  for (const auto& registered : library->registered_gradients()) {
    reach.Reach(registered.gradient_func());
  }
  reach.Close();
  FunctionDefLibrary kept;
  std::unordered_set<std::string_view> kept_names;
  size_t first = report->dropped_functions.size();
  for (int i = 0; i < library->function_size(); ++i) {
    const std::string& name = library->function(i).signature().name();
    if (reach.reached(i)) {
      *kept.add_function() = library->function(i);
      kept_names.insert(name);
    } else {
      report->dropped_functions.push_back(name);
    }
  }
  if (report->dropped_functions.size() == first) return;
  for (const auto& gradient : library->gradient()) {
    if (kept_names.count(gradient.function_name()) > 0) {
      *kept.add_gradient() = gradient;
    }
  }
  *kept.mutable_registered_gradients() = library->registered_gradients();
  *library = std::move(kept);
}

void CleanUp(Graph* graph, PruneReport* report) {
  std::vector<NodeDef*> nodes;
  bool colocated = false;
  for (Node* n : graph->op_nodes()) {
    nodes.push_back(n->mutable_def());
    colocated = colocated || FindAttr(n->def(), kClassAttr) != nullptr;
  }
  // The names that colocations may name, only when some node has one (a
  // million-node graph without any is not indexed for nothing).
  std::unordered_set<std::string_view> live;
  if (colocated) {
    live.reserve(nodes.size());
    for (const NodeDef* n : nodes) live.insert(n->name());
    DropDanglingColocations(nodes, live, report);
  }
  PruneLibrary({nodes.begin(), nodes.end()}, /*drop_gradients=*/false,
               graph->mutable_library(), report);
}

std::vector<bool> HasConsumers(const Graph& graph) {
  std::vector<bool> has(graph.num_node_ids(), false);
  for (const Node* node : graph.op_nodes()) {
    for (const Edge* e : node->out_edges()) {
      if (e->dst->IsOp()) {
        has[node->id()] = true;
        break;
      }
    }
  }
  return has;
}

void MarkPrunedConsumers(Graph* graph, int original_ids,
                         const std::vector<bool>& had_consumers) {
  for (Node* node : graph->op_nodes()) {
    if (node->id() >= original_ids || !had_consumers[node->id()]) continue;
    bool has_consumer = false;
    for (const Edge* e : node->out_edges()) {
      if (e->dst->IsOp() && e->dst->id() < original_ids) {
        has_consumer = true;
        break;
      }
    }
    if (!has_consumer) {
      (*node->mutable_def()->mutable_attr())[kConsumersPrunedAttr].set_b(true);
    }
  }
}

}  // namespace dfg::prune_internal
