// Summarizing a big binary GraphDef without building it: see
// graph_summary_records.h.
#include "lib/io/binary_detect.h"
#include "lib/io/graph_summary_records.h"
#include "lib/io/proto_parse.h"
#include "lib/proto/graph_debug_info.pb.h"
#include "lib/proto/versions.pb.h"

namespace dfg::io_internal {
namespace {

// name (1), op (2), input (3, repeated) and device (4) of a NodeDef that has
// already parsed; as protobuf does, the last of a repeated singular wins.
bool ReadNodeRecord(std::string_view bytes, GraphRecords* records) {
  NodeRecord record;
  record.first_input = static_cast<uint32_t>(records->inputs.size());
  WireReader reader(bytes);
  WireField field;
  while (reader.Next(&field)) {
    if (field.type != WireType::kLen) continue;
    switch (field.number) {
      case 1:
        record.name = field.payload;
        break;
      case 2:
        record.op = field.payload;
        break;
      case 3:
        records->inputs.push_back(field.payload);
        break;
      case 4:
        record.device = field.payload;
        break;
    }
  }
  if (!reader.ok()) return false;
  record.input_count =
      static_cast<uint32_t>(records->inputs.size()) - record.first_input;
  records->nodes.push_back(record);
  return true;
}

}  // namespace

bool ScanBinaryGraph(std::string_view bytes, GraphRecords* records,
                     tensorflow::FunctionDefLibrary* library, GraphSummary* s) {
  tensorflow::NodeDef node;
  tensorflow::VersionDef versions;
  tensorflow::GraphDebugInfo debug_info;
  WireReader reader(bytes);
  WireField field;
  while (reader.Next(&field)) {
    bool ok = true;
    switch (field.number) {
      case 1:  // node
        node.Clear();
        ok = field.type == WireType::kLen &&
             MergeNested(field.payload, &node, 1) &&
             ReadNodeRecord(field.payload, records);
        if (ok && NeedsAttrs(node.op())) SummarizeNodeAttrs(node, s);
        break;
      case 2:  // library
        ok = field.type == WireType::kLen &&
             MergeNested(field.payload, library, 1);
        break;
      case 3:  // version (deprecated)
        ok = field.type == WireType::kVarint;
        break;
      case 4:
        ok = field.type == WireType::kLen &&
             MergeNested(field.payload, &versions, 1);
        break;
      case 5:
        ok = field.type == WireType::kLen &&
             MergeNested(field.payload, &debug_info, 1);
        break;
      default:
        ok = false;
    }
    if (!ok) return false;
  }
  records->producer = versions.producer();
  records->library = library;
  return reader.ok();
}

}  // namespace dfg::io_internal
