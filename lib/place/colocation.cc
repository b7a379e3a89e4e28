// Building the colocation groups: TensorFlow's ColocationGraph::Initialize
// (colocation_graph.cc), step by step and in the same order, so that groups,
// their roots and their merged device specs come out as TensorFlow's do.
#include "lib/place/colocation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "lib/base/strings.h"
#include "lib/place/name_filter.h"

namespace dfg::place_internal {
namespace {

using tensorflow::DT_RESOURCE;
using tensorflow::DT_VARIANT;

constexpr std::string_view kClassAttr = "_class";
constexpr std::string_view kGroupPrefix = "loc:@";

bool IsRefOrResource(DataType t) { return IsRefType(t) || t == DT_RESOURCE; }

// Nodes that create a resource or ref (VariableV2, VarHandleOp, a resource
// _Arg): their requested device is not overridden by colocation partners.
bool IsRefOrResourceGenerator(const PlaceGraph& graph, int node) {
  return graph.num_inputs(node) == 0 && graph.num_outputs(node) == 1 &&
         IsRefOrResource(graph.output_type(node, 0));
}

// TensorFlow's InputColocationExemptionRegistry: ops that forward resource
// inputs instead of dereferencing them.
bool IsExemptFromResourceInputColocation(std::string_view op) {
  static const std::unordered_set<std::string_view> kExempt = {
      "IdentityN",
      "PartitionedCall",
      "StatefulPartitionedCall",
      "FlatMapDataset",
      "InterleaveDataset",
      "ParallelInterleaveDataset",
      "ParallelInterleaveDatasetV2",
      "ParallelInterleaveDatasetV3",
      "ParallelInterleaveDatasetV4",
      "MapAndBatchDataset",
      "ExperimentalMapAndBatchDataset",
      "GroupByWindowDataset",
      "ExperimentalGroupByWindowDataset",
      "ScanDataset",
      "ExperimentalScanDataset",
  };
  return kExempt.count(op) != 0;
}

bool IsDatasetOp(const PlaceGraph& graph, int node) {
  std::string_view op = graph.op(node);
  return graph.num_outputs(node) == 1 &&
         graph.output_type(node, 0) == DT_VARIANT &&
         (EndsWith(op, "Dataset") || EndsWith(op, "DatasetV2"));
}

// Fields set in `less` are copied into `more` (DeviceNameUtils).
void EnsureSpecification(ParsedDeviceName* more, const ParsedDeviceName& less) {
  if (less.has_job) {
    more->has_job = true;
    more->job = less.job;
  }
  if (less.has_replica) {
    more->has_replica = true;
    more->replica = less.replica;
  }
  if (less.has_task) {
    more->has_task = true;
    more->task = less.task;
  }
  if (less.has_type) {
    more->has_type = true;
    more->type = less.type;
  }
  if (less.has_id) {
    more->has_id = true;
    more->id = less.id;
  }
}

bool IsDifferentAddressSpace(const ParsedDeviceName& a,
                             const ParsedDeviceName& b) {
  return (a.has_job && b.has_job && a.job != b.job) ||
         (a.has_replica && b.has_replica && a.replica != b.replica) ||
         (a.has_task && b.has_task && a.task != b.task);
}

ParsedDeviceName Normalized(const ParsedDeviceName& spec) {
  ParsedDeviceName n = spec;
  if (!n.has_job) n.job.clear();
  if (!n.has_replica) n.replica = 0;
  if (!n.has_task) n.task = 0;
  if (!n.has_type) n.type.clear();
  if (!n.has_id) n.id = 0;
  return n;
}

}  // namespace

Status AttachNode(const Status& status, std::string_view node_name) {
  return Status(status.code(), fmt::format("{}\n\t [[{{{{node {}}}}}]]",
                                           status.message(), node_name));
}

SpecTable::SpecTable() { Intern(ParsedDeviceName()); }

int SpecTable::Intern(const ParsedDeviceName& spec) {
  ParsedDeviceName n = Normalized(spec);
  std::string key = fmt::format("{}{}/{}{}/{}{}/{}{}/{}{}", n.has_job, n.job,
                                n.has_replica, n.replica, n.has_task, n.task,
                                n.has_type, n.type, n.has_id, n.id);
  auto [it, inserted] = ids_.try_emplace(std::move(key), specs_.size());
  if (inserted) {
    strings_.push_back(ParsedNameToString(n));
    specs_.push_back(std::move(n));
  }
  return it->second;
}

ColocationGraph::ColocationGraph(PlaceGraph& graph, const DeviceSet& devices,
                                 KernelSupport* kernels,
                                 const PlaceOptions& options, bool record)
    : graph_(graph),
      devices_(devices),
      kernels_(kernels),
      options_(options),
      record_(record) {
  members_.resize(graph.num_node_ids());
  name_hashes_.resize(graph.num_node_ids());
  assigned_device_.assign(graph.num_node_ids(), -1);
  if (record_) joins_.resize(graph.num_node_ids());
  for (const Device& d : devices.devices()) {
    device_spec_.push_back(specs_.Intern(d.parsed));
    sorted_devices_.push_back(static_cast<int>(sorted_devices_.size()));
  }
  // FilterSupportedDevices' order: device-type priority, then the full name
  // compared as a plain string (".../GPU:10" before ".../GPU:2").
  std::sort(sorted_devices_.begin(), sorted_devices_.end(), [&](int a, int b) {
    const Device& da = devices.devices()[a];
    const Device& db = devices.devices()[b];
    int pa = DeviceTypePriority(da.type()), pb = DeviceTypePriority(db.type());
    if (pa != pb) return pa > pb;
    return da.name < db.name;
  });
  if (!devices.empty()) {
    const ParsedDeviceName& client = devices.devices()[0].parsed;
    local_address_.has_job = local_address_.has_replica = true;
    local_address_.has_task = true;
    local_address_.job = client.job;
    local_address_.replica = client.replica;
    local_address_.task = client.task;
  }
}

const Join& ColocationGraph::join(int node_id) const {
  static const Join kNoJoin;
  return record_ ? joins_[node_id] : kNoJoin;
}

int ColocationGraph::FindRoot(int node_id) {
  int root = node_id;
  while (members_[root].parent != root) root = members_[root].parent;
  while (members_[node_id].parent != root) {
    int next = members_[node_id].parent;
    members_[node_id].parent = root;
    node_id = next;
  }
  return root;
}

Status ColocationGraph::Initialize() {
  for (int node : graph_.op_nodes()) {
    Status status = InitializeMember(node);
    if (!status.ok()) return AttachNode(status, graph_.name(node));
  }
  for (const auto& [op, seen] : unknown_ops_) {
    warnings_.push_back(fmt::format(
        "op '{}' is not known to dfg: its {} node(s) (first '{}') are "
        "placed as CPU-only",
        op, seen.first, seen.second));
  }
  DFG_RETURN_IF_ERROR(ColocateResourceAndRefEdges());
  DFG_RETURN_IF_ERROR(ColocateAllNodes());
  // XLA device types stay only where a device spec of the group names one.
  if (kernels_->xla_types() == 0) return Status::Ok();
  for (int node : graph_.op_nodes()) {
    Member& m = members_[FindRoot(node)];
    bool names_xla = false;
    for (int spec : {m.requested, m.assigned, m.resource}) {
      if (specs_[spec].has_type &&
          (kernels_->TypeBit(specs_[spec].type) & kernels_->xla_types())) {
        names_xla = true;
      }
    }
    TypeMask non_xla = m.types & ~kernels_->xla_types();
    if (!names_xla && non_xla != 0) m.types = non_xla;
  }
  return Status::Ok();
}

int ColocationGraph::RequestedSpec(std::string_view device) {
  auto it = requested_specs_.find(device);
  if (it != requested_specs_.end()) return it->second;
  ParsedDeviceName parsed;
  int id = ParseFullName(device, &parsed) ? specs_.Intern(parsed) : -1;
  requested_specs_.emplace(device, id);
  return id;
}

Status ColocationGraph::InitializeMember(int node) {
  Member& m = members_[node];
  m.parent = node;
  name_hashes_[node] = NameFilter::QuickHash(graph_.name(node));
  for (int i = 0; i < graph_.num_inputs(node); ++i) {
    DataType t = graph_.input_type(node, i);
    if (IsRefOrResource(t) || t == DT_VARIANT) {
      ref_input_nodes_.push_back(node);
      break;
    }
  }
  ClassAttr class_attr = graph_.Class(node);
  if (class_attr.is_list) {
    class_attrs_.emplace_back(node, std::move(class_attr.specs));
  } else if (class_attr.single_string) {
    warnings_.push_back(fmt::format(
        "node '{}': the value for colocation attribute '_class' must be a "
        "list of strings, not a single string (ignored)",
        graph_.name(node)));
  }
  bool mismatch = false, unknown = false;
  m.types = graph_.SupportedTypes(node, &mismatch, &unknown);
  if (unknown) {
    auto [it, inserted] = unknown_ops_.try_emplace(
        std::string(graph_.op(node)), 0, std::string(graph_.name(node)));
    ++it->second.first;
  }
  std::string_view requested = graph_.requested_device(node);
  if (!graph_.assigned_device_name(node).empty()) {
    return InitializeAssigned(node, graph_.assigned_device_name(node), &m);
  }
  if (options_.keep_assigned && !requested.empty()) {
    ParsedDeviceName parsed;
    if (ParseFullName(requested, &parsed) && parsed.IsFullySpecified()) {
      return InitializeAssigned(node, requested, &m);
    }
  }
  if (m.types == 0 && !mismatch && !unknown && !requested.empty()) {
    // A kernel may exist in another process: a request for a different
    // address space than the local one is taken on trust.
    ParsedDeviceName parsed;
    if (ParseFullName(requested, &parsed) &&
        IsDifferentAddressSpace(local_address_, parsed)) {
      TypeMask bit = parsed.has_type ? kernels_->TypeBit(parsed.type) : 0;
      m.types = bit != 0 ? bit : kernels_->all_types();
    }
  }
  if (m.types == 0) {
    std::vector<std::string> types = kernels_->types();
    std::sort(types.begin(), types.end());
    return InvalidArgument(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} "
        "with these attrs: [{}]\nRegistered devices: [{}]\nRegistered "
        "kernels:\n{}",
        graph_.op(node), graph_.name(node), graph_.AttrsString(node),
        fmt::join(types, ", "),
        kernels_->KernelsRegisteredForOp(graph_.op(node)));
  }
  if (requested.empty()) return Status::Ok();
  int spec = RequestedSpec(requested);
  if (spec < 0) {
    return InvalidArgument("Malformed device specification '{}' in node: {}",
                           requested, NodeDebugString(node));
  }
  m.requested = spec;
  // A generator of a ref or resource keeps its device: it is where the
  // variable lives.
  if (IsRefOrResourceGenerator(graph_, node)) m.resource = spec;
  return Status::Ok();
}

