#include "lib/place/place_graph.h"

#include "lib/graph/op_registry.h"

namespace dfg::place_internal {

GraphPlaceView::GraphPlaceView(Graph* graph, KernelSupport* kernels)
    : graph_(graph), kernels_(kernels) {
  nodes_.resize(graph->num_node_ids());
  for (int id = 0; id < graph->num_node_ids(); ++id) {
    nodes_[id] = graph->FindNodeId(id);
  }
  for (Node* node : graph->op_nodes()) op_nodes_.push_back(node->id());
}

void GraphPlaceView::DataInEdges(int node,
                                 std::vector<PlaceInEdge>* edges) const {
  edges->clear();
  for (const Edge* edge : at(node).in_edges()) {
    if (edge->IsControlEdge() || !edge->src->IsOp()) continue;
    edges->push_back(PlaceInEdge{edge->src->id(), edge->dst_input, edge->id});
  }
}

int GraphPlaceView::FirstInputSource(int node) const {
  const auto& in = at(node).in_edges();
  if (in.empty() || !in[0]->src->IsOp()) return -1;
  return in[0]->src->id();
}

void GraphPlaceView::OutNeighbors(int node, std::vector<int>* dsts) const {
  dsts->clear();
  for (const Edge* edge : at(node).out_edges()) {
    dsts->push_back(edge->dst->IsOp() ? edge->dst->id() : -1);
  }
}

ClassAttr GraphPlaceView::Class(int node) const {
  static const std::string* const kClass = new std::string("_class");
  ClassAttr out;
  const auto& attrs = at(node).def().attr();
  if (attrs.empty()) return out;
  auto it = attrs.find(*kClass);
  if (it == attrs.end()) return out;
  out.present = true;
  out.is_list = it->second.has_list();
  if (out.is_list) {
    for (const std::string& spec : it->second.list().s()) {
      out.specs.push_back(spec);
    }
  } else {
    out.single_string = !it->second.s().empty();
  }
  return out;
}

TypeMask GraphPlaceView::SupportedTypes(int node, bool* attr_mismatch,
                                        bool* unknown) {
  return kernels_->SupportedTypes(at(node).op(), at(node).def(), attr_mismatch,
                                  unknown);
}

bool GraphPlaceView::IsFunctionCall(int node) {
  return kernels_->IsFunctionCall(at(node).op(), at(node).def());
}

std::string AttrsWithoutDevice(const NodeDef& def) {
  if (def.device().empty()) return SummarizeAttrs(def);
  NodeDef copy = def;
  copy.clear_device();
  return SummarizeAttrs(copy);
}

std::string GraphPlaceView::AttrsString(int node) const {
  return AttrsWithoutDevice(at(node).def());
}

std::string GraphPlaceView::DefSummary(int node) const {
  return SummarizeNodeDef(at(node).def());
}

void GraphPlaceView::SetAssigned(int node, int /*device*/,
                                 const std::string& name) {
  nodes_[node]->set_assigned_device_name(name);
}

}  // namespace dfg::place_internal
