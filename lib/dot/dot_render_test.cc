// Rendering through gvc (layout, render, freeing the layout), apart from what
// the drawing shows: pictures that once crashed Graphviz's cleanup.
#include <sstream>

#include "lib/dot/dot.h"
#include "lib/io/graph_io.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

// Labelled edges between nodes of one rank that are not neighbours give dot
// virtual label nodes on the rank above, growing that rank's array; when the
// array moves, Graphviz 2.42 frees the old block again in gvFreeLayout
// (AddressSanitizer's realloc always moves it; glibc's often does).
constexpr const char* kFlatLabels = R"(digraph {
  top -> a; top -> b; top -> c; top -> d;
  { rank=same; a; b; c; d; }
  a -> d [label="l1"]; a -> c [label="l2"]; b -> d [label="l3"];
  a -> b [label="l4"];
})";

TEST_CASE("labelled edges within one rank render and free their layout",
          "[dot]") {
  for (DotFormat format : {DotFormat::kSvg, DotFormat::kPng}) {
    for (int i = 0; i < 3; ++i) {
      StatusOr<std::string> out = RenderDot(kFlatLabels, format);
      REQUIRE(out.ok());
      CHECK(out->size() > 100);
    }
  }
}

TEST_CASE("a corpus graph folded at depth 2 renders to SVG", "[dot]") {
  std::optional<std::string> corpus = testing::CorpusDir();
  if (!corpus) {
    WARN("../shared/corpus is absent: skipping the folded corpus render");
    return;
  }
  // Its folded gradient scopes give labelled edges within one rank; this
  // picture aborted with "double free detected in tcache 2" in every run.
  std::istringstream no_stdin;
  StatusOr<LoadedGraph> loaded =
      ReadGraph(*corpus + "/tfrust__regression_model.pb", no_stdin);
  REQUIRE(loaded.ok());
  DotOptions options;
  options.collapse_depth = 2;
  options.format = DotFormat::kSvg;
  for (int i = 0; i < 3; ++i) {
    StatusOr<std::string> svg = GraphToDot(loaded->graph, options);
    REQUIRE(svg.ok());
    CHECK(svg->find("</svg>") != std::string::npos);
  }
}

}  // namespace
}  // namespace dfg