Status ColocationGraph::InitializeAssigned(int node, std::string_view name,
                                           Member* member) {
  ParsedDeviceName parsed;
  if (!ParseFullName(name, &parsed)) {
    return Internal("Malformed assigned device '{}'", name);
  }
  int device = devices_.FindDeviceByName(name);
  if (device < 0) {
    std::vector<std::string> names;
    for (const Device& d : devices_.devices()) names.push_back(d.name);
    return Internal(
        "Assigned device '{}' does not match any device. This error can "
        "happen when one attempts to run a tf.function with resource inputs "
        "residing on remote devices. This use case is currently not "
        "supported. Here are the devices available on this machine: [{}].If "
        "you are seeing this error when running using a tf.Session, set "
        "experimental.share_cluster_devices_in_session to true in the "
        "tf.ConfigProto.",
        name, fmt::join(names, ", "));
  }
  if ((member->types & kernels_->DeviceBit(device)) == 0) {
    return Internal(
        "Assigned device '{}' does not have registered OpKernel support for {}",
        name, graph_.op(node));
  }
  member->assigned = member->requested = device_spec_[device];
  assigned_device_[node] = device;
  return Status::Ok();
}

Status ColocationGraph::ColocateResourceAndRefEdges() {
  // TensorFlow walks every edge in id order; only the edges into the nodes
  // InitializeMember noted can matter, so those are gathered and sorted.
  struct RefEdge {
    int src, dst, dst_input;
    int64_t order;
  };
  std::vector<RefEdge> edges;
  std::vector<PlaceInEdge> in;
  for (int node : ref_input_nodes_) {
    graph_.DataInEdges(node, &in);
    for (const PlaceInEdge& edge : in) {
      if (edge.dst_input < 0 || edge.dst_input >= graph_.num_inputs(node)) {
        continue;
      }
      DataType type = graph_.input_type(node, edge.dst_input);
      if (IsRefOrResource(type) || type == DT_VARIANT) {
        edges.push_back(RefEdge{edge.src, node, edge.dst_input, edge.order});
      }
    }
  }
  std::sort(edges.begin(), edges.end(), [](const RefEdge& a, const RefEdge& b) {
    return a.order < b.order;
  });
  for (const RefEdge& edge : edges) {
    const int src = edge.src, dst = edge.dst;
    DataType type = graph_.input_type(dst, edge.dst_input);
    // Function calls forward resources to the ops in their bodies, which
    // TensorFlow places separately; dfg leaves such edges alone.
    if (graph_.IsFunctionCall(src) || graph_.IsFunctionCall(dst)) continue;
    if (type == DT_VARIANT) {
      if (IsDatasetOp(graph_, src) && IsDatasetOp(graph_, dst)) {
        DFG_RETURN_IF_ERROR(
            ColocateResourceOrRefEdge(src, dst, JoinKind::kResourceEdge));
      }
      continue;
    }
    if (!IsExemptFromResourceInputColocation(graph_.op(dst))) {
      JoinKind kind =
          IsRefType(type) ? JoinKind::kRefEdge : JoinKind::kResourceEdge;
      DFG_RETURN_IF_ERROR(ColocateResourceOrRefEdge(src, dst, kind));
    }
  }
  return Status::Ok();
}

