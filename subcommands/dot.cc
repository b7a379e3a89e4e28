// dfg dot: placeholder until its issue lands.
#include <CLI/CLI.hpp>

#include "subcommands/subcommands.h"

namespace dfg {

void RegisterDot(CLI::App& app, Context& ctx) {
  AddSubcommand(app, ctx, "dot", "(not built yet)",
                [](Context& c) { return c.Error("not built yet"); });
}

}  // namespace dfg
