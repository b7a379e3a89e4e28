#include "lib/partition/partitioner.h"

#include <unordered_map>
#include <utility>

#include "lib/graph/device_name.h"
#include "lib/graph/tensor_id.h"
#include "lib/proto/attr_value.pb.h"

namespace dfg::partition_internal {
namespace {

// What a node's memory types depend on, when a key can say it (the op's
// registration, the device type, the signature and AppendScalarAttrsKey's
// attrs); false for a node computed alone. A big graph has a handful.
bool MemoryKey(const Node& node, const DeviceInfo& device, std::string* key) {
  key->assign(device.type);
  key->push_back('\0');
  const void* signature[2] = {&node.input_types(), &node.output_types()};
  key->append(reinterpret_cast<const char*>(signature), sizeof(signature));
  return AppendScalarAttrsKey(node.def(), key);
}

DataType OutputType(const Node& node, int k) {
  return k >= 0 && k < node.num_outputs() ? node.output_type(k)
                                          : DataType::DT_INVALID;
}

}  // namespace

void AddInput(NodeDef* def, const std::string& node, int slot) {
  std::string* input = def->add_input();
  if (slot == kControlSlot) {
    input->reserve(node.size() + 1);
    input->push_back('^');
    input->append(node);
  } else if (slot == 0) {
    input->assign(node);
  } else {
    *input = InputString(node, slot);
  }
}

// Graph::Copy adds its own _SOURCE->_SINK edge, then the source's live edges
// in id order: each copy shifts every edge by one and closes the holes.
void Partitioner::NumberCopiedEdges() {
  const int copies = options_.graph_copies;
  if (copies <= 0) return;
  copied_ids_.assign(graph_->num_edge_ids(), -1);
  int rank = 0;
  for (int id = 0; id < graph_->num_edge_ids(); ++id) {
    if (graph_->FindEdgeId(id) != nullptr) copied_ids_[id] = copies + rank++;
  }
  copied_end_ = copies + rank;
}

int Partitioner::TensorEdgeId(const Edge* edge) const {
  if (options_.graph_copies <= 0) return edge->id;
  const int before = static_cast<int>(copied_ids_.size());
  return edge->id < before ? copied_ids_[edge->id]
                           : copied_end_ + (edge->id - before);
}

uint64_t Partitioner::Incarnation(const std::string& device) const {
  return options_.get_incarnation ? options_.get_incarnation(device)
                                  : options_.incarnation;
}

Status Partitioner::AssignDevices() {
  std::unordered_map<std::string, int> device_index;
  std::unordered_map<std::string, int> partition_index;
  node_device_.assign(graph_->num_node_ids(), -1);
  const std::string* last = nullptr;
  int last_index = -1;
  for (const Node* node : nodes_) {
    const std::string& device = node->assigned_device_name();
    if (last != nullptr && *last == device) {
      node_device_[node->id()] = last_index;
      continue;
    }
    auto [it, inserted] = device_index.emplace(device, devices_.size());
    if (inserted) {
      ParsedDeviceName parsed;
      if (!ParseFullName(device, &parsed)) {
        return Internal("Malformed assigned device '{}'", device);
      }
      auto key = PartitionKey(device, options_.by);
      if (!key.ok())
        return key.status().WithPrefix("node '" + node->name() + "': ");
      auto [pit, new_part] = partition_index.emplace(*key, keys_.size());
      if (new_part) {
        keys_.push_back(*key);
        if (move_defs_) {
          parts_.push_back(google::protobuf::Arena::CreateMessage<GraphDef>(
              graph_->arena()));
        } else {
          owned_parts_.push_back(std::make_unique<GraphDef>());
          parts_.push_back(owned_parts_.back().get());
        }
      }
      DeviceInfo info;
      info.type = parsed.type;
      info.is_cpu = parsed.type == "CPU";
      info.partition = pit->second;
      devices_.push_back(std::move(info));
    }
    last = &device;
    last_index = it->second;
    node_device_[node->id()] = last_index;
  }
  std::vector<int> sizes(parts_.size(), 0);
  for (const Node* node : nodes_) ++sizes[PartitionOf(node)];
  for (size_t i = 0; i < parts_.size(); ++i) {
    parts_[i]->mutable_node()->Reserve(sizes[i]);
  }
  return Status::Ok();
}

// Memory types are needed only where a transfer may be made: at both ends of
// a data edge between partitions, or between two nodes on one non-CPU device.
Status Partitioner::ComputeMemoryTypes() {
  memory_index_.assign(graph_->num_node_ids(), -1);
  std::vector<bool> needed(graph_->num_node_ids(), false);
  for (const Node* dst : nodes_) {
    for (const Edge* edge : dst->in_edges()) {
      if (edge->IsControlEdge() || !edge->src->IsOp()) continue;
      const Node* src = edge->src;
      if (PartitionOf(src) != PartitionOf(dst) ||
          (!Device(src).is_cpu && SameDevice(src, dst))) {
        needed[src->id()] = true;
        needed[dst->id()] = true;
      }
    }
  }
  OpLookup ops(&graph_->library());
  std::unordered_map<std::string, int> by_key;
  std::string key;
  for (const Node* node : nodes_) {
    if (!needed[node->id()]) continue;
    const bool keyed = MemoryKey(*node, Device(node), &key);
    if (keyed) {
      auto it = by_key.find(key);
      if (it != by_key.end()) {
        memory_index_[node->id()] = it->second;
        continue;
      }
    }
    NodeMemory memory;
    DFG_RETURN_IF_ERROR(MemoryTypesForNode(
        ops, Device(node).type, node->def(), node->input_types(),
        node->output_types(), &memory.inputs, &memory.outputs));
    memory_index_[node->id()] = static_cast<int>(memory_.size());
    if (keyed) by_key.emplace(key, memory_index_[node->id()]);
    memory_.push_back(std::move(memory));
  }
  return Status::Ok();
}

MemoryType Partitioner::InputMemory(const Node* node, int slot) const {
  int index = memory_index_[node->id()];
  if (index < 0 || slot < 0 ||
      slot >= static_cast<int>(memory_[index].inputs.size())) {
    return MemoryType::kDevice;
  }
  return memory_[index].inputs[slot];
}

MemoryType Partitioner::OutputMemory(const Node* node, int slot) const {
  int index = memory_index_[node->id()];
  if (index < 0 || slot < 0 ||
      slot >= static_cast<int>(memory_[index].outputs.size())) {
    return MemoryType::kDevice;
  }
  return memory_[index].outputs[slot];
}

// A same-device data edge on a non-CPU device whose two ends disagree on the
// memory the tensor lives in still needs a send/recv (§3.3g).
bool Partitioner::NeedSameDeviceSendRecv(const Edge* edge) const {
  if (edge->IsControlEdge()) return false;
  const Node* src = edge->src;
  const Node* dst = edge->dst;
  if (!SameDevice(src, dst)) return false;
  if (Device(src).is_cpu) return false;
  return OutputMemory(src, edge->src_output) !=
         InputMemory(dst, edge->dst_input);
}

bool Partitioner::IsDstInputOnHost(const Edge* edge) const {
  if (Device(edge->dst).is_cpu) return true;
  if (edge->IsControlEdge()) return false;
  return InputMemory(edge->dst, edge->dst_input) == MemoryType::kHost;
}

DataType Partitioner::EdgeType(const Edge* edge) const {
  if (edge->IsControlEdge()) return DataType::DT_FLOAT;
  DataType type = edge->dst_input < edge->dst->num_inputs()
                      ? edge->dst->input_type(edge->dst_input)
                      : DataType::DT_INVALID;
  // Ops dfg does not know have no declared input types: use the producer's.
  if (type == DataType::DT_INVALID)
    type = OutputType(*edge->src, edge->src_output);
  return type;
}

void Partitioner::SetSendRecvAttrs(const Edge* edge,
                                   const std::string& tensor_name,
                                   NodeDef* def) const {
  auto& attr = *def->mutable_attr();
  const std::string& send_device = edge->src->assigned_device_name();
  attr["tensor_name"].set_s(tensor_name);
  attr["send_device"].set_s(send_device);
  attr["send_device_incarnation"].set_i(
      static_cast<int64_t>(Incarnation(send_device)));
  attr["recv_device"].set_s(edge->dst->assigned_device_name());
  attr["client_terminated"].set_b(false);
  attr["_src"].set_s(edge->src->name());
  attr["_dst"].set_s(edge->dst->name());
}

NodeDef* Partitioner::AddSend(const Edge* edge, GraphDef* graph,
                              const std::string& input,
                              const std::string& tensor_name) {
  bool host = !edge->IsControlEdge() &&
              OutputMemory(edge->src, edge->src_output) == MemoryType::kHost;
  NodeDef* send = graph->add_node();
  send->set_name(NewName(edge->src->name()));
  send->set_op(host ? "_HostSend" : "_Send");
  send->add_input(input);
  send->set_device(edge->src->assigned_device_name());
  SetSendRecvAttrs(edge, tensor_name, send);
  (*send->mutable_attr())["T"].set_type(BaseType(EdgeType(edge)));
  return send;
}

NodeDef* Partitioner::AddRecv(const Edge* edge, GraphDef* graph,
                              const std::string& tensor_name,
                              NodeDef** real_recv) {
  bool host = !edge->IsControlEdge() &&
              InputMemory(edge->dst, edge->dst_input) == MemoryType::kHost;
  const std::string& device = edge->dst->assigned_device_name();
  NodeDef* recv = graph->add_node();
  recv->set_name(NewName(edge->src->name()));
  recv->set_op(host ? "_HostRecv" : "_Recv");
  recv->set_device(device);
  SetSendRecvAttrs(edge, tensor_name, recv);
  (*recv->mutable_attr())["tensor_type"].set_type(BaseType(EdgeType(edge)));
  *real_recv = recv;
  if (!edge->IsControlEdge()) return recv;
  // A control edge is received as a float tensor nobody reads: an Identity
  // turns it back into a node that others can depend on.
  NodeDef* identity = graph->add_node();
  identity->set_name(NewName(edge->src->name()));
  identity->set_op("Identity");
  identity->add_input(recv->name());
  identity->set_device(device);
  (*identity->mutable_attr())["T"].set_type(DataType::DT_FLOAT);
  return identity;
}

// Makes the send and recv for `edge` (in that naming order, after the dummy
// Const of a control edge).
void Partitioner::AddTransfer(const Edge* edge, int dst_partition,
                              NodeDef** recv, NodeDef** real_recv,
                              int* transfer) {
  const Node* src = edge->src;
  GraphDef* src_graph = parts_[PartitionOf(src)];
  GraphDef* dst_graph = parts_[dst_partition];
  std::string send_from;
  if (edge->IsControlEdge()) {
    NodeDef* dummy = src_graph->add_node();
    dummy->set_name(NewName(src->name() + "/ctrl"));
    dummy->set_op("Const");
    AddInput(dummy, src->name(), kControlSlot);
    dummy->set_device(src->assigned_device_name());
    auto& attr = *dummy->mutable_attr();
    attr["dtype"].set_type(DataType::DT_FLOAT);
    tensorflow::TensorProto* value = attr["value"].mutable_tensor();
    value->set_dtype(DataType::DT_FLOAT);
    value->mutable_tensor_shape()->add_dim()->set_size(0);
    send_from = dummy->name();
  } else {
    send_from = InputString(src->name(), edge->src_output);
  }
  std::string tensor_name =
      "edge_" + std::to_string(TensorEdgeId(edge)) + "_" + src->name();
  NodeDef* send = AddSend(edge, src_graph, send_from, tensor_name);
  *recv = AddRecv(edge, dst_graph, tensor_name, real_recv);
  if (src_graph == dst_graph) {
    // A same-device transfer: the recv must not run before the send.
    AddInput(*real_recv, send->name(), kControlSlot);
  }
  *transfer = -1;
  if (options_.transfers != nullptr) {
    Transfer t;
    t.tensor_name = tensor_name;
    t.dtype = BaseType(EdgeType(edge));
    t.control = edge->IsControlEdge();
    t.send_device = src->assigned_device_name();
    t.recv_device = edge->dst->assigned_device_name();
    t.src = src->name();
    t.src_output = edge->src_output;
    t.send = send->name();
    t.recv = (*real_recv)->name();
    t.dsts.push_back(edge->dst->name());
    *transfer = static_cast<int>(options_.transfers->size());
    options_.transfers->push_back(std::move(t));
  }
}

}  // namespace dfg::partition_internal
