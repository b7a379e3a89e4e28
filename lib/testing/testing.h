// Helpers shared by tests: where the source tree and ../shared are.
#ifndef DFG_LIB_TESTING_TESTING_H_
#define DFG_LIB_TESTING_TESTING_H_

#include <optional>
#include <string>
#include <vector>

namespace dfg::testing {

// The repository root (DFG_SOURCE_DIR, set by ctest; else the working dir).
std::string SourceDir();

// ../shared/corpus beside the repository, or nullopt when it is absent (as on
// a user's machine): callers then skip with a message.
std::optional<std::string> CorpusDir();

// Every file in the corpus directory except INDEX.md, sorted by name.
std::vector<std::string> CorpusFiles();

std::string ReadFileOrDie(const std::string& path);

}  // namespace dfg::testing

#endif  // DFG_LIB_TESTING_TESTING_H_
