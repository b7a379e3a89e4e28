#include "lib/dot/dot_model.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "lib/base/strings.h"
#include "lib/graph/op_types.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"

namespace dfg::dot_internal {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

bool IsOneOf(std::string_view op, std::initializer_list<std::string_view> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

bool BoolAttr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it != node.attr().end() && it->second.b();
}

const std::string& StringAttr(const NodeDef& node, const std::string& name) {
  static const std::string* const kEmpty = new std::string;
  auto it = node.attr().find(name);
  return it == node.attr().end() ? *kEmpty : it->second.s();
}

// Hash of a few ints (group and edge keys).
template <size_t N>
struct IntsHash {
  size_t operator()(const std::array<int64_t, N>& a) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : a) h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};

// A fold group: partition, device (or -2), scope name.
struct GroupKey {
  int partition;
  int device;
  std::string_view scope;
  bool operator==(const GroupKey& o) const {
    return partition == o.partition && device == o.device && scope == o.scope;
  }
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    return std::hash<std::string_view>()(k.scope) ^
           (static_cast<size_t>(k.partition) * 31 + k.device + 2) * 0x9e3779b9;
  }
};

GroupKey GroupOf(const DotModel& model, int node, const FoldOptions& options) {
  const ModelNode& n = model.nodes[node];
  return {n.partition, options.split_by_device ? model.device_index[node] : -2,
          options.depth < 0 ? n.name : FoldKey(n.name, options.depth)};
}

void LinkSendRecv(DotModel& m) {
  auto key = [](const NodeDef& n) {
    return StringAttr(n, "tensor_name") + '\0' + StringAttr(n, "send_device") +
           '\0' + StringAttr(n, "recv_device");
  };
  std::unordered_map<std::string, int> sends;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const ModelNode& n = m.nodes[i];
    if (n.def != nullptr && IsSendOp(n.op)) sends.emplace(key(*n.def), i);
  }
  if (sends.empty()) return;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const ModelNode& n = m.nodes[i];
    if (n.def == nullptr || !IsRecvOp(n.op)) continue;
    auto it = sends.find(key(*n.def));
    if (it != sends.end()) {
      m.edges.push_back(
          {it->second, static_cast<int>(i), 0, EdgeKind::kSendRecv});
    }
  }
}

void AddDevices(DotModel& m) {
  std::map<std::string_view, int> devices;
  for (const ModelNode& n : m.nodes) {
    if (!n.device.empty()) devices.emplace(n.device, 0);
  }
  int index = 0;
  for (auto& [name, i] : devices) {
    i = index++;
    m.devices.emplace_back(name);
  }
  m.device_index.reserve(m.nodes.size());
  for (const ModelNode& n : m.nodes) {
    m.device_index.push_back(n.device.empty() ? -1 : devices[n.device]);
  }
}

// A node name is mostly digits and scopes ("layer500/id"): a general edit
// distance bound of a third of the length offers "layer500/id" for
// "layer500000". Suggest a name only when it differs by a typo or two (at
// most one edit per six characters), else the shortest name the text is a
// prefix of (a scope or a truncated name), else nothing.
std::string FocusSuggestion(const DotModel& model, std::string_view focus) {
  const int limit = std::max<int>(1, static_cast<int>(focus.size()) / 6);
  int best = limit + 1;
  std::string_view found;
  for (const ModelNode& node : model.nodes) {
    if (node.role == Role::kMissing) continue;
    int d = EditDistance(focus, node.name, best - 1);
    if (d < best) best = d, found = node.name;
  }
  if (found.empty()) {
    for (const ModelNode& node : model.nodes) {
      if (node.role != Role::kMissing && node.name.starts_with(focus) &&
          (found.empty() || node.name.size() < found.size())) {
        found = node.name;
      }
    }
  }
  if (found.empty()) return "";
  return fmt::format(" (did you mean '{}'?)", found);
}

}  // namespace

