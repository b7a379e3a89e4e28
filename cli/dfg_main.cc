#include "cli/dfg_main.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <ostream>

#include "cli/usage_hints.h"
#include "subcommands/subcommands.h"

namespace dfg {
namespace {

struct SubcommandEntry {
  const char* name;
  RegisterFn register_fn;
};

// The single table of subcommands, in the order `dfg --help` lists them.
constexpr SubcommandEntry kSubcommands[] = {
    {"prune", RegisterPrune},
    {"optimize", RegisterOptimize},
    {"place", RegisterPlace},
    {"partition", RegisterPartition},
    {"run", RegisterRun},
    {"server", RegisterServer},
    {"dot", RegisterDot},
    {"convert", RegisterConvert},
    {"info", RegisterInfo},
    {"freeze", RegisterFreeze},
    {"completion", RegisterCompletion},
};

// What each subcommand's own --help details; kept true per subcommand.
constexpr const char* kFooter =
    R"(Options several subcommands share, as each one's --help details.
  INPUT              a GraphDef (binary, text or JSON, detected by content; a
                     SavedModel directory or file, or a MetaGraphDef, gives
                     its graph); absent or - reads stdin. All but server and
                     completion.
  -o, --output PATH  where the result goes; absent or - writes stdout. All
                     but run (--output-dir DIR writes the fetched tensors)
                     and server; partition's is a directory.
  -f, --format F     the output form: pbtxt|pb|json for prune, optimize,
                     place, convert and freeze; dot|pbtxt|pb|json for
                     partition; dot|svg|png|pdf for dot; text|json for info.
  --json             the result as JSON on stdout: the graph (as -f json) for
                     prune, optimize, place, convert, freeze and partition;
                     info: the summary (as -f json); run: the fetched
                     tensors. Reports on stderr are --explain's.

Exit status: 0 success; 1 the graph, a tensor or a file is wrong (message on
stderr as 'dfg SUBCOMMAND: error: ...'); 2 usage error.

Pipelines: dfg prune --fetch y model.pb | dfg place --devices cpu:0,gpu:0 |
           dfg partition | dot -Tsvg > parts.svg
See 'dfg SUBCOMMAND --help' and man dfg.)";

}  // namespace

int DfgMain(int argc, const char* const* argv, const Io& io) {
  Context ctx;
  ctx.io = io;
  CLI::App app{
      "dfg: TensorFlow's local execution pipeline taken apart: prune, place,\n"
      "partition, run and draw GraphDefs from the shell.",
      "dfg"};
  app.set_version_flag("--version", std::string("dfg ") + DFG_VERSION);
  app.require_subcommand(1);
  app.footer(kFooter);
  for (const SubcommandEntry& entry : kSubcommands) {
    entry.register_fn(app, ctx);
  }
  // A repeatable option takes one value per occurrence, so that
  // `dfg prune --fetch y model.pb` reads model.pb as INPUT, not as a fetch.
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* opt : sub->get_options()) {
      if (!opt->get_positional()) opt->allow_extra_args(false);
    }
  }
  std::string unknown = UnknownSubcommandMessage(app, argc, argv);
  if (!unknown.empty()) {
    *io.err << fmt::format("dfg: error: {}\n", unknown);
    *io.err << "Run 'dfg --help' for usage.\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    *io.out << (app.get_subcommands().empty()
                    ? app.help()
                    : app.get_subcommands().front()->help());
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    *io.out << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::string sub = app.get_subcommands().empty()
                          ? ""
                          : " " + app.get_subcommands().front()->get_name();
    *io.err << fmt::format("dfg{}: error: {}\n", sub, e.what());
    if (!app.get_subcommands().empty()) {
      for (const std::string& hint :
           OptionHints(*app.get_subcommands().front(), argc, argv)) {
        *io.err << hint << "\n";
      }
    }
    *io.err << fmt::format("Run 'dfg{} --help' for usage.\n", sub);
    return kExitUsage;
  } catch (const std::exception& e) {
    *io.err << fmt::format("dfg {}: error: internal error: {}\n",
                           ctx.subcommand, e.what());
    return kExitError;
  }
  return ctx.exit_code;
}

}  // namespace dfg
