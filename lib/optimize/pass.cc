#include "lib/optimize/pass.h"

#include "lib/graph/tensor_id.h"

namespace dfg::optimize {
namespace {

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
    : names_(graph.node_size(),
             [&graph](int i) -> const std::string& {
               return graph.node(i).name();
             }),
      graph_(&graph) {
  const int n = graph.node_size();
  // Two sweeps: count each producer's consumers, then place them.
  struct Edge {
    int producer, consumer, input, port;
  };
  std::vector<Edge> edges;
  edges.reserve(n);
  const bool unique = names_.unique();
  first_input_.reserve(n + 1);
  producers_.reserve(n);
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = graph.node(i);
    first_input_.push_back(static_cast<int>(producers_.size()));
    for (int k = 0; k < node.input_size(); ++k) {
      TensorIdView id = ParseTensorNameView(node.input(k));
      // Most graphs list a node right after its first producer (a chain,
      // a layer's ops): that name is compared before the table is probed
      // (when names are unique, the node before is the one Find gives).
      const int producer =
          i > 0 && unique && graph.node(i - 1).name() == id.node
              ? i - 1
              : Find(id.node);
      producers_.push_back(producer);
      if (producer >= 0) edges.push_back({producer, i, k, id.index});
    }
  }
  first_input_.push_back(static_cast<int>(producers_.size()));
  first_use_.assign(n + 1, 0);
  first_control_.assign(n + 1, 0);
  for (const Edge& e : edges) {
    ++(e.port < 0 ? first_control_ : first_use_)[e.producer + 1];
  }
  for (int i = 0; i < n; ++i) {
    first_use_[i + 1] += first_use_[i];
    first_control_[i + 1] += first_control_[i];
  }
  uses_.resize(first_use_[n]);
  controls_.resize(first_control_[n]);
  std::vector<int> next_use(first_use_.begin(), first_use_.end() - 1);
  std::vector<int> next_control(first_control_.begin(),
                                first_control_.end() - 1);
  for (const Edge& e : edges) {
    if (e.port < 0) {
      controls_[next_control[e.producer]++] = e.consumer;
    } else {
      uses_[next_use[e.producer]++] = {e.consumer, e.input, e.port};
    }
  }
}

bool HasOp(const GraphDef& graph, std::initializer_list<std::string_view> ops) {
  for (const NodeDef& node : graph.node()) {
    for (std::string_view op : ops) {
      if (node.op() == op) return true;
    }
  }
  return false;
}

int GraphIndex::Find(std::string_view name) const { return names_.Find(name); }

int GraphIndex::ProducerByName(int i, int k) const {
  std::string_view in = graph_->node(i).input(k);
  if (!in.empty() && in[0] == '^') in.remove_prefix(1);
  return Find(ParseTensorNameView(in).node);
}

std::vector<Use> GraphIndex::DataUses(int i, int port) const {
  std::vector<Use> out;
  for (const Use& u : AllDataUses(i)) {
    if (u.port == port) out.push_back(u);
  }
  return out;
}

PassContext::PassContext(GraphDef* graph,
                         const std::unordered_set<std::string>* preserve,
                         const OptimizeOptions* options, OptimizeReport* report,
                         std::optional<GraphIndex>* index)
    : graph_(graph),
      ops_(&graph->library()),
      preserve_(preserve),
      options_(options),
      report_(report),
      index_(index) {}

const GraphIndex& PassContext::Index() {
  // The node count guards against a pass that changed the graph without
  // recording it; the driver drops the index after any recorded change.
  if (!index_->has_value() || (*index_)->num_nodes() != graph_->node_size()) {
    index_->emplace(*graph_);
  }
  return **index_;
}

std::unordered_set<std::string> PreservedNames(const GraphDef& graph,
                                               const GraphIndex& index,
                                               const OptimizeOptions& options) {
  std::unordered_set<std::string> names(options.preserve.begin(),
                                        options.preserve.end());
  // The input graph's sinks (no data or control consumer) are its outputs
  // and targets: what a pass orphans later is not among them.
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
  if (!recording()) return;
  report_->rewrites.push_back(
      {std::string(pass), std::move(in), std::move(out), std::move(why)});
}

const tensorflow::AttrValue* Attr(const NodeDef& n, const char* name) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? nullptr : &it->second;
}

std::optional<Tensor> ConstValue(const NodeDef& n) {
  if (n.op() != "Const") return std::nullopt;
  const tensorflow::AttrValue* v = Attr(n, "value");
  if (v == nullptr) return std::nullopt;
  StatusOr<Tensor> t = Tensor::FromProto(v->tensor());
  if (!t.ok()) return std::nullopt;
  return std::move(t).value();
}

bool OnCpu(const NodeDef& n) {
  const std::string& d = n.device();
  return d.empty() || d.find("CPU") != std::string::npos ||
         d.find("cpu") != std::string::npos;
}

std::vector<std::string> DataInputs(const NodeDef& n) {
  std::vector<std::string> v;
  for (const std::string& in : n.input()) {
    if (in.empty() || in[0] != '^') v.push_back(in);
  }
  return v;
}

void SetConstValue(NodeDef* n, const Tensor& value) {
  n->set_op("Const");
  n->clear_attr();
  (*n->mutable_attr())["dtype"].set_type(value.dtype());
  value.ToProto((*n->mutable_attr())["value"].mutable_tensor(),
                /*use_tensor_content=*/value.NumElements() > 4);
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
  const GraphIndex& index = ctx.Index();
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
    const int i = stack.back();
    stack.pop_back();
    for (int k = 0; k < g.node(i).input_size(); ++k) {
      const int p = index.Producer(i, k);
      if (p >= 0 && !needed[p]) {
        needed[p] = true;
        stack.push_back(p);
      }
    }
  }
  std::vector<bool> dead(g.node_size(), false);
  std::vector<std::string> removed;
  int num_removed = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    if (needed[i]) continue;
    dead[i] = true;
    ++num_removed;
    if (ctx.recording()) removed.push_back(Describe(g.node(i)));
  }
  if (num_removed == 0) return Status::Ok();
  ctx.Record("prune", std::move(removed), {}, "nothing needs their values");
  EraseNodes(&g, dead);
  return Status::Ok();
}

}  // namespace dfg::optimize
