// The assignment passes of TensorFlow's Placer::Run (placer.cc) over the
// colocation groups, plus the report --explain prints.
#include "lib/place/place.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "lib/graph/graph_import.h"
#include "lib/graph/op_registry.h"
#include "lib/place/colocation.h"
#include "lib/place/kernel_support.h"
#include "lib/place/place_graph.h"

namespace dfg {
namespace {

using place_internal::AttachNode;
using place_internal::ColocationGraph;
using place_internal::Join;
using place_internal::JoinKind;
using place_internal::KernelSupport;
using place_internal::Member;
using place_internal::PlaceGraph;

// Heuristic A's nodes: no inputs and one output that is not a ref.
bool IsGenerator(const PlaceGraph& graph, int node) {
  return graph.num_inputs(node) == 0 && graph.num_outputs(node) == 1 &&
         !IsRefType(graph.output_type(node, 0));
}

// Heuristic B's nodes: they read only their input's metadata.
bool IsMetadata(const PlaceGraph& graph, int node) {
  std::string_view op = graph.op(node);
  return op == "Shape" || op == "Size" || op == "Rank";
}

bool Contains(const std::vector<int>& devices, int device) {
  return device >= 0 &&
         std::find(devices.begin(), devices.end(), device) != devices.end();
}

struct Decision {
  const std::vector<int>* candidates = nullptr;
  PlacementRule rule = PlacementRule::kDefault;
  std::string detail;
};

class Placer {
 public:
  Placer(PlaceGraph* graph, KernelSupport* kernels, const DeviceSet& devices,
         const PlaceOptions& options, PlacementReport* report)
      : graph_(graph),
        devices_(devices),
        report_(report),
        colocation_(*graph, devices, kernels, options,
                    report != nullptr && options.explain) {
    if (!options.explain) report_ = nullptr;  // only warnings, via Place()
  }

  Status Run();
  const std::vector<std::string>& warnings() { return colocation_.warnings(); }

 private:
  Status Assign(int node, bool generator_pass);
  int Heuristic(int node, const std::vector<int>& candidates,
                bool generator_pass, Decision* decision);
  void Describe(int node, bool by_heuristic, Decision* decision);
  void WriteReport();

