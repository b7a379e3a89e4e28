// dfg convert: placeholder until its issue lands.
#include <CLI/CLI.hpp>

#include "subcommands/subcommands.h"

namespace dfg {

void RegisterConvert(CLI::App& app, Context& ctx) {
  AddSubcommand(app, ctx, "convert", "(not built yet)",
                [](Context& c) { return c.Error("not built yet"); });
}

}  // namespace dfg
