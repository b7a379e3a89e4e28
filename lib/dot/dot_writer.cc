// Each view node becomes "n<k>" (k = its view index) inside its cluster;
// clusters are created when their first node is, so that the DOT text
// follows the graph's own node order.
#include "lib/dot/dot_writer.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "lib/base/strings.h"

namespace dfg::dot_internal {
namespace {

constexpr const char* kPalette[] = {"#F15854", "#5DA5DA", "#FAA43A",
                                    "#60BD68", "#F17CB0", "#B2912F",
                                    "#B276B2", "#DECF3F", "#4D4D4D"};

char* Mutable(const char* text) { return const_cast<char*>(text); }
char* Mutable(const std::string& text) {
  return const_cast<char*>(text.c_str());
}

// Graphviz gives "\n", "\N", "\G"... meaning inside labels; a name keeps its
// backslashes by doubling them.
std::string EscapeLabel(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string EscapeHtml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* ShapeOf(Role role) {
  switch (role) {
    case Role::kFeed:
      return "invhouse";
    case Role::kFetch:
      return "house";
    case Role::kConstant:
      return "ellipse";
    case Role::kVariable:
      return "cylinder";
    case Role::kSendRecv:
      return "cds";
    case Role::kControlFlow:
      return "hexagon";
    case Role::kFolded:
      return "box3d";
    case Role::kOp:
    case Role::kMissing:
      break;
  }
  return "box";
}

// cgraph's default ID discipline uses the address of a name's shared string
// as its id, and subgraphs are written in id order: pointer order. This one
// numbers names in creation order (even ids; anonymous objects get odd ones,
// as in the default), so clusters come out in the order they were made.
struct SequentialIds {
  Agraph_t* graph = nullptr;  // Not owned.
  std::unordered_map<std::string, IDTYPE> ids;
  // names[id / 2 - 1], as cgraph's shared strings: agwrite asks them whether
  // they are HTML strings, which only its own strings can answer.
  std::vector<char*> names;
  IDTYPE next_anonymous = 1;
};

void* IdOpen(Agraph_t* graph, Agdisc_t*) {
  auto* ids = new SequentialIds;
  ids->graph = graph;
  return ids;
}

long IdMap(void* state, int, char* name, IDTYPE* id, int create) {
  auto* ids = static_cast<SequentialIds*>(state);
  if (name == nullptr) {
    *id = ids->next_anonymous;
    ids->next_anonymous += 2;
    return 1;
  }
  auto it = ids->ids.find(name);
  if (it == ids->ids.end()) {
    if (!create) return 0;
    it = ids->ids.emplace(name, 2 * (ids->names.size() + 1)).first;
    ids->names.push_back(agstrdup(ids->graph, name));
  }
  *id = it->second;
  return 1;
}

long IdAlloc(void*, int, IDTYPE) { return 0; }
void IdFree(void*, int, IDTYPE) {}

char* IdPrint(void* state, int, IDTYPE id) {
  auto* ids = static_cast<SequentialIds*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > ids->names.size()) return nullptr;
  return ids->names[id / 2 - 1];
}

void IdClose(void* state) { delete static_cast<SequentialIds*>(state); }
void IdRegister(void*, int, void*) {}

Agiddisc_t kSequentialIdDisc = {IdOpen,  IdMap,   IdAlloc,   IdFree,
                                IdPrint, IdClose, IdRegister};
Agdisc_t kDisc = {&AgMemDisc, &kSequentialIdDisc, &AgIoDisc};

std::string_view Parent(std::string_view name) {
  size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? std::string_view()
                                         : name.substr(0, slash);
}

class Writer {
 public:
  Writer(const DotModel& model, const DotView& view,
         const WriterOptions& options)
      : model_(model), view_(view), options_(options) {}