  PlaceGraph* graph_;  // Not owned.
  const DeviceSet& devices_;
  PlacementReport* report_;  // Not owned; may be null.
  ColocationGraph colocation_;
  std::vector<int> scratch_;         // out-neighbours
  std::vector<Decision> decisions_;  // by node id, when reporting
};

Status Placer::Run() {
  DFG_RETURN_IF_ERROR(colocation_.Initialize());
  if (report_ != nullptr) decisions_.resize(graph_->num_node_ids());
  std::vector<int> second_pass;
  for (int node : colocation_.op_nodes()) {
    int device = colocation_.assigned_device(node);
    if (device >= 0) {
      DFG_RETURN_IF_ERROR(colocation_.LimitToAssignedDevice(node, device));
      if (report_ != nullptr) {
        Decision& d = decisions_[node];
        d.rule = PlacementRule::kPreAssigned;
        d.detail = graph_->assigned_device_name(node).empty()
                       ? "its requested device is a full name, kept as "
                         "assigned"
                       : "kept its assigned device";
      }
      continue;
    }
    // Generators wait for their consumers (Heuristic A).
    if (IsGenerator(*graph_, node)) {
      second_pass.push_back(node);
      continue;
    }
    DFG_RETURN_IF_ERROR(Assign(node, /*generator_pass=*/false));
  }
  for (int node : second_pass) {
    DFG_RETURN_IF_ERROR(Assign(node, /*generator_pass=*/true));
  }
  for (int node : graph_->op_nodes()) {
    int device = colocation_.assigned_device(node);
    graph_->SetAssigned(node, device, devices_.devices()[device].name);
  }
  if (report_ != nullptr) WriteReport();
  return Status::Ok();
}

Status Placer::Assign(int node, bool generator_pass) {
  const std::vector<int>* candidates = nullptr;
  Status status = colocation_.GetDevicesForNode(node, &candidates);
  if (!status.ok()) {
    return AttachNode(
        InvalidArgument("Cannot assign a device for operation {}: {}",
                        graph_->name(node), status.message()),
        graph_->name(node));
  }
  Decision scratch;
  Decision* decision = report_ != nullptr ? &decisions_[node] : &scratch;
  decision->candidates = candidates;
  int device = Heuristic(node, *candidates, generator_pass, decision);
  bool by_heuristic = device >= 0;
  // The candidates are sorted, so the first is the deterministic default.
  if (device < 0) device = (*candidates)[0];
  if (report_ != nullptr) Describe(node, by_heuristic, decision);
  return colocation_.LimitToAssignedDevice(node, device);
}

int Placer::Heuristic(int node, const std::vector<int>& candidates,
                      bool generator_pass, Decision* decision) {
  auto device_of = [&](int n) {
    return n < 0 ? -1 : colocation_.assigned_device(n);
  };
  if (generator_pass) {
    // Heuristic A: every out-edge (control ones too) leads to one device.
    std::vector<int>& out = scratch_;
    graph_->OutNeighbors(node, &out);
    if (out.empty()) return -1;
    int device = device_of(out[0]);
    for (int dst : out) {
      if (device_of(dst) != device) return -1;
    }
    if (!Contains(candidates, device)) return -1;
    decision->rule = PlacementRule::kGenerator;
    if (report_ == nullptr) return device;
    const int first = out[0];
    bool one = std::all_of(out.begin(), out.end(),
                           [&](int dst) { return dst == first; });
    decision->detail =
        one ? fmt::format("generator follows its consumer '{}'",
                          graph_->name(first))
            : fmt::format("generator follows its consumers ('{}', ...)",
                          graph_->name(first));
    return device;
  }
  // Heuristic B: a metadata op goes where its (first) input already is.
  if (!IsMetadata(*graph_, node)) return -1;
  int input = graph_->FirstInputSource(node);
  int device = device_of(input);
  if (!Contains(candidates, device)) return -1;
  decision->rule = PlacementRule::kMetadata;
  if (report_ == nullptr) return device;
  decision->detail =
      fmt::format("metadata op follows its input '{}'", graph_->name(input));
  return device;
}

// The rule that decided. A group already placed by another member leaves a
// single candidate, so that outranks the heuristics.
void Placer::Describe(int node, bool by_heuristic, Decision* decision) {
  int root = colocation_.FindRoot(node);
  const Member& m = colocation_.member(root);
  const auto& specs = colocation_.specs();
  if (m.placed_by >= 0) {
    const Join& join = colocation_.join(node);
    std::string_view partner =
        join.partner >= 0 ? graph_->name(join.partner) : "";
    std::string_view root_name = graph_->name(root);
    std::string_view placed = graph_->name(m.placed_by);
    if (join.kind == JoinKind::kRefEdge ||
        join.kind == JoinKind::kResourceEdge) {
      decision->rule = PlacementRule::kRefEdge;
      decision->detail = fmt::format(
          "{} edge {} '{}' puts it in the colocation group of '{}', placed "
          "with '{}'",
          join.kind == JoinKind::kRefEdge ? "ref" : "resource",
          join.is_src ? "to" : "from", partner, root_name, placed);
    } else {
      decision->rule = PlacementRule::kColocation;
      decision->detail = fmt::format(
          "colocation group {}(root '{}') placed with '{}'",
          join.kind == JoinKind::kClass ? "'loc:@" + join.group + "' "
                                        : std::string(),
          root_name, placed);
    }
  } else if (by_heuristic) {
    // Heuristic() filled in the rule.
  } else if (m.soft) {
    decision->rule = PlacementRule::kSoftPlacement;
    decision->detail = fmt::format("soft placement moved it from '{}'",
                                   specs.str(m.requested));
  } else if (specs[m.requested].HasSomeDetails()) {
    decision->rule = PlacementRule::kRequested;
    decision->detail =
        fmt::format("requested spec '{}'", specs.str(m.requested));
    std::string_view own = graph_->requested_device(node);
    if (own != specs.str(m.requested)) {
      decision->detail += own.empty() ? " (from its colocation group)"
                                      : fmt::format(" (its own: '{}')", own);
    }
  } else {
    decision->rule = PlacementRule::kDefault;
    decision->detail = "default = first candidate";
  }
  auto note = colocation_.notes().find(node);
  if (note != colocation_.notes().end())
    decision->detail += "; " + note->second;
}

void Placer::WriteReport() {
  report_->nodes.clear();
  for (int node : colocation_.op_nodes()) {
    const Decision& d = decisions_[node];
    NodePlacement p;
    p.node = graph_->name(node);
    p.op = graph_->op(node);
    p.device = devices_.devices()[colocation_.assigned_device(node)].name;
    if (d.candidates != nullptr) {
      for (int device : *d.candidates) {
        p.candidates.push_back(devices_.devices()[device].name);
      }
    } else {
      p.candidates.push_back(p.device);
    }
    p.rule = d.rule;
    p.detail = d.detail;
    report_->nodes.push_back(std::move(p));
  }
}

}  // namespace

const char* PlacementRuleName(PlacementRule rule) {
  switch (rule) {
    case PlacementRule::kPreAssigned:
      return "pre-assigned";
    case PlacementRule::kRequested:
      return "requested";
    case PlacementRule::kColocation:
      return "colocation";
    case PlacementRule::kRefEdge:
      return "ref-edge";
    case PlacementRule::kGenerator:
      return "generator";
    case PlacementRule::kMetadata:
      return "metadata";
    case PlacementRule::kSoftPlacement:
      return "soft-placement";
    case PlacementRule::kDefault:
      return "default";
  }
  return "default";
}

std::string ExplainLine(const NodePlacement& p) {
  return fmt::format("{} ({}): {}; {}: {}; candidates [{}]", p.node, p.op,
                     p.device, PlacementRuleName(p.rule), p.detail,
                     fmt::join(p.candidates, ", "));
}

std::string ExplainJson(const NodePlacement& p) {
  nlohmann::ordered_json j;
  j["node"] = p.node;
  j["op"] = p.op;
  j["device"] = p.device;
  j["candidates"] = p.candidates;
  j["rule"] = PlacementRuleName(p.rule);
  j["detail"] = p.detail;
  // Names are arbitrary bytes; never throw on invalid UTF-8.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace place_internal {

Status CheckDeviceSet(const DeviceSet& devices) {
  if (devices.empty()) return FailedPrecondition("No devices are registered");
  if (devices.PrioritizedDeviceTypeList().size() >
      static_cast<size_t>(kMaxDeviceTypes)) {
    return InvalidArgument("more than {} device types", kMaxDeviceTypes);
  }
  return Status::Ok();
}

Status PlaceView(PlaceGraph* graph, KernelSupport* kernels,
                 const DeviceSet& devices, const PlaceOptions& options,
                 PlacementReport* report) {
  Placer placer(graph, kernels, devices, options, report);
  Status status = placer.Run();
  if (report != nullptr) {
    report->warnings = placer.warnings();
    if (!status.ok()) report->nodes.clear();
  }
  return status;
}

}  // namespace place_internal

Status Place(Graph* graph, const DeviceSet& devices,
             const PlaceOptions& options, PlacementReport* report) {
  DFG_RETURN_IF_ERROR(place_internal::CheckDeviceSet(devices));
  OpLookup ops(&graph->library());
  KernelSupport kernels(devices, ops);
  place_internal::GraphPlaceView view(graph, &kernels);
  return place_internal::PlaceView(&view, &kernels, devices, options, report);
}

Status PlaceGraphDefInPlace(GraphDef* graph, const DeviceSet& devices,
                            const PlaceOptions& options,
                            PlacementReport* report) {
  const bool had_library = graph->has_library();
  const bool had_debug_info = graph->has_debug_info();
  std::vector<Node*> by_index;
  std::vector<std::pair<int, std::string>> added_defaults;
  ImportOptions import_options;
  import_options.nodes_by_index = &by_index;
  import_options.added_defaults = &added_defaults;
  DFG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> imported,
                       ImportGraphDef(graph, import_options));
  DFG_RETURN_IF_ERROR(Place(imported.get(), devices, options, report));
  // The nodes go back as they came: without the attrs the import filled in
  // from their defaults, with their devices.
  for (const auto& [index, attr] : added_defaults) {
    by_index[index]->mutable_def()->mutable_attr()->erase(attr);
  }
  for (Node* node : by_index) {
    node->mutable_def()->set_device(node->assigned_device_name());
  }
  if (had_library) {
    *graph->mutable_library() = std::move(*imported->mutable_library());
  } else {
    graph->clear_library();
  }
  if (had_debug_info) {
    *graph->mutable_debug_info() = std::move(*imported->mutable_debug_info());
  } else {
    graph->clear_debug_info();
  }
  imported->ReleaseNodeDefs(by_index, graph);
  return Status::Ok();
}

StatusOr<GraphDef> PlaceGraphDef(GraphDef graph, const DeviceSet& devices,
                                 const PlaceOptions& options,
                                 PlacementReport* report) {
  DFG_RETURN_IF_ERROR(PlaceGraphDefInPlace(&graph, devices, options, report));
  return graph;
}

}  // namespace dfg
