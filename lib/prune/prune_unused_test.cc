#include "lib/prune/prune_unused.h"

#include <algorithm>

#include "lib/prune/prune_test_util.h"

namespace dfg {
namespace {

using prune_test::Float;
using prune_test::FloatConst;
using prune_test::Op;
using prune_test::Parse;

std::vector<std::string> NodeNames(const GraphDef& graph) {
  std::vector<std::string> names;
  for (const NodeDef& n : graph.node()) names.push_back(n.name());
  return names;
}

std::vector<std::string> Sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

// a -> b -> c, with d only reached through c's control input; e is unused.
const char* kChain = R"(
  node { name: 'a' op: 'Const' }
  node { name: 'e' op: 'Const' }
  node { name: 'b' op: 'Identity' input: 'a' }
  node { name: 'd' op: 'NoOp' }
  node { name: 'c' op: 'Identity' input: 'b:0' input: '^d' }
)";

TEST_CASE("NeededNodes follows data and control inputs from any root form",
          "[prune]") {
  GraphDef graph = Parse(kChain);
  CHECK(Sorted(NeededNodes(graph, {"c:0"})) ==
        std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(Sorted(NeededNodes(graph, {"^b", "nowhere"})) ==
        std::vector<std::string>{"a", "b"});
  CHECK(NeededNodes(graph, {}).empty());
}

TEST_CASE("PruneUnused keeps the roots' ancestors and kept nodes in order",
          "[prune]") {
  GraphDef graph = Parse(kChain);
  PruneUnusedOptions options;
  options.roots = {"b"};
  options.keep = {"d"};
  PruneUnused(&graph, options, nullptr);
  CHECK(NodeNames(graph) == std::vector<std::string>{"a", "b", "d"});
}

TEST_CASE("PruneUnused drops colocation entries naming removed nodes",
          "[prune]") {
  GraphDef graph = Parse(
      FloatConst("gone") + FloatConst("v") +
      Op("r", "Identity", {"v"},
         Float() + prune_test::Attr("_class",
                                    "list { s: 'loc:@v' s: 'loc:@gone' "
                                    "s: 'other' }")) +
      Op("only_gone", "Identity", {"v"},
         Float() + prune_test::Attr("_class", "list { s: 'loc:@gone' }")));
  PruneUnusedOptions options;
  options.roots = {"r", "only_gone"};
  PruneReport report;
  PruneUnused(&graph, options, &report);
  CHECK(NodeNames(graph) == std::vector<std::string>{"v", "r", "only_gone"});
  const auto& r_class = graph.node(1).attr().at("_class").list().s();
  CHECK(std::vector<std::string>(r_class.begin(), r_class.end()) ==
        std::vector<std::string>{"loc:@v", "other"});
  CHECK(graph.node(2).attr().count("_class") == 0);
  CHECK(report.dropped_colocations ==
        std::vector<std::string>{"r: loc:@gone", "only_gone: loc:@gone"});
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0], Catch::Matchers::Contains("dropped 2"));
}

// f is called by a kept node and calls g; h is called only by a removed
// node; f has a gradient function grad_f.
const char* kLibrary = R"(
  node { name: 'x' op: 'Const' }
  node { name: 'call' op: 'f' input: 'x' }
  node { name: 'dead' op: 'h' input: 'x' }
  library {
    function { signature { name: 'f' } node_def { name: 'n' op: 'g' } }
    function { signature { name: 'g' } }
    function { signature { name: 'h' } }
    function { signature { name: 'grad_f' } }
    gradient { function_name: 'f' gradient_func: 'grad_f' }
    gradient { function_name: 'h' gradient_func: 'grad_f' }
  }
)";

std::vector<std::string> FunctionNames(const GraphDef& graph) {
  std::vector<std::string> names;
  for (const auto& f : graph.library().function()) {
    names.push_back(f.signature().name());
  }
  return names;
}

TEST_CASE("PruneUnused keeps the functions kept nodes reach, and gradients",
          "[prune]") {
  GraphDef graph = Parse(kLibrary);
  PruneUnusedOptions options;
  options.roots = {"call"};
  PruneReport report;
  PruneUnused(&graph, options, &report);
  CHECK(NodeNames(graph) == std::vector<std::string>{"x", "call"});
  CHECK(FunctionNames(graph) == std::vector<std::string>{"f", "g", "grad_f"});
  CHECK(report.dropped_functions == std::vector<std::string>{"h"});
  REQUIRE(graph.library().gradient_size() == 1);
  CHECK(graph.library().gradient(0).function_name() == "f");
}

TEST_CASE("PruneUnused without gradients keeps no function only for them",
          "[prune]") {
  GraphDef graph = Parse(kLibrary);
  PruneUnusedOptions options;
  options.roots = {"call"};
  options.drop_gradients = true;
  PruneUnused(&graph, options, nullptr);
  CHECK(FunctionNames(graph) == std::vector<std::string>{"f", "g"});
  CHECK(graph.library().gradient_size() == 0);

  // A graph whose functions all go loses its library.
  GraphDef no_calls = Parse(kLibrary);
  options.roots = {"x"};
  PruneUnused(&no_calls, options, nullptr);
  CHECK(NodeNames(no_calls) == std::vector<std::string>{"x"});
  CHECK_FALSE(no_calls.has_library());
}

}  // namespace
}  // namespace dfg
