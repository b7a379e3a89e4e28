// Reading a binary GraphDef into a CompactGraph with the checks of the graph
// model's import (graph_import.cc), and writing it back placed.
#include "lib/place/compact_graph.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <climits>
#include <queue>

#include "lib/graph/graph_check.h"
#include "lib/graph/op_types.h"
#include "lib/graph/proto_log.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/wire_reader.h"

namespace dfg::place_internal {
namespace {

namespace pb = google::protobuf;

// A nested message counts one level of protobuf's recursion limit (100)
// inside the GraphDef; a node read alone gets the levels left.
constexpr int kNodeRecursionLimit = 99;

bool ParseNode(std::string_view bytes, NodeDef* node) {
  node->Clear();
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                              static_cast<int>(bytes.size()));
  in.SetRecursionLimit(kNodeRecursionLimit);
  return node->MergeFromCodedStream(&in) && in.ConsumedEntireMessage() &&
         in.CurrentPosition() == static_cast<int>(bytes.size());
}

// protobuf's deterministic serialization of `message` (map keys sorted), as
// the GraphDef writer gives it.
void SerializeDeterministic(const pb::MessageLite& message, std::string* out) {
  out->clear();
  size_t size = message.ByteSizeLong();
  out->reserve(size);
  pb::io::StringOutputStream stream(out);
  pb::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeWithCachedSizes(&coded);
  coded.Trim();
}

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

// A canonical node's fields are in number order: its `device` (field 4), if
// any, sits between the inputs (3) and the attrs (5). [*a, *b) is that field,
// or the empty range where it goes.
void DeviceFieldRange(std::string_view node, size_t* a, size_t* b) {
  WireReader reader(node);
  WireField field;
  *a = *b = node.size();
  while (reader.Next(&field)) {
    if (field.number < 4) continue;
    *a = field.offset;
    *b = field.number == 4 ? field.end : field.offset;
    return;
  }
}

constexpr char kNodeTag = 0x0a;    // GraphDef.node, length-delimited
constexpr char kDeviceTag = 0x22;  // NodeDef.device, length-delimited

}  // namespace

std::unique_ptr<CompactGraph> CompactGraph::Read(std::string_view bytes,
                                                 const OpLookup& ops,
                                                 KernelSupport* kernels) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return nullptr;
  // What protobuf logs about the bytes (invalid UTF-8) belongs to the graph
  // model's error message, not to stderr.
  ScopedProtobufLogCapture quiet;
  std::unique_ptr<CompactGraph> graph(new CompactGraph(bytes));
  graph->devices_.push_back({});  // id 0: no device
  graph->device_ids_.emplace(std::string_view(), 0);
  if (!graph->ScanGraph()) return nullptr;
  const int n_nodes = graph->num_node_ids();
  for (int n = 0; n < n_nodes; ++n) {
    if (!graph->ReadNode(n, graph->Payload(n), ops, kernels)) return nullptr;
  }
  graph->nodes_.back().input_begin = graph->inputs_.size();
  graph->nodes_.back().output_begin = graph->output_types_.size();
  graph->scratch_.Clear();
  if (!graph->ResolveInputs() || !graph->Order()) return nullptr;
  if (!quiet.text().empty()) return nullptr;
  return graph;
}

// The GraphDef level: node records, and every other field kept for the
// output. A library (functions the nodes may call) is left to the graph
// model.
bool CompactGraph::ScanGraph() {
  WireReader reader(bytes_);
  WireField field;
  std::string rest;
  while (reader.Next(&field)) {
    if (field.number == 1 && field.type == WireType::kLen) {
      NodeRec rec;
      rec.begin = static_cast<uint32_t>(field.payload.data() - bytes_.data());
      rec.size = static_cast<uint32_t>(field.payload.size());
      nodes_.push_back(rec);
    } else if (field.number == 1 || field.number == 2) {
      return false;
    } else {
      rest.append(bytes_.substr(field.offset, field.end - field.offset));
    }
  }
  if (!reader.ok()) return false;
  nodes_.emplace_back();  // the sentinel
  if (nodes_.size() - 1 > static_cast<size_t>(INT_MAX / 2)) return false;
  if (!others_.ParseFromString(rest)) return false;
  SerializeDeterministic(others_, &rest_);
  return true;
}

uint32_t CompactGraph::Intern(
    std::vector<std::string_view>* table,
    std::unordered_map<std::string_view, uint32_t>* ids, std::string_view s) {
  auto [it, inserted] = ids->try_emplace(s, table->size());
  if (inserted) table->push_back(s);
  return it->second;
}

