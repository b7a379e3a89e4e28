// Internal: where a stateful kernel keeps its resource (TensorFlow's
// ContainerInfo). The node's `container` attr, or the ResourceMgr's default
// container; its `shared_name` attr, or else the node's name (staging areas,
// which share a buffer between the ops of one node name) or a name private
// to the node (accumulators).
#ifndef DFG_LIB_KERNELS_CONTAINER_INFO_H_
#define DFG_LIB_KERNELS_CONTAINER_INFO_H_

#include <string>

#include "lib/base/status.h"
#include "lib/kernels/op_kernel.h"

namespace dfg {

struct ContainerInfo {
  std::string container;
  std::string name;
};

// Errors (TensorFlow's wording): kInvalidArgument "shared_name cannot start
// with '_':<name>".
inline StatusOr<ContainerInfo> GetContainerInfo(const OpKernel& kernel,
                                                const ResourceMgr& rm,
                                                bool use_node_name_as_default) {
  ContainerInfo info;
  auto attr = [&](const char* key) -> std::string {
    auto it = kernel.def().attr().find(key);
    return it == kernel.def().attr().end() ? "" : it->second.s();
  };
  info.container = attr("container");
  if (info.container.empty()) info.container = rm.default_container();
  const std::string shared_name = attr("shared_name");
  if (!shared_name.empty() && shared_name[0] == '_') {
    return InvalidArgument("shared_name cannot start with '_':{}", shared_name);
  }
  // TensorFlow numbers a kernel-private resource "_<id>_<node>"; dfg's
  // executors build one kernel per node and session, so the node keys it.
  info.name = !shared_name.empty()       ? shared_name
              : use_node_name_as_default ? kernel.name()
                                         : "_0_" + kernel.name();
  return info;
}

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_CONTAINER_INFO_H_
