// Reading a GraphDef in any form and container (the parsing half of
// graph_io.h).
#include "lib/io/graph_read.h"

#include <algorithm>
#include <cctype>
#include <memory>

#include "lib/io/binary_detect.h"
#include "lib/io/proto_parse.h"

namespace dfg::io_internal {
namespace {

namespace pb = google::protobuf;

// Where a parse puts its result: the graph (which may live in an arena) and
// everything else.
struct Target {
  tensorflow::GraphDef* graph;
  LoadedGraph* info;
};

// A container message in the graph's arena (so that taking its graph_def is
// a pointer swap), or on the heap when the graph has no arena.
template <typename T>
class Owned {
 public:
  explicit Owned(const Target& target) {
    pb::Arena* arena = target.graph->GetArena();
    if (arena != nullptr) {
      message_ = pb::Arena::CreateMessage<T>(arena);
    } else {
      heap_ = std::make_unique<T>();
      message_ = heap_.get();
    }
  }
  T* get() const { return message_; }
  T* operator->() const { return message_; }

 private:
  std::unique_ptr<T> heap_;
  T* message_;
};

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
void TakeMetaGraph(tensorflow::MetaGraphDef* meta, Target out) {
  out.graph->Swap(meta->mutable_graph_def());
  const auto& tags = meta->meta_info_def().tags();
  out.info->tags.assign(tags.begin(), tags.end());
  out.info->signatures.clear();
  for (const auto& [key, signature] : meta->signature_def()) {
    out.info->signatures[key] = signature;
  }
  meta->clear_graph_def();
  out.info->meta_graph.CopyFrom(*meta);
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
                    const ReadOptions& options, Target out) {
  const auto& tags = meta->meta_info_def().tags();
  out.info->container = GraphContainer::kMetaGraphDef;
  out.info->available_tag_sets = {
      std::vector<std::string>(tags.begin(), tags.end())};
  if (!options.meta_graph_tag.empty() &&
      !HasTag(*meta, options.meta_graph_tag)) {
    return NoTagError(name, options.meta_graph_tag,
                      out.info->available_tag_sets);
  }
  TakeMetaGraph(meta, out);
  return Status::Ok();
}

Status UseSavedModel(tensorflow::SavedModel* model, std::string_view name,
                     const ReadOptions& options, Target out) {
  out.info->container = GraphContainer::kSavedModel;
  out.info->available_tag_sets.clear();
  for (const auto& meta : model->meta_graphs()) {
    const auto& tags = meta.meta_info_def().tags();
    out.info->available_tag_sets.emplace_back(tags.begin(), tags.end());
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
      return NoTagError(name, options.meta_graph_tag,
                        out.info->available_tag_sets);
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
    Target out) {
  std::string_view signature;
  for (const auto& [key, value] : members) {
    if (key == "signature") signature = value;
    if (key == "userDefinedMetadata" && signature.empty()) {
      auto inner = JsonObjectMembers(value);
      if (!inner.ok()) continue;
      for (const auto& [k, v] : *inner) {
        if (k == "signature") signature = v;
      }
    }
  }
  tensorflow::SignatureDef def;
  if (signature.empty() || signature == "null") return;
  if (ParseJson(signature, &def, /*ignore_unknown_fields=*/true).ok()) {
    out.info->signatures["serving_default"] = std::move(def);
  }
}

Status ParseGraphJson(std::string_view json, std::string_view name,
                      const ReadOptions& options, Target out) {
  out.info->format = GraphFormat::kJson;
  auto members = JsonObjectMembers(json);
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
    out.info->container = GraphContainer::kTfjsModel;
    Status status = ParseJson(topology, out.graph);
    if (!status.ok()) {
      return InvalidArgument(
          "{}: modelTopology is not a GraphDef in JSON form: {}", name,
          status.message());
    }
    ReadTfjsSignature(*members, out);
    return Status::Ok();
  }
  if (saved_model) {
    Owned<tensorflow::SavedModel> model(out);
    Status status = ParseJson(json, model.get(), true);
    if (!status.ok()) return WithName(status, name);
    return UseSavedModel(model.get(), name, options, out);
  }
  if (meta_graph) {
    Owned<tensorflow::MetaGraphDef> meta(out);
    Status status = ParseJson(json, meta.get(), true);
    if (!status.ok()) return WithName(status, name);
    return UseMetaGraph(meta.get(), name, options, out);
  }
  Status status = ParseJson(json, out.graph);
  if (!status.ok()) {
    return InvalidArgument("{}: not a GraphDef in JSON form: {}", name,
                           status.message());
  }
  return Status::Ok();
}

Status ParseGraphText(std::string_view text, std::string_view name,
                      const ReadOptions& options, Target out) {
  out.info->format = GraphFormat::kPbtxt;
  std::string first = FirstTextFieldName(text);
  if (IsOneOf(first, {"meta_graphs", "saved_model_schema_version"})) {
    Owned<tensorflow::SavedModel> model(out);
    Status status = ParseText(text, model.get(), MetaGraphTextTypes());
    if (!status.ok()) return WithName(status, name);
    return UseSavedModel(model.get(), name, options, out);
  }
  if (IsOneOf(first,
              {"meta_info_def", "graph_def", "saver_def", "collection_def",
               "signature_def", "asset_file_def", "object_graph_def"})) {
    Owned<tensorflow::MetaGraphDef> meta(out);
    Status status = ParseText(text, meta.get(), MetaGraphTextTypes());
    if (!status.ok()) return WithName(status, name);
    return UseMetaGraph(meta.get(), name, options, out);
  }
  Status status = ParseText(text, out.graph);
  return status.ok() ? status : WithName(status, name);
}

// A GraphDef parsed from bytes that did not look like one (see
// binary_detect.h) must still have a plausible op on every node; fields
// protobuf did not recognise at the top are allowed only beside real nodes
// (a newer TensorFlow's GraphDef), not in a graph made of nothing else.
bool PlausibleGraph(const tensorflow::GraphDef& graph) {
  for (const auto& node : graph.node()) {
    if (!IsPlausibleOpName(node.op())) return false;
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
                           const ReadOptions& options, Target out,
                           Status* status) {
  Owned<tensorflow::SavedModel> model(out);
  if (ParseBinary(bytes, model.get()).ok() && model->meta_graphs_size() > 0 &&
      HasPlausibleNodes(model->meta_graphs(0).graph_def())) {
    *status = UseSavedModel(model.get(), name, options, out);
    return true;
  }
  Owned<tensorflow::MetaGraphDef> meta(out);
  if (ParseBinary(bytes, meta.get()).ok() &&
      HasPlausibleNodes(meta->graph_def())) {
    *status = UseMetaGraph(meta.get(), name, options, out);
    return true;
  }
  return false;
}

Status ParseGraphBinary(std::string_view bytes, std::string_view name,
                        const ReadOptions& options, Target out) {
  out.info->format = GraphFormat::kPb;
  std::string why;
  switch (DetectBinaryKind(bytes, &why)) {
    case BinaryKind::kSavedModel: {
      Owned<tensorflow::SavedModel> model(out);
      Status status = ParseBinary(bytes, model.get());
      if (!status.ok()) return WithName(status, name);
      return UseSavedModel(model.get(), name, options, out);
    }
    case BinaryKind::kMetaGraphDef: {
      Owned<tensorflow::MetaGraphDef> meta(out);
      Status status = ParseBinary(bytes, meta.get());
      if (!status.ok()) return WithName(status, name);
      return UseMetaGraph(meta.get(), name, options, out);
    }
    case BinaryKind::kGraphDef:
      break;
  }
  out.info->container = GraphContainer::kGraphDef;
  Status status = ParseBinary(bytes, out.graph);
  if (status.ok() && (why.empty() || PlausibleGraph(*out.graph))) {
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
  char first = FirstNonSpace(head);
  return LooksLikeText(head) &&
         (std::isalpha(static_cast<unsigned char>(first)) || first == '#');
}

}  // namespace

Status ParseGraphInto(std::string_view bytes, std::string_view display_name,
                      const ReadOptions& options, tensorflow::GraphDef* graph,
                      LoadedGraph* info) {
  Target out{graph, info};
  std::string_view body = StripBom(bytes);
  if (body.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos) {
    return InvalidArgument("{}: empty input", display_name);
  }
  if (LooksLikeText(body)) {
    Status status = FirstNonSpace(body) == '{'
                        ? ParseGraphJson(body, display_name, options, out)
                        : ParseGraphText(body, display_name, options, out);
    return status;
  }
  Status status = ParseGraphBinary(bytes, display_name, options, out);
  if (status.ok()) return status;
  // Text with a stray control byte: the text error says more.
  if (StartsLikeText(body)) {
    graph->Clear();
    return ParseGraphText(body, display_name, options, out);
  }
  return status;
}

}  // namespace dfg::io_internal

namespace dfg {

bool IsPlainBinaryGraphDef(std::string_view bytes) {
  std::string_view body = io_internal::StripBom(bytes);
  if (body.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos ||
      io_internal::LooksLikeText(body)) {
    return false;
  }
  std::string why;
  return io_internal::DetectBinaryKind(bytes, &why) ==
             io_internal::BinaryKind::kGraphDef &&
         why.empty();
}

}  // namespace dfg
