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
#include "lib/graph/graph_check.h"
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

using graph_check::NameIndex;

struct RecordName {
  const GraphRecords* records;  // Not owned.
  std::string_view operator()(int index) const {
    return records->nodes[index].name;
  }
};
using RecordIndex = NameIndex<RecordName>;

// Every node of `r` into `index`, first of a name wins.
void IndexNodes(const GraphRecords& r, RecordIndex* index);

// CheckGraphStructure (lib/graph/graph_check.h) on records; fills `index` as
// IndexNodes does (completely only when the result is Ok).
Status CheckGraphRecords(const GraphRecords& r, RecordIndex* index);

// True for the ops whose attrs the summary reads (placeholders, variables,
// Const); SummarizeNodeAttrs adds what they say to `s`.
bool NeedsAttrs(std::string_view op);
void SummarizeNodeAttrs(const tensorflow::NodeDef& node, GraphSummary* s);

// Finds the summary's uncounted_variables (copies and unused handles, see
// GraphSummary) and counts variable_parameters over the others. `consumed`
// says for each node of `r` whether some input names it.
void CountVariables(const GraphRecords& r, const RecordIndex& index,
                    const std::vector<char>& consumed, GraphSummary* s);

// A binary GraphDef, field by field: each NodeDef (and the library, versions
// and debug info) is parsed on its own into a reused message, which checks it
// exactly as parsing the whole GraphDef would; the records view `bytes`.
// False when some field does not parse (the caller then parses the whole
// input to report the error). `library` receives the merged library.
bool ScanBinaryGraph(std::string_view bytes, GraphRecords* records,
                     tensorflow::FunctionDefLibrary* library, GraphSummary* s);

}  // namespace dfg::io_internal

#endif  // DFG_LIB_IO_GRAPH_SUMMARY_RECORDS_H_