  Agraph_t* Build() {
    Agdesc_t desc = Agdirected;
    graph_ = agopen(Mutable("G"), desc, &kDisc);
    if (graph_ == nullptr) return nullptr;
    DeclareAttributes();
    if (options_.clusters == ClusterBy::kScope) PlanScopes();
    FindCommonPrefix();
    nodes_.reserve(view_.nodes.size());
    for (size_t v = 0; v < view_.nodes.size(); ++v) AddNode(v);
    for (const ViewEdge& e : view_.edges) AddEdge(e);
    if (!clusters_.empty()) RankGlobally();  // scope clusters, once drawn
    if (!model_.devices.empty()) AddLegend();
    return graph_;
  }

 private:
  void DeclareAttributes() {
    agattr(graph_, AGRAPH, Mutable("rankdir"),
           Mutable(options_.left_to_right ? "LR" : "TB"));
    if (options_.clusters == ClusterBy::kDevice ||
        options_.clusters == ClusterBy::kPartition) {
      RankGlobally();
    }
    if (options_.fast_layout) {
      agattr(graph_, AGRAPH, Mutable("nslimit"), Mutable("1"));
      agattr(graph_, AGRAPH, Mutable("mclimit"), Mutable("0.5"));
    }
    graph_label_ = agattr(graph_, AGRAPH, Mutable("label"), Mutable(""));
    shape_ = agattr(graph_, AGNODE, Mutable("shape"), Mutable("box"));
    style_ = agattr(graph_, AGNODE, Mutable("style"), Mutable("rounded"));
    label_ = agattr(graph_, AGNODE, Mutable("label"), Mutable("\\N"));
    tooltip_ = agattr(graph_, AGNODE, Mutable("tooltip"), Mutable(""));
    fillcolor_ = agattr(graph_, AGNODE, Mutable("fillcolor"), Mutable(""));
    fontcolor_ = agattr(graph_, AGNODE, Mutable("fontcolor"), Mutable(""));
    margin_ = agattr(graph_, AGNODE, Mutable("margin"), Mutable(""));
    edge_label_ = agattr(graph_, AGEDGE,
                         Mutable(options_.edge_labels ? "label" : "tooltip"),
                         Mutable(""));
    edge_style_ = agattr(graph_, AGEDGE, Mutable("style"), Mutable(""));
    constraint_ = agattr(graph_, AGEDGE, Mutable("constraint"), Mutable(""));
  }

  // Clusters hold nodes of many ranks; the global ranking keeps the flow
  // between them top-down (dot's default ranks each cluster on its own and
  // turns edges between clusters, a Send -> Recv or a Keras layer's input,
  // upwards).
  void RankGlobally() {
    agattr(graph_, AGRAPH, Mutable("newrank"), Mutable("true"));
  }

  std::string_view ViewName(int v) const {
    const ViewNode& node = view_.nodes[v];
    return node.model_node >= 0 ? model_.nodes[node.model_node].name
                                : std::string_view(node.scope);
  }

  // The scope a node sits in: its own name when it is itself the prefix of
  // drawn names ("dense" beside "dense/MatMul", as TF draws it), else its
  // parent.
  std::string_view NodeScope(int v) const {
    std::string_view name = ViewName(v);
    if (view_.nodes[v].model_node >= 0 && prefixes_.count(name) > 0)
      return name;
    return Parent(name);
  }

