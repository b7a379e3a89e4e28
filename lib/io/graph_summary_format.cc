// GraphSummary as text and as JSON.
#include <fmt/format.h>

#include <algorithm>
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

// A list on one line stops before this many characters and says how many
// items it left off: a SavedModel's lists run to dozens of long names (--json
// has them all).
constexpr size_t kListBudget = 240;

std::string JoinListed(const std::vector<std::string>& items,
                       std::string_view separator) {
  std::string out;
  size_t i = 0;
  for (; i < items.size(); ++i) {
    size_t more = (i == 0 ? 0 : separator.size()) + items[i].size();
    if (i > 0 && out.size() + more > kListBudget) break;
    if (i > 0) out += separator;
    out += items[i];
  }
  if (i < items.size()) {
    out += fmt::format("{}... {} more (--json lists all)", separator,
                       items.size() - i);
  }
  return out;
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
                      JoinListed(items, " "));
}

// The variables counted once (see GraphSummary::uncounted_variables).
std::vector<GraphSummary::Input> CountedVariables(const GraphSummary& s) {
  if (s.uncounted_variables.empty()) return s.variables;
  std::vector<std::string> skip;
  for (const auto& u : s.uncounted_variables) skip.push_back(u.name);
  std::sort(skip.begin(), skip.end());
  std::vector<GraphSummary::Input> out;
  for (const auto& v : s.variables) {
    if (!std::binary_search(skip.begin(), skip.end(), v.name)) {
      out.push_back(v);
    }
  }
  return out;
}

void AppendUncountedVariables(const GraphSummary& s, std::string* out) {
  if (s.uncounted_variables.empty()) return;
  std::vector<std::string> items;
  for (const auto& u : s.uncounted_variables) {
    items.push_back(u.copy_of.empty()
                        ? fmt::format("{} (unused)", u.name)
                        : fmt::format("{} (copy of {})", u.name, u.copy_of));
  }
  *out += fmt::format(
      "Variables not counted, copies or handles nothing uses ({}): {}\n",
      items.size(), JoinListed(items, ", "));
}

void AppendSummarizeGraphLines(const GraphSummary& s, std::string* out) {
  AppendInputs("possible inputs", "No inputs spotted.", s.inputs, out);
  AppendInputs("variables", "No variables spotted.", CountedVariables(s), out);
  if (s.outputs.empty()) {
    *out += "No outputs spotted.\n";
  } else {
    std::vector<std::string> items;
    for (const auto& o : s.outputs) {
      items.push_back(fmt::format("(name={}, op={})", o.name, o.op));
    }
    *out += fmt::format("Found {} possible outputs: {}\n", s.outputs.size(),
                        JoinListed(items, " "));
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
  *out += fmt::format("Op types used: {}\n", JoinListed(ops, ", "));
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
  // A SavedModel's signatures are what a user calls: first, as
  // saved_model_cli show --all prints them.
  AppendSignatures(s, &out);
  out +=
      fmt::format("Nodes: {}, edges: {} ({} data, {} control), producer: {}\n",
                  s.nodes, s.data_edges + s.control_edges, s.data_edges,
                  s.control_edges, s.producer);
  AppendSummarizeGraphLines(s, &out);
  AppendUncountedVariables(s, &out);
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
  out +=
      fmt::format("Nodes nothing consumes ({}): {}\n", s.unconsumed.size(),
                  unconsumed.empty() ? "none" : JoinListed(unconsumed, ", "));
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
  out += fmt::format("Ops dfg does not know: {}\n",
                     unknown.empty() ? "none" : JoinListed(unknown, ", "));
  if (!s.no_kernel_ops.empty()) {
    std::vector<std::string> no_kernel;
    for (const auto& [op, n] : s.no_kernel_ops) {
      no_kernel.push_back(fmt::format("{} ({})", op, Plural(n, "node")));
    }
    out += fmt::format("Ops dfg has no CPU kernel for: {}\n",
                       JoinListed(no_kernel, ", "));
  }
  AppendCheckpoint(s, &out);
  return out;
}

namespace {

// A shape as an array, -1 for an unknown dimension; null for an unknown
// rank (or no shape at all).
Json ShapeJson(bool known_rank, const std::vector<int64_t>& dims) {
  return known_rank ? Json(dims) : Json();
}

Json InputsJson(const std::vector<GraphSummary::Input>& inputs) {
  Json out = Json::array();
  for (const auto& i : inputs) {
    out.push_back({{"name", i.name},
                   {"op", i.op},
                   {"dtype", DataTypeString(i.dtype)},
                   {"shape", ShapeJson(i.known_rank, i.dims)}});
  }
  return out;
}

// The variables, each with whether variable_parameters counts it, and when
// not, the variable it copies (null for a handle nothing uses).
Json VariablesJson(const GraphSummary& s) {
  Json out = InputsJson(s.variables);
  for (Json& v : out) {
    v["counted"] = true;
    for (const auto& u : s.uncounted_variables) {
      if (v["name"] != u.name) continue;
      v["counted"] = false;
      v["copy_of"] = u.copy_of.empty() ? Json() : Json(u.copy_of);
    }
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

// A signature's inputs or outputs, keyed as the signature keys them.
Json TensorsJson(const std::vector<GraphSummary::SignatureTensor>& tensors) {
  Json out = Json::object();
  for (const auto& t : tensors) {
    out[t.key] = {{"tensor", t.tensor},
                  {"dtype", DataTypeString(t.dtype)},
                  {"shape", ShapeJson(t.known_rank, t.dims)}};
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
  j["variables"] = VariablesJson(s);
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
    Json signatures = Json::object();
    for (const auto& sig : s.signatures) {
      signatures[sig.key] = {{"method", sig.method},
                             {"inputs", TensorsJson(sig.inputs)},
                             {"outputs", TensorsJson(sig.outputs)}};
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
