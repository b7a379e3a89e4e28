#include "lib/io/graph_io.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>

#include "lib/io/graph_read.h"
#include "lib/io/graph_text.h"

namespace dfg {
namespace {
namespace pb = google::protobuf;
}  // namespace

const char* GraphFormatName(GraphFormat format) {
  switch (format) {
    case GraphFormat::kPbtxt:
      return "pbtxt";
    case GraphFormat::kPb:
      return "pb";
    case GraphFormat::kJson:
      return "json";
    case GraphFormat::kDot:
      return "dot";
  }
  return "?";
}

std::optional<GraphFormat> ParseGraphFormat(std::string_view name) {
  for (GraphFormat f : {GraphFormat::kPbtxt, GraphFormat::kPb,
                        GraphFormat::kJson, GraphFormat::kDot}) {
    if (name == GraphFormatName(f)) return f;
  }
  return std::nullopt;
}

std::optional<GraphFormat> GraphFormatFromPath(std::string_view path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos ||
      (slash != std::string_view::npos && slash > dot)) {
    return std::nullopt;
  }
  std::string_view ext = path.substr(dot + 1);
  if (ext == "pbtxt" || ext == "txt") return GraphFormat::kPbtxt;
  if (ext == "pb") return GraphFormat::kPb;
  if (ext == "json") return GraphFormat::kJson;
  if (ext == "dot" || ext == "gv") return GraphFormat::kDot;
  return std::nullopt;
}

const char* GraphContainerName(GraphContainer container) {
  switch (container) {
    case GraphContainer::kGraphDef:
      return "GraphDef";
    case GraphContainer::kMetaGraphDef:
      return "MetaGraphDef";
    case GraphContainer::kSavedModel:
      return "SavedModel";
    case GraphContainer::kTfjsModel:
      return "TensorFlow.js model";
  }
  return "?";
}

StatusOr<LoadedGraph> ParseGraph(std::string_view bytes,
                                 std::string_view display_name,
                                 const ReadOptions& options) {
  LoadedGraph out;
  DFG_RETURN_IF_ERROR(io_internal::ParseGraphInto(bytes, display_name, options,
                                                  &out.graph, &out));
  return out;
}

namespace {

StatusOr<std::string> SerializeBinary(const tensorflow::GraphDef& graph) {
  size_t size = graph.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument(
        "the graph needs {} bytes in binary form, more than protobuf's 2 GB "
        "limit",
        size);
  }
  std::string out(size, '\0');
  pb::io::ArrayOutputStream array(out.data(), static_cast<int>(size));
  pb::io::CodedOutputStream coded(&array);
  coded.SetSerializationDeterministic(true);  // map entries sorted by key
  graph.SerializeWithCachedSizes(&coded);
  coded.Trim();
  if (coded.HadError() || coded.ByteCount() != static_cast<int64_t>(size)) {
    return Internal("binary serialization failed");
  }
  return out;
}

StatusOr<std::string> SerializeJson(const tensorflow::GraphDef& graph) {
  // Through deterministic binary, so that map entries come out sorted (a
  // protobuf Map iterates in a per-process random order).
  DFG_ASSIGN_OR_RETURN(std::string binary, SerializeBinary(graph));
  static pb::util::TypeResolver* resolver =
      pb::util::NewTypeResolverForDescriptorPool(
          "type.googleapis.com", pb::DescriptorPool::generated_pool());
  pb::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = false;
  std::string json;
  auto status = pb::util::BinaryToJsonString(
      resolver, "type.googleapis.com/tensorflow.GraphDef", binary, &json,
      options);
  if (!status.ok()) {
    return Internal("JSON serialization failed: {}",
                    std::string(status.message()));
  }
  if (json.empty() || json.back() != '\n') json += '\n';
  return json;
}

bool MessageHasUnknownFields(const pb::Message& message) {
  const pb::Reflection* reflection = message.GetReflection();
  if (!reflection->GetUnknownFields(message).empty()) return true;
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      int n = reflection->FieldSize(message, field);
      for (int i = 0; i < n; ++i) {
        if (MessageHasUnknownFields(
                reflection->GetRepeatedMessage(message, field, i))) {
          return true;
        }
      }
    } else if (MessageHasUnknownFields(
                   reflection->GetMessage(message, field))) {
      return true;
    }
  }
  return false;
}

}  // namespace

StatusOr<std::string> SerializeGraph(const tensorflow::GraphDef& graph,
                                     GraphFormat format) {
  switch (format) {
    case GraphFormat::kPb:
      return SerializeBinary(graph);
    case GraphFormat::kJson:
      return SerializeJson(graph);
    case GraphFormat::kPbtxt: {
      // TextFormat::Printer's bytes (graph_text.h), unknown fields hidden:
      // they would print as bare numbers no parser reads back.
      std::string text;
      {
        pb::io::StringOutputStream stream(&text);
        if (!PrintGraphText(graph, &stream)) {
          return Internal("text serialization failed");
        }
      }
      return text;
    }
    case GraphFormat::kDot:
      break;
  }
  return InvalidArgument("dot is not a GraphDef form (use 'dfg dot')");
}

bool HasUnknownFields(const google::protobuf::Message& message) {
  return MessageHasUnknownFields(message);
}

}  // namespace dfg
