// Every corpus graph gives DOT that Graphviz reads back. Laying each one out
// with `dot -Tsvg` is the ctest `dot_corpus_layout` (corpus_layout.sh), which
// also prints the seconds each layout took (no timed tests).
#include <sstream>

#include "lib/dot/dot.h"
#include "lib/io/graph_io.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

TEST_CASE("every corpus graph's default DOT re-parses in Graphviz", "[dot]") {
  if (!testing::CorpusDir()) {
    WARN("../shared/corpus is absent: skipping the corpus DOT test");
    return;
  }
  int drawn = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    std::istringstream no_stdin;
    StatusOr<LoadedGraph> loaded = ReadGraph(path, no_stdin);
    if (!loaded.ok()) {  // only the deliberately malformed file
      CHECK_THAT(path, Catch::Matchers::EndsWith("graph-malformed.pbtxt"));
      continue;
    }
    INFO(path);
    DotReport report;
    StatusOr<std::string> dot = GraphToDot(loaded->graph, {}, &report);
    REQUIRE(dot.ok());
    CHECK(report.drawn_nodes <= 1500);
    StatusOr<std::string> again = RenderDot(*dot, DotFormat::kDot);
    CHECK(again.ok());
    ++drawn;
  }
  CHECK(drawn > 90);
}

}  // namespace
}  // namespace dfg
