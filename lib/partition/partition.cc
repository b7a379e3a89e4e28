#include "lib/partition/partition.h"

#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "lib/base/strings.h"
#include "lib/graph/device_name.h"
#include "lib/graph/graph_import.h"
#include "lib/graph/tensor_id.h"
#include "lib/partition/control_flow.h"
#include "lib/partition/control_loops.h"
#include "lib/partition/partitioner.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg {
namespace partition_internal {
namespace {

// Fills a missing or zero send_device_incarnation of a _Send/_Recv that
// names its send_device (§3.3 step 5); _HostSend/_HostRecv are left alone,
// as TensorFlow does.
void SetIncarnation(const PartitionOptions& options, NodeDef* def) {
  const std::string& op = def->op();
  if (op.size() != 5 || (op != "_Send" && op != "_Recv")) return;
  auto& attr = *def->mutable_attr();
  auto device = attr.find("send_device");
  if (device == attr.end() || device->second.s().empty()) return;
  auto incarnation = attr.find("send_device_incarnation");
  if (incarnation != attr.end() && incarnation->second.i() != 0) return;
  uint64_t value = options.get_incarnation
                       ? options.get_incarnation(device->second.s())
                       : options.incarnation;
  attr["send_device_incarnation"].set_i(static_cast<int64_t>(value));
}

// The stack traces of a partition's nodes, when the graph has any.
void CopyDebugInfo(const tensorflow::GraphDebugInfo& from, GraphDef* graph) {
  if (from.traces().empty() && from.name_to_trace_id().empty()) return;
  tensorflow::GraphDebugInfo info;
  for (const NodeDef& node : graph->node()) {
    auto trace = from.traces().find(node.name());
    if (trace != from.traces().end()) {
      (*info.mutable_traces())[node.name()] = trace->second;
    }
    auto id = from.name_to_trace_id().find(node.name());
    if (id != from.name_to_trace_id().end()) {
      (*info.mutable_name_to_trace_id())[node.name()] = id->second;
    }
  }
  if (info.traces().empty() && info.name_to_trace_id().empty()) return;
  *info.mutable_files() = from.files();
  *info.mutable_frames_by_id() = from.frames_by_id();
  *info.mutable_traces_by_id() = from.traces_by_id();
  *graph->mutable_debug_info() = std::move(info);
}

}  // namespace

StatusOr<std::map<std::string, GraphDef*>> Partitioner::Run() {
  nodes_ = graph_->op_nodes();
  bool has_control_flow = false;
  for (const Node* node : nodes_) {
    if (node->assigned_device_name().empty()) {
      return FailedPrecondition("node '{}' ({}) has no assigned device",
                                node->name(), node->op());
    }
    has_control_flow = has_control_flow || node->IsControlFlow();
  }
  // TensorFlow copies the graph before AddControlFlow runs on the copy.
  NumberCopiedEdges();
  if (!options_.control_flow_added && has_control_flow) {
    std::vector<ControlFlowInfo> cf_info;
    DFG_RETURN_IF_ERROR(AddControlFlow(
        graph_, [this](std::string_view prefix) { return NewName(prefix); },
        &cf_info));
    nodes_ = graph_->op_nodes();
  }
  DFG_RETURN_IF_ERROR(AssignDevices());
  DFG_RETURN_IF_ERROR(ComputeMemoryTypes());
  recv_head_.assign(graph_->num_node_ids(), -1);
  for (Node* dst : nodes_) {
    DFG_RETURN_IF_ERROR(ProcessNode(dst));
  }
  Finish();
  std::map<std::string, GraphDef*> result;
  for (size_t i = 0; i < keys_.size(); ++i) {
    result.emplace(std::move(keys_[i]), parts_[i]);
  }
  return result;
}

NodeDef* Partitioner::CopyNode(Node* dst, GraphDef* graph) {
  if (move_defs_) {
    // The definition itself, with what a copy would not take cleared.
    NodeDef* def = dst->mutable_def();
    def->clear_input();
    def->set_device(dst->assigned_device_name());
    def->GetReflection()->MutableUnknownFields(def)->Clear();
    graph_->ReleaseNodeDef(dst, graph);
    return def;
  }
  NodeDef* def = graph->add_node();
  NodeDef* from = dst->mutable_def();
  def->set_name(from->name());
  def->set_op(from->op());
  if (options_.can_make_destructive_changes) {
    def->mutable_attr()->swap(*from->mutable_attr());
  } else {
    *def->mutable_attr() = from->attr();
  }
  if (from->has_experimental_debug_info()) {
    *def->mutable_experimental_debug_info() = from->experimental_debug_info();
  }
  if (from->has_experimental_type()) {
    *def->mutable_experimental_type() = from->experimental_type();
  }
  def->set_device(dst->assigned_device_name());
  return def;
}

// Data edges by input slot, then control edges in edge order; the control
// edges from control-loop Merges are set aside (§3.3 step 2).
Status Partitioner::CollectInputs(const Node* dst,
                                  const Edge** control_flow_edge,
                                  int* num_control_flow_edges) {
  inputs_.assign(dst->num_inputs(), nullptr);
  int num_input_edges = 0;
  for (const Edge* edge : dst->in_edges()) {
    if (edge->IsControlEdge()) {
      if (IsControlLoopMerge(*edge->src)) {
        *control_flow_edge = edge;
        ++*num_control_flow_edges;
      } else {
        inputs_.push_back(edge);
      }
      continue;
    }
    if (edge->dst_input < 0 || edge->dst_input >= dst->num_inputs() ||
        inputs_[edge->dst_input] != nullptr) {
      return InvalidArgument("node '{}' ({}) has a bad edge into input {}",
                             dst->name(), dst->op(), edge->dst_input);
    }
    inputs_[edge->dst_input] = edge;
    ++num_input_edges;
  }
  if (num_input_edges != dst->num_inputs()) {
    return InvalidArgument("Incomplete graph, missing {} inputs for {}",
                           dst->num_inputs() - num_input_edges, dst->name());
  }
  return Status::Ok();
}

const RecvEntry* Partitioner::FindRecv(const Node* src, int src_output,
                                       int partition, bool on_host) const {
  for (int i = recv_head_[src->id()]; i >= 0; i = recvs_[i].next) {
    const RecvEntry& entry = recvs_[i];
    if (entry.src_output == src_output && entry.partition == partition &&
        entry.on_host == on_host) {
      return &entry;
    }
  }
  return nullptr;
}

void Partitioner::AddInputFrom(const Edge* edge, int dst_partition,
                               NodeDef* dst_def, const Edge* control_flow_edge,
                               int* num_control_flow_edges) {
  const Node* src = edge->src;
  const bool control = edge->IsControlEdge();
  const bool ref = !control && edge->src_output < src->num_outputs() &&
                   IsRefType(src->output_type(edge->src_output));
  if (PartitionOf(src) == dst_partition && !NeedSameDeviceSendRecv(edge)) {
    AddInput(dst_def, src->name(), edge->src_output);
    if (!ref) ref_control_inputs_.push_back(&src->name());
    return;
  }
  const int recv_slot = control ? kControlSlot : 0;
  const bool on_host = IsDstInputOnHost(edge);
  if (const RecvEntry* found =
          FindRecv(src, edge->src_output, dst_partition, on_host)) {
    const std::string& recv_name = found->recv->name();
    AddInput(dst_def, recv_name, recv_slot);
    ref_control_inputs_.push_back(&recv_name);
    if (found->transfer >= 0) {
      (*options_.transfers)[found->transfer].dsts.push_back(edge->dst->name());
    }
    return;
  }
  NodeDef* recv = nullptr;
  NodeDef* real_recv = nullptr;
  int transfer = -1;
  AddTransfer(edge, dst_partition, &recv, &real_recv, &transfer);
  if (PartitionOf(src) != dst_partition && control_flow_edge != nullptr) {
    // The recv, not dst, waits for the control loop of dst's frame.
    --*num_control_flow_edges;
    AddInput(real_recv, control_flow_edge->src->name(), kControlSlot);
  }
  if (ref) {
    // Reads of a ref are not shared, and wait for dst's other inputs.
    (*recv->mutable_attr())["_start_time"].set_i(0);
    if (real_recv != recv) (*real_recv->mutable_attr())["_start_time"].set_i(0);
    ref_recvs_.push_back(real_recv);
  } else {
    recvs_.push_back(RecvEntry{edge->src_output, dst_partition, on_host, recv,
                               transfer, recv_head_[src->id()]});
    recv_head_[src->id()] = static_cast<int>(recvs_.size()) - 1;
    ref_control_inputs_.push_back(&recv->name());
  }
  AddInput(dst_def, recv->name(), recv_slot);
}

Status Partitioner::ProcessNode(Node* dst) {
  const int dst_partition = PartitionOf(dst);
  NodeDef* dst_def = CopyNode(dst, parts_[dst_partition]);
  const Edge* control_flow_edge = nullptr;
  int num_control_flow_edges = 0;
  DFG_RETURN_IF_ERROR(
      CollectInputs(dst, &control_flow_edge, &num_control_flow_edges));
  ref_recvs_.clear();
  ref_control_inputs_.clear();
  for (const Edge* edge : inputs_) {
    if (!edge->src->IsOp()) continue;
    AddInputFrom(edge, dst_partition, dst_def, control_flow_edge,
                 &num_control_flow_edges);
  }
  for (NodeDef* recv : ref_recvs_) {
    for (const std::string* input : ref_control_inputs_) {
      AddInput(recv, *input, kControlSlot);
    }
  }
  // Control-loop edges no recv took stay on dst.
  for (int i = 0; i < num_control_flow_edges; ++i) {
    AddInput(dst_def, control_flow_edge->src->name(), kControlSlot);
  }
  return Status::Ok();
}

void Partitioner::Finish() {
  const FunctionDefLibrary& library =
      options_.library != nullptr ? *options_.library : graph_->library();
  const bool has_library =
      library.function_size() > 0 || library.gradient_size() > 0;
  for (GraphDef* part_ptr : parts_) {
    GraphDef& part = *part_ptr;
    *part.mutable_versions() = graph_->versions();
    if (has_library)
      *part.mutable_library() = ReachableFunctions(library, part);
    for (NodeDef& node : *part.mutable_node()) SetIncarnation(options_, &node);
    for (auto& function : *part.mutable_library()->mutable_function()) {
      for (NodeDef& node : *function.mutable_node_def()) {
        SetIncarnation(options_, &node);
      }
    }
    CopyDebugInfo(graph_->debug_info(), &part);
  }
}

FunctionDefLibrary ReachableFunctions(const FunctionDefLibrary& library,
                                      const GraphDef& graph) {
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < library.function_size(); ++i) {
    index.emplace(library.function(i).signature().name(), i);
  }
  std::unordered_map<std::string, std::string> gradient;
  for (const auto& g : library.gradient()) {
    gradient.emplace(g.function_name(), g.gradient_func());
  }
  std::vector<bool> queued(library.function_size(), false);
  std::vector<int> queue;
  auto add = [&](const std::string& name) {
    auto it = index.find(name);
    if (it == index.end() || queued[it->second]) return;
    queued[it->second] = true;
    queue.push_back(it->second);
  };
  auto add_with_gradient = [&](const std::string& name) {
    add(name);
    auto it = gradient.find(name);
    if (it != gradient.end()) add(it->second);
  };
  auto scan = [&](const NodeDef& node) {
    add_with_gradient(node.op());
    for (const auto& [name, value] : node.attr()) {
      if (value.has_func()) add_with_gradient(value.func().name());
      if (value.has_list()) {
        for (const auto& f : value.list().func()) add_with_gradient(f.name());
      }
    }
  };
  for (const NodeDef& node : graph.node()) scan(node);
  while (!queue.empty()) {
    const auto& function = library.function(queue.back());
    queue.pop_back();
    for (const NodeDef& node : function.node_def()) scan(node);
    auto it = gradient.find(function.signature().name());
    if (it != gradient.end()) add(it->second);
  }
  FunctionDefLibrary out;
  for (int i = 0; i < library.function_size(); ++i) {
    if (queued[i]) *out.add_function() = library.function(i);
  }
  for (const auto& g : library.gradient()) {
    auto it = index.find(g.function_name());
    if (it != index.end() && queued[it->second]) *out.add_gradient() = g;
  }
  return out;
}

