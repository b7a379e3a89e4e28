#include "lib/partition/client_graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/graph/pipeline_attrs.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg {
namespace {

bool ClientTerminated(const NodeDef& node) {
  auto it = node.attr().find("client_terminated");
  return it != node.attr().end() && it->second.b();
}

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The nodes RewriteGraphForExecution adds, by op and by TensorFlow's names
// for them: _Arg "_arg_..." or client-terminated _Recv "_recv_..." for a
// feed, _Retval "_retval_..." or _Send "_send_..." for a fetch.
bool IsFeedNode(const NodeDef& node) {
  if (node.op() == "_Arg") return StartsWith(node.name(), "_arg_");
  return node.op() == "_Recv" && StartsWith(node.name(), "_recv_") &&
         ClientTerminated(node);
}
bool IsFetchNode(const NodeDef& node) {
  if (node.op() == "_Retval") return StartsWith(node.name(), "_retval_");
  return node.op() == "_Send" && StartsWith(node.name(), "_send_") &&
         ClientTerminated(node);
}

// Removes kConsumersPrunedAttr; true if it was set.
bool TakeConsumersPruned(NodeDef* node) {
  auto* attr = node->mutable_attr();
  auto it = attr->find(kConsumersPrunedAttr);
  if (it == attr->end()) return false;
  bool value = it->second.b();
  attr->erase(it);
  return value;
}

int CountRewriteNodes(const GraphDef& def) {
  int count = 0;
  for (int i = def.node_size() - 1; i >= 0; --i) {
    if (!IsFeedNode(def.node(i)) && !IsFetchNode(def.node(i))) break;
    ++count;
  }
  return count;
}

// Rebuilds G1 (client_graph.h) from the imported graph: which node is which,
// and the order TensorFlow's import gave the kept nodes.
class ClientGraphBuilder {
 public:
  ClientGraphBuilder(Graph* imported, std::vector<int> position,
                     int first_rewrite)
      : in_(imported),
        position_(std::move(position)),
        first_rewrite_(first_rewrite) {}

  std::unique_ptr<Graph> Build() {
    // Node defs move into the new graph: read them first.
    feed_.assign(in_->num_node_ids(), false);
    consumers_pruned_.assign(in_->num_node_ids(), false);
    for (Node* node : in_->op_nodes()) {
      feed_[node->id()] = IsRewrite(node) && IsFeedNode(node->def());
      consumers_pruned_[node->id()] = TakeConsumersPruned(node->mutable_def());
    }
    OrderKeptNodes();
    out_ = std::make_unique<Graph>(in_->arena());
    *out_->mutable_versions() = in_->versions();
    out_->mutable_library()->Swap(in_->mutable_library());
    out_->mutable_debug_info()->Swap(in_->mutable_debug_info());
    copy_.assign(in_->num_node_ids(), nullptr);
    copy_[0] = out_->source_node();
    copy_[1] = out_->sink_node();
    for (Node* node : kept_) CopyNode(node);
    for (Node* node : rewrite_) CopyNode(node);
    AddKeptEdges();
    AddImportFixupEdges();
    for (Node* node : rewrite_) AddRewriteEdges(node);
    // PruneForTargets ends with FixupSourceAndSinkEdges.
    FixupSourceAndSinkEdges(out_.get());
    return std::move(out_);
  }

 private:
  bool IsRewrite(const Node* node) const {
    return position_[node->id()] >= first_rewrite_;
  }
  bool IsFeed(const Node* node) const { return feed_[node->id()]; }
  bool IsKept(const Node* node) const {
    return node->IsOp() && !IsRewrite(node);
  }

  // TensorFlow's import order (GraphConstructor::Convert: ready nodes by
  // GraphDef index, a Merge fed by a NextIteration ready after its control
  // inputs and one data input) of the graph without the feed nodes: an input
  // from a fed node was there before its consumer.
  void OrderKeptNodes() {
    std::vector<Node*> at(position_.size() + 2, nullptr);
    std::vector<int> pending(in_->num_node_ids(), 0);
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (Node* node : in_->op_nodes()) {
      if (IsRewrite(node)) {
        at[position_[node->id()]] = node;
        continue;
      }
      at[position_[node->id()]] = node;
      int inputs = 0, controls = 0, fed = 0;
      bool back_merge = false;
      for (const Edge* e : node->in_edges()) {
        if (!e->src->IsOp()) continue;
        ++inputs;
        if (e->IsControlEdge()) ++controls;
        if (IsRewrite(e->src)) ++fed;
        if (!e->IsControlEdge() && node->IsMerge() && e->src->IsNextIteration())
          back_merge = true;
      }
      int count = (back_merge ? controls + 1 : inputs) - fed;
      pending[node->id()] = count;
      if (count <= 0) ready.push(position_[node->id()]);
    }
    order_.assign(in_->num_node_ids(), -1);
    while (!ready.empty()) {
      Node* node = at[ready.top()];
      ready.pop();
      order_[node->id()] = static_cast<int>(kept_.size());
      kept_.push_back(node);
      for (const Edge* e : node->out_edges()) {
        if (IsKept(e->dst) && --pending[e->dst->id()] == 0) {
          ready.push(position_[e->dst->id()]);
        }
      }
    }
    // Unreachable after a successful import; keep every node regardless.
    for (Node* node : at) {
      if (node == nullptr) continue;
      if (IsRewrite(node)) {
        rewrite_.push_back(node);
      } else if (order_[node->id()] < 0) {
        order_[node->id()] = static_cast<int>(kept_.size());
        kept_.push_back(node);
      }
    }
  }

