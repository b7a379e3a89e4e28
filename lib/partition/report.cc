// The partitions as one GraphDef, and the JSON report of `dfg partition
// --explain`.
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "lib/graph/op_types.h"
#include "lib/graph/types.h"
#include "lib/partition/partition.h"

namespace dfg {

GraphDef MergePartitions(const std::map<std::string, GraphDef>& partitions) {
  GraphDef merged;
  std::unordered_set<std::string> functions;
  std::unordered_set<std::string> gradients;
  bool first = true;
  for (const auto& [key, graph] : partitions) {
    if (first) *merged.mutable_versions() = graph.versions();
    first = false;
    for (const NodeDef& node : graph.node()) *merged.add_node() = node;
    for (const auto& function : graph.library().function()) {
      if (functions.insert(function.signature().name()).second) {
        *merged.mutable_library()->add_function() = function;
      }
    }
    for (const auto& gradient : graph.library().gradient()) {
      if (gradients.insert(gradient.function_name()).second) {
        *merged.mutable_library()->add_gradient() = gradient;
      }
    }
  }
  return merged;
}

std::string PartitionReportJson(
    const std::map<std::string, GraphDef>& partitions,
    const std::vector<Transfer>& transfers) {
  using nlohmann::ordered_json;
  ordered_json parts = ordered_json::array();
  for (const auto& [key, graph] : partitions) {
    int sends = 0;
    int recvs = 0;
    for (const NodeDef& node : graph.node()) {
      if (IsSendOp(node.op())) ++sends;
      if (IsRecvOp(node.op())) ++recvs;
    }
    parts.push_back({{"name", key},
                     {"file", PartitionFileName(key)},
                     {"nodes", graph.node_size()},
                     {"sends", sends},
                     {"recvs", recvs}});
  }
  ordered_json cut = ordered_json::array();
  for (const Transfer& t : transfers) {
    cut.push_back(
        {{"tensor_name", t.tensor_name},
         {"dtype", DataTypeString(t.dtype)},
         {"control", t.control},
         {"from",
          {{"device", t.send_device}, {"node", t.src}, {"port", t.src_output}}},
         {"to", {{"device", t.recv_device}, {"node", t.dsts.front()}}},
         {"consumers", t.dsts},
         {"send", t.send},
         {"recv", t.recv}});
  }
  ordered_json json;
  json["partitions"] = std::move(parts);
  json["transfers"] = std::move(cut);
  return json.dump(2, ' ', false, ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace dfg
