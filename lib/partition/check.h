// An invariant checker for Partition's output: given the placed graph before
// partitioning and the partitions, verifies that the partitions are a
// faithful split of it. Tests run it over every corpus graph; it is also
// useful when changing Partition.
//
// What holds (a violation is reported as kInternal naming the node):
// - every original node is in exactly one partition, and no partition holds
//   two nodes of one name; every node sits in the partition of its device;
// - every node that Partition added is a transfer node (_Send, _HostSend,
//   _Recv, _HostRecv), a control-edge helper (Const, Identity) or part of a
//   control loop (Enter, Merge, Switch, NextIteration);
// - no node reads (data or control) a node outside its own partition;
// - every added recv has exactly one added send with the same tensor_name,
//   send_device, recv_device and send_device_incarnation (and the same dtype),
//   and the reverse;
// - every original data edge src:k -> dst:i is realised either directly (the
//   same input in dst's partition) or by a recv whose matching send reads
//   src:k; every original control edge ^src either directly or through an
//   Identity of a recv whose send reads a Const that depends on ^src.
#ifndef DFG_LIB_PARTITION_CHECK_H_
#define DFG_LIB_PARTITION_CHECK_H_

#include <map>
#include <string>

#include "lib/base/status.h"
#include "lib/partition/partition.h"

namespace dfg {

// `original` is the placed graph as a GraphDef (Graph::ToGraphDef before
// Partition, so that inputs mirror the graph's edges); `by` is how it was
// partitioned.
Status CheckPartitions(const GraphDef& original,
                       const std::map<std::string, GraphDef>& partitions,
                       PartitionBy by = PartitionBy::kDevice);

}  // namespace dfg

#endif  // DFG_LIB_PARTITION_CHECK_H_
