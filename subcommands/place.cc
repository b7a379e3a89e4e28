// dfg place: give every node a device (TensorFlow's Placer; lib/place/place.h).
#include "lib/place/place.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "lib/base/progress.h"
#include "lib/place/device_set.h"
#include "lib/place/place_binary.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct PlaceFlags {
  InputFlags input;
  OutputFlags output;
  std::vector<std::string> devices;
  bool soft_placement = false;
  bool keep_assigned = false;
  bool explain = false;
  bool explain_json = false;
};

// A binary GraphDef in, binary or text out, no --explain: placed straight
// from the file's bytes (lib/place/place_binary.h), in a fraction of the
// graph model's memory. False when that path declines (it then printed and
// wrote nothing) and the graph model must place the graph.
bool PlaceBytes(Context& ctx, const PlaceFlags& flags, const GraphInput& input,
                const DeviceSet& devices, const PlaceOptions& options) {
  StatusOr<GraphFormat> format =
      ResolveOutputFormat(flags.output, GraphFormat::kPbtxt);
  if (!format.ok() || options.explain || !IsPlainBinaryGraphDef(input.bytes) ||
      (*format != GraphFormat::kPb && *format != GraphFormat::kPbtxt)) {
    return false;
  }
  PlacementReport report;
  std::unique_ptr<PlacedBinaryGraph> placed;
  {
    ProgressStage stage("placing");
    placed = PlaceBinaryGraphDef(input.bytes, devices, options, &report);
  }
  if (placed == nullptr) return false;
  for (const std::string& warning : report.warnings) ctx.Warn(warning);
  const bool binary = *format == GraphFormat::kPb;
  Status written = WriteStreamedOutput(
      ctx, flags.output, binary, [&](const ChunkWriter& write) {
        if (binary) return placed->Write(write);
        return WriteGraphTextStreamed(
            [&](const NodeSink& sink) { return placed->ForEachNode(sink); },
            placed->rest(), write);
      });
  if (!written.ok()) ctx.Error(written);
  return true;
}

int RunPlace(Context& ctx, const PlaceFlags& flags) {
  if (!CheckDevicesGiven(ctx, flags.devices)) return ctx.exit_code;
  StatusOr<DeviceSet> devices = DeviceSetFromFlags(SplitList(flags.devices));
  if (!devices.ok()) return ctx.Error(devices.status());
  PlaceOptions options;
  options.allow_soft_placement = flags.soft_placement;
  options.keep_assigned = flags.keep_assigned;
  options.explain = flags.explain || flags.explain_json;
  GraphInput input;
  if (!ReadInputBytes(ctx, flags.input, &input)) return ctx.exit_code;
  if (PlaceBytes(ctx, flags, input, *devices, options)) return ctx.exit_code;
  google::protobuf::Arena arena(BigGraphArenaOptions());
  LoadedGraph loaded;
  tensorflow::GraphDef* graph =
      ParseInput(ctx, flags.input, std::move(input), &arena, &loaded);
  if (graph == nullptr) return ctx.exit_code;
  PlacementReport report;
  Status placed;
  {
    ProgressStage stage(fmt::format("placing {} nodes", graph->node_size()));
    placed = PlaceGraphDefInPlace(graph, *devices, options, &report);
  }
  for (const std::string& warning : report.warnings) ctx.Warn(warning);
  if (!placed.ok()) return ctx.Error(placed, InputName(flags.input));
  for (const NodePlacement& node : report.nodes) {
    *ctx.io.err << (flags.explain_json ? ExplainJson(node) : ExplainLine(node))
                << "\n";
  }
  if (Status status = WriteGraphOutput(ctx, flags.output, *graph);
      !status.ok()) {
    return ctx.Error(status);
  }
  return kExitOk;
}

}  // namespace

void RegisterPlace(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<PlaceFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "place",
      "give every node a device: requested devices, colocation, kernels, "
      "soft placement (TensorFlow's Placer)",
      [flags](Context& c) { return RunPlace(c, *flags); });
  AddInputFlags(sub, &flags->input);
  AddOutputFlags(sub, &flags->output);
  HintAtFile(sub->add_option(
      "--devices", flags->devices,
      "devices to place onto: cpu:0, gpu:1, "
      "/job:worker/task:1/gpu:0, full names, or @cluster.json "
      "(a cluster file: device counts per task, see man dfg-place); "
      "comma-separated or repeated; default one CPU"));
  sub->add_flag("--soft-placement", flags->soft_placement,
                "let a node whose requested device cannot run it move to one "
                "that can (TensorFlow's allow_soft_placement)");
  sub->add_flag("--keep-assigned", flags->keep_assigned,
                "treat fully specified device names already on nodes as "
                "assignments: never move those nodes");
  sub->add_flag("--explain", flags->explain,
                "on stderr, one line per node: its device, the candidates and "
                "the rule that decided");
  sub->add_flag("--explain-json", flags->explain_json,
                "on stderr, like --explain, one JSON object per line (the "
                "graph still goes to stdout)");
}

}  // namespace dfg
