// Internal to lib/partition: the state of one Partition call. partition.cc
// holds the main loop over nodes; partitioner.cc the devices, memory types
// and the nodes a transfer is made of.
#ifndef DFG_LIB_PARTITION_PARTITIONER_H_
#define DFG_LIB_PARTITION_PARTITIONER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/graph/op_registry.h"
#include "lib/partition/partition.h"

namespace dfg::partition_internal {

// A device as Partition sees it: its type (memory types differ on CPU) and
// the partition its nodes go to.
struct DeviceInfo {
  bool is_cpu = false;
  std::string type;
  int partition = -1;
};

// Input and output memory types of one node.
struct NodeMemory {
  std::vector<MemoryType> inputs;
  std::vector<MemoryType> outputs;
};

// A transfer that later consumers may share (§3.4), keyed by (producer,
// output or kControlSlot, destination partition, lands in host memory). The
// entries of one producer form a list (usually of one).
struct RecvEntry {
  int src_output;
  int partition;
  bool on_host;
  NodeDef* recv;  // what consumers read: the recv, or the control Identity
  int transfer;   // index into options.transfers, or -1 when not recorded
  int next;       // the producer's next entry, or -1
};

class Partitioner {
 public:
  // With `move_defs`, the partitions are built on the graph's arena and the
  // nodes' definitions move into them (PartitionOnArena).
  Partitioner(Graph* graph, const PartitionOptions& options,
              bool move_defs = false)
      : graph_(graph), options_(options), move_defs_(move_defs) {}

  // The partitions, by key: on the graph's arena with move_defs, else owned
  // by the Partitioner.
  StatusOr<std::map<std::string, GraphDef*>> Run();

  std::string NewName(std::string_view prefix);

 private:
  // The id tensor_name shows for an edge (PartitionOptions::graph_copies).
  void NumberCopiedEdges();
  int TensorEdgeId(const Edge* edge) const;

  // partitioner.cc
  uint64_t Incarnation(const std::string& device) const;
  Status AssignDevices();
  Status ComputeMemoryTypes();
  const DeviceInfo& Device(const Node* node) const {
    return devices_[node_device_[node->id()]];
  }
  int PartitionOf(const Node* node) const { return Device(node).partition; }
  // Whether the two have one assigned device name.
  bool SameDevice(const Node* a, const Node* b) const {
    return node_device_[a->id()] == node_device_[b->id()];
  }
  MemoryType InputMemory(const Node* node, int slot) const;
  MemoryType OutputMemory(const Node* node, int slot) const;
  bool NeedSameDeviceSendRecv(const Edge* edge) const;
  bool IsDstInputOnHost(const Edge* edge) const;
  DataType EdgeType(const Edge* edge) const;
  void AddTransfer(const Edge* edge, int dst_partition, NodeDef** recv,
                   NodeDef** real_recv, int* transfer);
  NodeDef* AddSend(const Edge* edge, GraphDef* graph, const std::string& input,
                   const std::string& tensor_name);
  NodeDef* AddRecv(const Edge* edge, GraphDef* graph,
                   const std::string& tensor_name, NodeDef** real_recv);
  void SetSendRecvAttrs(const Edge* edge, const std::string& tensor_name,
                        NodeDef* def) const;

  // partition.cc
  Status ProcessNode(Node* dst);
  Status CollectInputs(const Node* dst, const Edge** control_flow_edge,
                       int* num_control_flow_edges);
  NodeDef* CopyNode(Node* dst, GraphDef* graph);
  const RecvEntry* FindRecv(const Node* src, int src_output, int partition,
                            bool on_host) const;
  void AddInputFrom(const Edge* edge, int dst_partition, NodeDef* dst_def,
                    const Edge* control_flow_edge, int* num_control_flow_edges);
  void Finish();

  Graph* graph_;  // Not owned.
  const PartitionOptions& options_;
  const bool move_defs_;
  int64_t local_counter_ = 0;
  // With graph_copies: by edge id, the id in TensorFlow's last copy, for the
  // edges there before the control loops; those after start at copied_end_.
  std::vector<int> copied_ids_;
  int copied_end_ = 0;

  std::vector<Node*> nodes_;  // the op nodes, in id order
  std::vector<DeviceInfo> devices_;
  std::vector<int> node_device_;   // by node id: index into devices_
  std::vector<std::string> keys_;  // by partition index
  std::vector<GraphDef*> parts_;   // by partition index
  std::vector<std::unique_ptr<GraphDef>> owned_parts_;  // without move_defs
  // by node id: index into memory_ (shared by nodes of one MemoryKey), or -1
  std::vector<int> memory_index_;
  std::vector<NodeMemory> memory_;

  std::vector<int> recv_head_;  // by producer id: first entry, or -1
  std::vector<RecvEntry> recvs_;
  std::vector<const Edge*> inputs_;  // scratch, per dst
  std::vector<NodeDef*> ref_recvs_;
  std::vector<const std::string*> ref_control_inputs_;  // Not owned.
};

// Appends "node", "node:k" or "^node" to def's inputs (TF's Graph::AddInput).
void AddInput(NodeDef* def, const std::string& node, int slot);

// The functions of `library` reachable from `graph`'s nodes (their ops and
// function-valued attrs, then transitively the function bodies, and
// gradients), in library order, with their GradientDefs.
FunctionDefLibrary ReachableFunctions(const FunctionDefLibrary& library,
                                      const GraphDef& graph);

}  // namespace dfg::partition_internal

#endif  // DFG_LIB_PARTITION_PARTITIONER_H_
