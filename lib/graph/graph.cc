#include "lib/graph/graph.h"

#include <algorithm>
#include <utility>

#include "lib/base/strings.h"
#include "lib/graph/node_inputs.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/op_types.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/unknown_op.h"

namespace dfg {
namespace {

bool OpIs(const Node& n, std::string_view a) { return n.op() == a; }
bool OpIs(const Node& n, std::string_view a, std::string_view b) {
  return n.op() == a || n.op() == b;
}
bool OpIs(const Node& n, std::string_view a, std::string_view b,
          std::string_view c) {
  return n.op() == a || n.op() == b || n.op() == c;
}

// Edge lists are sorted by id; ids only grow, so an erase keeps them sorted.
void EraseEdge(EdgeList* edges, const Edge* e) {
  auto it = std::lower_bound(
      edges->begin(), edges->end(), e,
      [](const Edge* a, const Edge* b) { return a->id < b->id; });
  DFG_CHECK(it != edges->end() && *it == e);
  edges->erase(it);
}

NodeDef PseudoNodeDef(const char* name) {
  NodeDef def;
  def.set_name(name);
  def.set_op("NoOp");
  return def;
}

}  // namespace

Node::~Node() {
  if (owns_def_) delete def_;
}

void Node::CopyAssignedDeviceFrom(const Node& other) {
  DFG_CHECK(other.interned_ == interned_);
  assigned_device_ = other.assigned_device_;
}

void Node::set_assigned_device_name(std::string_view device) {
  auto it = interned_->devices.find(device);
  if (it == interned_->devices.end())
    it = interned_->devices.emplace(device).first;
  assigned_device_ = &*it;
}

const Edge* Node::input_edge(int idx) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input == idx) return e;
  }
  return nullptr;
}

bool Node::IsSwitch() const {
  return OpIs(*this, "Switch", "RefSwitch", "_SwitchN");
}
bool Node::IsMerge() const { return IsMergeOp(op()); }
bool Node::IsEnter() const { return OpIs(*this, "Enter", "RefEnter"); }
bool Node::IsExit() const { return OpIs(*this, "Exit", "RefExit"); }
bool Node::IsNextIteration() const { return IsNextIterationOp(op()); }
bool Node::IsLoopCond() const { return OpIs(*this, "LoopCond"); }
bool Node::IsControlTrigger() const { return OpIs(*this, "ControlTrigger"); }
bool Node::IsSend() const { return IsSendOp(op()); }
bool Node::IsRecv() const { return IsRecvOp(op()); }
bool Node::IsArg() const { return OpIs(*this, "_Arg", "_DeviceArg"); }
bool Node::IsRetval() const { return OpIs(*this, "_Retval", "_DeviceRetval"); }
bool Node::IsConstant() const { return OpIs(*this, "Const", "HostConst"); }
bool Node::IsPlaceholder() const {
  return OpIs(*this, "Placeholder", "PlaceholderV2");
}
bool Node::IsControlFlow() const {
  // Most ops are none of them: their first letter says so.
  const std::string& name = op();
  if (name.empty()) return false;
  switch (name[0]) {
    case 'S':  // Switch
    case 'R':  // RefSwitch, RefMerge, RefEnter, RefExit, RefNextIteration
    case '_':  // _SwitchN, _XlaMerge
    case 'M':  // Merge
    case 'E':  // Enter, Exit
    case 'N':  // NextIteration
    case 'L':  // LoopCond
      break;
    default:
      return false;
  }
  return IsSwitch() || IsMerge() || IsEnter() || IsExit() ||
         IsNextIteration() || IsLoopCond();
}

Graph::Graph(google::protobuf::Arena* arena)
    : arena_(arena), interned_(std::make_unique<graph_internal::Interned>()) {
  AddNode(PseudoNodeDef("_SOURCE"), {}, {});
  AddNode(PseudoNodeDef("_SINK"), {}, {});
  AddEdge(source_node(), kControlSlot, sink_node(), kControlSlot);
}

