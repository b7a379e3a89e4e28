// A session builds and runs a long chain of nodes in memory proportionate to
// the graph: a guard against a stage that holds the graph once too often
// (a copy per stage, a NodeDef per kernel), measured as the growth of the
// peak resident set, with a generous margin; no timing.
#include <fstream>
#include <string>

#include "lib/exec/session.h"
#include "lib/testing/catch.h"

namespace dfg {
namespace {

using tensorflow::NodeDef;

// Resets the peak resident set (VmHWM) to the current one; false where the
// kernel does not allow it (the test then reads the current VmRSS).
bool ResetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return clear.good();
}

int64_t RssKb(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string word;
  int64_t kb = 0;
  while (status >> word) {
    if (word == key && status >> kb) return kb;
  }
  return 0;
}

void SetFloat(NodeDef* node, const char* attr) {
  (*node->mutable_attr())[attr].set_type(tensorflow::DT_FLOAT);
}

// bench/big_chain.sh's graph: x, then Neg, Add(prev, x) and Identity in turn.
GraphDef Chain(int n) {
  GraphDef def;
  NodeDef* x = def.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  SetFloat(x, "dtype");
  (*x->mutable_attr())["shape"].mutable_shape();
  std::string prev = "x";
  const char* kOps[] = {"Identity", "Neg", "Add"};
  for (int i = 1; i <= n; ++i) {
    NodeDef* node = def.add_node();
    node->set_name("n" + std::to_string(i));
    node->set_op(kOps[i % 3]);
    node->add_input(prev);
    if (i % 3 == 2) node->add_input("x");
    SetFloat(node, "T");
    prev = node->name();
  }
  def.mutable_versions()->set_producer(1700);
  return def;
}

// Sanitizers keep freed blocks and shadow memory: their RSS says nothing of
// the session's own (DFG_SANITIZED: lib/exec/CMakeLists.txt).
#if defined(DFG_SANITIZED)
constexpr int64_t kSlack = 8;
#else
constexpr int64_t kSlack = 1;
#endif

TEST_CASE("session builds and runs a 100000-node chain in proportionate memory",
          "[exec]") {
  constexpr int kNodes = 100000;
  const bool peak = ResetPeakRss();
  const int64_t before = RssKb("VmRSS:");
  {
    auto session = Session::Create(Chain(kNodes), SessionOptions());
    REQUIRE(session.ok());
    Tensor x(tensorflow::DT_FLOAT, TensorShape({}));
    x.scalar<float>() = 1.0f;
    std::vector<Tensor> out;
    Status s =
        (*session)->Run({{"x", x}}, {"n" + std::to_string(kNodes)}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    float want = 1.0f;
    for (int i = 1; i <= kNodes; ++i) {
      if (i % 3 == 1) want = -want;
      if (i % 3 == 2) want += 1.0f;
    }
    REQUIRE(out.size() == 1);
    CHECK(out[0].scalar<float>() == want);
  }
  const int64_t after = RssKb(peak ? "VmHWM:" : "VmRSS:");
  INFO("RSS before " << before << " KB, peak " << after << " KB");
  // About 190 MB at this size (the GraphDef, the placed graph, the client
  // graph, the kernels, which share the executor graph's NodeDefs); twice
  // that means a stage holds the graph once too often.
  CHECK(after - before < kSlack * 450 * 1024);
}

}  // namespace
}  // namespace dfg
