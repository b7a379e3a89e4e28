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

#include "lib/io/binary_detect.h"
#include "lib/io/proto_parse.h"

namespace dfg {
namespace {

namespace pb = google::protobuf;
using io_internal::BinaryKind;

// Message types whose fields dfg's protos model only in part: unknown fields
// directly in them are skipped when a MetaGraphDef or SavedModel is read as
// text. (GraphDefs themselves are read strictly.)
const std::vector<std::string>& MetaGraphTextTypes() {
  static const auto* types = new std::vector<std::string>{
      "tensorflow.SavedModel", "tensorflow.MetaGraphDef",
      "tensorflow.MetaGraphDef.MetaInfoDef", "tensorflow.SignatureDef",
      "tensorflow.TensorInfo"};
  return *types;
}

bool IsOneOf(std::string_view name, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (name == n) return true;
  }
  return false;
}

std::string TagSetString(const std::vector<std::string>& tags) {
  return fmt::format("[{}]", fmt::join(tags, ", "));
}

// Moves the meta graph's graph_def, tags and signatures into `out`.
void TakeMetaGraph(tensorflow::MetaGraphDef* meta, LoadedGraph* out) {
  out->graph.Swap(meta->mutable_graph_def());
  const auto& tags = meta->meta_info_def().tags();
  out->tags.assign(tags.begin(), tags.end());
  out->signatures.clear();
  for (const auto& [key, signature] : meta->signature_def()) {
    out->signatures[key] = signature;
  }
}

bool HasTag(const tensorflow::MetaGraphDef& meta, const std::string& tag) {
  const auto& tags = meta.meta_info_def().tags();
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

Status NoTagError(std::string_view name, const std::string& tag,
                  const std::vector<std::vector<std::string>>& available) {
  std::vector<std::string> sets;
  for (const auto& tags : available) sets.push_back(TagSetString(tags));
  return InvalidArgument(
      "{}: no meta graph with tag '{}'; available: {}", name, tag,
      sets.empty() ? "none" : fmt::format("{}", fmt::join(sets, ", ")));
}

Status UseMetaGraph(tensorflow::MetaGraphDef* meta, std::string_view name,
                    const ReadOptions& options, LoadedGraph* out) {
  const auto& tags = meta->meta_info_def().tags();
  out->container = GraphContainer::kMetaGraphDef;
  out->available_tag_sets = {
      std::vector<std::string>(tags.begin(), tags.end())};
  if (!options.meta_graph_tag.empty() &&
      !HasTag(*meta, options.meta_graph_tag)) {
    return NoTagError(name, options.meta_graph_tag, out->available_tag_sets);
  }
  TakeMetaGraph(meta, out);
  return Status::Ok();
}

Status UseSavedModel(tensorflow::SavedModel* model, std::string_view name,
                     const ReadOptions& options, LoadedGraph* out) {
  out->container = GraphContainer::kSavedModel;
  out->available_tag_sets.clear();
  for (const auto& meta : model->meta_graphs()) {
    const auto& tags = meta.meta_info_def().tags();
    out->available_tag_sets.emplace_back(tags.begin(), tags.end());
  }
  if (model->meta_graphs_size() == 0) {
    return InvalidArgument("{}: SavedModel has no meta graphs", name);
  }
  int chosen = 0;
  if (!options.meta_graph_tag.empty()) {
    chosen = -1;
    for (int i = 0; i < model->meta_graphs_size() && chosen < 0; ++i) {
      if (HasTag(model->meta_graphs(i), options.meta_graph_tag)) chosen = i;
    }
    if (chosen < 0) {
      return NoTagError(name, options.meta_graph_tag, out->available_tag_sets);
    }
  }
  TakeMetaGraph(model->mutable_meta_graphs(chosen), out);
  return Status::Ok();
}

// "<name>:12:5: msg" for located errors, "<name>: msg" otherwise.
Status WithName(const Status& status, std::string_view name) {
  const std::string& m = status.message();
  bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0]));
  return Status(status.code(),
                fmt::format("{}:{}{}", name, located ? "" : " ", m));
}

