#include "lib/io/graph_summary.h"

#include <fmt/format.h>
#include <google/protobuf/arena.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"
#include "lib/io/binary_detect.h"
#include "lib/io/graph_read.h"
#include "lib/io/graph_summary_records.h"
#include "lib/io/proto_parse.h"

namespace dfg {
namespace {

using tensorflow::NodeDef;
using tensorflow::TensorShapeProto;

// PartialTensorShape::DebugString: "[?,5]", "<unknown>" for unknown rank.
std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) {
    return shape.dim_size() == 0 ? "<unknown>"
                                 : "<invalid: unknown rank with dims>";
  }
  std::string out = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    int64_t d = shape.dim(i).size();
    if (d < -1) return fmt::format("<invalid: dimension {}>", d);
    if (i > 0) out += ',';
    out += d == -1 ? std::string("?") : std::to_string(d);
  }
  return out + "]";
}

// Elements of a fully defined shape; -1 if unknown or overflowing.
int64_t NumElements(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return -1;
  int64_t n = 1;
  for (const auto& dim : shape.dim()) {
    if (dim.size() < 0) return -1;
    if (dim.size() != 0 &&
        n > std::numeric_limits<int64_t>::max() / dim.size()) {
      return -1;
    }
    n *= dim.size();
  }
  return n;
}

