// dfg partition: cut a placed graph into one graph per device or worker, with
// _Send/_Recv pairs at the cut (TensorFlow's Partition; lib/partition),
// through lib/pipeline as the session and the master do.
#include "lib/partition/partition.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>

#include "lib/dot/dot.h"
#include "lib/pipeline/execution_state.h"
#include "lib/place/device_set.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct PartitionFlags {
  InputFlags input;
  OutputFlags output;  // -o is a directory here
  std::string by = "device";
  uint64_t incarnation = 1;
  std::vector<std::string> devices;
  bool soft_placement = false;
  bool explain = false;
};

Status WriteResult(Context& ctx, const PartitionFlags& flags,
                   const std::map<std::string, GraphDef*>& parts) {
  // -o is a directory: pbtxt files there by default, else DOT on stdout.
  const std::string& out = flags.output.output;
  bool to_dir = !out.empty() && out != "-";
  DFG_ASSIGN_OR_RETURN(
      GraphFormat format,
      ResolveOutputFormat(flags.output,
                          to_dir ? GraphFormat::kPbtxt : GraphFormat::kDot));
  if (to_dir) return WritePartitionFiles(out, format, parts);
  if (format != GraphFormat::kDot) {
    DFG_ASSIGN_OR_RETURN(
        std::string data,
        SerializeGraph(MergePartitions(CopyPartitions(parts)), format));
    return WriteOutput(ctx, flags.output, data, format == GraphFormat::kPb);
  }
  DotReport report;
  DFG_ASSIGN_OR_RETURN(std::string dot, PartitionsToDot(CopyPartitions(parts),
                                                        DotOptions(), &report));
  for (const std::string& note : report.notes) {
    *ctx.io.err << "dfg partition: note: " << note << "\n";
  }
  return WriteOutput(ctx, flags.output, dot, false);
}

// A FailedPrecondition means the input is not placed: say what to do.
int NotPlaced(Context& ctx, const Status& status, const std::string& where) {
  if (status.code() != Code::kFailedPrecondition) {
    return ctx.Error(status, where);
  }
  return ctx.Error(where + ": " + status.message() +
                   ": the graph is not placed; run 'dfg place' first, or "
                   "pass --devices");
}

int RunPartition(Context& ctx, const PartitionFlags& flags) {
  PlacedClientGraphOptions placement;
  placement.allow_soft_placement = flags.soft_placement;
  if (!CheckDevicesGiven(ctx, flags.devices)) return ctx.exit_code;
  if (!flags.devices.empty()) {
    StatusOr<DeviceSet> set = DeviceSetFromFlags(SplitList(flags.devices));
    if (!set.ok()) return ctx.Error(set.status());
    placement.devices = std::move(set).value();
  }
  // The graph, its nodes and the partitions made of them live on one arena.
  auto arena =
      std::make_unique<google::protobuf::Arena>(BigGraphArenaOptions());
  LoadedGraph loaded;
  GraphDef* def = LoadInput(ctx, flags.input, arena.get(), &loaded);
  if (def == nullptr) return ctx.exit_code;
  const std::string where = InputName(flags.input);
  // With the node order and edge ids of TensorFlow's session.
  auto graph = ImportPlacedClientGraph(def, placement);
  if (!graph.ok()) {
    return placement.devices ? ctx.Error(graph.status(), where)
                             : NotPlaced(ctx, graph.status(), where);
  }
  std::vector<Transfer> transfers;
  PartitionOptions options;
  options.by =
      flags.by == "worker" ? PartitionBy::kWorker : PartitionBy::kDevice;
  options.incarnation = flags.incarnation;
  options.transfers = flags.explain ? &transfers : nullptr;
  // The graph is not used afterwards: its nodes move into the partitions.
  auto parts = PartitionClientGraphOnArena(graph->get(), options);
  if (!parts.ok()) return NotPlaced(ctx, parts.status(), where);
  if (flags.explain) {
    *ctx.io.err << PartitionReportJson(CopyPartitions(*parts), transfers);
  }
  if (Status s = WriteResult(ctx, flags, *parts); !s.ok()) return ctx.Error(s);
  // The graph and the arena (the partitions' nodes) are not used any more:
  // the process may end without freeing them.
  LeaveToExit(ctx, &*graph);
  LeaveToExit(ctx, &arena);
  return kExitOk;
}

}  // namespace

void RegisterPartition(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<PartitionFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "partition",
      "split a placed graph per device or worker, with _Send/_Recv pairs at "
      "the cut (TensorFlow's Partition)",
      [flags](Context& c) { return RunPartition(c, *flags); });
  AddInputFlags(sub, &flags->input);
  HintFile(sub->add_option("-o,--output", flags->output.output,
                           "directory: one file per partition (default: DOT, "
                           "or with -f one merged graph, on stdout)"));
  sub->add_option("-f,--format", flags->output.format,
                  "dot, pbtxt, pb or json (default: dot on stdout, pbtxt "
                  "files with -o)")
      ->check(CLI::IsMember({"dot", "pbtxt", "pb", "json"}));
  AddJsonFormatFlag(sub, &flags->output, "the partitions (one merged graph)");
  sub->add_option("--by", flags->by, "device (default) or worker")
      ->check(CLI::IsMember({"device", "worker"}));
  sub->add_option("--incarnation", flags->incarnation,
                  "send_device_incarnation of every device (default 1)");
  HintAtFile(sub->add_option("--devices", flags->devices,
                             "place first on these devices (as dfg place)"));
  sub->add_flag("--soft-placement", flags->soft_placement,
                "with --devices: let nodes move off impossible requests");
  sub->add_flag("--explain", flags->explain,
                "on stderr, as JSON: the partitions with node counts, and "
                "every transfer of the cut");
}

}  // namespace dfg
