// The place stage straight over a binary GraphDef's bytes, for graphs too
// large for the graph model: the same placement (one Placer, place.cc) over a
// compact graph read from the bytes (compact_graph.h), and the placed
// GraphDef written as it is produced. `dfg place` takes this path for every
// plain binary GraphDef input, whatever its size, written as binary or text
// without --explain/--explain-json (one path for small and big graphs keeps it
// tested), and PlaceGraphDefInPlace's path for everything else and whenever
// this one declines.
#ifndef DFG_LIB_PLACE_PLACE_BINARY_H_
#define DFG_LIB_PLACE_PLACE_BINARY_H_

#include <functional>
#include <memory>
#include <string_view>

#include "lib/base/status.h"
#include "lib/place/device_set.h"
#include "lib/place/place.h"

namespace dfg {

namespace place_internal {
class CompactGraph;
}  // namespace place_internal

// A placed graph, ready to be written.
class PlacedBinaryGraph {
 public:
  explicit PlacedBinaryGraph(
      std::unique_ptr<place_internal::CompactGraph> graph);
  ~PlacedBinaryGraph();
  // Hands the placed GraphDef's binary form to `write` in pieces, in order:
  // the bytes PlaceGraphDefInPlace's result serializes to (deterministic
  // serialization, as dfg writes GraphDefs).
  Status Write(const std::function<Status(std::string_view)>& write) const;
  // The placed nodes one at a time, in order (for text output), and the
  // graph's other fields.
  Status ForEachNode(
      const std::function<Status(const tensorflow::NodeDef&)>& sink) const;
  const tensorflow::GraphDef& rest() const;

 private:
  std::unique_ptr<place_internal::CompactGraph> graph_;
};

// Places the binary GraphDef `bytes` (which must outlive the result). Null
// when the compact graph does not take the graph (see compact_graph.h) or
// placing it fails: PlaceGraphDefInPlace over the parsed bytes then gives
// the result, or the error with its text. options.explain is not served
// here (null). On success `report` (may be null) receives the warnings.
std::unique_ptr<PlacedBinaryGraph> PlaceBinaryGraphDef(
    std::string_view bytes, const DeviceSet& devices,
    const PlaceOptions& options, PlacementReport* report = nullptr);

}  // namespace dfg

#endif  // DFG_LIB_PLACE_PLACE_BINARY_H_