Status ColocationGraph::ColocateResourceOrRefEdge(int src, int dst,
                                                  JoinKind kind) {
  int src_root = FindRoot(src);
  int dst_root = FindRoot(dst);
  const Member& s = members_[src_root];
  Member& d = members_[dst_root];
  for (auto field : {&Member::assigned, &Member::resource}) {
    if (!AreCompatibleDevNames(specs_[s.*field], specs_[d.*field])) {
      return InvalidArgument(
          "Cannot place the graph because a reference or resource edge "
          "connects colocation groups with incompatible {} devices: {} vs {}. "
          "The edge src node is {} , and the dst node is {}",
          field == &Member::assigned ? "assigned" : "resource",
          specs_.str(s.*field), specs_.str(d.*field), graph_.name(src),
          graph_.name(dst));
    }
  }
  if (!AreCompatibleDevNames(specs_[s.requested], specs_[d.requested])) {
    // The producer wins: the consumer's request is dropped, even without
    // soft placement.
    if (record_) {
      notes_[dst] = fmt::format(
          "its group's request '{}' was replaced by '{}' from the {} edge "
          "from '{}'",
          specs_.str(d.requested), specs_.str(s.requested),
          kind == JoinKind::kRefEdge ? "ref" : "resource", graph_.name(src));
    }
    ParsedDeviceName requested = specs_[s.requested];
    EnsureSpecification(&requested, specs_[d.assigned]);
    EnsureSpecification(&requested, specs_[d.resource]);
    d.requested = specs_.Intern(requested);
  }
  Status status = ColocateNodes(src, src_root, dst, dst_root);
  if (!status.ok()) {
    return AttachNode(
        InvalidArgument(
            "Nodes were connected by a reference connection (requiring them "
            "to be on the same device), but the two nodes were assigned two "
            "different devices: {}",
            status.message()),
        graph_.name(dst));
  }
  if (src_root != dst_root) RecordJoin(src, dst, kind, {});
  return Status::Ok();
}

