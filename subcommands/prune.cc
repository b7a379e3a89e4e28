// dfg prune: keep what the fetches and targets need, cutting the fed tensors'
// edges (TensorFlow's subgraph::RewriteGraphForExecution; lib/prune/prune.h).
#include "lib/prune/prune.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "lib/base/progress.h"
#include "lib/base/strings.h"
#include "lib/graph/device_name.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct PruneFlags {
  InputFlags input;
  OutputFlags output;
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::string convention = "function";
  std::string client_device = kDefaultClientDevice;
  int64_t client_incarnation = 1;
  bool explain = false;
  std::string report;
};

PruneOptions ToOptions(const PruneFlags& flags) {
  PruneOptions options;
  options.feeds = SplitList(flags.feeds);
  options.fetches = SplitList(flags.fetches);
  options.targets = SplitList(flags.targets);
  ParseConvention(flags.convention, &options.convention);  // checked by CLI11
  options.client_device = flags.client_device;
  options.client_incarnation = flags.client_incarnation;
  options.explain = flags.explain || !flags.report.empty();
  return options;
}

// The client device must be a fully specified device name (full or legacy
// spelling); it is written in canonical form.
StatusOr<std::string> ClientDevice(const std::string& name) {
  StatusOr<std::string> canonical = CanonicalFullName(name);
  if (canonical.ok()) return canonical;
  return InvalidArgument(
      "invalid --client-device '{}' (expected a full device name such as {})",
      CEscape(name), kDefaultClientDevice);
}

int RunPrune(Context& ctx, const PruneFlags& flags) {
  PruneOptions options = ToOptions(flags);
  StatusOr<std::string> client_device = ClientDevice(flags.client_device);
  if (!client_device.ok()) return ctx.Error(client_device.status());
  options.client_device = *client_device;
  google::protobuf::Arena arena(BigGraphArenaOptions());
  LoadedGraph loaded;
  tensorflow::GraphDef* graph = LoadInput(ctx, flags.input, &arena, &loaded);
  if (graph == nullptr) return ctx.exit_code;
  PruneReport report;
  Status pruned;
  {
    ProgressStage stage(fmt::format("pruning {} nodes", graph->node_size()));
    pruned = PruneInPlace(graph, options, &report);
  }
  if (!pruned.ok()) return ctx.Error(pruned, InputName(flags.input));
  for (const std::string& warning : report.warnings) ctx.Warn(warning);
  if (Status status = WriteGraphOutput(ctx, flags.output, *graph);
      !status.ok()) {
    return ctx.Error(status);
  }
  if (!options.explain) return kExitOk;
  std::string json = PruneReportToJson(report);
  if (flags.report.empty()) {
    *ctx.io.err << json;
  } else if (Status status = WriteFileAtomically(flags.report, json);
             !status.ok()) {
    return ctx.Error(status);
  }
  return kExitOk;
}

}  // namespace

void RegisterPrune(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<PruneFlags>();
  CLI::App* sub =
      AddSubcommand(app, ctx, "prune",
                    "keep only what the fetches and targets need (TensorFlow's "
                    "RewriteGraphForExecution)",
                    [flags](Context& c) { return RunPrune(c, *flags); });
  AddInputFlags(sub, &flags->input);
  AddOutputFlags(sub, &flags->output);
  sub->add_option("--fetch", flags->fetches,
                  "tensor to compute, node[:port]; repeatable, "
                  "comma-separated lists too");
  sub->add_option("--feed", flags->feeds,
                  "tensor supplied at run time, node[:port]: nothing above "
                  "it is kept");
  sub->add_option("--target", flags->targets,
                  "node to run without fetching its outputs");
  sub->add_option("--convention", flags->convention,
                  "feed and fetch nodes: function (_Arg/_Retval, default), "
                  "rendezvous (_Recv/_Send), placeholder (a Placeholder per "
                  "feed, no fetch nodes)")
      ->check(CLI::IsMember({"function", "rendezvous", "placeholder"}));
  sub->add_option("--client-device", flags->client_device,
                  "device of the feed and fetch nodes, a full device name "
                  "(default " +
                      std::string(kDefaultClientDevice) + ")");
  sub->add_option("--client-incarnation", flags->client_incarnation,
                  "send_device_incarnation of rendezvous nodes (default 1)");
  sub->add_flag("--explain", flags->explain,
                "report on stderr, as JSON: kept nodes with a fetch or target "
                "that needs each, removed and created nodes");
  HintFile(
      sub->add_option("--report", flags->report,
                      "write the JSON report to this file instead of stderr"));
}

}  // namespace dfg
