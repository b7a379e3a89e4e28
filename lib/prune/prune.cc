// RewriteGraphForExecution as TensorFlow's core/graph/subgraph.cc does it:
// validate, add feed nodes and rewire, add fetch nodes, then keep what the
// fetch and target nodes reach backwards. The name lookups go through an index
// that holds only the names prune asks about, so that a million-node graph
// costs one hash probe per node and the search is a flat array walk.
#include "lib/prune/prune.h"

#include <bitset>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "lib/base/strings.h"
#include "lib/graph/graph_import.h"
#include "lib/graph/tensor_id.h"
#include "lib/prune/prune_internal.h"

namespace dfg {
namespace {

using prune_internal::AddFeedPlaceholder;

// TensorFlow's name index (a later node with the same name overwrites an
// earlier one; new feed and fetch nodes are entered as they are created),
// restricted to the names this prune asks about.
class NameIndex {
 public:
  void Want(const std::string& name) {
    map_.emplace(name, nullptr);
    if (name.size() < kLengths) {
      lengths_[name.size()] = true;
    } else {
      long_names_ = true;
    }
  }
  // Last id first, so the first node found is the one TensorFlow's index
  // keeps (the last of a name), and the scan stops once every name is found:
  // fetches and targets usually sit near the end of the graph.
  void Scan(const Graph& graph) {
    size_t missing = map_.size();
    for (int id = graph.num_node_ids() - 1; id >= 0 && missing > 0; --id) {
      // The scan is bound by memory latency (node, then its name): fetch
      // both a few nodes ahead.
      if (Node* ahead = graph.FindNodeId(id - 16)) __builtin_prefetch(ahead);
      if (Node* ahead = graph.FindNodeId(id - 8)) {
        __builtin_prefetch(&ahead->name());
      }
      Node* node = graph.FindNodeId(id);
      if (node == nullptr) continue;
      size_t size = node->name().size();
      if (size < kLengths ? !lengths_[size] : !long_names_) continue;
      auto it = map_.find(node->name());
      if (it == map_.end() || it->second != nullptr) continue;
      it->second = node;
      --missing;
    }
  }
  Node* Find(const std::string& name) const {
    auto it = map_.find(name);
    return it == map_.end() ? nullptr : it->second;
  }
  void Set(Node* node) { map_[node->name()] = node; }

 private:
  static constexpr size_t kLengths = 256;
  std::unordered_map<std::string, Node*> map_;
  std::bitset<kLengths> lengths_;
  bool long_names_ = false;
};

// " (did you mean 'x'?)" against every op node name; only on error paths.
std::string Suggest(const Graph& graph, std::string_view name) {
  std::vector<std::string> names;
  for (Node* node : graph.op_nodes()) names.push_back(node->name());
  return DidYouMean(name, names);
}

Status CheckRequest(const PruneOptions& options) {
  if (options.fetches.empty() && options.targets.empty()) {
    return InvalidArgument(
        "Must specify at least one target to fetch or execute.");
  }
  std::unordered_set<std::string_view> endpoints;
  for (const std::string& feed : options.feeds) {
    if (!endpoints.insert(feed).second) {
      return InvalidArgument("Endpoint \"{}\" fed more than once.", feed);
    }
  }
  for (const std::string& fetch : options.fetches) {
    if (endpoints.count(fetch) > 0) {
      return InvalidArgument("{} is both fed and fetched.", fetch);
    }
  }
  return Status::Ok();
}

// DirectSession's message for a negative (control) index.
Status NoSuchOutput(const Node& node, int index) {
  return OutOfRange(
      "Node '{}' (type: '{}', num of outputs: {}) does not have output {}",
      node.name(), node.op(), node.num_outputs(), index);
}

void SetAttr(NodeDef* def, const char* name, DataType type) {
  (*def->mutable_attr())[name].set_type(type);
}
void SetAttr(NodeDef* def, const char* name, int64_t value) {
  (*def->mutable_attr())[name].set_i(value);
}
void SetAttr(NodeDef* def, const char* name, const std::string& value) {
  (*def->mutable_attr())[name].set_s(value);
}

class Rewriter {
 public:
  Rewriter(Graph* graph, const PruneOptions& options, PruneReport* report)
      : graph_(graph), options_(options), report_(report) {}