Status ColocationGraph::ColocateAllNodes() {
  // Only names some `_class` mentions can gather a group; the others need no
  // entry in the map, which keeps large graphs cheap.
  NameFilter mentioned;
  for (const auto& [node, specs] : class_attrs_) {
    for (std::string_view spec : specs) {
      if (StartsWith(spec, kGroupPrefix)) {
        mentioned.Insert(spec.substr(kGroupPrefix.size()));
      }
    }
  }
  if (mentioned.empty()) return Status::Ok();
  std::unordered_map<std::string_view, int> roots;
  size_t next_class = 0;
  for (int node : graph_.op_nodes()) {
    if (next_class < class_attrs_.size() &&
        class_attrs_[next_class].first == node) {
      for (std::string_view spec : class_attrs_[next_class].second) {
        if (!StartsWith(spec, kGroupPrefix)) continue;
        DFG_RETURN_IF_ERROR(ColocateNodeToGroup(
            &roots, node, spec.substr(kGroupPrefix.size())));
      }
      ++next_class;
    }
    if (mentioned.Contains(graph_.name(node), name_hashes_[node])) {
      DFG_RETURN_IF_ERROR(ColocateNodeToGroup(&roots, node, graph_.name(node)));
    }
  }
  return Status::Ok();
}

Status ColocationGraph::ColocateNodeToGroup(
    std::unordered_map<std::string_view, int>* roots, int node,
    std::string_view group) {
  auto [it, inserted] = roots->try_emplace(group, node);
  if (inserted) return Status::Ok();  // the first node leads the group
  const int leader = it->second;
  int x_root = FindRoot(node);
  int y_root = FindRoot(leader);
  Status status = ColocateNodes(node, x_root, leader, y_root);
  if (!status.ok()) {
    if (!options_.allow_soft_placement) {
      return AttachNode(status, graph_.name(node));
    }
    if (record_) {
      std::string message =
          status.message().substr(0, status.message().find('\n'));
      notes_[node] =
          fmt::format("soft placement ignored its colocation with loc:@{}: {}",
                      group, message);
    }
    return Status::Ok();
  }
  if (x_root != y_root) RecordJoin(node, leader, JoinKind::kClass, group);
  return Status::Ok();
}

