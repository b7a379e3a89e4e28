// The place stage (TensorFlow's Placer and ColocationGraph, TF-SEMANTICS.md
// §2): gives every op node of a graph one device of a DeviceSet.
//
// What decides, in TensorFlow's order:
// - kernels: a node can only go to a device type its op has a kernel for
//   (the op registry, attrs included); library function calls run anywhere;
//   ops dfg does not know count as CPU-only (with a warning);
// - colocation groups: a node is merged with the producers of its ref and
//   resource inputs and with every `_class` `loc:@name` group it lists; a
//   group's requested devices are merged and its device types intersected;
// - the requested device (NodeDef `device`, full or partial) of the group;
// - device preference: candidates are sorted by device-type priority (GPU
//   before CPU) and then by full name as a plain string, so `.../GPU:10`
//   comes before `.../GPU:2`; the first candidate wins unless a heuristic
//   applies: a generator (no inputs, one non-ref output, e.g. Const) follows
//   its consumers when they all sit on one device, and a metadata op (Shape,
//   Size, Rank) follows its input;
// - nodes already assigned keep their device.
// With soft placement, a request no device satisfies falls back to any
// device the group's kernels support, and `_class` conflicts are ignored.
//
// The output is deterministic: the same graph and devices give the same
// placement.
#ifndef DFG_LIB_PLACE_PLACE_H_
#define DFG_LIB_PLACE_PLACE_H_

#include <string>
#include <vector>

#include "lib/base/status.h"
#include "lib/graph/graph.h"
#include "lib/place/device_set.h"

namespace dfg {

struct PlaceOptions {
  // TensorFlow's allow_soft_placement.
  bool allow_soft_placement = false;
  // A node whose NodeDef `device` is a fully specified name (full or legacy)
  // is treated as already assigned to that device: it is never moved, and
  // the device must exist and support the op.
  bool keep_assigned = false;
  // Fill PlacementReport::nodes (the reasons --explain prints); warnings
  // are reported either way.
  bool explain = false;
};

// Why a node went where it did (`dfg place --explain`).
enum class PlacementRule {
  kPreAssigned,    // the node arrived with an assigned device
  kRequested,      // first candidate of its (group's) requested device spec
  kColocation,     // its `_class` colocation group was already placed
  kRefEdge,        // joined a placed group through a ref/resource edge
  kGenerator,      // generator placed with its consumers
  kMetadata,       // Shape/Size/Rank placed with its input
  kSoftPlacement,  // soft placement moved it off its requested spec
  kDefault,        // nothing requested: the first candidate
};

// "pre-assigned", "requested", "colocation", "ref-edge", "generator",
// "metadata", "soft-placement", "default".
const char* PlacementRuleName(PlacementRule rule);

struct NodePlacement {
  std::string node;
  std::string op;
  std::string device;  // canonical full name
  // The devices the node's colocation group could go to when the node was
  // placed, best first (just the assigned device for a pre-assigned node).
  std::vector<std::string> candidates;
  PlacementRule rule = PlacementRule::kDefault;
  std::string detail;  // e.g. "requested spec '/device:GPU:1'"
};

struct PlacementReport {
  // With PlaceOptions::explain: one per op node, in node-id order.
  std::vector<NodePlacement> nodes;
  std::vector<std::string> warnings;  // e.g. ops placed as CPU-only
};

// One line of --explain: "<node> (<op>): <device> by <rule>: <detail>;
// candidates [<d>, ...]".
std::string ExplainLine(const NodePlacement& placement);
// The same as a one-line JSON object with keys node, op, device,
// candidates, rule, detail.
std::string ExplainJson(const NodePlacement& placement);

// Places every op node of `graph`: sets its assigned device name to a
// canonical full device name. Nodes whose assigned device is already set are
// kept where they are. `report` (may be null) receives the warnings and,
// with options.explain, the reasons. On error no node's assigned device has
// been changed.
// Errors, TensorFlow's wording (TF-SEMANTICS.md §2.2-2.4):
//   kFailedPrecondition "No devices are registered";
//   kInvalidArgument "Malformed device specification '<d>' in node: ...",
//     "No OpKernel was registered to support Op '<op>' used by {{node n}}...",
//     "Cannot colocate nodes {{colocation_node a}} and {{colocation_node b}}:
//     ...", "Cannot assign a device for operation <n>: ..." (with "was
//     explicitly assigned to <d> but available devices are [ ... ]" or
//     "Could not satisfy explicit device specification '<d>' ..." and the
//     Colocation Debug Info block), "Nodes were connected by a reference
//     connection ...";
//   kInternal for pre-assigned devices that do not exist or lack a kernel.
Status Place(Graph* graph, const DeviceSet& devices,
             const PlaceOptions& options, PlacementReport* report = nullptr);

// Imports `graph`, places it and returns the same GraphDef (same node order,
// inputs and attrs) with every node's `device` set to its full device name.
// Import errors are returned as ImportGraphDef gives them. Pass the graph
// with std::move when it is not needed afterwards: it becomes the result
// (only `device` fields change) instead of being copied.
StatusOr<GraphDef> PlaceGraphDef(GraphDef graph, const DeviceSet& devices,
                                 const PlaceOptions& options,
                                 PlacementReport* report = nullptr);
// The same on `*graph` itself, which may live on a protobuf Arena: its node
// definitions go through the import and come back without being copied. On
// error `*graph` has lost its nodes.
Status PlaceGraphDefInPlace(GraphDef* graph, const DeviceSet& devices,
                            const PlaceOptions& options,
                            PlacementReport* report = nullptr);

}  // namespace dfg

#endif  // DFG_LIB_PLACE_PLACE_H_