// The tfjs signature: "signature", or "userDefinedMetadata"."signature".
void ReadTfjsSignature(
    const std::vector<std::pair<std::string, std::string_view>>& members,
    LoadedGraph* out) {
  std::string_view signature;
  for (const auto& [key, value] : members) {
    if (key == "signature") signature = value;
    if (key == "userDefinedMetadata" && signature.empty()) {
      auto inner = io_internal::JsonObjectMembers(value);
      if (!inner.ok()) continue;
      for (const auto& [k, v] : *inner) {
        if (k == "signature") signature = v;
      }
    }
  }
  tensorflow::SignatureDef def;
  if (signature.empty() || signature == "null") return;
  if (io_internal::ParseJson(signature, &def, /*ignore_unknown_fields=*/true)
          .ok()) {
    out->signatures["serving_default"] = std::move(def);
  }
}

Status ParseGraphJson(std::string_view json, std::string_view name,
                      const ReadOptions& options, LoadedGraph* out) {
  out->format = GraphFormat::kJson;
  auto members = io_internal::JsonObjectMembers(json);
  std::string_view topology;
  bool saved_model = false, meta_graph = false;
  if (members.ok()) {
    for (const auto& [key, value] : *members) {
      if (key == "modelTopology") topology = value;
      saved_model |=
          IsOneOf(key, {"metaGraphs", "meta_graphs", "savedModelSchemaVersion",
                        "saved_model_schema_version"});
      meta_graph |=
          IsOneOf(key, {"graphDef", "graph_def", "metaInfoDef", "meta_info_def",
                        "signatureDef", "signature_def"});
    }
  }
  if (!topology.empty()) {
    out->container = GraphContainer::kTfjsModel;
    Status status = io_internal::ParseJson(topology, &out->graph);
    if (!status.ok()) {
      return InvalidArgument(
          "{}: modelTopology is not a GraphDef in JSON form: {}", name,
          status.message());
    }
    ReadTfjsSignature(*members, out);
    return Status::Ok();
  }
  if (saved_model) {
    tensorflow::SavedModel model;
    Status status = io_internal::ParseJson(json, &model, true);
    if (!status.ok()) return WithName(status, name);
    return UseSavedModel(&model, name, options, out);
  }
  if (meta_graph) {
    tensorflow::MetaGraphDef meta;
    Status status = io_internal::ParseJson(json, &meta, true);
    if (!status.ok()) return WithName(status, name);
    return UseMetaGraph(&meta, name, options, out);
  }
  Status status = io_internal::ParseJson(json, &out->graph);
  if (!status.ok()) {
    return InvalidArgument("{}: not a GraphDef in JSON form: {}", name,
                           status.message());
  }
  return Status::Ok();
}

Status ParseGraphText(std::string_view text, std::string_view name,
                      const ReadOptions& options, LoadedGraph* out) {
  out->format = GraphFormat::kPbtxt;
  std::string first = io_internal::FirstTextFieldName(text);
  if (IsOneOf(first, {"meta_graphs", "saved_model_schema_version"})) {
    tensorflow::SavedModel model;
    Status status = io_internal::ParseText(text, &model, MetaGraphTextTypes());
    if (!status.ok()) return WithName(status, name);
    return UseSavedModel(&model, name, options, out);
  }
  if (IsOneOf(first,
              {"meta_info_def", "graph_def", "saver_def", "collection_def",
               "signature_def", "asset_file_def", "object_graph_def"})) {
    tensorflow::MetaGraphDef meta;
    Status status = io_internal::ParseText(text, &meta, MetaGraphTextTypes());
    if (!status.ok()) return WithName(status, name);
    return UseMetaGraph(&meta, name, options, out);
  }
  Status status = io_internal::ParseText(text, &out->graph);
  return status.ok() ? status : WithName(status, name);
}

