// The call graph of a library and its recursive functions: see
// function_calls.h.
#include "lib/graph/function_calls.h"

#include <algorithm>
#include <deque>
#include <utility>

namespace dfg {
namespace {

using tensorflow::AttrValue;
using tensorflow::FunctionDef;
using tensorflow::FunctionDefLibrary;

// The function names an attr value holds (func, list(func)); a placeholder
// ("$f", bound only when the function is instantiated) names none.
void FuncNames(const AttrValue& value, std::vector<const std::string*>* out) {
  if (value.has_func()) out->push_back(&value.func().name());
  if (value.has_list()) {
    for (const auto& f : value.list().func()) out->push_back(&f.name());
  }
}

}  // namespace

FunctionCallGraph::FunctionCallGraph(const FunctionDefLibrary* library)
    : library_(library) {
  const int n = library->function_size();
  index_.reserve(n);
  for (int i = 0; i < n; ++i) {
    index_.emplace(library->function(i).signature().name(), i);
  }
  calls_.resize(n);
  std::vector<const std::string*> names;
  for (int i = 0; i < n; ++i) {
    for (const auto& node : library->function(i).node_def()) {
      names.clear();
      names.push_back(&node.op());
      for (const auto& [key, value] : node.attr()) FuncNames(value, &names);
      for (const std::string* name : names) {
        auto it = index_.find(*name);
        if (it != index_.end()) calls_[i].push_back({it->second, node.name()});
      }
    }
  }
  FindRecursive();
}

// Tarjan's strongly connected components, with an explicit stack (a chain of
// 100,000 nested functions must not overflow the thread's): a function is
// recursive when its component has another function or it calls itself.
void FunctionCallGraph::FindRecursive() {
  const int n = static_cast<int>(calls_.size());
  std::vector<int> order(n, -1), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<int> stack;
  std::vector<std::pair<int, size_t>> walk;  // (function, next call)
  int counter = 0;
  for (int root = 0; root < n; ++root) {
    if (order[root] >= 0) continue;
    walk.push_back({root, 0});
    while (!walk.empty()) {
      auto& [v, next] = walk.back();
      if (next == 0 && order[v] < 0) {
        order[v] = low[v] = counter++;
        stack.push_back(v);
        on_stack[v] = true;
      }
      if (next < calls_[v].size()) {
        int w = calls_[v][next++].callee;
        if (order[w] < 0) {
          walk.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], order[w]);
        }
        continue;
      }
      const int done = v;
      walk.pop_back();
      if (!walk.empty()) {
        int parent = walk.back().first;
        low[parent] = std::min(low[parent], low[done]);
      }
      if (low[done] != order[done]) continue;
      std::vector<int> component;
      int w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = false;
        component.push_back(w);
      } while (w != done);
      bool self_call = false;
      for (const Call& c : calls_[done]) self_call |= c.callee == done;
      if (component.size() > 1 || self_call) {
        for (int f : component) {
          recursive_.insert(library_->function(f).signature().name());
        }
      }
    }
  }
}

Status FunctionCallGraph::CheckNotRecursive(const std::string& function) const {
  if (!IsRecursive(function)) return Status::Ok();
  // The shortest chain of calls from `function` back to it.
  const int start = index_.at(function);
  std::vector<const Call*> via(calls_.size(), nullptr);
  std::vector<int> from(calls_.size(), -1);
  std::deque<int> queue = {start};
  int last = -1;  // the caller whose call closes the cycle
  const Call* closing = nullptr;
  while (!queue.empty() && closing == nullptr) {
    int v = queue.front();
    queue.pop_front();
    for (const Call& c : calls_[v]) {
      if (c.callee == start) {
        last = v;
        closing = &c;
        break;
      }
      if (from[c.callee] >= 0 || c.callee == start) continue;
      from[c.callee] = v;
      via[c.callee] = &c;
      queue.push_back(c.callee);
    }
  }
  auto name = [&](int f) { return library_->function(f).signature().name(); };
  std::vector<std::pair<int, const Call*>> chain = {{last, closing}};
  for (int v = last; v != start; v = from[v])
    chain.push_back({from[v], via[v]});
  std::reverse(chain.begin(), chain.end());
  std::string stack;
  for (const auto& [caller, call] : chain) {
    stack += fmt::format(
        "\n  Function {{{{function_node {}}}}} contains node {{{{node {}}}}}"
        "\n  Node {{{{node {}}}}} calls function {{{{function_node {}}}}}",
        name(caller), call->node, call->node, name(call->callee));
  }
  return Unimplemented(
      "Recursive function calls are not supported. Node {{{{node {}}}}} "
      "inside the body of {{{{function_node {}}}}} calls function "
      "{{{{function_node {}}}}} which is already present in the call "
      "stack:{}",
      closing->node, name(last), function, stack);
}

const FunctionDef* FunctionCallGraph::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &library_->function(it->second);
}

FunctionDefLibrary FunctionCallGraph::CalledSignatures(
    const std::unordered_set<std::string>& ops) const {
  std::vector<std::string> sorted(ops.begin(), ops.end());
  std::sort(sorted.begin(), sorted.end());
  FunctionDefLibrary out;
  for (const std::string& op : sorted) {
    const FunctionDef* f = Find(op);
    if (f == nullptr) continue;
    FunctionDef* sig = out.add_function();
    *sig->mutable_signature() = f->signature();
    *sig->mutable_attr() = f->attr();
  }
  return out;
}

}  // namespace dfg
