// Candidate devices of a colocation group (TensorFlow's GetDevicesForNode,
// soft placement, LimitToAssignedDevice) and the error texts that explain why
// a group has none, with TensorFlow's "Colocation Debug Info" block.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "lib/graph/op_registry.h"
#include "lib/place/colocation.h"

namespace dfg::place_internal {
namespace {

bool SameSpec(const ParsedDeviceName& a, const ParsedDeviceName& b) {
  return a.has_job == b.has_job && (!a.has_job || a.job == b.job) &&
         a.has_replica == b.has_replica &&
         (!a.has_replica || a.replica == b.replica) &&
         a.has_task == b.has_task && (!a.has_task || a.task == b.task) &&
         a.has_type == b.has_type && (!a.has_type || a.type == b.type) &&
         a.has_id == b.has_id && (!a.has_id || a.id == b.id);
}

}  // namespace

int ColocationGraph::Candidates(int spec, TypeMask types) {
  CandidateKey key{spec, types};
  auto it = candidate_index_.find(key);
  if (it != candidate_index_.end()) return it->second;
  std::vector<int> list;
  const ParsedDeviceName& pattern = specs_[spec];
  for (int d : sorted_devices_) {
    if ((kernels_->DeviceBit(d) & types) == 0) continue;
    if (spec != 0 &&
        !IsCompleteSpecification(pattern, devices_.devices()[d].parsed)) {
      continue;
    }
    list.push_back(d);
  }
  int index = static_cast<int>(candidate_lists_.size());
  candidate_lists_.push_back(std::move(list));
  candidate_index_.emplace(key, index);
  return index;
}

Status ColocationGraph::GetDevicesForNode(int node,
                                          const std::vector<int>** devices) {
  int root = FindRoot(node);
  Member& m = members_[root];
  if (m.candidates >= 0) {
    *devices = &candidate_lists_[m.candidates];
    return Status::Ok();
  }
  int list = -1;
  if (specs_[m.requested].HasSomeDetails()) {
    list = Candidates(m.requested, m.types);
    if (candidate_lists_[list].empty() && options_.allow_soft_placement) {
      list = SoftCandidates(root);
      m.soft = !candidate_lists_[list].empty();
    }
    if (candidate_lists_[list].empty()) return NoCandidatesError(node, root);
  } else {
    list = Candidates(0, m.types);
    if (candidate_lists_[list].empty()) {
      std::vector<std::string> inputs;
      for (int i = 0; i < graph_.num_inputs(node); ++i) {
        inputs.push_back(DataTypeString(graph_.input_type(node, i)));
      }
      return InvalidArgument(
          "Node had no OpKernel registered to support this operation: "
          "Operation was {} and inputs were [{}].\n{}",
          graph_.op(node), fmt::join(inputs, ", "), DebugInfo(root));
    }
  }
  m.candidates = list;
  *devices = &candidate_lists_[list];
  return Status::Ok();
}

// First without moving resources (type and id kept where the assigned or
// resource device pins them), then, with a warning, moving them.
int ColocationGraph::SoftCandidates(int root) {
  const Member& m = members_[root];
  // Copies: Intern below may move the table.
  const ParsedDeviceName assigned = specs_[m.assigned];
  const ParsedDeviceName resource = specs_[m.resource];
  ParsedDeviceName soft = specs_[m.requested];
  if (!assigned.has_type && !resource.has_type) soft.has_type = false;
  if (!assigned.has_id && !resource.has_id) soft.has_id = false;
  int list = Candidates(specs_.Intern(soft), m.types);
  if (!candidate_lists_[list].empty()) return list;
  soft = specs_[m.requested];
  if (!assigned.has_type) soft.has_type = false;
  if (!assigned.has_id) soft.has_id = false;
  list = Candidates(specs_.Intern(soft), m.types);
  if (!candidate_lists_[list].empty()) {
    warnings_.push_back(fmt::format(
        "soft placement moved the resources colocated with '{}' off their "
        "device '{}': some of the ops that must sit with them have no kernel "
        "there",
        graph_.name(root), specs_.str(m.resource)));
  }
  return list;
}

// TensorFlow built without CUDA adds this to a request for a GPU that is not
// there. dfg has no CUDA either, but its device list may declare GPUs (to
// place and partition for them): it says so when the list has none, as
// TensorFlow's CPU build always has none.
std::string ColocationGraph::NoGpuNote(
    const ParsedDeviceName& specified) const {
  std::string type = specified.type;
  for (char& c : type) c = static_cast<char>(std::tolower(c));
  if (type != "gpu") return "";
  for (const Device& d : devices_.devices()) {
    if (d.type() == "GPU") return "";
  }
  return " The requested device appears to be a GPU, but CUDA is not enabled.";
}

Status ColocationGraph::NoCandidatesError(int node, int root) {
  const Member& m = members_[root];
  std::string debug = DebugInfo(root);
  std::string_view requested = graph_.requested_device(node);
  ParsedDeviceName specified;
  if (ParseFullName(requested, &specified) &&
      SameSpec(specified, specs_[m.requested])) {
    if (devices_.FindMatchingDevices(specified).empty()) {
      std::vector<std::string> names;
      for (const Device& d : devices_.devices()) names.push_back(d.name);
      std::sort(names.begin(), names.end());
      return InvalidArgument(
          "{{{{node {}}}}} was explicitly assigned to {} but available devices "
          "are [ {} ]. Make sure the device specification refers to a valid "
          "device.{}",
          graph_.name(node), requested, fmt::join(names, ", "),
          NoGpuNote(specified));
    }
    if (specified.has_type) {
      return InvalidArgument(
          "Could not satisfy explicit device specification '{}' because no "
          "supported kernel for {} devices is available.{}\nOp: {}\nNode "
          "attrs: {}\nRegistered kernels:\n{}",
          requested, specified.type, debug, graph_.op(node),
          graph_.AttrsString(node),
          kernels_->KernelsRegisteredForOp(graph_.op(node)));
    }
    return InvalidArgument(
        "Could not satisfy explicit device specification '{}'{}", requested,
        debug);
  }
  std::vector<std::string> names;
  for (const Device& d : devices_.devices()) names.push_back(d.name);
  return InvalidArgument(
      "Could not satisfy explicit device specification '{}' because the node "
      "{{{{colocation_node {}}}}} was colocated with a group of nodes that "
      "required incompatible device '{}'. All available devices [{}]. {}",
      requested, graph_.name(node), specs_.str(m.requested),
      fmt::join(names, ", "), debug);
}

Status ColocationGraph::LimitToAssignedDevice(int node, int device) {
  assigned_device_[node] = device;
  int root = FindRoot(node);
  Member& m = members_[root];
  if (m.size == 1) return Status::Ok();  // nobody else asks this group
  if (m.placed_by >= 0 && assigned_device_[m.placed_by] == device) {
    return Status::Ok();
  }
  // The device is fully specified, so merging it into (or overriding) the
  // group's specs leaves exactly the device's own name in all three.
  int spec = device_spec_[device];
  ParsedDeviceName merged = specs_[m.assigned];
  Status status = MergeDevNames(&merged, specs_[spec]);
  if (!status.ok()) {
    return Internal(
        "Constraining by assigned device should not cause an error. Original "
        "root's assigned device name: {} node's assigned device name \"{}\". "
        "Error: {}",
        specs_.str(m.assigned), devices_.devices()[device].name,
        status.message());
  }
  m.assigned = m.resource = m.requested = spec;
  m.candidates = -1;
  m.soft = false;
  if (m.placed_by < 0) m.placed_by = node;
  return Status::Ok();
}

std::string ColocationGraph::MemberDebugString(const Member& m) {
  std::vector<std::string> types;
  for (size_t i = 0; i < kernels_->types().size(); ++i) {
    if (m.types & (TypeMask{1} << i)) types.push_back(kernels_->types()[i]);
  }
  std::vector<std::string> possible;
  if (m.candidates >= 0) {
    for (int d : candidate_lists_[m.candidates]) {
      possible.push_back(devices_.devices()[d].name);
    }
  }
  int index = m.placed_by >= 0 ? assigned_device_[m.placed_by] + 1 : -1;
  return fmt::format(
      "Member(assigned_device_name_index_={} requested_device_name_='{}' "
      "assigned_device_name_='{}' resource_device_name_='{}' "
      "supported_device_types_=[{}] possible_devices_=[{}]",
      index, specs_.str(m.requested), specs_.str(m.assigned),
      specs_.str(m.resource), fmt::join(types, ", "),
      fmt::join(possible, ", "));
}

std::string ColocationGraph::DebugInfo(int root) {
  std::map<std::string, std::string> op_types;  // sorted, unlike TensorFlow
  std::vector<int> members;
  for (int node : graph_.op_nodes()) {
    if (FindRoot(node) != root) continue;
    members.push_back(node);
    bool mismatch = false;
    op_types[std::string(graph_.op(node))] =
        kernels_->TypeNames(graph_.SupportedTypes(node, &mismatch), " ");
  }
  if (members.empty()) return "";
  std::string text =
      "\nColocation Debug Info:\nColocation group had the following types and "
      "supported devices: \nRoot " +
      MemberDebugString(members_[root]);
  for (const auto& [op, types] : op_types) {
    text += fmt::format("\n{}: {}", op, types);
  }
  text +=
      "\n\nColocation members, user-requested devices, and framework assigned "
      "devices, if any:";
  for (int node : members) {
    text += fmt::format("\n  {} ({}) {}", graph_.name(node), graph_.op(node),
                        graph_.requested_device(node));
    int device = assigned_device_[node];
    if (device >= 0) {
      text += " framework assigned device=" + devices_.devices()[device].name;
    }
  }
  return text + "\n";
}

std::string ColocationGraph::NodeDebugString(int node) const {
  int device = assigned_device_[node];
  return fmt::format(
      "{{name:'{}' id:{} op device:{{requested: '{}', assigned: '{}'}} "
      "def:{{{}}}}}",
      graph_.name(node), node, graph_.requested_device(node),
      device >= 0 ? devices_.devices()[device].name : "",
      graph_.DefSummary(node));
}

}  // namespace dfg::place_internal
