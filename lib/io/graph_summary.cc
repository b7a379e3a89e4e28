#include "lib/io/graph_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "lib/graph/op_registry.h"
#include "lib/graph/tensor_id.h"
#include "lib/graph/types.h"

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

GraphSummary::Input MakeInput(const NodeDef& node) {
  GraphSummary::Input input{node.name(), node.op(), tensorflow::DT_INVALID,
                            "None"};
  if (const auto* dtype = FindAttr(node, "dtype")) input.dtype = dtype->type();
  if (const auto* shape = FindAttr(node, "shape")) {
    input.shape = ShapeString(shape->shape());
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
    out.push_back(
        {key, info.name(), info.dtype(),
         info.has_tensor_shape() ? ShapeString(info.tensor_shape()) : "None"});
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

void SummarizeNodes(const tensorflow::GraphDef& graph, GraphSummary* s) {
  std::unordered_set<std::string_view> names, consumed;
  names.reserve(graph.node_size());
  consumed.reserve(graph.node_size());
  std::unordered_map<std::string_view, int64_t> devices;
  for (const NodeDef& node : graph.node()) {
    names.insert(node.name());
    for (const std::string& input : node.input()) {
      TensorIdView id = ParseTensorNameView(input);
      ++(id.index < 0 ? s->control_edges : s->data_edges);
      consumed.insert(id.node);
    }
    if (!node.device().empty()) ++devices[node.device()];
    const std::string& op = node.op();
    if (op == "Placeholder") s->inputs.push_back(MakeInput(node));
    if (op == "PlaceholderWithDefault") {
      s->defaulted_inputs.push_back(MakeInput(node));
    }
    if (op == "Variable" || op == "VariableV2" || op == "VarHandleOp") {
      s->variables.push_back(MakeInput(node));
      const auto* shape = FindAttr(node, "shape");
      int64_t n = shape != nullptr ? NumElements(shape->shape()) : -1;
      if (n > 0) s->variable_parameters += n;
    }
    if (op == "Const") CountConst(node, s);
  }
  for (const NodeDef& node : graph.node()) {
    for (const std::string& input : node.input()) {
      TensorIdView id = ParseTensorNameView(input);
      if (names.count(id.node) == 0) {
        s->invalid_inputs.emplace_back(node.name(), input);
      }
    }
    if (consumed.count(node.name()) != 0) continue;
    s->unconsumed.push_back({node.name(), node.op()});
    const std::string& op = node.op();
    if (op != "Const" && op != "Assign" && op != "NoOp" &&
        op != "Placeholder") {
      s->outputs.push_back({node.name(), op});
    }
  }
  s->nodes = graph.node_size();
  s->devices = SortedCounts(devices, /*by_count=*/false);
}

void SummarizeOps(const tensorflow::GraphDef& graph, GraphSummary* s) {
  std::unordered_map<std::string_view, int64_t> ops;
  for (const NodeDef& node : graph.node()) ++ops[node.op()];
  for (const auto& function : graph.library().function()) {
    for (const NodeDef& node : function.node_def()) ++ops[node.op()];
    s->functions.push_back({function.signature().name(),
                            function.node_def_size(),
                            function.signature().input_arg_size(),
                            function.signature().output_arg_size()});
  }
  std::sort(s->functions.begin(), s->functions.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  s->op_counts = SortedCounts(ops, /*by_count=*/true);
  OpLookup lookup(&graph.library());
  for (const auto& [op, n] : s->op_counts) {
    if (lookup.LookUpOpDef(op) == nullptr) s->unknown_ops.emplace_back(op, n);
  }
  std::sort(s->unknown_ops.begin(), s->unknown_ops.end());
}

}  // namespace

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

GraphSummary SummarizeGraph(const LoadedGraph& loaded,
                            std::string_view source) {
  GraphSummary s;
  s.source = std::string(source);
  s.format = loaded.format;
  s.container = loaded.container;
  s.producer = loaded.graph.versions().producer();
  SummarizeNodes(loaded.graph, &s);
  SummarizeOps(loaded.graph, &s);
  s.tags = loaded.tags;
  s.available_tag_sets = loaded.available_tag_sets;
  for (const auto& [key, signature] : loaded.signatures) {
    s.signatures.push_back({key, signature.method_name(),
                            SignatureTensors(signature.inputs()),
                            SignatureTensors(signature.outputs())});
  }
  return s;
}

}  // namespace dfg
