#include "lib/io/graph_text.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/strutil.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace dfg {
namespace {

namespace pb = google::protobuf;
using tensorflow::AttrValue;
using tensorflow::GraphDef;
using tensorflow::NodeDef;

constexpr size_t kFlushBytes = 1 << 20;

// True for the bytes protobuf's CEscape leaves as they are.
bool PlainByte(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x7f && c != '"' && c != '\'' && c != '\\';
}

class TextWriter {
 public:
  explicit TextWriter(pb::io::ZeroCopyOutputStream* out) : coded_(out) {
    for (int level = 0; level < kLevels; ++level) {
      printers_[level].SetHideUnknownFields(true);
      printers_[level].SetInitialIndentLevel(level);
    }
  }

  bool Write(const GraphDef& graph) {
    for (const NodeDef& node : graph.node()) Node(node);
    return Finish(graph);
  }

  // One node, for a graph written node by node.
  void Node(const NodeDef& node) {
    WriteNode(node);
    if (buffer_.size() >= kFlushBytes) Flush();
  }

  // The other fields of `graph` (its nodes are not looked at).
  bool Finish(const GraphDef& graph) {
    // The other fields (numbers 2 to 5) come after the nodes, as the Printer
    // lists fields by number.
    GraphDef rest;
    if (graph.has_library()) *rest.mutable_library() = graph.library();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    rest.set_version(graph.version());  // deprecated, still printed
#pragma GCC diagnostic pop
    if (graph.has_versions()) *rest.mutable_versions() = graph.versions();
    if (graph.has_debug_info()) *rest.mutable_debug_info() = graph.debug_info();
    Delegate(rest, 0);
    Flush();
    coded_.Trim();
    return !coded_.HadError();
  }

 private:
  static constexpr int kLevels = 4;

  void WriteNode(const NodeDef& node) {
    buffer_ += "node {\n";
    if (node.has_experimental_debug_info() || node.has_experimental_type()) {
      Delegate(node, 1);
    } else {
      if (!node.name().empty()) Field("  name: \"", node.name());
      if (!node.op().empty()) Field("  op: \"", node.op());
      for (const std::string& input : node.input()) {
        Field("  input: \"", input);
      }
      if (!node.device().empty()) Field("  device: \"", node.device());
      WriteAttrs(node);
    }
    buffer_ += "}\n";
  }

  // prefix, the escaped value, "\"\n".
  void Field(std::string_view prefix, const std::string& value) {
    buffer_ += prefix;
    if (std::all_of(value.begin(), value.end(), PlainByte)) {
      buffer_ += value;
    } else {
      buffer_ += pb::CEscape(value);
    }
    buffer_ += "\"\n";
  }

  // Map entries sorted by key, key and value always printed.
  void WriteAttrs(const NodeDef& node) {
    entries_.clear();
    for (const auto& entry : node.attr()) entries_.push_back(&entry);
    std::sort(
        entries_.begin(), entries_.end(),
        [](const Entry* a, const Entry* b) { return a->first < b->first; });
    for (const Entry* entry : entries_) {
      buffer_ += "  attr {\n";
      Field("    key: \"", entry->first);
      buffer_ += "    value {\n";
      WriteValue(entry->second);
      buffer_ += "    }\n  }\n";
    }
  }

  void WriteValue(const AttrValue& value) {
    switch (value.value_case()) {
      case AttrValue::kS:
        Field("      s: \"", value.s());
        return;
      case AttrValue::kI:
        buffer_ += "      i: ";
        buffer_ += std::to_string(value.i());
        buffer_ += '\n';
        return;
      case AttrValue::kB:
        buffer_ += value.b() ? "      b: true\n" : "      b: false\n";
        return;
      case AttrValue::kType: {
        const pb::EnumValueDescriptor* name =
            tensorflow::DataType_descriptor()->FindValueByNumber(value.type());
        buffer_ += "      type: ";
        buffer_ +=
            name != nullptr ? name->name() : std::to_string(value.type());
        buffer_ += '\n';
        return;
      }
      case AttrValue::VALUE_NOT_SET:
        return;
      default:
        Delegate(value, 3);
    }
  }

  void Delegate(const pb::Message& message, int level) {
    printers_[level].PrintToString(message, &scratch_);
    buffer_ += scratch_;
  }

  void Flush() {
    coded_.WriteRaw(buffer_.data(), static_cast<int>(buffer_.size()));
    buffer_.clear();
  }

  using Entry = pb::Map<std::string, AttrValue>::value_type;
  pb::io::CodedOutputStream coded_;
  pb::TextFormat::Printer printers_[kLevels];  // by initial indent level
  std::string buffer_;
  std::string scratch_;
  std::vector<const Entry*> entries_;
};

}  // namespace

bool PrintGraphText(const GraphDef& graph, pb::io::ZeroCopyOutputStream* out) {
  return TextWriter(out).Write(graph);
}

Status PrintGraphTextStreamed(const NodeSource& nodes, const GraphDef& rest,
                              pb::io::ZeroCopyOutputStream* out) {
  TextWriter writer(out);
  DFG_RETURN_IF_ERROR(nodes([&](const NodeDef& node) {
    writer.Node(node);
    return Status::Ok();
  }));
  if (!writer.Finish(rest)) return Internal("text serialization failed");
  return Status::Ok();
}

}  // namespace dfg
