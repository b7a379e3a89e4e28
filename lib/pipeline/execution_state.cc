#include "lib/pipeline/execution_state.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "lib/base/progress.h"
#include "lib/base/strings.h"
#include "lib/graph/device_name.h"
#include "lib/graph/graph_import.h"
#include "lib/graph/node_inputs.h"
#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/unknown_op.h"
#include "lib/partition/client_graph.h"
#include "lib/partition/replicate_constants.h"
#include "lib/place/place.h"

namespace dfg {
namespace {

// TensorFlow's import refuses an op removed before the graph's version
// (CheckOpDeprecation).
Status CheckOpDeprecations(const GraphDef& graph) {
  const int version = graph.versions().producer();
  for (const NodeDef& node : graph.node()) {
    const OpInfo* info = OpRegistry::Global().Find(node.op());
    if (info == nullptr || !info->def.has_deprecation()) continue;
    const auto& dep = info->def.deprecation();
    if (version >= dep.version()) {
      return Unimplemented(
          "Op {} is not available in GraphDef version {}. It has been removed "
          "in version {}. {}.",
          node.op(), version, dep.version(), dep.explanation());
    }
  }
  return Status::Ok();
}

// TensorFlow's master fills the job, replica and task a node does not ask
// for with its own, so unplaced nodes stay on the master's task.
void FillDefaultTask(GraphDef* graph, const std::string& task) {
  ParsedDeviceName master;
  ParseFullName(task, &master);
  for (NodeDef& node : *graph->mutable_node()) {
    ParsedDeviceName d;
    if (!ParseFullName(node.device(), &d) || d.has_job) continue;
    d.has_job = true;
    d.job = master.job;
    if (!d.has_replica) d.has_replica = true, d.replica = master.replica;
    if (!d.has_task) d.has_task = true, d.task = master.task;
    node.set_device(ParsedNameToString(d));
  }
}

}  // namespace

StatusOr<std::unique_ptr<ExecutionState>> ExecutionState::Create(
    GraphDef graph, const ExecutionStateOptions& options) {
  std::unique_ptr<ExecutionState> state(new ExecutionState());
  state->devices_ = options.devices;
  if (options.check_op_deprecations) {
    DFG_RETURN_IF_ERROR(CheckOpDeprecations(graph));
  }
  if (!options.default_task.empty()) {
    FillDefaultTask(&graph, options.default_task);
  }
  const int num_nodes = graph.node_size();
  std::unique_ptr<Graph> placed;
  {
    ProgressStage stage(fmt::format("importing {} nodes", num_nodes));
    DFG_ASSIGN_OR_RETURN(placed, ImportGraphDef(std::move(graph)));
  }
  PlaceOptions place_options;
  place_options.allow_soft_placement = options.allow_soft_placement;
  {
    ProgressStage stage(fmt::format("placing {} nodes", num_nodes));
    DFG_RETURN_IF_ERROR(Place(placed.get(), state->devices_, place_options));
  }
  {
    ProgressStage stage(fmt::format("indexing {} placed nodes", num_nodes));
    state->Keep(std::move(placed));
  }
  return state;
}

void ExecutionState::Keep(std::unique_ptr<Graph> graph) {
  std::vector<Node*> nodes = graph->op_nodes();
  names_ = NameTable(
      static_cast<int>(nodes.size()),
      [&nodes](int i) -> const std::string& { return nodes[i]->name(); });
  placed_.reserve(nodes.size());
  std::vector<const Edge*> slots;
  std::vector<std::string> inputs;
  size_t bytes = 0;
  // The device of the node before, looked up once for a run of nodes.
  const std::string* last_device = nullptr;
  int device = -1;
  for (Node* n : nodes) {
    PlacedNode& p = placed_.emplace_back();
    p.num_outputs = n->num_outputs();
    p.op_known = n->op_known();
    p.op = &*op_names_.insert(n->op()).first;
    if (last_device == nullptr || *last_device != n->assigned_device_name()) {
      last_device = &n->assigned_device_name();
      device = devices_.FindDeviceByName(*last_device);
    }
    p.device = device;
    // The NodeDef as the placed GraphDef holds it, in place.
    WriteNodeDefAsGraphDefDoes(n, &slots, &inputs);
    bytes += n->def().ByteSizeLong() + 16;
  }
  bytes += graph->library().ByteSizeLong() + graph->versions().ByteSizeLong();
  if (bytes >= (size_t{1} << 31) - 64) {
    // Too big to serialize (2 GB): kept as a GraphDef.
    auto def = std::make_unique<GraphDef>();
    graph->MoveToGraphDef(def.get());
    placed_def_ = std::move(def);
    return;
  }
  // The placed GraphDef's wire form, node by node (field 1), then its
  // library (2) and versions (4), written from the graph without copying it
  // into a GraphDef first.
  placed_bytes_.reserve(bytes + 32);
  {
    google::protobuf::io::StringOutputStream stream(&placed_bytes_);
    google::protobuf::io::CodedOutputStream out(&stream);
    auto write = [&out](int field, const google::protobuf::MessageLite& m) {
      out.WriteTag(static_cast<uint32_t>(field) << 3 | 2);  // length-delimited
      out.WriteVarint32(static_cast<uint32_t>(m.GetCachedSize()));
      m.SerializeWithCachedSizes(&out);
    };
    for (const Node* n : nodes) write(1, n->def());
    write(2, graph->library());
    write(4, graph->versions());
  }
  // The first client graph takes the graph itself (BuildClientGraph).
  std::lock_guard<std::mutex> lock(first_mu_);
  first_graph_ = std::move(graph);
}

const ExecutionState::PlacedNode* ExecutionState::FindNode(
    std::string_view name) const {
  const int i = names_.Find(name);  // names are unique; the first would win
  return i < 0 ? nullptr : &placed_[i];
}

const std::string& ExecutionState::DeviceOf(const PlacedNode& node) const {
  static const std::string* const kNone = new std::string();
  return node.device < 0 ? *kNone : devices_.devices()[node.device].name;
}

GraphDef ExecutionState::placed_graph() const {
  if (placed_def_ != nullptr) return *placed_def_;
  GraphDef def;
  // Written by SerializeToString above: parsing it back cannot fail short
  // of memory.
  if (!def.ParseFromString(placed_bytes_)) def.Clear();
  return def;
}

// GraphExecutionState::ValidateFeedAndFetchDevices: feeds first, then
// fetches, each in the caller's (DirectSession: sorted) order.
Status ExecutionState::ValidateFeedsAndFetches(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches) const {
  for (const auto* list : {&feeds, &fetches}) {
    for (const std::string& name : *list) {
      if (TensorIndexOverflows(name)) {
        return InvalidArgument(
            "invalid tensor name '{}' (the output index is out of range)",
            name);
      }
      TensorId id = ParseTensorName(name);
      const PlacedNode* node = FindNode(id.node);
      if (node == nullptr) {
        std::vector<std::string> names;
        names.reserve(names_.size());
        for (int i = 0; i < names_.size(); ++i) {
          names.emplace_back(names_.NameAt(i));
        }
        std::sort(names.begin(), names.end());
        return InvalidArgument(
            "Tensor {}, specified in either feed_devices or fetch_devices was "
            "not found in the Graph{}",
            id.ToString(), DidYouMean(id.node, names));
      }
      // An op dfg does not know has no outputs to speak of: say so first.
      if (!node->op_known) return OpTypeNotRegistered(*node->op);
      if (id.index < 0 || id.index >= node->num_outputs) {
        return OutOfRange(
            "Node '{}' (type: '{}', num of outputs: {}) does not have output "
            "{}",
            id.node, *node->op, node->num_outputs, id.index);
      }
    }
  }
  return Status::Ok();
}

namespace {

// One of `devices` for a device name a node carries: itself when it is one,
// else the first it matches (the client device first), else "" (an inlined
// body node may name a device the session lacks: soft placement).
std::string ResolveDevice(const std::string& name, const DeviceSet& devices,
                          const std::string& client_device) {
  if (name.empty() || devices.FindDeviceByName(name) >= 0) return name;
  ParsedDeviceName spec;
  if (!ParseFullName(name, &spec)) return "";
  std::vector<int> matches = devices.FindMatchingDevices(spec);
  for (int m : matches) {
    if (devices.devices()[m].name == client_device) return client_device;
  }
  return matches.empty() ? "" : devices.devices()[matches[0]].name;
}

// Optimizes a client graph: out to a GraphDef, through the passes, back in.
// Every node ends on one of the session's devices: the one it carries
// (resolved: an inlined body may name "/device:CPU:0"), else its first
// input's, else the client device.
Status OptimizeClientGraph(const OptimizeOptions& optimize,
                           const PruneOptions& prune, const DeviceSet& devices,
                           std::unique_ptr<Graph>* graph,
                           OptimizeReport* report) {
  // The graph moves out, through the passes in place and back in: a big
  // graph is never held twice.
  GraphDef def;
  (*graph)->MoveToGraphDef(&def);
  graph->reset();
  OptimizeOptions options = optimize;
  options.unchanged_on_error = false;
  // Counted, not listed: no caller shows a client graph's rewrites (a pass
  // may make a million of them).
  options.record_rewrites = false;
  options.preserve.insert(options.preserve.end(), prune.targets.begin(),
                          prune.targets.end());
  DFG_RETURN_IF_ERROR(Optimize(&def, options, report));
  // Most nodes carry the device of the node before them: resolved once.
  std::string last_carried, last_resolved;
  bool unplaced = false;
  for (NodeDef& n : *def.mutable_node()) {
    if (n.device() != last_carried) {
      last_carried = n.device();
      last_resolved = ResolveDevice(last_carried, devices, prune.client_device);
    }
    if (n.device() != last_resolved) n.set_device(last_resolved);
    unplaced |= n.device().empty();
  }
  if (unplaced) {
    // Views of the names, which the loop below leaves as they are.
    std::unordered_map<std::string_view, const std::string*> device;
    device.reserve(def.node_size());
    for (const NodeDef& n : def.node()) device.emplace(n.name(), &n.device());
    for (NodeDef& n : *def.mutable_node()) {
      if (!n.device().empty()) continue;
      const std::string* d = nullptr;
      for (const std::string& in : n.input()) {
        std::string_view name = in;
        if (!name.empty() && name[0] == '^') name.remove_prefix(1);
        auto it = device.find(ParseTensorNameView(name).node);
        if (it != device.end() && !it->second->empty()) {
          d = it->second;
          break;
        }
      }
      n.set_device(d != nullptr ? *d : prune.client_device);
    }
  }
  ProgressStage stage(
      fmt::format("importing {} optimized nodes", def.node_size()));
  DFG_ASSIGN_OR_RETURN(*graph, ImportGraphDef(&def));
  for (Node* n : (*graph)->op_nodes()) {
    n->set_assigned_device_name(n->requested_device());
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ClientGraph> ExecutionState::BuildClientGraph(
    const PruneOptions& options, const OptimizeOptions* optimize,
    OptimizeReport* report) const {
  // Imported anew from the placed GraphDef, so that the copy numbers nodes
  // and edges as TensorFlow's import of the whole graph does (G1).
  ClientGraph client;
  {
    ProgressStage stage(fmt::format("pruning {} nodes", names_.size()));
    {
      // The first takes the placed graph itself: importing its GraphDef
      // would number nodes and edges as the import that made it did.
      std::lock_guard<std::mutex> lock(first_mu_);
      client.graph = std::move(first_graph_);
    }
    if (client.graph == nullptr) {
      GraphDef placed = placed_graph();
      DFG_ASSIGN_OR_RETURN(client.graph, ImportGraphDef(&placed));
    }
    for (Node* n : client.graph->op_nodes())
      n->set_assigned_device_name(n->requested_device());
    PruneReport pruned;
    DFG_RETURN_IF_ERROR(
        RewriteGraphForExecution(client.graph.get(), options, &pruned));
    client.feed_types = std::move(pruned.feed_types);
    client.fetch_types = std::move(pruned.fetch_types);
  }
  if (optimize != nullptr) {
    ProgressStage stage(fmt::format("optimizing the client graph ({} nodes)",
                                    client.graph->num_op_nodes()));
    DFG_RETURN_IF_ERROR(OptimizeClientGraph(*optimize, options, devices_,
                                            &client.graph, report));
  }
  return client;
}

std::string SignatureKey(const std::vector<std::string>& sorted_feeds,
                         const std::vector<std::string>& sorted_fetches,
                         const std::vector<std::string>& sorted_targets) {
  std::string key;
  for (const auto* list : {&sorted_feeds, &sorted_fetches, &sorted_targets}) {
    for (const std::string& s : *list) key += s + ",";
    key += "->";
  }
  return key;
}

StatusOr<std::map<std::string, GraphDef>> PartitionClientGraph(
    Graph* graph, PartitionOptions options) {
  // TensorFlow runs the POST_REWRITE_FOR_EXEC passes on the client graph
  // for DirectSession and the master alike (TF 2.13+).
  ProgressStage stage(
      fmt::format("partitioning {} nodes", graph->num_op_nodes()));
  DFG_RETURN_IF_ERROR(ReplicateSmallConstants(graph));
  // TensorFlow partitions a copy of a copy of the client graph
  // (GraphExecutionState::BuildGraph; lib/partition/client_graph.h).
  options.graph_copies = 2;
  return Partition(graph, options);
}

StatusOr<std::map<std::string, GraphDef*>> PartitionClientGraphOnArena(
    Graph* graph, PartitionOptions options) {
  ProgressStage stage(
      fmt::format("partitioning {} nodes", graph->num_op_nodes()));
  DFG_RETURN_IF_ERROR(ReplicateSmallConstants(graph));
  options.graph_copies = 2;
  return PartitionOnArena(graph, options);
}

StatusOr<std::unique_ptr<Graph>> ImportPlacedClientGraph(
    GraphDef* def, const PlacedClientGraphOptions& options) {
  // In the order and with the edge ids of TensorFlow's session (a graph
  // from dfg prune: as TensorFlow pruned it).
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ImportClientGraph(def));
  if (!options.devices) {
    DFG_RETURN_IF_ERROR(AssignCarriedDevices(graph.get()));
    return graph;
  }
  PlaceOptions place_options;
  place_options.allow_soft_placement = options.allow_soft_placement;
  DFG_RETURN_IF_ERROR(Place(graph.get(), *options.devices, place_options));
  return graph;
}

}  // namespace dfg