  // A scope becomes a cluster when it holds at least two drawn nodes besides
  // the node named like it, and not all of them sit in one child scope: a
  // chain a -> a/b is drawn once, and neither a scope holding only a call's
  // output node (or its one control-output NoOp) and the call's body
  // (StatefulPartitionedCall_1 > StatefulPartitionedCall > functional_1)
  // nor a node and its one input (dense/BiasAdd and
  // dense/BiasAdd/ReadVariableOp) is a box of its own.
  void PlanScopes() {
    for (size_t v = 0; v < view_.nodes.size(); ++v) {
      if (view_.nodes[v].link_to >= 0) continue;
      for (std::string_view p = Parent(ViewName(v)); !p.empty();
           p = Parent(p)) {
        if (!prefixes_.insert(p).second) break;
      }
    }
    // subtree: the nodes at or under a scope; own: the node named like it;
    // no_ops: NoOps directly in it.
    std::unordered_map<std::string_view, int> subtree, own, no_ops;
    for (size_t v = 0; v < view_.nodes.size(); ++v) {
      if (view_.nodes[v].link_to >= 0) continue;
      std::string_view scope = NodeScope(v);
      const int m = view_.nodes[v].model_node;
      if (!scope.empty() && scope == ViewName(v)) {
        ++own[scope];
      } else if (!scope.empty() && m >= 0 && model_.nodes[m].op == "NoOp") {
        ++no_ops[scope];
      }
      for (std::string_view p = scope; !p.empty(); p = Parent(p)) ++subtree[p];
    }
    std::unordered_map<std::string_view, int> largest_child;
    for (auto [scope, n] : subtree) {
      int& largest = largest_child[Parent(scope)];
      largest = std::max(largest, n);
    }
    auto count = [](const auto& map, std::string_view scope) {
      auto it = map.find(scope);
      return it == map.end() ? 0 : it->second;
    };
    for (auto [scope, n] : subtree) {
      const int others = n - count(own, scope);
      const int largest = largest_child[scope];
      const bool call_wrapper =
          largest > 0 && count(no_ops, scope) == 1 && others == largest + 1;
      if (others >= 2 && largest < others && !call_wrapper) {
        drawn_scopes_.insert(scope);
      }
    }
  }

  // The scopes (with their '/') that every drawn name starts with.
  void FindCommonPrefix() {
    bool first = true;
    for (size_t v = 0; v < view_.nodes.size(); ++v) {
      if (view_.nodes[v].link_to >= 0) continue;
      std::string_view name = ViewName(v);
      if (first) {
        size_t slash = name.rfind('/');
        common_prefix_ = slash == std::string_view::npos
                             ? std::string_view()
                             : name.substr(0, slash + 1);
        first = false;
      }
      while (!common_prefix_.empty() &&
             name.substr(0, common_prefix_.size()) != common_prefix_) {
        common_prefix_ = common_prefix_.substr(0, common_prefix_.size() - 1);
        size_t slash = common_prefix_.rfind('/');
        common_prefix_ = slash == std::string_view::npos
                             ? std::string_view()
                             : common_prefix_.substr(0, slash + 1);
      }
    }
  }

  // What the label shows of view node v's name: without the scope of the
  // cluster it is drawn in (a node named like its cluster keeps its last
  // part), else without the common prefix.
  std::string_view ShownName(int v) const {
    std::string_view name = ViewName(v);
    if (options_.full_names) return name;
    std::string_view prefix = common_prefix_;
    if (options_.clusters == ClusterBy::kScope && view_.nodes[v].anchor < 0) {
      std::string_view scope = DrawnScope(NodeScope(v));
      if (scope == name) scope = DrawnScope(Parent(scope));
      if (!scope.empty() && scope.size() + 1 > prefix.size()) {
        return name.substr(scope.size() + 1);
      }
    }
    return name.substr(prefix.size());
  }

  std::string_view DrawnScope(std::string_view scope) const {
    while (!scope.empty() && drawn_scopes_.count(scope) == 0)
      scope = Parent(scope);
    return scope;
  }

  // `tooltip`: set when the label shortens the cluster's name.
  Agraph_t* Cluster(const std::string& key, const std::string& label,
                    Agraph_t* parent, const std::string& tooltip = "") {
    auto [it, added] = clusters_.emplace(key, nullptr);
    if (added) {
      it->second = agsubg(parent, Mutable("cluster_" + key), 1);
      agxset(it->second, graph_label_, Mutable(EscapeLabel(label)));
      if (!tooltip.empty()) {
        if (graph_tooltip_ == nullptr) {
          graph_tooltip_ =
              agattr(graph_, AGRAPH, Mutable("tooltip"), Mutable(""));
        }
        agxset(it->second, graph_tooltip_, Mutable(tooltip));
      }
    }
    return it->second;
  }

