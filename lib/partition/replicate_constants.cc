#include "lib/partition/replicate_constants.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "lib/graph/device_name.h"

namespace dfg {
namespace {

constexpr int64_t kMaxElements = 16;

// The element count of the Const's value, or -1 if it has no usable shape.
int64_t NumElements(const Node* node) {
  auto it = node->def().attr().find("value");
  if (it == node->def().attr().end() || !it->second.has_tensor()) return -1;
  const auto& shape = it->second.tensor().tensor_shape();
  if (shape.unknown_rank()) return -1;
  int64_t n = 1;
  for (const auto& dim : shape.dim()) {
    if (dim.size() < 0) return -1;
    n *= dim.size();
    if (n > kMaxElements) return n;
  }
  return n;
}

bool IsCpu(const std::string& device) {
  ParsedDeviceName parsed;
  return ParseFullName(device, &parsed) && parsed.has_type &&
         parsed.type == "CPU";
}

// Where a copy for `dst` goes: dst's device when it is a CPU, else CPU:0 of
// dst's task.
StatusOr<std::string> CopyDevice(const Node* dst) {
  const std::string& device = dst->assigned_device_name();
  if (device.empty()) {
    return Aborted("Node name: {} has no assigned device.", dst->name());
  }
  ParsedDeviceName parsed;
  if (!ParseFullName(device, &parsed)) {
    return Internal("Could not parse device name {}", device);
  }
  if (parsed.has_type && parsed.type == "CPU") return device;
  parsed.has_type = true;
  parsed.type = "CPU";
  parsed.has_id = true;
  parsed.id = 0;
  return ParsedNameToString(parsed);
}

struct OutEdge {
  Node* dst;
  int src_output;
  int dst_input;
};

bool Qualifies(const Node* node) {
  if (node->op() != "Const" && node->op() != "HostConst") return false;
  if (node->out_edges().size() <= 1) return false;
  for (const Edge* e : node->out_edges())
    if (e->IsControlEdge()) return false;
  int64_t n = NumElements(node);
  if (n < 0 || n > kMaxElements) return false;
  return !node->assigned_device_name().empty() &&
         IsCpu(node->assigned_device_name());
}

}  // namespace

Status ReplicateSmallConstants(Graph* graph) {
  for (Node* node : graph->op_nodes()) {
    if (!Qualifies(node)) continue;
    std::map<std::string, std::vector<OutEdge>> by_device;
    for (const Edge* e : node->out_edges()) {
      DFG_ASSIGN_OR_RETURN(std::string device, CopyDevice(e->dst));
      by_device[device].push_back({e->dst, e->src_output, e->dst_input});
    }
    if (by_device.size() <= 1) continue;
    // TensorFlow's copies read every in-node of the original (a Const has
    // control inputs only), _SOURCE included, with duplicates allowed: those
    // _SOURCE edges never reach a partition but take edge ids, which
    // tensor_name shows.
    std::vector<Node*> control_inputs;
    for (const Edge* e : node->in_edges()) control_inputs.push_back(e->src);
    for (const auto& [device, edges] : by_device) {
      NodeDef def = node->def();
      def.set_name(graph->NewName(node->name() + "/replicate"));
      def.clear_input();
      Node* copy = graph->AddNode(std::move(def), node->input_types(),
                                  node->output_types(), node->op_known());
      copy->set_assigned_device_name(device);
      for (const OutEdge& e : edges)
        graph->AddEdge(copy, e.src_output, e.dst, e.dst_input);
      for (Node* src : control_inputs)
        graph->AddEdge(src, kControlSlot, copy, kControlSlot);
    }
    graph->RemoveNode(node);
  }
  return Status::Ok();
}

}  // namespace dfg
