// The worker's side of the pipeline: TensorFlow's GraphMgr::InitItem.
//
// A master registers one partition per task (lib/pipeline's
// PartitionClientGraph by worker); the task's worker cuts it again per device
// of its own, with its own names ("<prefix>_G<k>") and its devices'
// incarnations, and runs one executor per piece. No rewrite runs here: the
// master's client graph was already pruned and rewritten.
#ifndef DFG_LIB_PIPELINE_REGISTERED_GRAPH_H_
#define DFG_LIB_PIPELINE_REGISTERED_GRAPH_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"

namespace dfg {

struct RegisteredGraphOptions {
  // The worker's devices, full canonical names; a node without a device
  // goes to the first, and partial names are completed from it.
  std::vector<std::string> devices;
  // PartitionOptions::new_name and get_incarnation (lib/partition).
  std::function<std::string(std::string_view prefix)> new_name;
  std::function<uint64_t(std::string_view device)> get_incarnation;
};

// Assigns every op node of `graph` to one of options.devices and cuts it per
// device. Errors: kInvalidArgument "Creating a partition for D which doesn't
// exist in the list of available devices" (TensorFlow's text) for a node
// whose device is not the worker's; Partition's errors.
StatusOr<std::map<std::string, GraphDef>> PartitionRegisteredGraph(
    Graph* graph, const RegisteredGraphOptions& options);

}  // namespace dfg

#endif  // DFG_LIB_PIPELINE_REGISTERED_GRAPH_H_
