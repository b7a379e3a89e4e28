// dfg info: placeholder until its issue lands.
#include <CLI/CLI.hpp>

#include "subcommands/subcommands.h"

namespace dfg {

void RegisterInfo(CLI::App& app, Context& ctx) {
  AddSubcommand(app, ctx, "info", "(not built yet)",
                [](Context& c) { return c.Error("not built yet"); });
}

}  // namespace dfg
