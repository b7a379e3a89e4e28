// The whole command line as a function, so golden tests run it in-process.
#ifndef DFG_CLI_DFG_MAIN_H_
#define DFG_CLI_DFG_MAIN_H_

#include "subcommands/context.h"

namespace dfg {

// Parses argv (argv[0] is the program name), runs the subcommand, returns the
// exit code: 0 ok, 1 error in a graph/tensor/file, 2 usage.
int DfgMain(int argc, const char* const* argv, const Io& io);

}  // namespace dfg

#endif  // DFG_CLI_DFG_MAIN_H_
