#include "lib/graph/graph_import.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/base/strings.h"
#include "lib/graph/graph_check.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/unknown_op.h"

namespace dfg {
namespace {

// An unknown op's output count is inferred from the indices its consumers
// use; beyond this the index is taken for a mistake, not an output.
constexpr int kMaxInferredOutputs = 1 << 20;

std::string TypesString(const std::vector<DataType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ", ";
    out += DataTypeString(types[i]);
  }
  return out;
}

// The names of a GraphDef's nodes (which must not change while a NameIndex
// over them is in use).
struct DefNodeName {
  const std::vector<NodeDef*>* defs;  // Not owned.
  std::string_view operator()(int n) const { return (*defs)[n]->name(); }
};
using NameIndex = graph_check::NameIndex<DefNodeName>;

// TensorFlow's GraphConstructor for ConvertGraphDefToGraph, over a GraphDef
// whose node definitions it takes out and hands to the graph as they are
// converted.
class Importer {
 public:
  Importer(GraphDef* def, const ImportOptions& options, Graph* graph)
      : def_(def), options_(options), graph_(graph) {}
  Importer(const Importer&) = delete;
  Importer& operator=(const Importer&) = delete;
  ~Importer() {
    // Heap definitions not handed to the graph (an error stopped the
    // import) are still the importer's.
    if (def_->GetArena() != nullptr) return;
    for (size_t n = 0; n < defs_.size(); ++n) {
      if (n >= nodes_.size() || nodes_[n] == nullptr) delete defs_[n];
    }
  }

  Status Run() {
    TakeNodeDefs();
    DFG_RETURN_IF_ERROR(BuildNodeIndex());
    DFG_RETURN_IF_ERROR(InitFromEdges());
    DFG_RETURN_IF_ERROR(Convert());
    DFG_RETURN_IF_ERROR(AddBackEdges());
    *graph_->mutable_versions() = def_->versions();
    *graph_->mutable_debug_info() = std::move(*def_->mutable_debug_info());
    FixupSourceAndSinkEdges(graph_);
    ReportUnknownOps();
    if (options_.nodes_by_index != nullptr) *options_.nodes_by_index = nodes_;
    if (options_.added_defaults != nullptr) {
      *options_.added_defaults = std::move(added_defaults_);
    }
    return Status::Ok();
  }

 private:
  struct Input {
    int src;    // GraphDef index of the source node
    int index;  // output index, or kControlSlot
  };
  struct BackEdge {
    int src;
    int src_output;
    Node* dst;
    int dst_input;
  };

  void TakeNodeDefs();
  using NameWindowItem = graph_check::LookupWindow<NameIndex>::Item;
  Status BuildNodeIndex();
  Status CheckNode(const NameWindowItem& item);
  Status ResolveInput(const NameWindowItem& item,
                      std::vector<int>* num_consumers);
  Status InitFromEdges();
  Status Convert();
  Status ConvertNode(int o);
  Status CheckInputs(int o, const NodeDef& def);
  Status MakeSignature(int o, NodeDef* def, std::vector<DataType>* inputs,
                       std::vector<DataType>* outputs, bool* known);
  Status CheckInputCount(const NodeDef& def, const OpDef& op_def,
                         const std::vector<DataType>& inputs, int o) const;
  Status AddInputEdges(int o, Node* node);
  Status MakeEdge(Node* src, int src_output, Node* dst, int dst_input);
  Status AddBackEdges();
  void UpdatePendingCountAndReady(int o, bool is_next_iteration);
  void NoteDefaults(int o, const OpDef& op_def, const NodeDef& def);
  void ReportUnknownOps();

  int num_nodes() const { return static_cast<int>(defs_.size()); }
  int InputBegin(int n) const { return input_begin_[n]; }
  int InputEnd(int n) const { return input_begin_[n + 1]; }
  int NumDataInputs(int n) const {
    int count = 0;
    for (int j = InputBegin(n); j < InputEnd(n); ++j) {
      if (inputs_[j].index != kControlSlot) ++count;
    }
    return count;
  }
  // The name of GraphDef node `n`, converted or not.
  const std::string& NameOf(int n) const { return defs_[n]->name(); }