Node* Graph::AddNode(NodeDef def, std::vector<DataType> input_types,
                     std::vector<DataType> output_types, bool op_known) {
  NodeDef* own = google::protobuf::Arena::CreateMessage<NodeDef>(arena_);
  *own = std::move(def);  // a swap on the heap, a copy onto an arena
  return AdoptNode(own, std::move(input_types), std::move(output_types),
                   op_known);
}

Node* Graph::AdoptNode(NodeDef* def, std::vector<DataType> input_types,
                       std::vector<DataType> output_types, bool op_known) {
  DFG_CHECK(def != nullptr && def->GetArena() == arena_);
  Node* node = &node_storage_.emplace_back(&edge_pool_);
  node->id_ = static_cast<int>(nodes_.size());
  node->def_ = def;
  node->owns_def_ = arena_ == nullptr;
  node->interned_ = interned_.get();
  node->input_types_ =
      &*interned_->signatures.insert(std::move(input_types)).first;
  node->output_types_ =
      &*interned_->signatures.insert(std::move(output_types)).first;
  node->set_assigned_device_name("");
  node->op_known_ = op_known;
  nodes_.push_back(node);
  ++num_nodes_;
  return node;
}

StatusOr<Node*> Graph::AddNode(NodeDef def) {
  // The registry first: building an OpLookup indexes the whole library.
  const OpInfo* info = OpRegistry::Global().Find(def.op());
  const OpDef* op_def =
      info != nullptr ? &info->def : OpLookup(&library_).LookUpOpDef(def.op());
  if (op_def == nullptr) {
    return OpTypeNotRegistered(def.op());
  }
  std::vector<DataType> inputs, outputs;
  DFG_RETURN_IF_ERROR(InOutTypesForNode(def, *op_def, &inputs, &outputs));
  return AddNode(std::move(def), std::move(inputs), std::move(outputs));
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst,
                           int dst_input) {
  DFG_CHECK(src != nullptr && dst != nullptr);
  DFG_CHECK((src_output == kControlSlot) == (dst_input == kControlSlot));
  Edge& e = edge_storage_.emplace_back();
  e.id = static_cast<int>(edges_.size());
  e.src = src;
  e.src_output = src_output;
  e.dst = dst;
  e.dst_input = dst_input;
  edges_.push_back(&e);
  // The new id is the largest so far: appending keeps the lists sorted.
  src->out_edges_.push_back(&e);
  dst->in_edges_.push_back(&e);
  ++num_edges_;
  return &e;
}

void Graph::ReserveEdges(Node* node, size_t in, size_t out) {
  node->in_edges_.reserve(in);
  node->out_edges_.reserve(out);
}

// As TensorFlow's AddControlEdge (allow_duplicates = false): an existing
// control edge src -> dst is returned instead of adding a second one.
const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_) {
    if (e->src == src && e->IsControlEdge()) return e;
  }
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  DFG_CHECK(edge != nullptr && FindEdgeId(edge->id) == edge);
  EraseEdge(&edge->src->out_edges_, edge);
  EraseEdge(&edge->dst->in_edges_, edge);
  edges_[edge->id] = nullptr;
  --num_edges_;
}

void Graph::RemoveNode(Node* node) {
  DFG_CHECK(node != nullptr && FindNodeId(node->id()) == node);
  DFG_CHECK(node->IsOp());
  for (const Edge* e : node->in_edges_) {
    if (e->src != node) EraseEdge(&e->src->out_edges_, e);
    edges_[e->id] = nullptr;
    --num_edges_;
  }
  for (const Edge* e : node->out_edges_) {
    if (e->dst == node) continue;  // a self-loop, already gone
    EraseEdge(&e->dst->in_edges_, e);
    edges_[e->id] = nullptr;
    --num_edges_;
  }
  --num_nodes_;
  nodes_[node->id()] = nullptr;
  // Its memory stays with the graph; what it holds goes now.
  EdgeList(&edge_pool_).swap(node->in_edges_);
  EdgeList(&edge_pool_).swap(node->out_edges_);
}

