// Internal to lib/io: what graph_summary.cc needs of each node, as views, so
// that a binary GraphDef can be summarized without materializing it
// (graph_summary_scan.cc) and a parsed one without copying it.
#ifndef DFG_LIB_IO_GRAPH_SUMMARY_RECORDS_H_
#define DFG_LIB_IO_GRAPH_SUMMARY_RECORDS_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/io/graph_summary.h"
#include "lib/proto/function.pb.h"
#include "lib/proto/graph.pb.h"

namespace dfg::io_internal {

struct NodeRecord {
  std::string_view name;
  std::string_view op;
  std::string_view device;
  uint32_t first_input = 0;  // into GraphRecords::inputs
  uint32_t input_count = 0;
};

struct GraphRecords {
  std::vector<NodeRecord> nodes;
  std::vector<std::string_view> inputs;
  int64_t producer = 0;
  const tensorflow::FunctionDefLibrary* library = nullptr;  // Not owned.
};

// Node name -> index by open addressing over the caller's names
// (`name_of(index)`): 8 bytes a slot and no allocation per name. For a
// million nodes, memory (page faults, cache misses) is most of the time.
template <typename NameOf>
class NameIndex {
 public:
  NameIndex(size_t count, NameOf name_of) : name_of_(std::move(name_of)) {
    size_t capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    slots_.resize(capacity);
  }
  // Adds node `index` under its name; false (and nothing added) when a node
  // of that name is there already: the first one wins.
  bool Insert(int index) {
    std::string_view name = name_of_(index);
    uint32_t hash = Hash(name);
    size_t at = Probe(name, hash);
    if (slots_[at].index >= 0) return false;
    slots_[at] = {hash, index};
    return true;
  }
  int Find(std::string_view name) const {  // -1 when absent
    return slots_[Probe(name, Hash(name))].index;
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t index = -1;
  };
  static uint32_t Hash(std::string_view name) {
    return static_cast<uint32_t>(std::hash<std::string_view>()(name));
  }
  size_t Probe(std::string_view name, uint32_t hash) const {
    size_t mask = slots_.size() - 1;
    size_t at = hash & mask;
    while (slots_[at].index >= 0 &&
           (slots_[at].hash != hash || name_of_(slots_[at].index) != name)) {
      at = (at + 1) & mask;
    }
    return at;
  }
  NameOf name_of_;
  std::vector<Slot> slots_;
};

struct RecordName {
  const GraphRecords* records;  // Not owned.
  std::string_view operator()(int index) const {
    return records->nodes[index].name;
  }
};
using RecordIndex = NameIndex<RecordName>;

// Every node of `r` into `index`, first of a name wins.
void IndexNodes(const GraphRecords& r, RecordIndex* index);

// CheckGraphStructure (graph_check.h) on records; fills `index` as
// IndexNodes does (completely only when the result is Ok).
Status CheckGraphRecords(const GraphRecords& r, RecordIndex* index);

// True for the ops whose attrs the summary reads (placeholders, variables,
// Const); SummarizeNodeAttrs adds what they say to `s`.
bool NeedsAttrs(std::string_view op);
void SummarizeNodeAttrs(const tensorflow::NodeDef& node, GraphSummary* s);

// A binary GraphDef, field by field: each NodeDef (and the library, versions
// and debug info) is parsed on its own into a reused message, which checks it
// exactly as parsing the whole GraphDef would; the records view `bytes`.
// False when some field does not parse (the caller then parses the whole
// input to report the error). `library` receives the merged library.
bool ScanBinaryGraph(std::string_view bytes, GraphRecords* records,
                     tensorflow::FunctionDefLibrary* library, GraphSummary* s);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_GRAPH_SUMMARY_RECORDS_H_