const tensorflow::AttrValue* FindAttr(const NodeDef& node, const char* name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

// The dimensions of a shape whose rank is known (-1 for an unknown one);
// false for an unknown rank.
bool ShapeDims(const TensorShapeProto& shape, std::vector<int64_t>* dims) {
  if (shape.unknown_rank()) return false;
  for (const auto& dim : shape.dim()) dims->push_back(dim.size());
  return true;
}

GraphSummary::Input MakeInput(const NodeDef& node) {
  GraphSummary::Input input;
  input.name = node.name();
  input.op = node.op();
  input.shape = "None";
  if (const auto* dtype = FindAttr(node, "dtype")) input.dtype = dtype->type();
  if (const auto* shape = FindAttr(node, "shape")) {
    input.shape = ShapeString(shape->shape());
    input.known_rank = ShapeDims(shape->shape(), &input.dims);
    input.elements = NumElements(shape->shape());
  }
  return input;
}

void CountConst(const NodeDef& node, GraphSummary* s) {
  ++s->const_nodes;
  const auto* value = FindAttr(node, "value");
  if (value == nullptr || !value->has_tensor()) return;
  const tensorflow::TensorProto& t = value->tensor();
  int64_t n = NumElements(t.tensor_shape());
  if (n < 0) return;
  s->const_parameters += n;
  if (!t.tensor_content().empty()) {
    s->const_bytes += static_cast<int64_t>(t.tensor_content().size());
  } else if (t.dtype() == tensorflow::DT_STRING) {
    // The last value repeats to fill the shape (Tensor::FromProto).
    int64_t given = t.string_val_size();
    for (int64_t i = 0; i < std::min(given, n); ++i) {
      s->const_bytes += static_cast<int64_t>(t.string_val(i).size());
    }
    if (given > 0 && n > given) {
      s->const_bytes +=
          (n - given) * static_cast<int64_t>(t.string_val(given - 1).size());
    }
  } else {
    s->const_bytes += n * static_cast<int64_t>(DataTypeSize(t.dtype()));
  }
}

template <typename Map>
std::vector<GraphSummary::Count> SortedCounts(const Map& counts,
                                              bool by_count) {
  std::vector<GraphSummary::Count> out;
  out.reserve(counts.size());
  for (const auto& [key, n] : counts) out.emplace_back(std::string(key), n);
  std::sort(out.begin(), out.end(), [by_count](const auto& a, const auto& b) {
    if (by_count && a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  });
  return out;
}

std::vector<GraphSummary::SignatureTensor> SignatureTensors(
    const google::protobuf::Map<std::string, tensorflow::TensorInfo>& map) {
  std::vector<GraphSummary::SignatureTensor> out;
  for (const auto& [key, info] : map) {
    GraphSummary::SignatureTensor t;
    t.key = key;
    t.tensor = info.name();
    t.dtype = info.dtype();
    t.shape = "None";
    if (info.has_tensor_shape()) {
      t.shape = ShapeString(info.tensor_shape());
      t.known_rank = ShapeDims(info.tensor_shape(), &t.dims);
    }
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

// `index` holds every node of `r` (IndexNodes or CheckGraphRecords);
// `consumed` receives, for each node, whether some input names it.
void FinishNodes(const io_internal::GraphRecords& r,
                 const io_internal::RecordIndex& index, GraphSummary* s,
                 std::vector<char>* consumed_out) {
  int n = static_cast<int>(r.nodes.size());
  std::vector<char>& consumed = *consumed_out;
  consumed.assign(n, 0);
  std::unordered_map<std::string_view, int64_t> devices;
  for (const io_internal::NodeRecord& node : r.nodes) {
    for (uint32_t k = 0; k < node.input_count; ++k) {
      std::string_view input = r.inputs[node.first_input + k];
      TensorIdView id = ParseTensorNameView(input);
      ++(id.index < 0 ? s->control_edges : s->data_edges);
      int producer = index.Find(id.node);
      if (producer >= 0) {
        consumed[producer] = 1;
      } else {
        s->invalid_inputs.emplace_back(node.name, input);
      }
    }
    if (!node.device.empty()) ++devices[node.device];
  }
  for (int i = 0; i < n; ++i) {
    if (consumed[i]) continue;
    const io_internal::NodeRecord& node = r.nodes[i];
    s->unconsumed.push_back({std::string(node.name), std::string(node.op)});
    if (node.op != "Const" && node.op != "Assign" && node.op != "NoOp" &&
        node.op != "Placeholder") {
      s->outputs.push_back({std::string(node.name), std::string(node.op)});
    }
  }
  s->nodes = n;
  s->producer = r.producer;
  s->devices = SortedCounts(devices, /*by_count=*/false);
}

void SummarizeOps(const io_internal::GraphRecords& r, GraphSummary* s) {
  std::unordered_map<std::string_view, int64_t> ops;
  for (const io_internal::NodeRecord& node : r.nodes) ++ops[node.op];
  tensorflow::FunctionDefLibrary empty;
  const tensorflow::FunctionDefLibrary& library =
      r.library != nullptr ? *r.library : empty;
  for (const auto& function : library.function()) {
    for (const NodeDef& node : function.node_def()) ++ops[node.op()];
    s->functions.push_back({function.signature().name(),
                            function.node_def_size(),
                            function.signature().input_arg_size(),
                            function.signature().output_arg_size()});
  }
  std::sort(s->functions.begin(), s->functions.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  s->op_counts = SortedCounts(ops, /*by_count=*/true);
  OpLookup lookup(&library);
  for (const auto& [op, n] : s->op_counts) {
    if (lookup.LookUpOpDef(op) == nullptr) s->unknown_ops.emplace_back(op, n);
  }
  std::sort(s->unknown_ops.begin(), s->unknown_ops.end());
}

// Records that view a parsed GraphDef; SummarizeNodeAttrs as they go.
io_internal::GraphRecords RecordsOf(const tensorflow::GraphDef& graph,
                                    GraphSummary* s) {
  io_internal::GraphRecords r;
  r.nodes.reserve(graph.node_size());
  for (const NodeDef& node : graph.node()) {
    io_internal::NodeRecord record{node.name(), node.op(), node.device()};
    record.first_input = static_cast<uint32_t>(r.inputs.size());
    for (const std::string& input : node.input()) r.inputs.push_back(input);
    record.input_count = static_cast<uint32_t>(node.input_size());
    r.nodes.push_back(record);
    if (io_internal::NeedsAttrs(node.op())) {
      io_internal::SummarizeNodeAttrs(node, s);
    }
  }
  r.producer = graph.versions().producer();
  r.library = &graph.library();
  return r;
}

}  // namespace

namespace io_internal {

bool NeedsAttrs(std::string_view op) {
  return op == "Placeholder" || op == "PlaceholderWithDefault" ||
         op == "Variable" || op == "VariableV2" || op == "VarHandleOp" ||
         op == "Const";
}

void SummarizeNodeAttrs(const NodeDef& node, GraphSummary* s) {
  const std::string& op = node.op();
  if (op == "Placeholder") s->inputs.push_back(MakeInput(node));
  if (op == "PlaceholderWithDefault") {
    s->defaulted_inputs.push_back(MakeInput(node));
  }
  if (op == "Variable" || op == "VariableV2" || op == "VarHandleOp") {
    s->variables.push_back(MakeInput(node));
    const auto* shape = FindAttr(node, "shape");
    int64_t n = shape != nullptr ? NumElements(shape->shape()) : -1;
    if (n > 0) s->variable_parameters += n;  // until CountVariables
  }
  if (op == "Const") CountConst(node, s);
}

}  // namespace io_internal

std::string HumanReadableNum(int64_t value) {
  std::string sign = value < 0 ? "-" : "";
  uint64_t v = value < 0 ? 0 - static_cast<uint64_t>(value) : value;
  if (v < 1000) return sign + std::to_string(v);
  if (v >= 1000000000000000ull) {
    return sign + fmt::format("{:.3G}", static_cast<double>(v));
  }
  const char* units = "kMBT";
  while (v >= 1000000) {
    v /= 1000;
    ++units;
  }
  return sign +
         fmt::format("{:.2f}{}", static_cast<double>(v) / 1000.0, *units);
}

namespace {

void AddMetaInfo(const LoadedGraph& info, std::string_view source,
                 GraphSummary* s) {
  s->source = std::string(source);
  s->format = info.format;
  s->container = info.container;
  s->tags = info.tags;
  s->available_tag_sets = info.available_tag_sets;
  for (const auto& [key, signature] : info.signatures) {
    s->signatures.push_back({key, signature.method_name(),
                             SignatureTensors(signature.inputs()),
                             SignatureTensors(signature.outputs())});
  }
  if (info.container == GraphContainer::kSavedModel &&
      info.signatures.count("serving_default")) {
    s->default_signature = "serving_default";
  }
}

// The summary of `records`; with `check`, first the structure
// (CheckGraphStructure), whose errors name `source`.
StatusOr<GraphSummary> Finish(const io_internal::GraphRecords& records,
                              std::string_view source, bool check,
                              GraphSummary s) {
  io_internal::RecordIndex index(records.nodes.size(),
                                 io_internal::RecordName{&records});
  if (check) {
    Status status = io_internal::CheckGraphRecords(records, &index);
    if (!status.ok()) {
      return Status(status.code(),
                    fmt::format("{}: {}", source, status.message()));
    }
  } else {
    io_internal::IndexNodes(records, &index);
  }
  std::vector<char> consumed;
  FinishNodes(records, index, &s, &consumed);
  io_internal::CountVariables(records, index, consumed, &s);
  SummarizeOps(records, &s);
  return s;
}

StatusOr<GraphSummary> Summarize(const tensorflow::GraphDef& graph,
                                 const LoadedGraph& info,
                                 std::string_view source, bool check) {
  GraphSummary s;
  AddMetaInfo(info, source, &s);
  io_internal::GraphRecords records = RecordsOf(graph, &s);
  return Finish(records, source, check, std::move(s));
}

// The fast path for a binary GraphDef; nullopt when `bytes` is not one.
std::optional<StatusOr<GraphSummary>> SummarizeBinaryGraph(
    std::string_view bytes, std::string_view source) {
  std::string why;
  if (bytes.empty() || io_internal::LooksLikeText(bytes) ||
      io_internal::DetectBinaryKind(bytes, &why) !=
          io_internal::BinaryKind::kGraphDef ||
      !why.empty()) {
    return std::nullopt;
  }
  GraphSummary s;
  io_internal::GraphRecords records;
  tensorflow::FunctionDefLibrary library;
  if (!io_internal::ScanBinaryGraph(bytes, &records, &library, &s)) {
    return std::nullopt;
  }
  LoadedGraph info;  // binary GraphDef
  AddMetaInfo(info, source, &s);
  return Finish(records, source, /*check=*/true, std::move(s));
}

}  // namespace

GraphSummary SummarizeGraph(const LoadedGraph& loaded,
                            std::string_view source) {
  return *Summarize(loaded.graph, loaded, source, /*check=*/false);
}

StatusOr<GraphSummary> SummarizeGraphBytes(std::string_view bytes,
                                           std::string_view display_name,
                                           const ReadOptions& options) {
  if (auto fast = SummarizeBinaryGraph(bytes, display_name)) return *fast;
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 1 << 16;
  arena_options.max_block_size = 1 << 22;
  google::protobuf::Arena arena(arena_options);
  auto* graph =
      google::protobuf::Arena::CreateMessage<tensorflow::GraphDef>(&arena);
  LoadedGraph info;
  DFG_RETURN_IF_ERROR(
      io_internal::ParseGraphInto(bytes, display_name, options, graph, &info));
  return Summarize(*graph, info, display_name, /*check=*/true);
}

StatusOr<GraphSummary> ReadGraphSummary(const std::string& path,
                                        std::istream& in,
                                        const ReadOptions& options) {
  DFG_ASSIGN_OR_RETURN(std::string file, ResolveGraphPath(path));
  DFG_ASSIGN_OR_RETURN(std::string bytes,
                       io_internal::ReadGraphBytes(file, in));
  DFG_ASSIGN_OR_RETURN(
      GraphSummary summary,
      SummarizeGraphBytes(bytes, io_internal::DisplayName(file), options));
  if (file != "-" && summary.container == GraphContainer::kSavedModel) {
    summary.export_dir = io_internal::ExportDirOf(file);
  }
  return summary;
}

}  // namespace dfg