void Graph::RemoveNodes(const std::vector<bool>& keep) {
  size_t limit = std::min(keep.size(), nodes_.size());
  auto removed = [&](size_t id) { return id >= 2 && id < limit && !keep[id]; };
  // Kept nodes with an edge to or from a removed one, compacted once each
  // below (stably, so their lists stay in edge-id order).
  std::vector<bool> touched(nodes_.size(), false);
  std::vector<Node*> dirty;
  auto touch = [&](Node* n) {
    if (touched[n->id()]) return;
    touched[n->id()] = true;
    dirty.push_back(n);
  };
  // Every edge of a removed node is one of its in-edges or an out-edge to a
  // kept node (an out-edge to a removed node is that node's in-edge).
  for (size_t id = 2; id < limit; ++id) {
    Node* n = nodes_[id];
    if (n == nullptr || keep[id]) continue;
    for (const Edge* e : n->in_edges_) {
      if (!removed(e->src->id())) touch(e->src);
      edges_[e->id] = nullptr;
      --num_edges_;
    }
    for (const Edge* e : n->out_edges_) {
      if (removed(e->dst->id())) continue;
      touch(e->dst);
      edges_[e->id] = nullptr;
      --num_edges_;
    }
  }
  for (Node* n : dirty) {
    auto& in = n->in_edges_;
    in.erase(
        std::remove_if(in.begin(), in.end(),
                       [&](const Edge* e) { return removed(e->src->id()); }),
        in.end());
    auto& out = n->out_edges_;
    out.erase(
        std::remove_if(out.begin(), out.end(),
                       [&](const Edge* e) { return removed(e->dst->id()); }),
        out.end());
  }
  for (size_t id = 2; id < limit; ++id) {
    if (nodes_[id] == nullptr || keep[id]) continue;
    nodes_[id] = nullptr;
    --num_nodes_;
  }
}

Node* Graph::FindNodeId(int id) const {
  if (id < 0 || id >= static_cast<int>(nodes_.size())) return nullptr;
  return nodes_[id];
}

const Edge* Graph::FindEdgeId(int id) const {
  if (id < 0 || id >= static_cast<int>(edges_.size())) return nullptr;
  return edges_[id];
}

std::vector<Node*> Graph::op_nodes() const {
  std::vector<Node*> out;
  out.reserve(num_op_nodes());
  for (size_t i = 2; i < nodes_.size(); ++i) {
    if (nodes_[i]) out.push_back(nodes_[i]);
  }
  return out;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (Node* n : nodes_) {
    if (n) out.push_back(n);
  }
  return out;
}

std::string Graph::NewName(std::string_view prefix) {
  return std::string(prefix) + "/_" + std::to_string(name_counter_++);
}

namespace {

// The input list of `node` rebuilt from its in-edges (§0.5), into `inputs`.
// `slots` is scratch space reused across nodes.
void RebuildInputs(const Node& node, std::vector<const Edge*>* slots,
                   std::vector<std::string>* inputs) {
  int num_slots = node.num_inputs();
  for (const Edge* e : node.in_edges()) {
    if (!e->IsControlEdge()) num_slots = std::max(num_slots, e->dst_input + 1);
  }
  slots->assign(num_slots, nullptr);
  size_t first_control = slots->size();
  for (const Edge* e : node.in_edges()) {
    if (e->IsControlEdge()) {
      if (e->src->IsOp()) slots->push_back(e);
    } else if ((*slots)[e->dst_input] == nullptr) {
      (*slots)[e->dst_input] = e;
    }
  }
  std::stable_sort(slots->begin() + first_control, slots->end(),
                   [](const Edge* a, const Edge* b) {
                     return a->src->name() < b->src->name();
                   });
  const NodeDef& def = node.def();
  inputs->clear();
  for (size_t i = 0; i < slots->size(); ++i) {
    const Edge* e = (*slots)[i];
    if (e == nullptr) {
      // A data slot without an edge keeps the input the NodeDef asked for.
      int slot = static_cast<int>(i);
      inputs->push_back(slot < def.input_size() ? def.input(slot) : "");
    } else if (e->src->IsOp()) {
      inputs->push_back(InputString(e->src->name(), e->src_output));
    }
  }
}

// Replaces out's inputs with `inputs` (untouched when they are the same).
void SetInputs(std::vector<std::string>* inputs, NodeDef* out) {
  if (std::equal(inputs->begin(), inputs->end(), out->input().begin(),
                 out->input().end())) {
    return;
  }
  out->clear_input();
  out->mutable_input()->Reserve(static_cast<int>(inputs->size()));
  for (std::string& input : *inputs) out->add_input(std::move(input));
}

}  // namespace