Role RoleOf(const NodeDef& node) {
  std::string_view op = node.op();
  if (IsRecvOp(op)) {
    return BoolAttr(node, "client_terminated") ? Role::kFeed : Role::kSendRecv;
  }
  if (IsSendOp(op)) {
    return BoolAttr(node, "client_terminated") ? Role::kFetch : Role::kSendRecv;
  }
  if (IsOneOf(op, {"Placeholder", "PlaceholderV2", "PlaceholderWithDefault",
                   "_Arg", "_DeviceArg"})) {
    return Role::kFeed;
  }
  if (IsOneOf(op, {"_Retval", "_DeviceRetval"})) return Role::kFetch;
  if (IsOneOf(op, {"Const", "HostConst"})) return Role::kConstant;
  if (IsOneOf(op, {"Variable", "VariableV2", "VarHandleOp", "TemporaryVariable",
                   "_VarHandlesOp"})) {
    return Role::kVariable;
  }
  if (IsOneOf(op, {"Switch", "RefSwitch", "_SwitchN", "Merge", "RefMerge",
                   "Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                   "RefNextIteration", "LoopCond"})) {
    return Role::kControlFlow;
  }
  return Role::kOp;
}

DotModel BuildModel(const std::vector<const GraphDef*>& graphs) {
  DotModel m;
  size_t total = 0;
  const tensorflow::FunctionDefLibrary* library = nullptr;
  for (const GraphDef* g : graphs) {
    total += g->node_size();
    if (library == nullptr && g->library().function_size() > 0) {
      library = &g->library();
    }
  }
  m.ops = std::make_unique<OpLookup>(library);
  m.nodes.reserve(total);
  std::vector<std::unordered_map<std::string_view, int>> index(graphs.size());
  for (size_t p = 0; p < graphs.size(); ++p) {
    index[p].reserve(graphs[p]->node_size());
    for (const NodeDef& node : graphs[p]->node()) {
      index[p].emplace(node.name(), static_cast<int>(m.nodes.size()));
      m.nodes.push_back({node.name(), node.op(), node.device(),
                         static_cast<int>(p), &node, RoleOf(node)});
    }
  }
  m.edges.reserve(total * 2);
  std::map<std::pair<int, std::string_view>, int> missing;
  for (size_t dst = 0; dst < total; ++dst) {
    const ModelNode& d = m.nodes[dst];
    for (const std::string& input : d.def->input()) {
      if (input.empty()) continue;
      TensorIdView id = ParseTensorNameView(input);
      int src;
      auto it = index[d.partition].find(id.node);
      if (it != index[d.partition].end()) {
        src = it->second;
      } else {
        auto [mit, added] =
            missing.emplace(std::make_pair(d.partition, id.node),
                            static_cast<int>(m.nodes.size()));
        if (added) {
          m.missing_names.push_back(std::make_unique<std::string>(id.node));
          m.nodes.push_back({*m.missing_names.back(), "", "", d.partition,
                             nullptr, Role::kMissing});
        }
        src = mit->second;
      }
      EdgeKind kind = EdgeKind::kData;
      if (id.index < 0) {
        kind = EdgeKind::kControl;
      } else if (IsOneOf(m.nodes[src].op,
                         {"NextIteration", "RefNextIteration"}) &&
                 IsOneOf(m.nodes[dst].op, {"Merge", "RefMerge"})) {
        kind = EdgeKind::kBack;
      }
      m.edges.push_back({src, static_cast<int>(dst), id.index, kind});
    }
  }
  LinkSendRecv(m);
  AddDevices(m);
  return m;
}

StatusOr<std::vector<bool>> FocusMask(const DotModel& model,
                                      std::string_view focus, int radius) {
  const int n = static_cast<int>(model.nodes.size());
  std::vector<int> distance(n, -1);
  std::deque<int> queue;
  for (int i = 0; i < n; ++i) {
    if (model.nodes[i].name == focus && model.nodes[i].role != Role::kMissing) {
      distance[i] = 0;
      queue.push_back(i);
    }
  }
  if (queue.empty()) {
    return NotFound("--focus: no node named '{}'{}", focus,
                    FocusSuggestion(model, focus));
  }
  std::vector<std::vector<int>> adjacent(n);
  for (const ModelEdge& e : model.edges) {
    adjacent[e.src].push_back(e.dst);
    adjacent[e.dst].push_back(e.src);
  }
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    if (distance[v] >= radius) continue;
    for (int w : adjacent[v]) {
      if (distance[w] < 0) {
        distance[w] = distance[v] + 1;
        queue.push_back(w);
      }
    }
  }
  std::vector<bool> mask(n);
  for (int i = 0; i < n; ++i) mask[i] = distance[i] >= 0;
  return mask;
}

std::string_view FoldKey(std::string_view name, int depth) {
  size_t start = 0, pos = 0;
  for (int d = 0; d < depth; ++d) {
    pos = name.find('/', start);
    if (pos == std::string_view::npos) return name;
    start = pos + 1;
  }
  return depth <= 0 ? name : name.substr(0, pos);
}

int CountFolded(const DotModel& model, const std::vector<bool>& visible,
                const FoldOptions& options) {
  std::unordered_set<GroupKey, GroupKeyHash> groups;
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    if (visible[i]) groups.insert(GroupOf(model, i, options));
  }
  return static_cast<int>(groups.size());
}