// One NodeDef: its views, then what its parse says.
bool CompactGraph::ReadNode(int n, std::string_view payload,
                            const OpLookup& ops, KernelSupport* kernels) {
  NodeRec& rec = nodes_[n];
  rec.input_begin = inputs_.size();
  WireReader reader(payload, rec.begin);
  WireField field;
  std::string_view name, op, device;
  while (reader.Next(&field)) {
    if (field.number > 4) continue;
    if (field.type != WireType::kLen) return false;
    if (field.number == 1) name = field.payload;
    if (field.number == 2) op = field.payload;
    if (field.number == 4) device = field.payload;
    if (field.number == 3) {
      uint32_t at = static_cast<uint32_t>(field.payload.data() - bytes_.data());
      inputs_.push_back(
          InputRec{at, static_cast<int32_t>(field.payload.size())});
    }
  }
  if (!reader.ok() || !ParseNode(payload, &scratch_)) return false;
  // The views must say what protobuf read.
  const int num_inputs = static_cast<int>(inputs_.size() - rec.input_begin);
  if (scratch_.name() != name || scratch_.op() != op ||
      scratch_.device() != device || scratch_.input_size() != num_inputs) {
    return false;
  }
  for (int k = 0; k < num_inputs; ++k) {
    const InputRec& in = inputs_[rec.input_begin + k];
    if (scratch_.input(k) != bytes_.substr(in.a, in.b)) return false;
  }
  // The import's BuildNodeIndex checks, but for uniqueness (ResolveInputs).
  if (!graph_check::IsValidNodeName(name, /*allow_internal_ops=*/true) ||
      op.empty() ||
      !graph_check::CheckControlInputsLast(name, num_inputs, [&](int k) {
         return std::string_view(scratch_.input(k));
       }).ok()) {
    return false;
  }
  rec.name_begin = static_cast<uint32_t>(name.data() - bytes_.data());
  rec.name_size = static_cast<uint32_t>(name.size());
  rec.op = Intern(&ops_, &op_ids_, op);
  rec.device = Intern(&devices_, &device_ids_, device);
  SerializeDeterministic(scratch_, &canonical_);
  if (canonical_ == payload) rec.flags |= kCanonical;
  return ReadAttrFacts(n, ops, kernels);
}

// The import's MakeSignature for a known op, the kernels' verdict and the
// `_class` attr, from the parsed node.
bool CompactGraph::ReadAttrFacts(int n, const OpLookup& ops,
                                 KernelSupport* kernels) {
  NodeRec& rec = nodes_[n];
  const OpDef* op_def = ops.LookUpOpDef(scratch_.op());
  if (op_def == nullptr) return false;  // unknown ops: the graph model
  AddDefaultsToNodeDef(*op_def, &scratch_);
  std::vector<DataType> in, out;
  if (!InOutTypesForNode(scratch_, *op_def, &in, &out).ok()) return false;
  int given = 0;
  for (const std::string& input : scratch_.input()) {
    if (input.empty() || input[0] != '^') ++given;
  }
  if (given != static_cast<int>(in.size())) return false;
  rec.num_data = static_cast<uint32_t>(given);
  rec.output_begin = output_types_.size();
  input_types_.resize(inputs_.size());
  for (int i = 0; i < given; ++i) {
    if (in[i] < 0 || in[i] > 255) return false;
    input_types_[rec.input_begin + i] = static_cast<uint8_t>(in[i]);
  }
  for (DataType t : out) {
    if (t < 0 || t > 255) return false;
    output_types_.push_back(static_cast<uint8_t>(t));
  }
  bool mismatch = false, unknown = false;
  masks_.push_back(
      kernels->SupportedTypes(scratch_.op(), scratch_, &mismatch, &unknown));
  if (unknown) return false;
  if (mismatch) rec.flags |= kMismatch;
  auto it = scratch_.attr().find("_class");
  if (it != scratch_.attr().end()) {
    ClassAttr& attr = classes_[n];
    attr.present = true;
    attr.is_list = it->second.has_list();
    attr.single_string = !attr.is_list && !it->second.s().empty();
    if (attr.is_list) {
      for (const std::string& spec : it->second.list().s()) {
        attr.specs.push_back(class_strings_.emplace_back(spec));
      }
    }
  }
  return true;
}

