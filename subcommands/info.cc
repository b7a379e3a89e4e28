// dfg info: what a graph is, at a glance: what TensorFlow's summarize_graph
// prints (inputs, variables, outputs, parameters, op types) plus node and
// edge counts, constant bytes, requested devices, library functions, ops dfg
// does not know or has no CPU kernel for, and a SavedModel's tags, signatures
// (which one is the default) and checkpoint tensors (inspect_checkpoint's
// list).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lib/io/graph_io.h"
#include "lib/io/graph_summary.h"
#include "lib/kernels/kernel_registry.h"
#include "lib/savedmodel/inspect.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct InfoFlags {
  InputFlags input;
  OutputFlags output;
  bool json = false;
};

// The summary's ops that dfg knows (not library functions, not unknown) but
// has no CPU kernel for.
void AddNoKernelOps(GraphSummary* s) {
  const std::vector<std::string> kernels =
      KernelRegistry::Global().OpNames(kDeviceCpu);
  std::set<std::string> skip;
  for (const auto& f : s->functions) skip.insert(f.name);
  for (const auto& [op, n] : s->unknown_ops) skip.insert(op);
  for (const auto& [op, n] : s->op_counts) {
    if (skip.count(op) == 0 &&
        !std::binary_search(kernels.begin(), kernels.end(), op)) {
      s->no_kernel_ops.emplace_back(op, n);
    }
  }
  std::sort(s->no_kernel_ops.begin(), s->no_kernel_ops.end());
}

// JSON for --json, -f json, or (without -f) an -o file named *.json.
StatusOr<bool> WantsJson(const InfoFlags& flags) {
  const std::string& format = flags.output.format;
  if (!format.empty() && format != "text" && format != "json") {
    return InvalidArgument(
        "unknown output format '{}' (info writes text or json)", format);
  }
  if (flags.json && format == "text") {
    return InvalidArgument("--json and -f text contradict each other");
  }
  if (flags.json || format == "json") return true;
  if (!format.empty()) return false;
  const std::string& out = flags.output.output;
  return out.size() > 5 && out.compare(out.size() - 5, 5, ".json") == 0;
}

int RunInfo(Context& ctx, const InfoFlags& flags) {
  StatusOr<bool> wants_json = WantsJson(flags);
  if (!wants_json.ok()) return ctx.Usage(wants_json.status().message());
  const bool json = *wants_json;
  // As LoadInput, but parsed straight into the summary (the graph lives in
  // an arena: much faster on big graphs).
  if (flags.input.input.empty() && ctx.io.stdin_is_terminal) {
    return ctx.Usage("no INPUT given and stdin is a terminal");
  }
  ReadOptions options;
  options.meta_graph_tag = flags.input.meta_graph_tag;
  std::string path = flags.input.input.empty() ? "-" : flags.input.input;
  StatusOr<GraphSummary> summary = ReadGraphSummary(path, *ctx.io.in, options);
  if (!summary.ok()) return ctx.Error(summary.status());
  Status listed = AddCheckpointToSummary(&*summary);
  if (!listed.ok()) return ctx.Error(listed);
  AddNoKernelOps(&*summary);
  std::string text =
      json ? GraphSummaryJson(*summary) : FormatGraphSummary(*summary);
  Status written = WriteOutput(ctx, flags.output, text, /*binary=*/false);
  if (!written.ok()) return ctx.Error(written);
  return kExitOk;
}

}  // namespace

void RegisterInfo(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<InfoFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "info",
      "Summarize a graph: inputs, outputs, ops, parameters, devices, functions",
      [flags](Context& c) { return RunInfo(c, *flags); });
  AddInputFlags(sub, &flags->input);
  HintFile(sub->add_option("-o,--output", flags->output.output,
                           "output file; absent or - writes stdout"));
  HintChoices(
      sub->add_option("-f,--format", flags->output.format,
                      "text|json (default: json for an -o file named *.json, "
                      "else text)"),
      {"text", "json"});
  sub->add_flag("--json", flags->json,
                "print the summary as a JSON object (the same as -f json)");
  sub->footer(
      "For a SavedModel, its signatures come first (as saved_model_cli show\n"
      "--all), then the lines of TensorFlow's summarize_graph tool.\n"
      "Examples:\n"
      "  dfg info model.pb\n"
      "  dfg info saved_model_dir      # also lists the checkpoint's tensors\n"
      "  dfg info saved_model.pb --meta-graph-tag serve --json");
}

}  // namespace dfg