int ChooseFoldDepth(const DotModel& model, const std::vector<bool>& visible,
                    int max_nodes, bool split_by_device) {
  int max_depth = 1;
  for (const ModelNode& n : model.nodes) {
    int depth =
        1 + static_cast<int>(std::count(n.name.begin(), n.name.end(), '/'));
    max_depth = std::max(max_depth, depth);
  }
  // The count grows with the depth: search from the deepest fold that folds.
  for (int depth = max_depth - 1; depth > 1; --depth) {
    if (CountFolded(model, visible, {depth, split_by_device}) <= max_nodes) {
      return depth;
    }
  }
  return 1;
}

DotView MakeView(const DotModel& model, const std::vector<bool>& visible,
                 const FoldOptions& options) {
  DotView view;
  const int n = static_cast<int>(model.nodes.size());
  std::vector<int> view_of(n, -1);
  std::unordered_map<GroupKey, int, GroupKeyHash> groups;
  std::vector<std::map<int, int>> device_counts;
  for (int i = 0; i < n; ++i) {
    if (!visible[i]) continue;
    auto [it, added] = groups.emplace(GroupOf(model, i, options),
                                      static_cast<int>(view.nodes.size()));
    if (added) {
      view.nodes.push_back({i, std::string(it->first.scope), 1,
                            model.nodes[i].partition, model.device_index[i]});
      device_counts.emplace_back();
    } else {
      ViewNode& v = view.nodes[it->second];
      v.model_node = -1;
      ++v.count;
    }
    view_of[i] = it->second;
    ++device_counts[it->second][model.device_index[i]];
  }
  for (size_t v = 0; v < view.nodes.size(); ++v) {
    if (view.nodes[v].count == 1) continue;
    int best = -1, best_count = 0;  // ties go to the smaller device index
    for (auto [device, count] : device_counts[v]) {
      if (device >= 0 && count > best_count) best = device, best_count = count;
    }
    view.nodes[v].device_index = best;
  }

  using EdgeKey = std::array<int64_t, 4>;
  std::unordered_map<EdgeKey, int, IntsHash<4>> edge_index;
  std::unordered_set<std::array<int64_t, 3>, IntsHash<3>> tensors;
  std::unordered_set<std::array<int64_t, 2>, IntsHash<2>>
      joined;  // non-control
  for (int k = 0; k < static_cast<int>(model.edges.size()); ++k) {
    const ModelEdge& e = model.edges[k];
    if (!visible[e.src] || !visible[e.dst]) continue;
    int vs = view_of[e.src], vd = view_of[e.dst];
    bool folded = view.nodes[vs].count > 1 || view.nodes[vd].count > 1;
    if (vs == vd && folded) continue;
    EdgeKey key = {vs, vd, static_cast<int>(e.kind), folded ? -2 : e.port};
    auto [it, added] =
        edge_index.emplace(key, static_cast<int>(view.edges.size()));
    if (added) {
      view.edges.push_back({vs, vd, e.kind, k, 0});
      if (e.kind != EdgeKind::kControl) joined.insert({vs, vd});
    }
    if (tensors.insert({it->second, e.src, e.port}).second) {
      ++view.edges[it->second].tensors;
    }
  }
  std::erase_if(view.edges, [&](const ViewEdge& e) {
    return e.kind == EdgeKind::kControl && joined.count({e.src, e.dst}) > 0;
  });
  return view;
}

