// dfg optimize: TensorFlow's graph optimizations (Grappler's passes) as a
// stage between prune and place (lib/optimize/optimize.h). Every rewrite can
// be listed (--explain); --passes picks the passes.
#include "lib/optimize/optimize.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <ostream>

#include "lib/base/strings.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct OptimizeFlags {
  InputFlags input;
  OutputFlags output;
  std::vector<std::string> passes;
  std::vector<std::string> keep;
  bool explain = false;
};

void PrintReport(Context& ctx, const OptimizeReport& report) {
  for (const Rewrite& r : report.rewrites) {
    *ctx.io.err << FormatRewrite(r) << "\n";
  }
  std::string counts;
  for (const auto& [pass, n] : report.pass_node_counts) {
    counts += fmt::format(", {} {}", pass, n);
  }
  *ctx.io.err << fmt::format(
      "{} rewrites; nodes: {} in{} (first round); {} out\n",
      report.rewrites.size(), report.nodes_before, counts, report.nodes_after);
}

int RunOptimize(Context& ctx, const OptimizeFlags& flags) {
  std::vector<std::string> known(AllPasses().begin(), AllPasses().end());
  for (const std::string& pass : SplitList(flags.passes)) {
    if (std::find(known.begin(), known.end(), pass) == known.end()) {
      return ctx.Usage(fmt::format("unknown pass '{}'{}; the passes are: {}",
                                   pass, DidYouMean(pass, known),
                                   fmt::join(known, ", ")));
    }
  }
  LoadedGraph loaded;
  if (!LoadInput(ctx, flags.input, &loaded)) return ctx.exit_code;
  OptimizeOptions options;
  options.passes = SplitList(flags.passes);
  options.preserve = SplitList(flags.keep);
  OptimizeReport report;
  Status status = Optimize(&loaded.graph, options, &report);
  if (!status.ok()) return ctx.Error(status, InputName(flags.input));
  if (Status s = WriteGraphOutput(ctx, flags.output, loaded.graph); !s.ok()) {
    return ctx.Error(s);
  }
  if (flags.explain) PrintReport(ctx, report);
  return kExitOk;
}

}  // namespace

void RegisterOptimize(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<OptimizeFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "optimize",
      "TensorFlow's graph optimizations (Grappler): inline functions, fold "
      "constants, simplify, fuse",
      [flags](Context& c) { return RunOptimize(c, *flags); });
  AddInputFlags(sub, &flags->input);
  AddOutputFlags(sub, &flags->output);
  sub->add_option("--passes", flags->passes,
                  "passes to run, comma-separated (default: all, in this "
                  "order):\n" +
                      DescribePasses());
  sub->add_option("--keep", flags->keep,
                  "nodes that must keep their name and outputs (what you will "
                  "feed or fetch from an unpruned graph); repeatable. Nodes "
                  "nothing consumes are always kept");
  sub->add_flag("--explain", flags->explain,
                "on stderr, one line per rewrite: pass, nodes taken -> nodes "
                "made: why; then the node count after each pass");
}

}  // namespace dfg