// Names and inputs through the import's name index (first name wins; a
// second one is an error), each input resolved to (source, output index).
bool CompactGraph::ResolveInputs() {
  const int n_nodes = num_node_ids();
  auto name_of = [this](int n) { return name(n); };
  graph_check::NameIndex<decltype(name_of)> index(n_nodes, name_of);
  for (int n = 0; n < n_nodes; ++n) {
    if (!index.Insert(n)) return false;
  }
  std::vector<uint32_t> count(n_nodes + 1, 0);
  for (InputRec& in : inputs_) {
    TensorIdView id = ParseTensorNameView(bytes_.substr(in.a, in.b));
    int src = index.Find(id.node);
    if (src < 0) return false;
    in = InputRec{static_cast<uint32_t>(src), id.index};
    ++count[src];
  }
  consumer_begin_.assign(n_nodes + 1, 0);
  for (int n = 0; n < n_nodes; ++n) {
    consumer_begin_[n + 1] = consumer_begin_[n] + count[n];
  }
  consumers_.resize(inputs_.size());
  std::vector<uint32_t>& fill = count;
  std::copy(consumer_begin_.begin(), consumer_begin_.end() - 1, fill.begin());
  for (int n = 0; n < n_nodes; ++n) {
    for (int j = nodes_[n].input_begin; j < input_end(n); ++j) {
      consumers_[fill[inputs_[j].a]++] = n;
    }
  }
  return true;
}

// Kahn's algorithm with the ready set ordered by GraphDef index, as the
// import runs it; the order is the graph model's node-id order.
bool CompactGraph::Order() {
  const int n_nodes = num_node_ids();
  std::vector<int> pending(n_nodes);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int n = 0; n < n_nodes; ++n) {
    const InputRec* in = inputs_.data() + nodes_[n].input_begin;
    pending[n] = graph_check::PendingInputCount(
        IsMergeOp(op(n)), input_end(n) - nodes_[n].input_begin,
        [&](int k) { return in[k].b == kControlSlot; },
        [&](int k) { return IsNextIterationOp(op(in[k].a)); });
    if (pending[n] == 0) ready.push(n);
  }
  pos_.assign(n_nodes, UINT32_MAX);
  order_.reserve(n_nodes);
  while (!ready.empty()) {
    int o = ready.top();
    ready.pop();
    if (!CheckEdges(o)) return false;
    pos_[o] = static_cast<uint32_t>(order_.size());
    order_.push_back(o);
    const bool next_iteration = IsNextIterationOp(op(o));
    for (uint32_t k = consumer_begin_[o]; k < consumer_begin_[o + 1]; ++k) {
      int out = static_cast<int>(consumers_[k]);
      if (next_iteration && IsMergeOp(op(out))) continue;
      if (pending[out] <= 0) continue;
      if (--pending[out] == 0) ready.push(out);
    }
  }
  if (static_cast<int>(order_.size()) < n_nodes) return false;  // a cycle
  // Back edges are checked once every node has its place.
  for (int n = 0; n < n_nodes; ++n) {
    for (int j = nodes_[n].input_begin; j < input_end(n); ++j) {
      int src = static_cast<int>(inputs_[j].a);
      if (forward(src, n) || inputs_[j].b == kControlSlot) continue;
      int slot = j - nodes_[n].input_begin;
      if (inputs_[j].b >= num_outputs(src) ||
          !graph_check::TypesCompatible(input_type(n, slot),
                                        output_type(src, inputs_[j].b))) {
        return false;
      }
    }
  }
  return true;
}

// The import's CheckInputs and MakeEdge for node `n` as it is converted:
// its forward edges (sources already placed in the order).
bool CompactGraph::CheckEdges(int n) const {
  bool back_edge = false;
  for (int j = nodes_[n].input_begin; j < input_end(n); ++j) {
    const InputRec& in = inputs_[j];
    int src = static_cast<int>(in.a);
    if (pos_[src] == UINT32_MAX) {
      back_edge = true;
      continue;
    }
    if (in.b >= num_outputs(src)) return false;
    if (in.b == kControlSlot) continue;
    int slot = j - nodes_[n].input_begin;
    if (!graph_check::TypesCompatible(input_type(n, slot),
                                      output_type(src, in.b))) {
      return false;
    }
  }
  return !back_edge || IsMergeOp(op(n));
}

void CompactGraph::DataInEdges(int node,
                               std::vector<PlaceInEdge>* edges) const {
  edges->clear();
  const int begin = nodes_[node].input_begin;
  for (int j = begin; j < input_end(node); ++j) {
    if (inputs_[j].b == kControlSlot) continue;
    int src = static_cast<int>(inputs_[j].a);
    int slot = j - begin;
    // Edge ids: forward edges by destination in the order, then slot; back
    // edges after all of them.
    int64_t order = (int64_t{forward(src, node) ? 0 : 1} << 62) |
                    (int64_t{pos_[node]} << 30) | slot;
    edges->push_back(PlaceInEdge{src, slot, order});
  }
}