  Status Run() {
    DFG_RETURN_IF_ERROR(CheckRequest(options_));
    BuildIndex();
    first_created_id_ = graph_->num_node_ids();
    DFG_RETURN_IF_ERROR(FeedInputs());
    DFG_RETURN_IF_ERROR(FetchOutputs());
    DFG_RETURN_IF_ERROR(CollectTargets());
    PruneForReverseReachability();
    FixupSourceAndSinkEdges(graph_);
    if (options_.convention == Convention::kPlaceholder) {
      prune_internal::FinalizePlaceholderNames(graph_, LiveFeedNodes(),
                                               fed_names_, fed_ports_);
    }
    prune_internal::CleanUp(graph_, report_);
    FillCreated();
    return Status::Ok();
  }

 private:
  void BuildIndex() {
    for (const auto* list :
         {&options_.feeds, &options_.fetches, &options_.targets}) {
      for (const std::string& name : *list) {
        index_.Want(ParseTensorName(name).node);
      }
    }
    index_.Scan(*graph_);
  }

  Status FeedInputs() {
    for (size_t i = 0; i < options_.feeds.size(); ++i) {
      const std::string& t = options_.feeds[i];
      TensorId id = ParseTensorName(t);
      Node* n = index_.Find(id.node);
      if (n == nullptr) {
        return NotFound("FeedInputs: unable to find feed output {}{}", t,
                        Suggest(*graph_, id.node));
      }
      if (id.index < 0) return NoSuchOutput(*n, id.index);
      if (id.index >= n->num_outputs()) {
        return InvalidArgument("FeedInputs: {} should have output index < {}",
                               t, n->num_outputs());
      }
      DataType type = BaseType(n->output_type(id.index));
      Node* feed = AddFeedNode(*n, id.index, static_cast<int>(i), type);
      graph_->AddControlEdge(graph_->source_node(), feed);
      Rewire(n, id.index, feed);
      feed_nodes_.push_back(feed);
      Record(feed, t, /*is_feed=*/true);
      fed_names_.push_back(n->name());
      fed_ports_.push_back(id.index);
      report_->feed_types.push_back(type);
    }
    return Status::Ok();
  }

  Node* AddFeedNode(const Node& n, int port, int i, DataType type) {
    NodeDef def;
    Node* node = nullptr;
    switch (options_.convention) {
      case Convention::kPlaceholder:
        return AddFeedPlaceholder(graph_, n, port, type);
      case Convention::kFunction:
        def.set_name(fmt::format("_arg_{}_{}_{}", n.name(), port, i));
        def.set_op("_Arg");
        SetAttr(&def, "T", type);
        SetAttr(&def, "index", int64_t{i});
        break;
      case Convention::kRendezvous:
        def.set_name(fmt::format("_recv_{}_{}", n.name(), port));
        def.set_op("_Recv");
        SetAttr(&def, "tensor_type", type);
        SetAttr(&def, "tensor_name", options_.feeds[i]);
        SetRendezvousAttrs(&def);
        break;
    }
    node = graph_->AddNode(std::move(def), {}, {type});
    node->set_assigned_device_name(options_.client_device);
    index_.Set(node);
    return node;
  }

  void SetRendezvousAttrs(NodeDef* def) const {
    SetAttr(def, "send_device", options_.client_device);
    SetAttr(def, "recv_device", options_.client_device);
    SetAttr(def, "send_device_incarnation", options_.client_incarnation);
    (*def->mutable_attr())["client_terminated"].set_b(true);
  }

  // Moves n's out-edges from `port` (and, for a Placeholder, its control
  // out-edges) to `feed`, in edge-id order.
  void Rewire(Node* n, int port, Node* feed) {
    bool move_control = n->IsPlaceholder();
    std::vector<const Edge*> moving;
    for (const Edge* e : n->out_edges()) {
      if (e->src_output == port ||
          (move_control && e->src_output == kControlSlot)) {
        moving.push_back(e);
      }
    }
    for (const Edge* e : moving) {
      if (e->src_output == port) {
        graph_->AddEdge(feed, 0, e->dst, e->dst_input);
      } else {
        graph_->AddControlEdge(feed, e->dst);
      }
    }
    // Last first: each removal then shifts little of n's out-edge list (in
    // id order), instead of all of it for a feed read by a million nodes.
    for (auto it = moving.rbegin(); it != moving.rend(); ++it) {
      graph_->RemoveEdge(*it);
    }
  }

