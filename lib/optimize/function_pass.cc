// The function pass: every call of a library function in the graph is
// replaced by the function's body (Grappler's function optimizer and the
// runtime's InlineFunctionBody, which a session runs on PartitionedCall and
// StatefulPartitionedCall), so that the other passes see the body's nodes
// and the executor runs them without a nested executor per call.
#include <fmt/format.h>

#include "lib/optimize/function_inline.h"
#include "lib/optimize/pass.h"
#include "lib/prune/prune_unused.h"

namespace dfg::optimize {
namespace {

// A bound on inlined calls per graph: a function that calls itself would
// otherwise grow the graph forever (TensorFlow refuses such functions when
// it instantiates them; the call then stays a call and fails at run time
// with the runtime's error).
constexpr int kMaxInlinedCalls = 10000;

// The library function a call names, or null.
const tensorflow::FunctionDef* CalledFunction(const GraphDef& graph,
                                              const NodeDef& call) {
  std::string name = call.op();
  if (call.op() == "PartitionedCall" ||
      call.op() == "StatefulPartitionedCall") {
    auto f = call.attr().find("f");
    if (f == call.attr().end()) return nullptr;
    name = f->second.func().name();
  }
  for (const auto& fdef : graph.library().function()) {
    if (fdef.signature().name() == name) return &fdef;
  }
  return nullptr;
}

// A function that asks not to be inlined (TensorFlow's "_noinline" attr).
bool NoInline(const tensorflow::FunctionDef& fdef) {
  auto it = fdef.attr().find("_noinline");
  return it != fdef.attr().end() && it->second.b();
}

}  // namespace

Status RunFunctionPass(PassContext& ctx) {
  GraphDef& g = ctx.graph();
  if (g.library().function_size() == 0) return Status::Ok();
  FunctionInliner inliner(&g);
  int inlined = 0;
  for (bool progress = true; progress && inlined < kMaxInlinedCalls;) {
    progress = false;
    for (int i = 0; i < g.node_size(); ++i) {
      const NodeDef& n = g.node(i);
      // A call the user names (a target, a fetch of an unpruned graph)
      // keeps its name.
      if (!inliner.IsFunctionCall(n) || ctx.IsNamedPreserved(n.name())) {
        continue;
      }
      const tensorflow::FunctionDef* fdef = CalledFunction(g, n);
      if (fdef == nullptr || NoInline(*fdef)) continue;
      std::string what = Describe(n);
      std::string fname = fdef->signature().name();
      int before = g.node_size();
      DFG_RETURN_IF_ERROR(inliner.Inline(n.name()));
      ctx.Record("function", {what},
                 {fmt::format("{} nodes", g.node_size() - before + 1)},
                 fmt::format("body of {} inlined", fname));
      ++inlined;
      progress = true;
      break;  // indices moved
    }
  }
  if (inlined > 0) {
    // Functions only the inlined calls used go with them.
    PruneUnusedOptions options;
    for (const NodeDef& n : g.node()) options.roots.push_back("^" + n.name());
    PruneUnused(&g, options, nullptr);
  }
  return Status::Ok();
}

}  // namespace dfg::optimize