GraphDef Graph::ToGraphDef() const {
  GraphDef out;
  *out.mutable_versions() = versions_;
  *out.mutable_library() = library_;
  out.mutable_node()->Reserve(num_op_nodes());
  std::vector<const Edge*> slots;
  std::vector<std::string> inputs;
  for (size_t i = 2; i < nodes_.size(); ++i) {
    const Node* node = nodes_[i];
    if (node == nullptr) continue;
    NodeDef* def = out.add_node();
    *def = node->def();
    if (!node->assigned_device_name().empty()) {
      def->set_device(node->assigned_device_name());
    }
    RebuildInputs(*node, &slots, &inputs);
    SetInputs(&inputs, def);
  }
  return out;
}

void Graph::MoveToGraphDef(GraphDef* out) {
  *out->mutable_versions() = versions_;
  *out->mutable_library() = std::move(library_);
  std::vector<const Edge*> slots;
  std::vector<std::string> inputs;
  std::vector<Node*> nodes = op_nodes();
  // Inputs name their sources, so every node is rewritten before any of
  // them is given away.
  for (Node* node : nodes) WriteNodeDefAsGraphDefDoes(node, &slots, &inputs);
  ReleaseNodeDefs(nodes, out);
}

void WriteNodeDefAsGraphDefDoes(Node* node, std::vector<const Edge*>* slots,
                                std::vector<std::string>* inputs) {
  NodeDef* def = node->mutable_def();
  if (!node->assigned_device_name().empty()) {
    def->set_device(node->assigned_device_name());
  }
  RebuildInputs(*node, slots, inputs);
  SetInputs(inputs, def);
}

void Graph::ReleaseNodeDefs(const std::vector<Node*>& nodes, GraphDef* out) {
  auto* field = out->mutable_node();
  field->Reserve(field->size() + static_cast<int>(nodes.size()));
  for (Node* node : nodes) ReleaseNodeDef(node, out);
}

void Graph::ReleaseNodeDef(Node* node, GraphDef* out) {
  DFG_CHECK(node->IsOp() && FindNodeId(node->id()) == node);
  if (out->GetArena() == arena_) {
    DFG_CHECK(node->owns_def_ || arena_ != nullptr);
    out->mutable_node()->AddAllocated(node->def_);
    node->owns_def_ = false;
  } else {
    *out->add_node() = *node->def_;
  }
}

std::unordered_map<std::string, Node*> Graph::BuildNameIndex() const {
  std::unordered_map<std::string, Node*> index;
  index.reserve(num_op_nodes());
  for (size_t i = 2; i < nodes_.size(); ++i) {
    if (nodes_[i]) index.emplace(nodes_[i]->name(), nodes_[i]);
  }
  return index;
}

void FixupSourceAndSinkEdges(Graph* graph) {
  Node* source = graph->source_node();
  Node* sink = graph->sink_node();
  for (int id = 0; id < graph->num_node_ids(); ++id) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr) continue;
    if (!n->IsSource() && n->in_edges().empty()) {
      graph->AddEdge(source, kControlSlot, n, kControlSlot);
    }
    if (!n->IsSink() && n->out_edges().empty()) {
      graph->AddEdge(n, kControlSlot, sink, kControlSlot);
    }
  }
}

}  // namespace dfg