std::string Partitioner::NewName(std::string_view prefix) {
  if (options_.new_name) return options_.new_name(prefix);
  int64_t k = options_.name_counter != nullptr
                  ? options_.name_counter->fetch_add(1)
                  : local_counter_++;
  std::string name(prefix);
  name += "/_";
  name += std::to_string(k);
  return name;
}

}  // namespace partition_internal

StatusOr<std::map<std::string, GraphDef>> Partition(
    Graph* graph, const PartitionOptions& options) {
  partition_internal::Partitioner partitioner(graph, options);
  DFG_ASSIGN_OR_RETURN(auto parts, partitioner.Run());
  std::map<std::string, GraphDef> result;
  for (auto& [key, part] : parts) result.emplace(key, std::move(*part));
  return result;
}

StatusOr<std::map<std::string, GraphDef*>> PartitionOnArena(
    Graph* graph, const PartitionOptions& options) {
  if (graph->arena() == nullptr) {
    return Internal("PartitionOnArena needs a graph on an arena");
  }
  partition_internal::Partitioner partitioner(graph, options,
                                              /*move_defs=*/true);
  return partitioner.Run();
}

std::map<std::string, GraphDef> CopyPartitions(
    const std::map<std::string, GraphDef*>& partitions) {
  std::map<std::string, GraphDef> copy;
  for (const auto& [key, part] : partitions) copy.emplace(key, *part);
  return copy;
}

