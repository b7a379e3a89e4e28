// The subcommands, each registered from its own file. cli/ keeps the single
// table that lists them (no registration through static constructors).
#ifndef DFG_SUBCOMMANDS_SUBCOMMANDS_H_
#define DFG_SUBCOMMANDS_SUBCOMMANDS_H_

#include "subcommands/context.h"

namespace CLI {
class App;
}

namespace dfg {

// Each adds its subcommand to `app`; its callback runs with `ctx` and leaves
// the exit code in ctx.exit_code.
using RegisterFn = void (*)(CLI::App& app, Context& ctx);

void RegisterConvert(CLI::App& app, Context& ctx);
void RegisterInfo(CLI::App& app, Context& ctx);
void RegisterPrune(CLI::App& app, Context& ctx);
void RegisterOptimize(CLI::App& app, Context& ctx);
void RegisterPlace(CLI::App& app, Context& ctx);
void RegisterPartition(CLI::App& app, Context& ctx);
void RegisterRun(CLI::App& app, Context& ctx);
void RegisterDot(CLI::App& app, Context& ctx);
void RegisterFreeze(CLI::App& app, Context& ctx);
void RegisterCompletion(CLI::App& app, Context& ctx);
void RegisterServer(CLI::App& app, Context& ctx);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_SUBCOMMANDS_H_