  GraphDef* def_;                 // Not owned.
  const ImportOptions& options_;  // Not owned.
  Graph* graph_;                  // Not owned.
  std::unique_ptr<OpLookup> ops_;
  // The GraphDef's nodes, taken out of it: on its arena, or heap objects
  // owned here until the graph adopts them.
  std::vector<NodeDef*> defs_;
  std::vector<std::pair<int, std::string>> added_defaults_;

  // Views into the names of defs_.
  std::unique_ptr<NameIndex> index_;
  // Inputs of node n are inputs_[input_begin_[n], input_begin_[n + 1]).
  std::vector<int> input_begin_;
  std::vector<Input> inputs_;
  // Consumers of node n are consumers_[consumer_begin_[n], ...[n + 1]), one
  // entry per input that names n, in (consumer, input) order.
  std::vector<int> consumer_begin_;
  std::vector<int> consumers_;
  std::vector<int> pending_;
  std::vector<char> is_merge_;
  std::vector<int> max_output_used_;  // largest data output index used
  std::vector<Node*> nodes_;          // by GraphDef index; null until converted
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready_;
  std::vector<BackEdge> back_edges_;
  std::map<std::string, int> unknown_ops_;  // op -> node count
  std::vector<Node*> srcs_;                 // scratch: sources of one node
  std::vector<int> controls_;               // scratch: control sources
  // InOutTypesForNode's results by AppendScalarAttrsKey (library functions
  // are ops of this graph only, so the op name says which).
  std::unordered_map<std::string,
                     std::pair<std::vector<DataType>, std::vector<DataType>>>
      signatures_;
  std::string signature_key_;  // scratch
};

void Importer::TakeNodeDefs() {
  auto* field = def_->mutable_node();
  defs_.resize(field->size());
  if (def_->GetArena() != nullptr) {
    field->UnsafeArenaExtractSubrange(0, field->size(), defs_.data());
  } else {
    field->ExtractSubrange(0, field->size(), defs_.data());
  }
}

// Names go through a LookupWindow (graph_check.h): each node is checked when
// it leaves the window, in node order, so the first error is TensorFlow's.
Status Importer::BuildNodeIndex() {
  index_ = std::make_unique<NameIndex>(num_nodes(), DefNodeName{&defs_});
  is_merge_.assign(num_nodes(), 0);
  graph_check::LookupWindow<NameIndex> window(*index_);
  NameWindowItem item;
  for (int n = 0; n < num_nodes(); ++n) {
    if (window.Push(defs_[n]->name(), n, 0, &item)) {
      DFG_RETURN_IF_ERROR(CheckNode(item));
    }
  }
  while (window.Pop(&item)) DFG_RETURN_IF_ERROR(CheckNode(item));
  return Status::Ok();
}

Status Importer::CheckNode(const NameWindowItem& item) {
  const int n = item.a;
  const NodeDef& node = *defs_[n];
  if (!graph_check::IsValidNodeName(node.name(), options_.allow_internal_ops)) {
    return InvalidArgument("Node '{}': Node name contains invalid characters",
                           node.name());
  }
  if (!index_->InsertHashed(n, item.name, item.hash)) {
    return graph_check::NotUniqueError(node.name());
  }
  if (node.op().empty()) {
    return InvalidArgument("Node '{}' does not specify an operation",
                           node.name());
  }
  is_merge_[n] = IsMergeOp(node.op());
  return graph_check::CheckControlInputsLast(
      node.name(), node.input_size(),
      [&](int k) -> std::string_view { return node.input(k); });
}

// Input `item.b` of node `item.a`, looked up.
Status Importer::ResolveInput(const NameWindowItem& item,
                              std::vector<int>* num_consumers) {
  const std::string& input = defs_[item.a]->input(item.b);
  int src = index_->FindHashed(item.name, item.hash);
  if (src < 0) {
    return graph_check::UnknownInputError(defs_[item.a]->name(), input);
  }
  int index = ParseTensorNameView(input).index;
  if (index == INT_MAX && TensorIndexOverflows(input)) {
    return InvalidArgument(
        "Node '{}': invalid tensor name '{}' (the output index is out of "
        "range)",
        defs_[item.a]->name(), input);
  }
  inputs_.push_back(Input{src, index});
  ++(*num_consumers)[src];
  int& used = max_output_used_[src];
  used = std::max(used, index);
  return Status::Ok();
}

Status Importer::InitFromEdges() {
  const int n_nodes = num_nodes();
  size_t total = 0;
  for (const NodeDef* node : defs_) total += node->input_size();
  input_begin_.reserve(n_nodes + 1);
  inputs_.reserve(total);
  pending_.resize(n_nodes);
  max_output_used_.assign(n_nodes, -1);
  std::vector<int> num_consumers(n_nodes, 0);
  graph_check::LookupWindow<NameIndex> window(*index_);
  NameWindowItem item;
  int begin = 0;
  for (int n = 0; n < n_nodes; ++n) {
    const NodeDef& node = *defs_[n];
    input_begin_.push_back(begin);
    begin += node.input_size();
    for (int k = 0; k < node.input_size(); ++k) {
      if (window.Push(ParseTensorNameView(node.input(k)).node, n, k, &item)) {
        DFG_RETURN_IF_ERROR(ResolveInput(item, &num_consumers));
      }
    }
  }
  while (window.Pop(&item)) {
    DFG_RETURN_IF_ERROR(ResolveInput(item, &num_consumers));
  }
  for (int n = 0; n < n_nodes; ++n) {
    // A while loop's Merge waits for one data input (the loop's Enter), not
    // for its NextIteration back edge.
    const Input* in = inputs_.data() + InputBegin(n);
    int pending = graph_check::PendingInputCount(
        is_merge_[n], defs_[n]->input_size(),
        [&](int k) { return in[k].index == kControlSlot; },
        [&](int k) { return IsNextIterationOp(defs_[in[k].src]->op()); });
    pending_[n] = pending;
    if (pending == 0) ready_.push(n);
  }
  input_begin_.push_back(static_cast<int>(inputs_.size()));
  index_.reset();  // nothing looks names up now

  consumer_begin_.resize(n_nodes + 1);
  consumer_begin_[0] = 0;
  for (int n = 0; n < n_nodes; ++n) {
    consumer_begin_[n + 1] = consumer_begin_[n] + num_consumers[n];
  }
  consumers_.resize(inputs_.size());
  std::vector<int> fill(consumer_begin_.begin(), consumer_begin_.end() - 1);
  for (int n = 0; n < n_nodes; ++n) {
    for (int j = InputBegin(n); j < InputEnd(n); ++j) {
      consumers_[fill[inputs_[j].src]++] = n;
    }
  }
  return Status::Ok();
}

Status Importer::Convert() {
  // Functions first: nodes may call them.
  *graph_->mutable_library() = std::move(*def_->mutable_library());
  ops_ = std::make_unique<OpLookup>(&graph_->library());
  nodes_.assign(num_nodes(), nullptr);
  int processed = 0;
  while (!ready_.empty()) {
    int o = ready_.top();
    ready_.pop();
    ++processed;
    DFG_RETURN_IF_ERROR(ConvertNode(o));
  }
  if (processed < num_nodes()) {
    return graph_check::CycleError(num_nodes() - processed);
  }
  return Status::Ok();
}

// Checks the inputs of GraphDef node `o` against the nodes converted so far
// and records their sources (null for a back edge) in srcs_.
Status Importer::CheckInputs(int o, const NodeDef& def) {
  srcs_.clear();
  bool has_back_edge = false;
  for (int j = InputBegin(o); j < InputEnd(o); ++j) {
    const Input& in = inputs_[j];
    Node* src = nodes_[in.src];
    if (src == nullptr) {
      has_back_edge = true;
    } else if (in.index >= src->num_outputs()) {
      std::string hint;
      if (src->op() == "If" || src->op() == "StatelessIf" ||
          src->op() == "While" || src->op() == "StatelessWhile") {
        hint =
            " Try using "
            "tf.compat.v1.experimental.output_all_intermediates(True).";
      }
      return InvalidArgument(
          "Node '{}': Connecting to invalid output {} of source node {} which "
          "has {} outputs.{}",
          def.name(), in.index, src->name(), src->num_outputs(), hint);
    }
    srcs_.push_back(src);
  }
  if (has_back_edge && !IsMergeOp(def.op())) {
    return InvalidArgument(
        "Node '{}' had a back edge, but only Merge nodes can have back edges.",
        def.name());
  }
  return Status::Ok();
}

Status Importer::ConvertNode(int o) {
  NodeDef* def = defs_[o];
  DFG_RETURN_IF_ERROR(CheckInputs(o, *def));
  std::vector<DataType> input_types, output_types;
  bool known = true;
  DFG_RETURN_IF_ERROR(
      MakeSignature(o, def, &input_types, &output_types, &known));
  Node* node = graph_->AdoptNode(def, std::move(input_types),
                                 std::move(output_types), known);
  nodes_[o] = node;
  // Every node gets an edge from _SOURCE or to _SINK if it has none.
  graph_->ReserveEdges(
      node, std::max(InputEnd(o) - InputBegin(o), 1),
      std::max(consumer_begin_[o + 1] - consumer_begin_[o], 1));
  DFG_RETURN_IF_ERROR(AddInputEdges(o, node));
  UpdatePendingCountAndReady(o, node->IsNextIteration());
  return Status::Ok();
}

// The signature of a known op from its OpDef (after adding default attrs);
// of an unknown op from the graph itself (allow_unknown_ops).
Status Importer::MakeSignature(int o, NodeDef* def,
                               std::vector<DataType>* inputs,
                               std::vector<DataType>* outputs, bool* known) {
  if (const OpDef* op_def = ops_->LookUpOpDef(def->op())) {
    if (options_.add_default_attributes) {
      if (options_.added_defaults != nullptr) NoteDefaults(o, *op_def, *def);
      AddDefaultsToNodeDef(*op_def, def);
    }
    signature_key_.clear();
    const bool keyed = AppendScalarAttrsKey(*def, &signature_key_);
    auto it = keyed ? signatures_.find(signature_key_) : signatures_.end();
    if (it != signatures_.end()) {
      *inputs = it->second.first;
      *outputs = it->second.second;
    } else {
      DFG_RETURN_IF_ERROR(InOutTypesForNode(*def, *op_def, inputs, outputs));
      if (keyed)
        signatures_.emplace(signature_key_, std::pair(*inputs, *outputs));
    }
    *known = true;
    return CheckInputCount(*def, *op_def, *inputs, o);
  }
  if (!options_.allow_unknown_ops) {
    return OpTypeNotRegistered(def->op());
  }
  *known = false;
  ++unknown_ops_[def->op()];
  if (max_output_used_[o] >= kMaxInferredOutputs) {
    return InvalidArgument(
        "Node '{}': output {} is used, but an op dfg does not know ('{}') is "
        "given at most {} outputs",
        def->name(), max_output_used_[o], def->op(), kMaxInferredOutputs);
  }
  inputs->assign(NumDataInputs(o), tensorflow::DT_INVALID);
  int num_outputs = max_output_used_[o] + 1;
  const auto& attrs = def->attr();
  auto shapes = attrs.find("_output_shapes");
  if (shapes != attrs.end()) {
    num_outputs = std::max(num_outputs, shapes->second.list().shape_size());
  }
  auto types = attrs.find("_output_types");
  int num_types = types == attrs.end() ? 0 : types->second.list().type_size();
  num_outputs = std::max(num_outputs, num_types);
  outputs->assign(num_outputs, tensorflow::DT_INVALID);
  for (int i = 0; i < num_types; ++i) {
    (*outputs)[i] = static_cast<DataType>(types->second.list().type(i));
  }
  return Status::Ok();
}

// Too many data inputs fail when their edge is made ("Input K of node X does
// not exist"); too few are caught here, as TensorFlow's ValidateNodeDef does.
Status Importer::CheckInputCount(const NodeDef& def, const OpDef& op_def,
                                 const std::vector<DataType>& inputs,
                                 int o) const {
  int given = NumDataInputs(o);
  if (given >= static_cast<int>(inputs.size())) return Status::Ok();
  DFG_RETURN_IF_ERROR(ValidateNodeDef(def, op_def));
  return InvalidArgument(
      "NodeDef expected inputs '{}' do not match {} inputs specified; {}; "
      "NodeDef: {}",
      TypesString(inputs), given, SummarizeOpDef(op_def),
      SummarizeNodeDef(def));
}

// Data edges in slot order, then the control inputs sorted by source name
// without duplicates; inputs from nodes not converted yet become back edges.
Status Importer::AddInputEdges(int o, Node* node) {
  controls_.clear();
  const int begin = InputBegin(o);
  for (int j = begin; j < InputEnd(o); ++j) {
    const Input& in = inputs_[j];
    if (in.index == kControlSlot) {
      controls_.push_back(j);
      continue;
    }
    int slot = j - begin;
    Node* src = srcs_[slot];
    if (src == nullptr) {
      back_edges_.push_back(BackEdge{in.src, in.index, node, slot});
      continue;
    }
    DFG_RETURN_IF_ERROR(MakeEdge(src, in.index, node, slot));
  }
  std::stable_sort(controls_.begin(), controls_.end(), [&](int a, int b) {
    return NameOf(inputs_[a].src) < NameOf(inputs_[b].src);
  });
  controls_.erase(std::unique(controls_.begin(), controls_.end(),
                              [&](int a, int b) {
                                return inputs_[a].src == inputs_[b].src;
                              }),
                  controls_.end());
  for (int j : controls_) {
    Node* src = srcs_[j - begin];
    if (src == nullptr) {
      back_edges_.push_back(
          BackEdge{inputs_[j].src, kControlSlot, node, kControlSlot});
    } else {
      graph_->AddEdge(src, kControlSlot, node, kControlSlot);
    }
  }
  return Status::Ok();
}

Status Importer::MakeEdge(Node* src, int src_output, Node* dst, int dst_input) {
  if (src_output >= src->num_outputs()) {
    return InvalidArgument(
        "Output {} of node {} does not exist. Node only has {} outputs.",
        src_output, src->name(), src->num_outputs());
  }
  if (dst_input >= dst->num_inputs()) {
    return InvalidArgument(
        "Input {} of node {} does not exist. Node only has {} inputs.",
        dst_input, dst->name(), dst->num_inputs());
  }
  DataType src_type = src->output_type(src_output);
  DataType dst_type = dst->input_type(dst_input);
  if (!graph_check::TypesCompatible(dst_type, src_type)) {
    return InvalidArgument(
        "Input {} of node {} was passed {} from {}:{} incompatible with "
        "expected {}.",
        dst_input, dst->name(), DataTypeString(src_type), src->name(),
        src_output, DataTypeString(dst_type));
  }
  graph_->AddEdge(src, src_output, dst, dst_input);
  return Status::Ok();
}

Status Importer::AddBackEdges() {
  for (const BackEdge& e : back_edges_) {
    Node* src = nodes_[e.src];
    DFG_CHECK(src != nullptr);
    if (e.src_output == kControlSlot) {
      graph_->AddEdge(src, kControlSlot, e.dst, kControlSlot);
    } else {
      DFG_RETURN_IF_ERROR(MakeEdge(src, e.src_output, e.dst, e.dst_input));
    }
  }
  return Status::Ok();
}

void Importer::UpdatePendingCountAndReady(int o, bool is_next_iteration) {
  for (int k = consumer_begin_[o]; k < consumer_begin_[o + 1]; ++k) {
    int out = consumers_[k];
    // NextIteration -> Merge edges were not counted (InitFromEdges).
    if (is_next_iteration && is_merge_[out]) continue;
    // TensorFlow CHECK-fails when a Merge with several forward inputs is
    // decremented past zero; the node is already ready, so skip it.
    if (pending_[out] <= 0) continue;
    if (--pending_[out] == 0) ready_.push(out);
  }
}

// The attrs AddDefaultsToNodeDef is about to add.
void Importer::NoteDefaults(int o, const OpDef& op_def, const NodeDef& def) {
  for (const auto& attr : op_def.attr()) {
    if (attr.has_default_value() && !def.attr().contains(attr.name())) {
      added_defaults_.emplace_back(o, attr.name());
    }
  }
}

void Importer::ReportUnknownOps() {
  if (options_.warnings == nullptr) return;
  for (const auto& [op, count] : unknown_ops_) {
    options_.warnings->push_back(fmt::format(
        "op '{}' is not known to dfg ({} node{}); its outputs are inferred "
        "from the graph",
        op, count, count == 1 ? "" : "s"));
  }
}

}  // namespace

StatusOr<std::unique_ptr<Graph>> ImportGraphDef(GraphDef def,
                                                const ImportOptions& options) {
  return ImportGraphDef(&def, options);
}

StatusOr<std::unique_ptr<Graph>> ImportGraphDef(GraphDef* def,
                                                const ImportOptions& options) {
  auto graph = std::make_unique<Graph>(def->GetArena());
  Status status;
  {
    Importer importer(def, options, graph.get());
    status = importer.Run();
  }
  if (!status.ok()) return status;
  return graph;
}

}  // namespace dfg
