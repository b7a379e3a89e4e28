// The whole CLI run in-process for tests: `dfg ARGS` through DfgMain with
// strings for stdin, stdout and stderr.
#ifndef DFG_CLI_RUN_DFG_TEST_UTIL_H_
#define DFG_CLI_RUN_DFG_TEST_UTIL_H_

#include <sstream>
#include <string>
#include <vector>

#include "cli/dfg_main.h"

namespace dfg::testing {

struct DfgRun {
  int code = 0;
  std::string out;
  std::string err;
};

inline DfgRun RunDfg(std::vector<std::string> args,
                     const std::string& stdin_text = "",
                     bool stdin_is_terminal = false) {
  args.insert(args.begin(), "dfg");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  Io io{&in, &out, &err, stdin_is_terminal, false, false};
  DfgRun run;
  run.code = DfgMain(static_cast<int>(argv.size()), argv.data(), io);
  run.out = out.str();
  run.err = err.str();
  return run;
}

}  // namespace dfg::testing

#endif  // DFG_CLI_RUN_DFG_TEST_UTIL_H_
