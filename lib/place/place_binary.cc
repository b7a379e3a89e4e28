#include "lib/place/place_binary.h"

#include <climits>

#include "lib/place/compact_graph.h"
#include "lib/place/place_graph.h"

namespace dfg {

using place_internal::CompactGraph;

PlacedBinaryGraph::PlacedBinaryGraph(std::unique_ptr<CompactGraph> graph)
    : graph_(std::move(graph)) {}

PlacedBinaryGraph::~PlacedBinaryGraph() = default;

Status PlacedBinaryGraph::Write(
    const std::function<Status(std::string_view)>& write) const {
  return graph_->Write(write);
}

Status PlacedBinaryGraph::ForEachNode(
    const std::function<Status(const NodeDef&)>& sink) const {
  return graph_->ForEachNode(sink);
}

const GraphDef& PlacedBinaryGraph::rest() const { return graph_->rest(); }

std::unique_ptr<PlacedBinaryGraph> PlaceBinaryGraphDef(
    std::string_view bytes, const DeviceSet& devices,
    const PlaceOptions& options, PlacementReport* report) {
  if (options.explain || !place_internal::CheckDeviceSet(devices).ok()) {
    return nullptr;
  }
  OpLookup ops;  // a graph with a library is left to the graph model
  place_internal::KernelSupport kernels(devices, ops);
  std::unique_ptr<CompactGraph> graph =
      CompactGraph::Read(bytes, ops, &kernels);
  if (graph == nullptr) return nullptr;
  PlacementReport local;
  if (!place_internal::PlaceView(graph.get(), &kernels, devices, options,
                                 &local)
           .ok()) {
    return nullptr;
  }
  // protobuf's limit: the graph-model path says so in its words.
  if (graph->OutputSize() > INT_MAX) return nullptr;
  if (report != nullptr) *report = std::move(local);
  return std::make_unique<PlacedBinaryGraph>(std::move(graph));
}

}  // namespace dfg
