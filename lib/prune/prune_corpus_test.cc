// Every real graph of the shared corpus, pruned to its outputs in each
// convention, gives a graph that imports again with unique node names.
#include <set>
#include <sstream>

#include "lib/graph/graph_import.h"
#include "lib/io/graph_io.h"
#include "lib/prune/prune.h"
#include "lib/testing/catch.h"
#include "lib/testing/testing.h"

namespace dfg {
namespace {

// Targets: up to 5 nodes nothing consumes; feeds: up to 2 Placeholders.
PruneOptions OutputsOf(const GraphDef& graph) {
  std::set<std::string> consumed;
  for (const NodeDef& node : graph.node()) {
    for (const std::string& input : node.input()) {
      std::string name = input.substr(input[0] == '^' ? 1 : 0);
      consumed.insert(name.substr(0, name.find(':')));
    }
  }
  PruneOptions options;
  for (const NodeDef& node : graph.node()) {
    if (consumed.count(node.name()) == 0 && options.targets.size() < 5) {
      options.targets.push_back(node.name());
    }
    if (node.op() == "Placeholder" && options.feeds.size() < 2) {
      options.feeds.push_back(node.name());
    }
  }
  return options;
}

TEST_CASE("corpus graphs pruned in every convention import again", "[prune]") {
  if (!testing::CorpusDir()) {
    WARN("no ../shared/corpus: corpus test skipped");
    return;
  }
  int pruned = 0;
  for (const std::string& path : testing::CorpusFiles()) {
    INFO(path);
    std::istringstream no_stdin;
    auto loaded = ReadGraph(path, no_stdin);
    if (!loaded.ok() || !ImportGraphDef(loaded->graph).ok()) continue;
    PruneOptions options = OutputsOf(loaded->graph);
    if (options.targets.empty()) continue;
    for (Convention convention :
         {Convention::kFunction, Convention::kRendezvous,
          Convention::kPlaceholder}) {
      INFO(ConventionName(convention));
      options.convention = convention;
      StatusOr<PruneResult> result = Prune(loaded->graph, options);
      INFO(result.status().ToString());
      REQUIRE(result.ok());
      std::set<std::string> names;
      for (const NodeDef& node : result->graph.node())
        names.insert(node.name());
      CHECK(names.size() == static_cast<size_t>(result->graph.node_size()));
      auto again = ImportGraphDef(result->graph);
      INFO(again.status().ToString());
      CHECK(again.ok());
    }
    ++pruned;
  }
  CHECK(pruned > 50);
}

}  // namespace
}  // namespace dfg