  Agraph_t* ScopeCluster(std::string_view scope) {
    if (scope.empty()) return graph_;
    auto it = clusters_.find(std::string(scope));
    if (it != clusters_.end()) return it->second;
    std::string_view parent = DrawnScope(Parent(scope));
    Agraph_t* parent_graph = ScopeCluster(parent);
    std::string_view label =
        parent.empty() ? scope : scope.substr(parent.size() + 1);
    // Scopes of no box of their own in between (the calls around a Keras
    // model's body): the last part names it, the whole in the tooltip.
    const size_t slash = label.rfind('/');
    if (slash != std::string_view::npos && !options_.full_names) {
      return Cluster(std::string(scope), std::string(label.substr(slash + 1)),
                     parent_graph, std::string(scope));
    }
    return Cluster(std::string(scope), std::string(label), parent_graph);
  }

  Agraph_t* ClusterOf(int v) {
    const ViewNode& node = view_.nodes[v];
    if (node.anchor >= 0) return parents_[node.anchor];
    switch (options_.clusters) {
      case ClusterBy::kNone:
        return graph_;
      case ClusterBy::kDevice: {
        if (node.device_index < 0) return graph_;
        const std::string& device = model_.devices[node.device_index];
        return Cluster(device, device, graph_);
      }
      case ClusterBy::kPartition: {
        const std::string& partition = model_.partitions[node.partition];
        return Cluster(partition, partition, graph_);
      }
      case ClusterBy::kScope:
        return ScopeCluster(DrawnScope(NodeScope(v)));
    }
    return graph_;
  }

  void AddNode(int v) {
    const ViewNode& node = view_.nodes[v];
    Agraph_t* parent = ClusterOf(v);
    Agnode_t* n = agnode(parent, Mutable("n" + std::to_string(v)), 1);
    nodes_.push_back(n);
    parents_.push_back(parent);
    agxset(n, tooltip_, Mutable(EscapeLabel(ViewName(v))));
    if (node.link_to >= 0) {  // the name alone, plain, beside its consumer
      agxset(n, label_, Mutable(EscapeLabel(ShownName(v))));
      agxset(n, shape_, Mutable("plaintext"));
      agxset(n, style_, Mutable(""));
      return;
    }
    Role role = Role::kFolded;
    std::string label;
    if (node.model_node < 0) {
      label =
          fmt::format("{}\\n({} nodes)", EscapeLabel(ShownName(v)), node.count);
    } else {
      const ModelNode& m = model_.nodes[node.model_node];
      role = m.role;
      std::string_view shown = ShownName(v);
      label = role == Role::kMissing ? EscapeLabel(shown) + "\\n(missing)"
                                     : NodeLabel(shown, m.op);
    }
    agxset(n, label_, Mutable(label));
    if (role != Role::kOp && role != Role::kMissing) {
      agxset(n, shape_, Mutable(ShapeOf(role)));
    }
    // Graphviz sizes the cds arrow too tight for two lines.
    if (role == Role::kSendRecv) agxset(n, margin_, Mutable("0.3,0.1"));
    bool filled = node.device_index >= 0;
    std::string style = role == Role::kOp        ? "rounded"
                        : role == Role::kMissing ? "dashed"
                                                 : "";
    if (filled) {
      style += style.empty() ? "filled" : ",filled";
      agxset(n, fillcolor_, Mutable(DeviceColor(node.device_index)));
      agxset(n, fontcolor_, Mutable("white"));
    }
    if (style != "rounded") agxset(n, style_, Mutable(style));
  }

  std::string EdgeLabel(const ViewEdge& e) const {
    const ModelEdge& m = model_.edges[e.model_edge];
    if (e.kind == EdgeKind::kSendRecv) {
      auto it = model_.nodes[m.src].def->attr().find("tensor_name");
      return it == model_.nodes[m.src].def->attr().end() ? "" : it->second.s();
    }
    if (e.kind == EdgeKind::kControl) return "";
    if (e.tensors > 1) return fmt::format("{} tensors", e.tensors);
    std::string label = TensorLabel(model_, m.src, m.port);
    if (m.port > 0)
      label = label.empty() ? fmt::format(":{}", m.port)
                            : fmt::format(":{} {}", m.port, label);
    return label;
  }