Status AssignCarriedDevices(Graph* graph) {
  // A big graph names a handful of devices: a node that repeats the previous
  // node's device gets its assignment as it is.
  const Node* last = nullptr;
  for (Node* node : graph->op_nodes()) {
    const std::string& device = node->requested_device();
    if (last != nullptr && device == last->requested_device()) {
      node->CopyAssignedDeviceFrom(*last);
      last = node;
      continue;
    }
    ParsedDeviceName parsed;
    if (!device.empty() && ParseFullName(device, &parsed)) {
      if (!parsed.IsFullySpecified()) {
        return FailedPrecondition(
            "node '{}' ({}) has device '{}', which is not a full device name",
            node->name(), node->op(), device);
      }
      DFG_ASSIGN_OR_RETURN(std::string canonical, CanonicalFullName(device));
      node->set_assigned_device_name(canonical);
    } else {
      node->set_assigned_device_name(device);
    }
    last = node;
  }
  return Status::Ok();
}

StatusOr<std::map<std::string, GraphDef>> Partition(
    const GraphDef& graph, const PartitionOptions& options) {
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, ImportGraphDef(graph));
  DFG_RETURN_IF_ERROR(AssignCarriedDevices(g.get()));
  return Partition(g.get(), options);
}

StatusOr<std::string> PartitionKey(std::string_view device, PartitionBy by) {
  ParsedDeviceName parsed;
  if (!ParseFullName(device, &parsed)) {
    return Internal("Malformed assigned device '{}'", device);
  }
  if (by == PartitionBy::kDevice) return std::string(device);
  if (!parsed.has_type || !parsed.has_id) {
    return InvalidArgument(
        "device '{}' has no device type and id, so it belongs to no worker",
        device);
  }
  std::string key;
  if (parsed.has_job) key += "/job:" + parsed.job;
  if (parsed.has_replica) key += "/replica:" + std::to_string(parsed.replica);
  if (parsed.has_task) key += "/task:" + std::to_string(parsed.task);
  return key;
}

std::string PartitionFileName(std::string_view key) {
  if (!key.empty() && key.front() == '/') key.remove_prefix(1);
  return SanitizeFileName(key);
}

}  // namespace dfg
