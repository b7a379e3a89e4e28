// dfg convert: the same graph in another form (pbtxt, pb or JSON), nothing
// lost. The input form is detected from the content; a SavedModel,
// MetaGraphDef or TensorFlow.js model.json gives its GraphDef.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lib/graph/graph_check.h"
#include "lib/io/graph_io.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct ConvertFlags {
  InputFlags input;
  OutputFlags output;
};

// A SavedModel or MetaGraphDef is more than its graph: the output, a
// GraphDef, has neither the signatures nor (SavedModel) the variables'
// values, so say so instead of dropping them silently.
void WarnWhatIsLeftOut(Context& ctx, const ConvertFlags& flags,
                       const LoadedGraph& loaded) {
  if (loaded.container != GraphContainer::kSavedModel &&
      loaded.container != GraphContainer::kMetaGraphDef) {
    return;
  }
  std::vector<std::string> lost;
  size_t signatures = loaded.signatures.size();
  if (signatures > 0) {
    lost.push_back(fmt::format("its {} signature{}", signatures,
                               signatures == 1 ? "" : "s"));
  }
  if (!loaded.export_dir.empty() &&
      std::filesystem::exists(loaded.export_dir +
                              "/variables/variables.index")) {
    lost.push_back(
        fmt::format("its variables' values ({}/variables)", loaded.export_dir));
  }
  if (lost.empty()) return;
  ctx.Warn(fmt::format(
      "{}: the output is the {}'s GraphDef alone, without {}; 'dfg freeze' "
      "writes a signature with its variables as constants",
      InputName(flags.input), GraphContainerName(loaded.container),
      fmt::join(lost, " and ")));
}

int RunConvert(Context& ctx, const ConvertFlags& flags) {
  StatusOr<GraphFormat> format =
      ResolveOutputFormat(flags.output, GraphFormat::kPbtxt);
  if (!format.ok()) return ctx.Usage(format.status().message());
  if (*format == GraphFormat::kDot) {
    return ctx.Usage("DOT is a picture, not a GraphDef form; use 'dfg dot'");
  }
  google::protobuf::Arena arena(BigGraphArenaOptions());
  LoadedGraph loaded;
  tensorflow::GraphDef* graph = LoadInput(ctx, flags.input, &arena, &loaded);
  if (graph == nullptr) return ctx.exit_code;
  Status structure = CheckGraphStructure(*graph);
  if (!structure.ok()) return ctx.Error(structure, InputName(flags.input));
  if (*format != GraphFormat::kPb && HasUnknownFields(*graph)) {
    ctx.Warn(fmt::format(
        "{}: the graph has fields dfg does not model; {} cannot hold them, "
        "so they are left out (-f pb keeps them)",
        InputName(flags.input), GraphFormatName(*format)));
  }
  WarnWhatIsLeftOut(ctx, flags, loaded);
  OutputFlags output = flags.output;
  output.format = GraphFormatName(*format);
  Status written = WriteGraphOutput(ctx, output, *graph);
  if (!written.ok()) return ctx.Error(written);
  return kExitOk;
}

}  // namespace

void RegisterConvert(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<ConvertFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "convert",
      "Write the graph in another form: pbtxt, pb or json (nothing lost)",
      [flags](Context& c) { return RunConvert(c, *flags); });
  AddInputFlags(sub, &flags->input);
  AddOutputFlags(sub, &flags->output, "pbtxt|pb|json");
  sub->get_option("--format")->check(CLI::IsMember({"pbtxt", "pb", "json"}));
  sub->footer(
      "The input form (binary, text or JSON protobuf; GraphDef, MetaGraphDef,\n"
      "SavedModel or TensorFlow.js model.json) is detected from the content.\n"
      "Examples:\n"
      "  dfg convert saved_model.pb -o graph.pbtxt\n"
      "  dfg convert model.json -f pb -o frozen.pb\n"
      "  cat graph.pb | dfg convert -f json");
}

}  // namespace dfg
