// A guard run before nlohmann::json parses text from the command line: the
// JSON values dfg walks (tensor literals, tf.Example feature lists) are
// walked recursively, so a literal nested 60,000 deep would overflow the
// stack. The scan counts brackets outside strings without building anything.
#ifndef DFG_SUBCOMMANDS_RUN_JSON_DEPTH_H_
#define DFG_SUBCOMMANDS_RUN_JSON_DEPTH_H_

#include <string_view>

#include "lib/base/status.h"

namespace dfg {

// kInvalidArgument naming the byte where `json` opens its (max_depth+1)-th
// nested array or object; Ok otherwise (malformed JSON included: the parser
// reports that).
Status CheckJsonDepth(std::string_view json, int max_depth);

}  // namespace dfg

#endif  // DFG_SUBCOMMANDS_RUN_JSON_DEPTH_H_
