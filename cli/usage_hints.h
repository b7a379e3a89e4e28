// What dfg says after a usage error to get the user going: the subcommand a
// mistyped one was probably meant to be, and dfg's spelling of the options
// of TensorFlow's saved_model_cli (--inputs, --outdir, --tag_set...) and of
// mistyped options.
#ifndef DFG_CLI_USAGE_HINTS_H_
#define DFG_CLI_USAGE_HINTS_H_

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace dfg {

// For `dfg WORD ...` where WORD names no subcommand of `app` (and is not an
// option): "unknown subcommand 'ifo' (did you mean 'info'?)"; "" when WORD is
// a subcommand or there is no WORD.
std::string UnknownSubcommandMessage(const CLI::App& app, int argc,
                                     const char* const* argv);

// One line per option in `argv` that `sub` does not have, saying what to use
// instead: dfg's equivalent of a saved_model_cli option, else the nearest of
// sub's own options. Each line starts with "hint: ".
std::vector<std::string> OptionHints(const CLI::App& sub, int argc,
                                     const char* const* argv);

}  // namespace dfg

#endif  // DFG_CLI_USAGE_HINTS_H_