int CompactGraph::FirstInputSource(int node) const {
  const int begin = nodes_[node].input_begin, end = input_end(node);
  for (bool fwd : {true, false}) {
    int best = -1;
    for (int j = begin; j < end; ++j) {
      int src = static_cast<int>(inputs_[j].a);
      if (forward(src, node) != fwd) continue;
      if (inputs_[j].b != kControlSlot) return src;  // data inputs come first
      if (best < 0 || name(src) < name(best)) best = src;
    }
    if (best >= 0) return best;
  }
  return -1;
}

void CompactGraph::OutNeighbors(int node, std::vector<int>* dsts) const {
  dsts->assign(consumers_.begin() + consumer_begin_[node],
               consumers_.begin() + consumer_begin_[node + 1]);
}

ClassAttr CompactGraph::Class(int node) const {
  auto it = classes_.find(node);
  return it == classes_.end() ? ClassAttr() : it->second;
}

TypeMask CompactGraph::SupportedTypes(int node, bool* attr_mismatch,
                                      bool* unknown) {
  *attr_mismatch = (nodes_[node].flags & kMismatch) != 0;
  if (unknown != nullptr) *unknown = false;
  return masks_[node];
}

std::string CompactGraph::AttrsString(int node) const {
  return std::string(name(node));
}

std::string CompactGraph::DefSummary(int node) const {
  return std::string(name(node));
}

void CompactGraph::SetAssigned(int node, int device, const std::string& name) {
  nodes_[node].assigned = device;
  if (device_names_.size() <= static_cast<size_t>(device)) {
    device_names_.resize(device + 1);
  }
  device_names_[device] = name;
}

// The size of node `n` in the output (without the GraphDef's tag and
// length); for a canonical node, also where its device field goes.
size_t CompactGraph::OutputNodeSize(int n, size_t* a, size_t* b) const {
  const std::string& device = device_names_[nodes_[n].assigned];
  DeviceFieldRange(Payload(n), a, b);
  return nodes_[n].size - (*b - *a) + 1 + VarintSize(device.size()) +
         device.size();
}

// Appends node `n` as the output holds it: the GraphDef's tag and length,
// then the node with its device.
void CompactGraph::AppendNode(int n, std::string* out, NodeDef* scratch,
                              std::string* bytes) const {
  std::string_view payload = Payload(n);
  const std::string& device = device_names_[nodes_[n].assigned];
  out->push_back(kNodeTag);
  if (nodes_[n].flags & kCanonical) {
    size_t a = 0, b = 0;
    AppendVarint(OutputNodeSize(n, &a, &b), out);
    out->append(payload.substr(0, a));
    out->push_back(kDeviceTag);
    AppendVarint(device.size(), out);
    out->append(device);
    out->append(payload.substr(b));
    return;
  }
  ParseNode(payload, scratch);  // it parsed when it was read
  scratch->set_device(device);
  SerializeDeterministic(*scratch, bytes);
  AppendVarint(bytes->size(), out);
  out->append(*bytes);
}

int64_t CompactGraph::OutputSize() const {
  int64_t total = static_cast<int64_t>(rest_.size());
  NodeDef scratch;
  std::string bytes;
  for (int n = 0; n < num_node_ids(); ++n) {
    size_t size = 0, a = 0, b = 0;
    if (nodes_[n].flags & kCanonical) {
      size = OutputNodeSize(n, &a, &b);
    } else {
      ParseNode(Payload(n), &scratch);
      scratch.set_device(device_names_[nodes_[n].assigned]);
      size = scratch.ByteSizeLong();
    }
    total += static_cast<int64_t>(1 + VarintSize(size) + size);
  }
  return total;
}

Status CompactGraph::Write(
    const std::function<Status(std::string_view)>& write) const {
  constexpr size_t kChunk = 1 << 20;
  std::string buffer, bytes;
  NodeDef scratch;
  buffer.reserve(kChunk + 4096);
  for (int n = 0; n < num_node_ids(); ++n) {
    AppendNode(n, &buffer, &scratch, &bytes);
    if (buffer.size() >= kChunk) {
      DFG_RETURN_IF_ERROR(write(buffer));
      buffer.clear();
    }
  }
  buffer += rest_;
  return write(buffer);
}

Status CompactGraph::ForEachNode(
    const std::function<Status(const NodeDef&)>& sink) const {
  NodeDef node;
  for (int n = 0; n < num_node_ids(); ++n) {
    ParseNode(Payload(n), &node);  // it parsed when it was read
    node.set_device(device_names_[nodes_[n].assigned]);
    DFG_RETURN_IF_ERROR(sink(node));
  }
  return Status::Ok();
}

}  // namespace dfg::place_internal