// A GraphDef parsed from bytes that did not look like one (see
// binary_detect.h) must still have a plausible op on every node; fields
// protobuf did not recognise at the top are allowed only beside real nodes
// (a newer TensorFlow's GraphDef), not in a graph made of nothing else.
bool PlausibleGraph(const tensorflow::GraphDef& graph) {
  for (const auto& node : graph.node()) {
    if (!io_internal::IsPlausibleOpName(node.op())) return false;
  }
  return graph.node_size() > 0 ||
         graph.GetReflection()->GetUnknownFields(graph).empty();
}

bool HasPlausibleNodes(const tensorflow::GraphDef& graph) {
  return graph.node_size() > 0 && PlausibleGraph(graph);
}

// Bytes that are no plausible GraphDef may still be a SavedModel or a
// MetaGraphDef whose graph carries fields the shape check does not expect.
bool ParseContainerLoosely(std::string_view bytes, std::string_view name,
                           const ReadOptions& options, LoadedGraph* out,
                           Status* status) {
  tensorflow::SavedModel model;
  if (io_internal::ParseBinary(bytes, &model).ok() &&
      model.meta_graphs_size() > 0 &&
      HasPlausibleNodes(model.meta_graphs(0).graph_def())) {
    *status = UseSavedModel(&model, name, options, out);
    return true;
  }
  tensorflow::MetaGraphDef meta;
  if (io_internal::ParseBinary(bytes, &meta).ok() &&
      HasPlausibleNodes(meta.graph_def())) {
    *status = UseMetaGraph(&meta, name, options, out);
    return true;
  }
  return false;
}

Status ParseGraphBinary(std::string_view bytes, std::string_view name,
                        const ReadOptions& options, LoadedGraph* out) {
  out->format = GraphFormat::kPb;
  std::string why;
  switch (io_internal::DetectBinaryKind(bytes, &why)) {
    case BinaryKind::kSavedModel: {
      tensorflow::SavedModel model;
      Status status = io_internal::ParseBinary(bytes, &model);
      if (!status.ok()) return WithName(status, name);
      return UseSavedModel(&model, name, options, out);
    }
    case BinaryKind::kMetaGraphDef: {
      tensorflow::MetaGraphDef meta;
      Status status = io_internal::ParseBinary(bytes, &meta);
      if (!status.ok()) return WithName(status, name);
      return UseMetaGraph(&meta, name, options, out);
    }
    case BinaryKind::kGraphDef:
      break;
  }
  out->container = GraphContainer::kGraphDef;
  Status status = io_internal::ParseBinary(bytes, &out->graph);
  if (status.ok() && (why.empty() || PlausibleGraph(out->graph))) {
    return Status::Ok();
  }
  Status container_status;
  if (ParseContainerLoosely(bytes, name, options, out, &container_status)) {
    return container_status;
  }
  return InvalidArgument("{}: not a GraphDef in binary, text or JSON form ({})",
                         name, !why.empty() ? why : status.message());
}

bool StartsLikeText(std::string_view bytes) {
  std::string_view head = bytes.substr(0, 256);
  char first = io_internal::FirstNonSpace(head);
  return io_internal::LooksLikeText(head) &&
         (std::isalpha(static_cast<unsigned char>(first)) || first == '#');
}

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
  std::string_view body = io_internal::StripBom(bytes);
  if (body.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos) {
    return InvalidArgument("{}: empty input", display_name);
  }
  LoadedGraph out;
  if (io_internal::LooksLikeText(body)) {
    Status status = io_internal::FirstNonSpace(body) == '{'
                        ? ParseGraphJson(body, display_name, options, &out)
                        : ParseGraphText(body, display_name, options, &out);
    if (!status.ok()) return status;
    return out;
  }
  Status status = ParseGraphBinary(bytes, display_name, options, &out);
  if (status.ok()) return out;
  // Text with a stray control byte: the text error says more.
  if (StartsLikeText(body)) {
    LoadedGraph text;
    Status text_status = ParseGraphText(body, display_name, options, &text);
    if (text_status.ok()) return text;
    return text_status;
  }
  return status;
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
      pb::TextFormat::Printer printer;
      // Unknown fields would print as bare numbers no parser reads back.
      printer.SetHideUnknownFields(true);
      std::string text;
      if (!printer.PrintToString(graph, &text)) {
        return Internal("text serialization failed");
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