namespace {

// Only the attrs, so that copying never copies a large Const value.
NodeDef AttrsOnly(const NodeDef& node) {
  NodeDef copy;
  copy.set_name(node.name());
  copy.set_op(node.op());
  for (const auto& [name, value] : node.attr()) {
    if (value.value_case() != tensorflow::AttrValue::kTensor) {
      (*copy.mutable_attr())[name] = value;
    }
  }
  return copy;
}

// The registry's output types, or empty when the op or an attr is unknown.
const std::vector<DataType>& OutputTypes(const DotModel& model, int node) {
  auto it = model.output_types.find(node);
  if (it != model.output_types.end()) return it->second;
  std::vector<DataType> inputs, outputs;
  const NodeDef& def = *model.nodes[node].def;
  if (const OpDef* op_def = model.ops->LookUpOpDef(def.op())) {
    if (!InOutTypesForNode(def, *op_def, &inputs, &outputs).ok()) {
      NodeDef copy = AttrsOnly(def);  // the file may leave out default attrs
      AddDefaultsToNodeDef(*op_def, &copy);
      outputs.clear();
      if (!InOutTypesForNode(copy, *op_def, &inputs, &outputs).ok()) {
        outputs.clear();
      }
    }
  }
  return model.output_types.emplace(node, std::move(outputs)).first->second;
}

// For an op the registry does not know: _output_types, else T or dtype.
DataType GuessType(const NodeDef& node, int port) {
  auto attr = node.attr().find("_output_types");
  if (attr != node.attr().end()) {
    const auto& list = attr->second.list();
    return port < list.type_size() ? list.type(port) : tensorflow::DT_INVALID;
  }
  for (const char* name : {"T", "dtype"}) {
    attr = node.attr().find(name);
    if (attr != node.attr().end() &&
        attr->second.value_case() == tensorflow::AttrValue::kType) {
      return attr->second.type();
    }
  }
  return tensorflow::DT_INVALID;
}

const tensorflow::TensorShapeProto* ShapeOf(const NodeDef& node, int port) {
  auto attr = node.attr().find("_output_shapes");
  if (attr != node.attr().end()) {
    const auto& list = attr->second.list();
    return port < list.shape_size() ? &list.shape(port) : nullptr;
  }
  if (port != 0) return nullptr;
  std::string_view op = node.op();
  if (IsOneOf(op, {"Const", "HostConst"})) {
    attr = node.attr().find("value");
    return attr != node.attr().end() && attr->second.has_tensor()
               ? &attr->second.tensor().tensor_shape()
               : nullptr;
  }
  if (IsOneOf(op, {"Placeholder", "PlaceholderV2", "PlaceholderWithDefault",
                   "Variable", "VariableV2", "TemporaryVariable"})) {
    attr = node.attr().find("shape");
    return attr != node.attr().end() && attr->second.has_shape()
               ? &attr->second.shape()
               : nullptr;
  }
  return nullptr;
}

std::string ShapeString(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "";
  std::string text = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) text += ',';
    int64_t size = shape.dim(i).size();
    text += size < 0 ? std::string("?") : std::to_string(size);
  }
  return text + "]";
}

}  // namespace

std::string TensorLabel(const DotModel& model, int node, int port) {
  const NodeDef* def = model.nodes[node].def;
  if (def == nullptr || port < 0) return "";
  DataType type = tensorflow::DT_INVALID;
  if (model.ops->LookUpOpDef(def->op()) != nullptr) {
    const std::vector<DataType>& types = OutputTypes(model, node);
    if (port < static_cast<int>(types.size())) type = types[port];
  } else {
    type = GuessType(*def, port);
  }
  std::string label;
  if (type != tensorflow::DT_INVALID) label = DataTypeString(type);
  if (const tensorflow::TensorShapeProto* shape = ShapeOf(*def, port)) {
    label += ShapeString(*shape);
  }
  return label;
}

}  // namespace dfg::dot_internal