  Status FetchOutputs() {
    for (size_t j = 0; j < options_.fetches.size(); ++j) {
      const std::string& t = options_.fetches[j];
      TensorId id = ParseTensorName(t);
      Node* n = index_.Find(id.node);
      if (n == nullptr) {
        return NotFound("FetchOutputs node {}: not found{}", t,
                        Suggest(*graph_, id.node));
      }
      if (id.index < 0) return NoSuchOutput(*n, id.index);
      if (n->num_outputs() == 0) {
        return InvalidArgument(
            "Tried to fetch data for '{}', which produces no output.  To run "
            "to a node but not fetch any data, pass '{}' as an argument to "
            "the 'target_node_names' argument of the Session::Run API.",
            t, t);
      }
      if (id.index >= n->num_outputs()) {
        return InvalidArgument(
            "FetchOutputs {}: output index too large, must be < {}", t,
            n->num_outputs());
      }
      DataType type = BaseType(n->output_type(id.index));
      report_->fetch_types.push_back(type);
      if (options_.convention == Convention::kPlaceholder) {
        fetch_nodes_.push_back(n);  // kept as it is
        continue;
      }
      Node* fetch = AddFetchNode(n, id.index, static_cast<int>(j), type);
      graph_->AddControlEdge(fetch, graph_->sink_node());
      fetch_nodes_.push_back(fetch);
      Record(fetch, t, /*is_feed=*/false);
    }
    return Status::Ok();
  }

  Node* AddFetchNode(Node* n, int port, int j, DataType type) {
    NodeDef def;
    def.add_input(InputString(n->name(), port));
    SetAttr(&def, "T", type);
    if (options_.convention == Convention::kFunction) {
      def.set_name(fmt::format("_retval_{}_{}_{}", n->name(), port, j));
      def.set_op("_Retval");
      SetAttr(&def, "index", int64_t{j});
    } else {
      def.set_name(fmt::format("_send_{}_{}", n->name(), port));
      def.set_op("_Send");
      SetAttr(&def, "tensor_name", options_.fetches[j]);
      SetRendezvousAttrs(&def);
    }
    Node* node = graph_->AddNode(std::move(def), {type}, {});
    graph_->AddEdge(n, port, node, 0);
    node->set_assigned_device_name(options_.client_device);
    index_.Set(node);
    return node;
  }

  // TensorFlow finds each fetch node again by its name, so of two rendezvous
  // fetch nodes with one name only the later is a target (the earlier one is
  // then pruned, as in TensorFlow).
  Status CollectTargets() {
    std::string not_found, suggestions;
    for (size_t j = 0; j < fetch_nodes_.size(); ++j) {
      Node* n = options_.convention == Convention::kPlaceholder
                    ? fetch_nodes_[j]
                    : index_.Find(fetch_nodes_[j]->name());
      AddSeed(n, &options_.fetches[j]);
    }
    for (const std::string& target : options_.targets) {
      TensorId id = ParseTensorName(target);
      Node* n = index_.Find(id.node);
      if (n != nullptr) {
        AddSeed(n, &target);
        continue;
      }
      not_found += target + " ";
      std::string hint = Suggest(*graph_, id.node);
      if (!hint.empty()) {
        suggestions += fmt::format(" '{}'{}", target, hint);
      }
    }
    if (!not_found.empty()) {
      return NotFound("PruneForTargets: Some target nodes not found: {}{}",
                      not_found, suggestions);
    }
    return Status::Ok();
  }

  void AddSeed(Node* n, const std::string* label) {
    seeds_.push_back(n);
    labels_.push_back(label);
  }

  // Breadth-first over in-edges (data and control, back edges included) from
  // the targets; every op node not reached is removed.
  void PruneForReverseReachability() {
    int num_ids = graph_->num_node_ids();
    visited_.assign(num_ids, false);
    std::vector<bool>& visited = visited_;
    std::vector<int> reason;
    if (options_.explain) reason.assign(num_ids, -1);
    std::vector<Node*> queue;
    for (size_t s = 0; s < seeds_.size(); ++s) {
      Node* n = seeds_[s];
      if (visited[n->id()]) continue;
      visited[n->id()] = true;
      if (options_.explain) reason[n->id()] = static_cast<int>(s);
      queue.push_back(n);
    }
    for (size_t head = 0; head < queue.size(); ++head) {
      Node* n = queue[head];
      for (const Edge* e : n->in_edges()) {
        int src = e->src->id();
        if (visited[src]) continue;
        visited[src] = true;
        if (options_.explain) reason[src] = reason[n->id()];
        queue.push_back(e->src);
      }
    }
    if (options_.explain) Explain(visited, reason);
    graph_->RemoveNodes(visited);
  }