  // On an arena, the definition itself (in_ is destroyed first, never
  // deleting it); on the heap, moved into a new one.
  void CopyNode(Node* node) {
    Node* copy = in_->arena() != nullptr
                     ? out_->AdoptNode(node->mutable_def(), node->input_types(),
                                       node->output_types(), node->op_known())
                     : out_->AddNode(std::move(*node->mutable_def()),
                                     node->input_types(), node->output_types(),
                                     node->op_known());
    copy->set_assigned_device_name(node->assigned_device_name());
    copy_[node->id()] = copy;
  }

  void AddEdge(const Edge* e) {
    out_->AddEdge(copy_[e->src->id()], e->src_output, copy_[e->dst->id()],
                  e->dst_input);
  }

  // Per node in import order, its in edges as the import added them (data
  // by slot, then control by source name: the imported graph's edge order);
  // an input from a later node is a back edge, added after all nodes.
  void AddKeptEdges() {
    std::vector<const Edge*> back;
    for (Node* node : kept_) {
      for (const Edge* e : node->in_edges()) {
        if (!IsKept(e->src)) continue;
        if (order_[e->src->id()] < order_[node->id()]) {
          AddEdge(e);
        } else {
          back.push_back(e);
        }
      }
    }
    for (const Edge* e : back) AddEdge(e);
  }

  // The import's FixupSourceAndSinkEdges: a node with no inputs (a fed
  // input was one) and a node that had no consumers: none but fetch nodes
  // now, and not marked by prune as having lost them.
  void AddImportFixupEdges() {
    for (Node* node : kept_) {
      bool has_input = false;
      for (const Edge* e : node->in_edges()) has_input |= e->src->IsOp();
      bool has_consumer = false;
      for (const Edge* e : node->out_edges()) has_consumer |= IsKept(e->dst);
      Node* copy = copy_[node->id()];
      if (!has_input) {
        out_->AddEdge(out_->source_node(), kControlSlot, copy, kControlSlot);
      }
      if (!has_consumer && !consumers_pruned_[node->id()]) {
        out_->AddEdge(copy, kControlSlot, out_->sink_node(), kControlSlot);
      }
    }
  }

  // FeedInputs: the _SOURCE edge, then the fed node's out edges rewired in
  // their order (by consumer, data before control). FetchOutputs: the data
  // edge, then the _SINK edge.
  void AddRewriteEdges(Node* node) {
    Node* copy = copy_[node->id()];
    if (IsFeed(node)) {
      out_->AddEdge(out_->source_node(), kControlSlot, copy, kControlSlot);
      std::vector<const Edge*> outs;
      for (const Edge* e : node->out_edges()) {
        if (e->dst->IsOp()) outs.push_back(e);
      }
      auto key = [this](const Edge* e) {
        return std::make_tuple(order_[e->dst->id()], e->IsControlEdge(),
                               e->dst_input);
      };
      std::stable_sort(
          outs.begin(), outs.end(),
          [&](const Edge* a, const Edge* b) { return key(a) < key(b); });
      for (const Edge* e : outs) AddEdge(e);
      return;
    }
    for (const Edge* e : node->in_edges()) {
      if (e->src->IsOp() && !IsFeed(e->src)) AddEdge(e);
    }
    out_->AddEdge(copy, kControlSlot, out_->sink_node(), kControlSlot);
  }

  Graph* in_;                  // Not owned.
  std::vector<int> position_;  // by node id: index in the GraphDef
  const int first_rewrite_;
  std::vector<Node*> kept_;     // the other nodes, in import order
  std::vector<Node*> rewrite_;  // feed and fetch nodes, in GraphDef order
  std::vector<int> order_;      // by node id: index in kept_
  std::vector<bool> feed_;      // by node id
  std::vector<bool> consumers_pruned_;  // by node id
  std::unique_ptr<Graph> out_;
  std::vector<Node*> copy_;  // by node id of in_
};

}  // namespace

StatusOr<std::unique_ptr<Graph>> ImportClientGraph(
    GraphDef def, const ImportOptions& options) {
  return ImportClientGraph(&def, options);
}

StatusOr<std::unique_ptr<Graph>> ImportClientGraph(
    GraphDef* def, const ImportOptions& options) {
  const int num_rewrite = CountRewriteNodes(*def);
  if (num_rewrite == 0) {
    for (NodeDef& node : *def->mutable_node()) TakeConsumersPruned(&node);
    return ImportGraphDef(def, options);
  }
  const int num_nodes = def->node_size();
  std::unordered_map<std::string, int> index;
  index.reserve(num_nodes);
  for (int i = 0; i < num_nodes; ++i) index.emplace(def->node(i).name(), i);
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> imported,
                       ImportGraphDef(def, options));
  std::vector<int> position(imported->num_node_ids(), -1);
  for (Node* node : imported->op_nodes()) {
    auto it = index.find(node->name());
    // Every node comes from the GraphDef; if not, keep the import's order.
    if (it == index.end()) return imported;
    position[node->id()] = it->second;
  }
  ClientGraphBuilder builder(imported.get(), std::move(position),
                             num_nodes - num_rewrite);
  return builder.Build();
}

}  // namespace dfg
