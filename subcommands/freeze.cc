// dfg freeze: one signature of a SavedModel as a standalone GraphDef
// (TensorFlow's freeze_graph / convert_variables_to_constants_v2): variables
// as Consts, function calls inlined, inputs and outputs named by the
// signature's keys.
#include "lib/savedmodel/freeze.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "lib/io/graph_io.h"
#include "subcommands/completion_script.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct FreezeFlags {
  InputFlags input;
  OutputFlags output;
  std::string signature = "serving_default";
  std::string checkpoint;
};

int RunFreeze(Context& ctx, const FreezeFlags& flags) {
  StatusOr<GraphFormat> format =
      ResolveOutputFormat(flags.output, GraphFormat::kPbtxt);
  if (!format.ok()) return ctx.Usage(format.status().message());
  if (*format == GraphFormat::kDot) {
    return ctx.Usage("DOT is a picture, not a GraphDef form; use 'dfg dot'");
  }
  LoadedGraph loaded;
  if (!LoadInput(ctx, flags.input, &loaded)) return ctx.exit_code;
  if (loaded.container == GraphContainer::kGraphDef) {
    return ctx.Error(fmt::format(
        "{}: not a SavedModel (a GraphDef has no signatures or variables to "
        "freeze; give a SavedModel directory, its saved_model.pb, or a "
        "MetaGraphDef with --checkpoint)",
        InputName(flags.input)));
  }
  FreezeOptions options;
  options.signature = flags.signature;
  options.load.session.inter_op_threads = 1;
  options.load.checkpoint = flags.checkpoint;
  StatusOr<tensorflow::GraphDef> frozen = FreezeSavedModel(loaded, options);
  if (!frozen.ok()) return ctx.Error(frozen.status(), InputName(flags.input));
  OutputFlags output = flags.output;
  output.format = GraphFormatName(*format);
  Status written = WriteGraphOutput(ctx, output, *frozen);
  if (!written.ok()) return ctx.Error(written);
  return kExitOk;
}

}  // namespace

void RegisterFreeze(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<FreezeFlags>();
  CLI::App* sub = AddSubcommand(
      app, ctx, "freeze",
      "Write one signature of a SavedModel as a standalone GraphDef "
      "(variables as constants, calls inlined, lookup tables filled by "
      "init_all_tables)",
      [flags](Context& c) { return RunFreeze(c, *flags); });
  AddInputFlags(sub, &flags->input);
  AddOutputFlags(sub, &flags->output, "pbtxt|pb|json");
  sub->get_option("--format")->check(CLI::IsMember({"pbtxt", "pb", "json"}));
  HintSignature(
      sub->add_option("--signature", flags->signature,
                      "the signature to freeze (default: serving_default)"));
  HintFile(sub->add_option(
      "--checkpoint", flags->checkpoint,
      "take the variables from checkpoint PREFIX (a .meta + checkpoint pair) "
      "instead of DIR/variables/variables"));
  sub->footer(
      "The variables get the values the SavedModel has once loaded (restore,\n"
      "then the init op). Inputs become Placeholders named by the signature's\n"
      "input keys; outputs are nodes named by its output keys.\n"
      "Examples:\n"
      "  dfg freeze saved_model_dir -o frozen.pb\n"
      "  dfg freeze saved_model_dir --signature regress_x2_to_y3 | dfg dot -T "
      "svg "
      "> g.svg\n"
      "  dfg run frozen.pb --feed x=[[1.0]] --fetch y");
}

}  // namespace dfg