  void Explain(const std::vector<bool>& visited,
               const std::vector<int>& reason) {
    for (int id = 2; id < first_created_id_; ++id) {
      Node* n = graph_->FindNodeId(id);
      if (n == nullptr) continue;
      if (!visited[id]) {
        report_->removed.push_back(n->name());
      } else {
        report_->kept.push_back({n->name(), n->op(), *labels_[reason[id]]});
      }
    }
  }

  void Record(Node* n, const std::string& endpoint, bool is_feed) {
    created_.push_back({n->name(), n->op(), endpoint, is_feed, false, n->id()});
  }

  // Feed nodes that survived, null for those pruned (never dereferenced:
  // removed nodes are gone).
  std::vector<Node*> LiveFeedNodes() const {
    std::vector<Node*> live;
    for (size_t i = 0; i < feed_nodes_.size(); ++i) {
      live.push_back(visited_[created_[i].id] ? feed_nodes_[i] : nullptr);
    }
    return live;
  }

  void FillCreated() {
    for (CreatedNode& c : created_) {
      c.kept = visited_[c.id];
      if (c.kept) {
        c.name = graph_->FindNodeId(c.id)->name();  // placeholders renamed
      } else {
        c.id = -1;
      }
    }
    report_->created = std::move(created_);
  }

  Graph* graph_;  // Not owned.
  const PruneOptions& options_;
  PruneReport* report_;  // Not owned.
  NameIndex index_;
  int first_created_id_ = 0;
  std::vector<Node*> feed_nodes_;
  std::vector<std::string> fed_names_;
  std::vector<int> fed_ports_;
  std::vector<Node*> fetch_nodes_;
  std::vector<CreatedNode> created_;
  std::vector<Node*> seeds_;
  std::vector<const std::string*> labels_;
  std::vector<bool> visited_;  // by node id, after the search
};

}  // namespace

const char* ConventionName(Convention convention) {
  switch (convention) {
    case Convention::kFunction:
      return "function";
    case Convention::kRendezvous:
      return "rendezvous";
    case Convention::kPlaceholder:
      return "placeholder";
  }
  return "?";
}

bool ParseConvention(std::string_view name, Convention* convention) {
  for (Convention c : {Convention::kFunction, Convention::kRendezvous,
                       Convention::kPlaceholder}) {
    if (name == ConventionName(c)) {
      *convention = c;
      return true;
    }
  }
  return false;
}

Status RewriteGraphForExecution(Graph* graph, const PruneOptions& options,
                                PruneReport* report) {
  PruneReport ignored;
  return Rewriter(graph, options, report ? report : &ignored).Run();
}

Status PruneInPlace(GraphDef* graph, const PruneOptions& options,
                    PruneReport* report) {
  ImportOptions import_options;
  import_options.warnings = &report->warnings;
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> imported,
                       ImportGraphDef(graph, import_options));
  const int original_ids = imported->num_node_ids();
  std::vector<bool> had_consumers;
  if (options.convention != Convention::kPlaceholder) {
    had_consumers = prune_internal::HasConsumers(*imported);
  }
  DFG_RETURN_IF_ERROR(
      RewriteGraphForExecution(imported.get(), options, report));
  bool created = false;
  for (const CreatedNode& c : report->created) created |= c.kept;
  if (created && options.convention != Convention::kPlaceholder) {
    prune_internal::MarkPrunedConsumers(imported.get(), original_ids,
                                        had_consumers);
  }
  // A fresh GraphDef (only versions, library and nodes, as ToGraphDef) on
  // the same arena takes the nodes over, then takes the input's place.
  google::protobuf::Arena* arena = graph->GetArena();
  std::unique_ptr<GraphDef> owned;
  GraphDef* result = google::protobuf::Arena::CreateMessage<GraphDef>(arena);
  if (arena == nullptr) owned.reset(result);
  imported->MoveToGraphDef(result);
  imported.reset();
  graph->Swap(result);
  return Status::Ok();
}

StatusOr<PruneResult> Prune(GraphDef graph, const PruneOptions& options) {
  PruneResult result;
  DFG_RETURN_IF_ERROR(PruneInPlace(&graph, options, &result.report));
  result.graph = std::move(graph);
  return result;
}

}  // namespace dfg
