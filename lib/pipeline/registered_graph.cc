#include "lib/pipeline/registered_graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "lib/graph/device_name.h"
#include "lib/partition/partition.h"

namespace dfg {
namespace {

// GraphMgr takes each node's requested device as its assigned one; the
// master placed every node on this task already.
Status AssignWorkerDevices(Graph* graph,
                           const std::vector<std::string>& devices) {
  if (devices.empty()) return InvalidArgument("the worker has no devices");
  for (Node* n : graph->op_nodes()) {
    std::string device = n->requested_device();
    if (device.empty()) device = devices[0];
    auto canonical = CanonicalizeDeviceName(device, devices[0]);
    if (!canonical.ok() || std::find(devices.begin(), devices.end(),
                                     *canonical) == devices.end()) {
      return InvalidArgument(
          "Creating a partition for {} which doesn't exist in the list of "
          "available devices. Available devices: {}",
          device, fmt::join(devices, ","));
    }
    n->set_assigned_device_name(*canonical);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::map<std::string, GraphDef>> PartitionRegisteredGraph(
    Graph* graph, const RegisteredGraphOptions& options) {
  DFG_RETURN_IF_ERROR(AssignWorkerDevices(graph, options.devices));
  PartitionOptions popts;
  popts.by = PartitionBy::kDevice;
  popts.new_name = options.new_name;
  popts.get_incarnation = options.get_incarnation;
  return Partition(graph, popts);
}

}  // namespace dfg