  void AddEdge(const ViewEdge& e) {
    Agedge_t* edge = agedge(graph_, nodes_[e.src], nodes_[e.dst], nullptr, 1);
    std::string label = EdgeLabel(e);
    if (!label.empty()) agxset(edge, edge_label_, Mutable(EscapeLabel(label)));
    if (e.kind == EdgeKind::kControl)
      agxset(edge, edge_style_, Mutable("dashed"));
    if (e.kind == EdgeKind::kSendRecv)
      agxset(edge, edge_style_, Mutable("bold"));
    if (e.kind == EdgeKind::kBack) agxset(edge, constraint_, Mutable("false"));
  }

  // TF's legend: the node count, then one row per device in its colour.
  void AddLegend() {
    std::string html =
        "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" "
        "CELLPADDING=\"4\">";
    std::string count = fmt::format("{} nodes", options_.graph_nodes);
    if (static_cast<int>(view_.nodes.size()) != options_.graph_nodes) {
      count += fmt::format(", {} drawn", view_.nodes.size());
    }
    html += "<TR><TD COLSPAN=\"2\">" + count + "</TD></TR>";
    for (size_t i = 0; i < model_.devices.size(); ++i) {
      html += fmt::format(
          "<TR><TD BGCOLOR=\"{}\"><FONT COLOR=\"white\">{}</FONT></TD>"
          "<TD>{}</TD></TR>",
          DeviceColor(i), i, EscapeHtml(model_.devices[i]));
    }
    html += "</TABLE>";
    Agraph_t* rank = agsubg(graph_, Mutable("legend"), 1);
    agsafeset(rank, Mutable("rank"), Mutable("source"), Mutable(""));
    Agnode_t* legend = agnode(rank, Mutable("legend"), 1);
    agxset(legend, shape_, Mutable("plaintext"));
    agxset(legend, style_, Mutable(""));
    char* label = agstrdup_html(graph_, Mutable(html));
    agxset(legend, label_, label);
    agstrfree(graph_, label);
  }

  const DotModel& model_;
  const DotView& view_;
  const WriterOptions& options_;
  Agraph_t* graph_ = nullptr;
  std::vector<Agnode_t*> nodes_;
  std::vector<Agraph_t*> parents_;  // per view node: its cluster or the graph
  std::map<std::string, Agraph_t*> clusters_;
  std::unordered_set<std::string_view> prefixes_;
  std::unordered_set<std::string_view> drawn_scopes_;
  std::string_view common_prefix_;  // "a/b/" or ""
  Agsym_t* graph_label_ = nullptr;
  Agsym_t* graph_tooltip_ =
      nullptr;  // declared by the first cluster needing it
  Agsym_t* shape_ = nullptr;
  Agsym_t* style_ = nullptr;
  Agsym_t* label_ = nullptr;
  Agsym_t* tooltip_ = nullptr;
  Agsym_t* fillcolor_ = nullptr;
  Agsym_t* fontcolor_ = nullptr;
  Agsym_t* margin_ = nullptr;
  Agsym_t* edge_label_ = nullptr;
  Agsym_t* edge_style_ = nullptr;
  Agsym_t* constraint_ = nullptr;
};

}  // namespace

const char* DeviceColor(int device_index) {
  return kPalette[device_index % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string NodeLabel(std::string_view name, std::string_view op) {
  std::string label = EscapeLabel(name);
  bool named_after_op = name.size() > op.size() &&
                        name.substr(0, op.size()) == op &&
                        name[op.size()] == '_';
  if (op != "NoOp" && !named_after_op) label += fmt::format("\\n({})", op);
  return label;
}

Agraph_t* BuildAgraph(const DotModel& model, const DotView& view,
                      const WriterOptions& options) {
  return Writer(model, view, options).Build();
}

}  // namespace dfg::dot_internal