Status ColocationGraph::ColocateNodes(int x, int x_root, int y, int y_root) {
  if (x_root == y_root) return Status::Ok();
  // Union by rank; on a tie x's root leads (TensorFlow's Member::Merge).
  bool x_leads = members_[x_root].rank >= members_[y_root].rank;
  Member& new_root = members_[x_leads ? x_root : y_root];
  Member& old_root = members_[x_leads ? y_root : x_root];
  Status status = MergeDeviceNames(&new_root, old_root);
  if (!status.ok()) {
    return InvalidArgument(
        "Cannot colocate nodes {{{{colocation_node {}}}}} and "
        "{{{{colocation_node {}}}}}: {}",
        graph_.name(x), graph_.name(y), status.message());
  }
  // As in TensorFlow, the merged device names stay even when the types
  // below do not intersect (that matters only under soft placement).
  TypeMask types = new_root.types & old_root.types;
  if (types == 0) {
    return InvalidArgument(
        "Cannot colocate nodes {{{{colocation_node {}}}}} and "
        "{{{{colocation_node {}}}}} because no device type supports both of "
        "those nodes and the other nodes colocated with them.{}{}",
        graph_.name(x), graph_.name(y), DebugInfo(x_root), DebugInfo(y_root));
  }
  new_root.types = types;
  new_root.size += old_root.size;
  new_root.candidates = -1;
  if (new_root.placed_by < 0) new_root.placed_by = old_root.placed_by;
  if (x_leads) {
    members_[y_root].parent = x_root;
    if (members_[x_root].rank == members_[y_root].rank) ++members_[x_root].rank;
  } else {
    members_[x_root].parent = y_root;
  }
  return Status::Ok();
}

Status ColocationGraph::MergeDeviceNames(Member* target, const Member& other) {
  if (target->requested == other.requested &&
      target->assigned == other.assigned &&
      target->resource == other.resource) {
    return Status::Ok();  // merging a spec with itself changes nothing
  }
  // Merging with nothing keeps the other side, which already holds the
  // invariant that requested specializes assigned and resource.
  if (other.requested == 0 && other.assigned == 0 && other.resource == 0) {
    return Status::Ok();
  }
  if (target->requested == 0 && target->assigned == 0 &&
      target->resource == 0) {
    target->requested = other.requested;
    target->assigned = other.assigned;
    target->resource = other.resource;
    return Status::Ok();
  }
  ParsedDeviceName assigned = specs_[target->assigned];
  DFG_RETURN_IF_ERROR(MergeDevNames(&assigned, specs_[other.assigned]));
  ParsedDeviceName resource = specs_[target->resource];
  DFG_RETURN_IF_ERROR(MergeDevNames(&resource, specs_[other.resource]));
  ParsedDeviceName requested = specs_[target->requested];
  DFG_RETURN_IF_ERROR(MergeDevNames(&requested, specs_[other.requested],
                                    options_.allow_soft_placement));
  EnsureSpecification(&requested, assigned);
  EnsureSpecification(&requested, resource);
  target->assigned = specs_.Intern(assigned);
  target->resource = specs_.Intern(resource);
  target->requested = specs_.Intern(requested);
  return Status::Ok();
}

void ColocationGraph::RecordJoin(int x, int y, JoinKind kind,
                                 std::string_view group) {
  if (!record_) return;
  bool edge = kind != JoinKind::kClass;
  if (joins_[x].kind == JoinKind::kNone) {
    joins_[x] = Join{kind, y, edge, std::string(group)};
  }
  if (joins_[y].kind == JoinKind::kNone) {
    joins_[y] = Join{kind, x, false, std::string(group)};
  }
}

}  // namespace dfg::place_internal
