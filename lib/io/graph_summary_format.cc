// GraphSummary as text and as JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "lib/graph/types.h"
#include "lib/io/graph_summary.h"

namespace dfg {
namespace {

using Json = nlohmann::ordered_json;

// summarize_graph's "(name=x, type=float(1), shape=[?,5])".
std::string InputText(const GraphSummary::Input& input) {
  return fmt::format("(name={}, type={}({}), shape={})", input.name,
                     DataTypeString(input.dtype), static_cast<int>(input.dtype),
                     input.shape);
}

std::string TagSet(const std::vector<std::string>& tags) {
  return fmt::format("[{}]", fmt::join(tags, ", "));
}

std::string Plural(int64_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

void AppendInputs(const char* found, const char* none,
                  const std::vector<GraphSummary::Input>& inputs,
                  std::string* out) {
  if (inputs.empty()) {
    *out += fmt::format("{}\n", none);
    return;
  }
  std::vector<std::string> items;
  for (const auto& input : inputs) items.push_back(InputText(input));
  *out += fmt::format("Found {} {}: {}\n", inputs.size(), found,
                      fmt::join(items, " "));
}

void AppendSummarizeGraphLines(const GraphSummary& s, std::string* out) {
  AppendInputs("possible inputs", "No inputs spotted.", s.inputs, out);
  AppendInputs("variables", "No variables spotted.", s.variables, out);
  if (s.outputs.empty()) {
    *out += "No outputs spotted.\n";
  } else {
    std::vector<std::string> items;
    for (const auto& o : s.outputs) {
      items.push_back(fmt::format("(name={}, op={})", o.name, o.op));
    }
    *out += fmt::format("Found {} possible outputs: {}\n", s.outputs.size(),
                        fmt::join(items, " "));
  }
  *out += fmt::format(
      "Found {} ({}) const parameters, {} ({}) variable parameters, and {} "
      "control_edges\n",
      s.const_parameters, HumanReadableNum(s.const_parameters),
      s.variable_parameters, HumanReadableNum(s.variable_parameters),
      s.control_edges);
  for (const auto& [device, n] : s.devices) {
    *out += fmt::format("{} nodes assigned to device '{}'\n", n, device);
  }
  for (const auto& [node, input] : s.invalid_inputs) {
    *out += fmt::format("Invalid input {} for node {}\n", input, node);
  }
  std::vector<std::string> ops;
  for (const auto& [op, n] : s.op_counts)
    ops.push_back(fmt::format("{} {}", n, op));
  *out += fmt::format("Op types used: {}\n", fmt::join(ops, ", "));
}

void AppendSignatures(const GraphSummary& s, std::string* out) {
  if (s.container == GraphContainer::kGraphDef) return;
  if (!s.available_tag_sets.empty()) {
    std::vector<std::string> sets;
    for (const auto& tags : s.available_tag_sets) sets.push_back(TagSet(tags));
    *out += fmt::format("Meta graph tags: {} (available: {})\n", TagSet(s.tags),
                        fmt::join(sets, ", "));
  }
  if (s.signatures.empty()) {
    *out += "Signatures: none\n";
    return;
  }
  *out += fmt::format("Signatures ({}):\n", s.signatures.size());
  for (const auto& sig : s.signatures) {
    *out += fmt::format("  {}{}{}\n", sig.key,
                        sig.method.empty() ? "" : " (" + sig.method + ")",
                        sig.key == s.default_signature ? " [default]" : "");
    for (const auto* list : {&sig.inputs, &sig.outputs}) {
      const char* role = list == &sig.inputs ? "input " : "output";
      for (const auto& t : *list) {
        *out += fmt::format("    {} {}: {} {} {}\n", role, t.key, t.tensor,
                            DataTypeString(t.dtype), t.shape);
      }
    }
  }
}

// inspect_checkpoint's lines (CheckpointReader::DebugString: "key (DT_FLOAT)
// [2,3]") with the stored bytes.
void AppendCheckpoint(const GraphSummary& s, std::string* out) {
  if (s.export_dir.empty()) return;
  if (s.checkpoint_prefix.empty()) {
    *out += "Checkpoint: none (no variables/variables.index)\n";
    return;
  }
  int64_t bytes = 0;
  for (const auto& t : s.checkpoint_tensors) bytes += t.bytes;
  *out += fmt::format(
      "Checkpoint: {} ({}, {} bytes)\n", s.checkpoint_prefix,
      Plural(static_cast<int64_t>(s.checkpoint_tensors.size()), "tensor"),
      bytes);
  for (const auto& t : s.checkpoint_tensors) {
    *out += fmt::format("  {} ({}) [{}] {} bytes\n", t.key,
                        tensorflow::DataType_Name(t.dtype),
                        fmt::join(t.shape, ","), t.bytes);
  }
}

}  // namespace

std::string FormatGraphSummary(const GraphSummary& s) {
  std::string out =
      fmt::format("Graph: {} ({}, {})\n", s.source,
                  GraphContainerName(s.container), GraphFormatName(s.format));
  out +=
      fmt::format("Nodes: {}, edges: {} ({} data, {} control), producer: {}\n",
                  s.nodes, s.data_edges + s.control_edges, s.data_edges,
                  s.control_edges, s.producer);
  AppendSummarizeGraphLines(s, &out);
  if (!s.defaulted_inputs.empty()) {
    AppendInputs("inputs with defaults", "", s.defaulted_inputs, &out);
  }
  out += fmt::format("Constants: {}, {} elements, {} bytes\n",
                     Plural(s.const_nodes, "node"), s.const_parameters,
                     s.const_bytes);
  std::vector<std::string> unconsumed;
  for (const auto& n : s.unconsumed) {
    unconsumed.push_back(fmt::format("{} ({})", n.name, n.op));
  }
  out += fmt::format("Nodes nothing consumes ({}): {}\n", s.unconsumed.size(),
                     unconsumed.empty()
                         ? "none"
                         : fmt::format("{}", fmt::join(unconsumed, ", ")));
  // Requested devices are listed above, as summarize_graph does.
  if (s.devices.empty()) out += "Requested devices: none\n";
  if (s.functions.empty()) {
    out += "Library functions: none\n";
  } else {
    out += fmt::format("Library functions ({}):\n", s.functions.size());
    for (const auto& f : s.functions) {
      out += fmt::format("  {}: {} inputs, {} outputs, {}\n", f.name, f.inputs,
                         f.outputs, Plural(f.nodes, "node"));
    }
  }
  std::vector<std::string> unknown;
  for (const auto& [op, n] : s.unknown_ops) {
    unknown.push_back(fmt::format("{} ({})", op, Plural(n, "node")));
  }
  out += fmt::format(
      "Ops dfg does not know: {}\n",
      unknown.empty() ? "none" : fmt::format("{}", fmt::join(unknown, ", ")));
  if (!s.no_kernel_ops.empty()) {
    std::vector<std::string> no_kernel;
    for (const auto& [op, n] : s.no_kernel_ops) {
      no_kernel.push_back(fmt::format("{} ({})", op, Plural(n, "node")));
    }
    out += fmt::format("Ops dfg has no CPU kernel for: {}\n",
                       fmt::join(no_kernel, ", "));
  }
  AppendSignatures(s, &out);
  AppendCheckpoint(s, &out);
  return out;
}

namespace {

Json InputsJson(const std::vector<GraphSummary::Input>& inputs) {
  Json out = Json::array();
  for (const auto& i : inputs) {
    out.push_back({{"name", i.name},
                   {"op", i.op},
                   {"dtype", DataTypeString(i.dtype)},
                   {"shape", i.shape}});
  }
  return out;
}

Json NodesJson(const std::vector<GraphSummary::NodeRef>& nodes) {
  Json out = Json::array();
  for (const auto& n : nodes) out.push_back({{"name", n.name}, {"op", n.op}});
  return out;
}

Json CountsJson(const std::vector<GraphSummary::Count>& counts,
                const char* key) {
  Json out = Json::array();
  for (const auto& [name, n] : counts)
    out.push_back({{key, name}, {"nodes", n}});
  return out;
}

Json TensorsJson(const std::vector<GraphSummary::SignatureTensor>& tensors) {
  Json out = Json::array();
  for (const auto& t : tensors) {
    out.push_back({{"key", t.key},
                   {"tensor", t.tensor},
                   {"dtype", DataTypeString(t.dtype)},
                   {"shape", t.shape}});
  }
  return out;
}

}  // namespace

std::string GraphSummaryJson(const GraphSummary& s) {
  Json j;
  j["source"] = s.source;
  j["format"] = GraphFormatName(s.format);
  j["container"] = GraphContainerName(s.container);
  j["producer"] = s.producer;
  j["nodes"] = s.nodes;
  j["edges"] = {{"data", s.data_edges}, {"control", s.control_edges}};
  j["inputs"] = InputsJson(s.inputs);
  j["inputs_with_defaults"] = InputsJson(s.defaulted_inputs);
  j["variables"] = InputsJson(s.variables);
  j["outputs"] = NodesJson(s.outputs);
  j["unconsumed"] = NodesJson(s.unconsumed);
  j["constants"] = {{"nodes", s.const_nodes},
                    {"parameters", s.const_parameters},
                    {"bytes", s.const_bytes}};
  j["variable_parameters"] = s.variable_parameters;
  j["op_types"] = CountsJson(s.op_counts, "op");
  j["devices"] = CountsJson(s.devices, "device");
  Json functions = Json::array();
  for (const auto& f : s.functions) {
    functions.push_back({{"name", f.name},
                         {"inputs", f.inputs},
                         {"outputs", f.outputs},
                         {"nodes", f.nodes}});
  }
  j["functions"] = functions;
  j["unknown_ops"] = CountsJson(s.unknown_ops, "op");
  j["no_kernel_ops"] = CountsJson(s.no_kernel_ops, "op");
  Json invalid = Json::array();
  for (const auto& [node, input] : s.invalid_inputs) {
    invalid.push_back({{"node", node}, {"input", input}});
  }
  j["invalid_inputs"] = invalid;
  if (s.container != GraphContainer::kGraphDef) {
    j["tags"] = s.tags;
    j["available_tag_sets"] = s.available_tag_sets;
    Json signatures = Json::array();
    for (const auto& sig : s.signatures) {
      signatures.push_back({{"key", sig.key},
                            {"method", sig.method},
                            {"inputs", TensorsJson(sig.inputs)},
                            {"outputs", TensorsJson(sig.outputs)}});
    }
    j["signatures"] = signatures;
    j["default_signature"] =
        s.default_signature.empty() ? Json() : Json(s.default_signature);
  }
  if (!s.export_dir.empty()) {
    Json tensors = Json::array();
    for (const auto& t : s.checkpoint_tensors) {
      tensors.push_back({{"key", t.key},
                         {"dtype", DataTypeString(t.dtype)},
                         {"shape", t.shape},
                         {"bytes", t.bytes}});
    }
    j["checkpoint"] = {
        {"prefix",
         s.checkpoint_prefix.empty() ? Json() : Json(s.checkpoint_prefix)},
        {"tensors", tensors}};
  }
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace dfg
